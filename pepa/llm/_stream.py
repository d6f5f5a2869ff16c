"""Run a command-line LLM (``pi -p PROMPT``) and stream its output as it arrives."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pepa.base.threads import thread_name

__all__ = ["StreamingCommand", "kill_group"]

logger = logging.getLogger(__name__)


class StreamingCommand:
    """One run of an external command; output lines go to ``on_chunk`` as they come.

    Two reader threads (stdout, stderr) call ``on_chunk(stream, text)``; when
    both streams end, ``on_done(code, duration_ms)`` is called once. Callbacks
    must only enqueue. The command runs in its own process group, so
    ``cancel()`` and the timeout end whatever it started too (a shell script's
    ``sleep`` would otherwise hold the pipes open). ``cwd`` and ``env`` are
    where and with what it runs (the caller's private directory and
    allow-listed environment, :mod:`pepa.llm._isolation`); ``cleanup`` runs
    once the process and its readers are done, before ``on_done``. ``name`` is
    what log lines call it (``argv[0]`` by default; the pi command when ``argv``
    starts with its sandbox, :mod:`pepa.llm.sandbox`).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        on_chunk: Callable[[str, str], None],
        on_done: Callable[[int, int], None],
        timeout: float = 600.0,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        cleanup: Callable[[], None] | None = None,
        name: str = "",
    ) -> None:
        self.argv = list(argv)
        self.name = name or self.argv[0]
        self._cwd = cwd
        self._env = dict(env) if env is not None else None
        self._cleanup = cleanup
        self._on_chunk = on_chunk
        self._on_done = on_done
        self._timeout = timeout
        self._proc: subprocess.Popen[str] | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Spawn the process and its reader threads; raises OSError if it cannot run."""
        started = time.monotonic()
        self._proc = subprocess.Popen(
            self.argv,
            cwd=self._cwd,
            env=self._env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            start_new_session=True,
        )
        proc = self._proc
        readers = [
            threading.Thread(
                target=self._pump,
                args=(proc.stdout, "stdout"),
                daemon=True,
                name=thread_name("pepa-llm-stdout"),
            ),
            threading.Thread(
                target=self._pump,
                args=(proc.stderr, "stderr"),
                daemon=True,
                name=thread_name("pepa-llm-stderr"),
            ),
        ]
        waiter = threading.Thread(
            target=self._wait,
            args=(readers, started),
            daemon=True,
            name=thread_name("pepa-llm-wait"),
        )
        self._threads = [*readers, waiter]
        for thread in self._threads:
            thread.start()

    def cancel(self) -> None:
        """Kill the process and its children if it still runs."""
        if self._proc is not None:
            kill_group(self._proc)

    def join(self, timeout: float = 5.0) -> None:
        """Wait for the reader threads to end."""
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _pump(self, pipe: object, stream: str) -> None:
        for line in iter(pipe.readline, ""):  # type: ignore[attr-defined]
            self._on_chunk(stream, line)
        pipe.close()  # type: ignore[attr-defined]

    def _wait(self, readers: list[threading.Thread], started: float) -> None:
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=self._timeout)
        except subprocess.TimeoutExpired:
            logger.warning("%s ran past %gs; killed", self.name, self._timeout)
            kill_group(self._proc)
            code = self._proc.wait()
        kill_group(self._proc)  # anything it left behind would hold the pipes open
        for reader in readers:
            reader.join()
        if self._cleanup is not None:
            self._cleanup()
        self._on_done(code, int((time.monotonic() - started) * 1000))


def kill_group(proc: subprocess.Popen[str] | subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group ``proc`` leads (started with ``start_new_session``)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # the whole group has already ended
