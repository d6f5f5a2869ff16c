"""The JS bridge of this process: one Node process, started by JSPyBridge on first use.

This is the only module that imports ``javascript``. Every link of the process (a fleet
worker's several bots, a daemon worker's one) calls into the same bridge: :func:`bridge`
imports JSPyBridge once, on the wheel's Node with pepa's options, and makes its calls
thread-safe (:mod:`pepa.link.jspy`); :func:`bridge_alive` tells whether its Node still runs;
:func:`shutdown_bridge` stops it as the worker exits.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from typing import Any

from pepa.base.node import compile_cache_env, node_binary, node_modules
from pepa.link.jspy import harden

__all__ = ["BRIDGE_NODE_OPTIONS", "bridge", "bridge_alive", "shutdown_bridge"]

logger = logging.getLogger(__name__)

_javascript: Any = None
_bridge_lock = threading.Lock()

BRIDGE_NODE_OPTIONS = "--max-semi-space-size=64"
"""The bridge's young generation: up to 64 MiB a half (Node's own limit is 16). A bridge of
eight working bots allocates fast (packets, chunks, path searches' nodes), and each scavenge
holds the loop every bot of it shares: with a young generation four times as large, scavenges
come a quarter as often and most of what they would have copied is already dead. V8 grows it
only under that pressure. JSPyBridge starts Node as ``$NODE_BIN bridge.js``, so the flag goes
through ``NODE_OPTIONS``, for the bridge's start only (docs/fleet.md)."""


def bridge() -> Any:
    """Import JSPyBridge once per process, on the wheel's Node 22."""
    global _javascript
    with _bridge_lock:
        if _javascript is None:
            os.environ["NODE_BIN"] = str(node_binary())  # read once, at import
            os.environ.setdefault("PEPA_NODE_MODULES", str(node_modules()))
            for name, value in compile_cache_env().items():
                os.environ.setdefault(name, value)
            options = os.environ.get("NODE_OPTIONS")
            # the import starts the bridge (its first call waits for the Node process)
            ours = f"{options} {BRIDGE_NODE_OPTIONS}" if options else BRIDGE_NODE_OPTIONS
            os.environ["NODE_OPTIONS"] = ours
            try:
                import javascript
            finally:
                if options is None:
                    del os.environ["NODE_OPTIONS"]
                else:
                    os.environ["NODE_OPTIONS"] = options

            harden(javascript)  # thread-safe calls; a late answer no longer wedges it
            _javascript = javascript
        return _javascript


def bridge_alive() -> bool:
    """Whether this process's bridge was started and its Node still runs."""
    return _javascript is not None and bool(_javascript.connection.is_alive())


def shutdown_bridge() -> None:
    """Stop the JS bridge's Node process, if this process started one.

    JSPyBridge's exit handler then has nothing left to do but its fixed 0.4 s wait for
    the bridge's last output ("allow final IO"): it is dropped, so a worker exits at once.
    """
    if _javascript is not None:
        loop = _javascript.config.event_loop
        try:
            _javascript.terminate()
        except Exception as exc:
            logger.debug("bridge terminate failed: %r", exc)
        if loop is not None:
            atexit.unregister(loop.on_exit)
