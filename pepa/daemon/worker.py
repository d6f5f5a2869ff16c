"""The worker process: logging, the socket server and the actor tree.

Run by the process supervisor as ``python -m pepa.daemon``; the resolved
configuration arrives through a pipe (``PEPA_CONFIG_FD``, see
:mod:`pepa.daemon.handover`), never in the environment, and the worker drops
every secret from its own environment before it starts a child. Exit codes: 0
a requested stop, 2 bad configuration or an unsafe state directory, 3 the actor
tree gave up, 1 anything unexpected. The reason of a non-zero exit is left in
``worker-exit.json`` for the parent.

Signals only record (:class:`~pepa.base.signals.SignalInbox`): SIGTERM and SIGINT
stop the worker, SIGUSR1 logs every thread's traceback. A thread of its own
(``signals``) acts on them from the start of :meth:`Worker.run` to its end, so
a main thread stuck in the start or the teardown (an actor that does not
answer or does not stop, a bridge that does not close) still dumps on SIGUSR1.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import orjson
import pykka.debug

from pepa.base import logs
from pepa.base.childenv import scrub_environ
from pepa.base.dirs import StateDirError, secure_state
from pepa.base.errors import PepaError
from pepa.base.node import WorldError
from pepa.base.signals import SignalInbox
from pepa.daemon import handover
from pepa.daemon.bothost import BotHost
from pepa.daemon.config import Config, config_from_json
from pepa.daemon.handover import ENV_PARENT, ENV_RELOAD_TOKEN, EXIT_FILE
from pepa.link.bridge import shutdown_bridge
from pepa.runtime import Scheduler
from pepa.state.files import write_atomic
from pepa.state.retention import MIB

__all__ = ["ENV_PARENT", "EXIT_FILE", "Worker", "main"]

logger = logging.getLogger(__name__)

ENV_FAIL_START = "PEPA_FAULT_START"
ENV_REFLEX_POLL = "PEPA_REFLEX_POLL"
SIGNAL_THREAD_JOIN = 5.0
"""Seconds the end of :meth:`Worker.run` waits for a dump in progress."""
SWITCH_INTERVAL = 0.00025
"""GIL switch interval: 0.25 ms keeps the ask p99 near 1 ms beside a CPU-bound actor.

Measured by bench/ask_roundtrip.py.
"""
GC_THRESHOLDS = (50_000, 20, 100)
"""Python's cyclic collector, run less often than its default (700, 10, 10): every thread
stops for a collection, and with the world views, lessons and bridge objects a bot keeps, a
full one took tens of milliseconds, often enough to be the p99 of a death's lesson (69 ms
against 4.8 ms with these; bench/death_to_lesson.py)."""


class Worker:
    """One worker: builds everything, waits for a stop, tears down in reverse."""

    def __init__(
        self,
        config: Config,
        *,
        heartbeat_interval: float = 1.0,
        heartbeat_timeout: float = 5.0,
        signals: SignalInbox | None = None,
        reload_token: str = "",
    ) -> None:
        self.config = config
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_timeout = heartbeat_timeout
        self.signals = signals or SignalInbox()
        """Where SIGTERM/SIGINT/SIGUSR1 land (installed by :func:`main`); closed by :meth:`run`."""
        self.reload_token = reload_token
        self.stop_event = threading.Event()
        self._stop_lock = threading.Lock()
        self.exit_code = 0
        self.exit_reason = ""
        self._host: BotHost | None = None

    def request_stop(self, code: int = 0, reason: str = "") -> None:
        """Ask the worker to stop (thread-safe, never from a signal handler; first reason wins)."""
        with self._stop_lock:
            if self.stop_event.is_set():
                return
            self.exit_code, self.exit_reason = code, reason
            self.stop_event.set()
        if self._host is not None:
            self._host.stopping.set()  # a stop during the start: no connecting

    def handle_signals(self, signums: list[int]) -> None:
        """Act on signals the inbox recorded: stop, or dump every thread (never in a handler)."""
        for signum in signums:
            name = signal.Signals(signum).name
            if signum == signal.SIGUSR1:
                logger.warning("%s: the traceback of every thread follows", name)
                pykka.debug.log_thread_tracebacks()
            else:
                self.request_stop(0, name)

    def wait_for_stop(self) -> None:
        """Sleep until a stop is requested (the ``signals`` thread requests one on SIGTERM)."""
        self.stop_event.wait()

    @contextlib.contextmanager
    def acting_on_signals(self) -> Iterator[None]:
        """A ``signals`` thread acts on the inbox while the body runs; then its pipe is closed.

        Not the main thread: the main thread may be stuck for a long time in
        the start or the teardown, and SIGUSR1 exists for exactly then. The
        handlers stay installed after the pipe is closed, so a SIGTERM that
        comes while the process exits is recorded, not fatal.
        """
        done = threading.Event()
        thread = threading.Thread(
            target=self._act_on_signals, args=(done,), name="signals", daemon=True
        )
        thread.start()
        try:
            yield
        finally:
            done.set()
            self.signals.wake()
            thread.join(SIGNAL_THREAD_JOIN)
            self.signals.close(restore=False)

    def _act_on_signals(self, done: threading.Event) -> None:
        while True:
            finished = done.is_set()
            try:
                self.handle_signals(self.signals.take() if finished else self.signals.wait(None))
            except Exception:  # a dead signals thread would make the worker deaf
                logger.exception("acting on a signal failed")
            if finished:
                return

    def run(self) -> int:
        """Run until stopped; return the exit code. Closes :attr:`signals`' pipe at the end."""
        with self.acting_on_signals():
            return self._run()

    def _run(self) -> int:
        config = self.config
        server_dir = config.server_dir
        notes = secure_state(config.state_dir, server_dir)  # StateDirError: exit code 2
        (server_dir / EXIT_FILE).unlink(missing_ok=True)
        ring = logs.configure(logs_dir=server_dir / "logs", max_file_bytes=config.log_max_mb * MIB)
        for note in notes:
            logger.warning("state directory: %s", note)
        sys.setswitchinterval(SWITCH_INTERVAL)
        gc.set_threshold(*GC_THRESHOLDS)
        scheduler = Scheduler().start()
        host = BotHost(
            config,
            scheduler=scheduler,
            ring=ring,
            on_exit=self.request_stop,
            fail_start=_fail_start(config),
            heartbeat_interval=self.heartbeat_interval,
            heartbeat_timeout=self.heartbeat_timeout,
            reload_token=self.reload_token,
            reflex_poll=_reflex_poll(),
        )
        self._host = host
        logger.info("worker %d starting: %s", os.getpid(), config.redacted())
        try:
            if not self.stop_event.is_set():
                host.start()
            self.wait_for_stop()
        except WorldError as exc:
            logger.error("worker cannot run: %s", exc)
            self.request_stop(2, str(exc))
        except PepaError as exc:
            logger.error("worker cannot run: %s", exc)
            self.request_stop(1, str(exc))
        finally:
            logger.info("worker stopping (%s)", self.exit_reason or "signal")
            host.link.close()
            shutdown_bridge()
            host.stop()
            scheduler.stop()
        if self.exit_code:
            _write_exit(server_dir, self.exit_code, self.exit_reason)
        logger.info("worker exits with code %d", self.exit_code)
        return self.exit_code


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
        # atomic, and never through a link planted at the name
        write_atomic(server_dir / EXIT_FILE, orjson.dumps({"code": code, "reason": reason[:2000]}))
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


def _read_config() -> Config:
    """The configuration the parent wrote into the pipe named by ``PEPA_CONFIG_FD``."""
    fd = int(os.environ.pop(handover.ENV_CONFIG_FD))
    return config_from_json(orjson.loads(handover.receive(fd)))


def main() -> int:
    """Entry point of the worker process."""
    # first: from here on a signal is only recorded, whatever the main thread is doing
    signals = SignalInbox((signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)).install()
    scrub_environ()  # before any child: the JS bridge, pi and git inherit what is left
    reload_token = os.environ.pop(ENV_RELOAD_TOKEN, "")
    try:
        config = _read_config()
    except (PepaError, KeyError, ValueError, TypeError) as exc:
        print(
            f"pepa worker: no usable configuration from pepa start "
            f"({handover.ENV_CONFIG_FD}): {exc}",
            file=sys.stderr,
        )
        return 2
    _die_with_parent()
    worker = Worker(config, signals=signals, reload_token=reload_token)
    try:
        return worker.run()
    except StateDirError as exc:
        print(f"pepa worker: error: {exc}", file=sys.stderr)  # not ours: write nothing in it
        return 2
    except Exception as exc:
        logger.exception("worker failed")
        _write_exit(config.server_dir, 1, f"{type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
