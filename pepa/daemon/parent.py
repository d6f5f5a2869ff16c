"""The process supervisor: ``pepa start`` keeps one worker process alive.

The worker holds the actor tree and the Minecraft connection; when it dies —
a crash, a dead JS bridge, kill -9 — the supervisor starts a new one after a
backoff (immediate the first time, then exponential with jitter, reset after a
stable minute). More than ``max_restarts`` restarts within ``period`` seconds
and it gives up: one line saying why, exit code 3. SIGINT and SIGTERM stop the
worker (SIGTERM, then SIGKILL after ``stop_timeout``) and exit 0; the handlers
only record the signal (:class:`~pepa.base.signals.SignalInbox`), the loop acts.

Before it takes the lock it makes the state directories private
(:mod:`pepa.base.dirs`). The worker gets an environment without
secrets (:mod:`pepa.base.childenv`) and its configuration through a pipe
(:mod:`pepa.daemon.handover`).

With ``reload`` (``pepa start --reload``) it also watches the Python sources
and, once changed code passes an import check, stops the worker the same way
and starts a new one at once; that restart is not a crash (no backoff, not
counted). See ``pepa.daemon.reload`` and docs/reload.md.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TextIO

import orjson

from pepa.base.dirs import secure_state
from pepa.base.errors import PepaError
from pepa.base.signals import SignalInbox
from pepa.daemon.config import Config
from pepa.daemon.handover import ENV_RELOAD_TOKEN
from pepa.daemon.lock import StateLock
from pepa.daemon.reload import Reloader, describe, source_roots
from pepa.daemon.restarts import (
    EXIT_CONFIG,
    EXIT_GAVE_UP,
    EXIT_STOP,
    Restarts,
    exit_reason,
    spawn_worker,
)
from pepa.ipc.paths import EXIT_FILE
from pepa.runtime import Backoff
from pepa.worldserver.process import EmbeddedWorld

__all__ = ["EXIT_GAVE_UP", "ProcessSupervisor"]

logger = logging.getLogger(__name__)


def keep_world_alive(world: EmbeddedWorld | None, say: Callable[[str], None], then: str) -> None:
    """Start the embedded world again if it died (``then``: what the bots do about it)."""
    if world is None or world.alive():
        return
    say(f"the embedded world stopped; starting it again ({then})")
    try:
        world.stop()
        world.start()
    except PepaError as exc:
        say(f"cannot restart the embedded world: {exc}")


class ProcessSupervisor:
    """Starts the worker, restarts it when it dies, stops it on a signal."""

    def __init__(
        self,
        config: Config,
        *,
        max_restarts: int = 5,
        period: float = 60.0,
        backoff: Backoff | None = None,
        stop_timeout: float = 30.0,
        worker_argv: Sequence[str] | None = None,
        out: TextIO | None = None,
        world: EmbeddedWorld | None = None,
        reload: bool = False,
    ) -> None:
        self.config = config
        self.budget = Restarts.within(max_restarts, period, backoff)
        """The worker's restart budget and backoff (:mod:`pepa.daemon.restarts`)."""
        self.stop_timeout = stop_timeout
        self.worker_argv = list(worker_argv or [sys.executable, "-m", "pepa.daemon"])
        self.out = out or sys.stdout
        self.world = world
        self._stopping = threading.Event()
        self._signals = SignalInbox((signal.SIGINT, signal.SIGTERM))
        self._proc: subprocess.Popen[bytes] | None = None
        self.reloader = (
            Reloader(source_roots(), socket_path=config.socket_path, say=self.say)
            if reload
            else None
        )
        self._reloading = False
        self.reloads = 0

    def say(self, text: str) -> None:
        """One line for the person at the terminal."""
        print(f"pepa: {text}", file=self.out, flush=True)

    def stop(self, reason: str = "stop requested") -> None:
        """Stop the worker and the loop (any thread, never a signal handler: those only record).

        Wakes the loop at once, even in a backoff sleep.
        """
        if not self._stopping.is_set():
            self._stopping.set()
            logger.info("stopping: %s", reason)
        self._signals.wake()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass

    def run(self) -> int:
        """Supervise until stopped or given up; return the exit code.

        Raises :class:`~pepa.base.dirs.StateDirError` (exit code 2) when a
        state directory is not safely this user's.
        """
        config = self.config
        for note in secure_state(config.state_dir, config.server_dir):
            self.say(note)
        lock = StateLock(config.server_dir / "daemon.lock").acquire()
        try:
            self._signals.install()
            if self.world is not None:
                self.world.start()
                self.say(
                    f"embedded world on {self.world.address} (Minecraft {self.world.version}, "
                    f"offline mode): join it with a client to watch or play with the bot"
                )
            self.say(f"socket {config.socket_path}")
            if self.reloader is not None:
                roots = ", ".join(map(str, self.reloader.roots))
                self.say(f"--reload: watching {self.reloader.watcher.files} files under {roots}")
            return self._loop()
        finally:
            if self.world is not None:
                self.world.stop()
            self._signals.close()  # the handlers restored, the pipe closed
            lock.release()

    def _check_signals(self, timeout: float = 0.0) -> bool:
        """Act on signals received (waiting up to ``timeout`` for one); True once stopping."""
        signums = self._signals.wait(timeout) if timeout > 0 else self._signals.take()
        for signum in signums:
            self.stop(signal.Signals(signum).name)
        return self._stopping.is_set()

    def _sleep(self, seconds: float) -> bool:
        """Sleep ``seconds`` unless a signal stops us first; True if stopping."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            if self._check_signals(remaining):
                return True
        return self._check_signals()

    def _loop(self) -> int:
        while not self._check_signals():
            started = time.monotonic()
            code = self._run_worker()
            if self._stopping.is_set():
                return 0
            if self._reloading:  # not a crash: no backoff, not counted
                self._reloading = False
                self.reloads += 1
                continue
            now = time.monotonic()
            verdict = self.budget.after_exit(code, ran_for=now - started, now=now)
            if verdict.action == "stopped":
                self.say("worker stopped on request")
                return EXIT_STOP
            reason = exit_reason(
                code, [self.config.server_dir], unknown="the exit reason is unknown"
            )
            if verdict.action == "refused":
                self.say(f"worker refused its configuration: {reason}")
                return EXIT_CONFIG
            if verdict.action == "give_up":
                intensity = self.budget.intensity
                self.say(
                    f"giving up: the worker died more than {intensity.max_restarts} times "
                    f"in {intensity.period:g}s (last: {reason})"
                )
                return EXIT_GAVE_UP
            self.say(f"worker died ({reason}); restart {self.budget.count} in {verdict.delay:.1f}s")
            if self._sleep(verdict.delay):
                return 0
        return 0

    def _run_worker(self) -> int:
        exit_file = self.config.server_dir / EXIT_FILE
        exit_file.unlink(missing_ok=True)
        reload = {ENV_RELOAD_TOKEN: self.reloader.token} if self.reloader is not None else {}
        self._proc = spawn_worker(self.worker_argv, orjson.dumps(self.config.to_json()), reload)
        proc = self._proc
        if self._check_signals():  # a signal arrived while spawning
            self.stop()
        deadline: float | None = None
        while (code := proc.poll()) is None:
            stopping = self._check_signals(0.1 if deadline else 0.5)
            if proc.poll() is not None:
                continue
            if not stopping and not self._reloading:
                self._keep_world_alive()
                self._reload_if_changed()
                continue
            deadline = deadline or time.monotonic() + self.stop_timeout
            if time.monotonic() > deadline:
                self.say(f"worker did not stop within {self.stop_timeout:g}s; killing it")
                proc.kill()
                deadline = time.monotonic() + self.stop_timeout  # say it once per period
        return code

    def _reload_if_changed(self) -> None:
        """Stop the worker (SIGTERM) if changed sources passed the import check."""
        if self.reloader is None or self._proc is None:
            return
        changed = self.reloader.poll(time.monotonic(), cancelled=self._check_signals)
        if not changed or self._stopping.is_set() or self._proc.poll() is not None:
            return
        self.say(f"reloading after change in {describe(changed, self.reloader.roots)}")
        self._reloading = True
        try:
            self._proc.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass

    def _keep_world_alive(self) -> None:
        keep_world_alive(self.world, self.say, "the bot reconnects by itself")
