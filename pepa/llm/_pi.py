"""The ``pi`` back end: ``pi -p PROMPT``, a command-line agent that prints its answer."""

from __future__ import annotations

import logging
import shlex
import shutil
import subprocess
import time

from pepa.llm._base import (
    CancelToken,
    Chunk,
    Done,
    LlmCancelled,
    LlmError,
    LlmTimeout,
    LlmUnavailable,
    Running,
)
from pepa.llm._stream import StreamingCommand, kill_group

__all__ = ["PiBackend"]

logger = logging.getLogger(__name__)


class PiBackend:
    """Runs ``<command> -p PROMPT``; the command is found on PATH at each call.

    ``command`` may carry arguments of its own (``pi --model small``); the
    process runs in its own group so a timeout or a cancel ends all of it.
    """

    name = "pi"

    def __init__(self, command: str = "pi") -> None:
        self.command = command

    def argv(self, prompt: str) -> list[str]:
        """The command line for ``prompt``; raises :class:`LlmUnavailable` if not installed."""
        words = shlex.split(self.command)
        if not words:
            raise LlmUnavailable("the pi command is empty (PEPA_PI_COMMAND)")
        path = shutil.which(words[0])
        if path is None:
            raise LlmUnavailable(f"`{words[0]}` is not on PATH")
        return [path, *words[1:], "-p", prompt]

    def stream(self, prompt: str, *, on_chunk: Chunk, on_done: Done, timeout: float) -> Running:
        """Stream stdout and stderr lines as they come."""
        command = StreamingCommand(
            self.argv(prompt), on_chunk=on_chunk, on_done=on_done, timeout=timeout
        )
        try:
            command.start()
        except OSError as exc:
            raise LlmUnavailable(f"cannot run {self.command}: {exc}") from exc
        return command

    def complete(self, prompt: str, *, timeout: float, cancel: CancelToken | None = None) -> str:
        """Stdout of one run; a non-zero exit, a timeout or a cancel is an error."""
        argv = self.argv(prompt)
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise LlmUnavailable(f"cannot run {self.command}: {exc}") from exc
        if cancel is not None:
            cancel.on_cancel(lambda: kill_group(proc))
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            proc.communicate()
            raise LlmTimeout(f"{self.name} gave no reply within {timeout:g}s") from None
        finally:
            kill_group(proc)  # anything it left behind
        if cancel is not None and cancel.cancelled:
            raise LlmCancelled(f"{self.name} call cancelled")
        logger.debug(
            "%s exited %d after %.1fs (%d chars)",
            self.name, proc.returncode, time.monotonic() - started, len(stdout),
        )  # fmt: skip
        if proc.returncode != 0:
            said = _first_line(stderr) or _first_line(stdout) or "no output"
            raise LlmError(f"{self.name} exited with code {proc.returncode}: {said}")
        return stdout


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""
