"""The worker process: logging, the socket server and the actor tree.

Run by the process supervisor as ``python -m pepa.daemon`` with the
resolved configuration in ``PEPA_WORKER_CONFIG``. Exit codes: 0 a requested
stop, 2 bad configuration, 3 the actor tree gave up, 1 anything unexpected.
The reason of a non-zero exit is left in ``worker-exit.json`` for the parent.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

import orjson
import pykka.debug

from pepa import logs
from pepa.actors.perception import WorldEvent
from pepa.actors.tree import build_tree
from pepa.bus import Bus
from pepa.config import EMBEDDED_HOST, Config, config_from_json
from pepa.errors import PepaError, SupervisionError
from pepa.events import ClientConnected, CommandReceived
from pepa.ipc.server import IpcServer
from pepa.llm import settings_from_config
from pepa.supervision import Ping, Registry, Runtime, Scheduler, start_tree, stop_tree
from pepa.world.embedded import DEFAULT_VERSION
from pepa.world.link import LinkSettings, MinecraftLink, shutdown_bridge
from pepa.world.node import WorldError, node_modules

__all__ = ["ENV_CONFIG", "EXIT_FILE", "Worker", "main"]

logger = logging.getLogger(__name__)

ENV_CONFIG = "PEPA_WORKER_CONFIG"
ENV_PARENT = "PEPA_PARENT_PID"
ENV_FAIL_START = "PEPA_FAULT_START"
ENV_REFLEX_POLL = "PEPA_REFLEX_POLL"
EXIT_FILE = "worker-exit.json"
START_TIMEOUT = 60.0
"""Seconds the whole actor tree may take to start."""
SWITCH_INTERVAL = 0.00025
"""GIL switch interval: 0.25 ms keeps the ask p99 near 1 ms beside a CPU-bound actor.

Measured by bench/ask_roundtrip.py.
"""


class Worker:
    """One worker: builds everything, waits for a stop, tears down in reverse."""

    def __init__(
        self,
        config: Config,
        *,
        heartbeat_interval: float = 1.0,
        heartbeat_timeout: float = 5.0,
    ) -> None:
        self.config = config
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_timeout = heartbeat_timeout
        self.stop_event = threading.Event()
        self.exit_code = 0
        self.exit_reason = ""

    def request_stop(self, code: int = 0, reason: str = "") -> None:
        """Ask the worker to stop (thread-safe; the first reason wins)."""
        if not self.stop_event.is_set():
            self.exit_code, self.exit_reason = code, reason
            self.stop_event.set()

    def _tree_started(self, runtime: Runtime, root: str) -> bool:
        """Wait until every actor has run its ``setup`` (the root answers only then)."""
        try:
            runtime.registry.handle(root).ask(Ping(), timeout=START_TIMEOUT)
        except SupervisionError as exc:
            if not self.stop_event.is_set():
                self.request_stop(1, f"the actor tree did not start: {exc}")
            return False
        return not self.stop_event.is_set()

    def run(self) -> int:
        """Run until stopped; return the exit code."""
        config = self.config
        server_dir = config.server_dir
        server_dir.mkdir(parents=True, exist_ok=True)
        (server_dir / EXIT_FILE).unlink(missing_ok=True)
        ring = logs.configure(logs_dir=server_dir / "logs")
        sys.setswitchinterval(SWITCH_INTERVAL)
        runtime = Runtime(
            registry=Registry(),
            scheduler=Scheduler().start(),
            bus=Bus(),
            fault_injection=config.fault_injection,
            fail_start=_fail_start(config),
        )
        bus_handler = logs.BusHandler(runtime.bus.publish)
        logging.getLogger().addHandler(bus_handler)
        ipc = runtime.registry.handle("ipc")
        perception = runtime.registry.handle("perception")
        link = MinecraftLink(
            LinkSettings(
                host=config.host or EMBEDDED_HOST,
                port=config.port,
                username=config.username,
                version=config.version or (DEFAULT_VERSION if config.embedded else None),
                password=config.password,
                server_dir=server_dir,
            ),
            on_event=lambda raw: perception.tell(WorldEvent(raw)),
            on_bridge_dead=lambda reason: self.request_stop(1, reason),
        )
        server = IpcServer(
            config.socket_path,
            on_command=lambda client, command: ipc.tell(
                CommandReceived(client_id=client, command=command)
            ),
            on_connect=lambda client: ipc.tell(ClientConnected(client_id=client)),
            fault_injection=config.fault_injection,
        )
        spec = build_tree(
            server_dir=server_dir,
            ipc_server=server,
            ring=ring,
            started_at=time.time(),
            server_label=f"{config.host or EMBEDDED_HOST}:{config.port}",
            username=config.username,
            llm_backend=config.llm_backend,
            request_stop=lambda: self.request_stop(0, "stop requested"),
            link=link,
            operators=config.operators,
            reflex_poll=_reflex_poll(),
            data_root=_minecraft_data(),
            heartbeat_interval=self.heartbeat_interval,
            heartbeat_timeout=self.heartbeat_timeout,
            llm=settings_from_config(config),
            db_url=config.db_url,
            reflect_every=config.reflect_every,
            curriculum=config.curriculum,
            wiki_url=config.wiki_url or "",
            learning=config.learning,
        )
        logger.info("worker %d starting: %s", os.getpid(), config.redacted())
        root = None
        try:
            root = start_tree(spec, runtime, lambda reason: self.request_stop(3, reason))
            if self._tree_started(runtime, spec.id):
                server.start()
                logger.info("listening on %s", config.socket_path)
                link.start()
            self.stop_event.wait()
        except WorldError as exc:
            logger.error("worker cannot run: %s", exc)
            self.request_stop(2, str(exc))
        except PepaError as exc:
            logger.error("worker cannot run: %s", exc)
            self.request_stop(1, str(exc))
        finally:
            logger.info("worker stopping (%s)", self.exit_reason or "signal")
            link.close()
            shutdown_bridge()
            server.stop()
            if root is not None:
                stop_tree(root, runtime, timeout=20.0)
            runtime.hang_release.set()
            runtime.scheduler.stop()
            logging.getLogger().removeHandler(bus_handler)
        if self.exit_code:
            _write_exit(server_dir, self.exit_code, self.exit_reason)
        logger.info("worker exits with code %d", self.exit_code)
        return self.exit_code


def _minecraft_data() -> Path | None:
    """minecraft-data's data folder (from npm ci), for seeding the knowledge base."""
    try:
        root = node_modules() / "minecraft-data" / "minecraft-data" / "data"
    except WorldError as exc:
        logger.warning("no minecraft-data to seed the knowledge base: %s", exc)
        return None
    return root if root.is_dir() else None


def _reflex_poll() -> float | None:
    """``PEPA_REFLEX_POLL=0.3``: decide only every 0.3 s, as polling bots do (benchmarks only)."""
    raw = os.environ.get(ENV_REFLEX_POLL)
    if not raw:
        return None
    try:
        return max(0.01, float(raw))
    except ValueError:
        logger.warning("%s=%r is not a number of seconds; ignored", ENV_REFLEX_POLL, raw)
        return None


def _fail_start(config: Config) -> frozenset[str]:
    """Actors whose start must fail, from ``PEPA_FAULT_START`` (fault injection only)."""
    names = frozenset(n for n in os.environ.get(ENV_FAIL_START, "").split(",") if n)
    if names and not config.fault_injection:
        logger.warning("%s ignored: fault injection is off", ENV_FAIL_START)
        return frozenset()
    return names


def _write_exit(server_dir: Path, code: int, reason: str) -> None:
    try:
        (server_dir / EXIT_FILE).write_bytes(orjson.dumps({"code": code, "reason": reason}))
    except OSError as exc:
        logger.warning("cannot record the exit reason: %s", exc)


def _die_with_parent() -> None:
    """Ask Linux to SIGTERM this process when the process supervisor dies."""
    parent = int(os.environ.get(ENV_PARENT, "0") or 0)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        logger.debug("prctl unavailable; the worker will not follow its parent's death")
    if parent and os.getppid() != parent:
        sys.exit(1)  # the parent died before we could ask


def main() -> int:
    """Entry point of the worker process."""
    try:
        config = config_from_json(orjson.loads(os.environ[ENV_CONFIG]))
    except (KeyError, ValueError, TypeError) as exc:
        print(f"pepa worker: bad {ENV_CONFIG}: {exc}", file=sys.stderr)
        return 2
    _die_with_parent()
    worker = Worker(config)

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        worker.request_stop(0, signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGUSR1, pykka.debug.log_thread_tracebacks)
    try:
        return worker.run()
    except Exception as exc:
        logger.exception("worker failed")
        _write_exit(config.server_dir, 1, f"{type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
