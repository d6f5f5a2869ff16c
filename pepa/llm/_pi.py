"""The ``pi`` back end: a command-line agent run as a text function, or as an agent.

Structured asks (post-mortems, plans, idle suggestions) run::

    <pi command> --no-tools [--no-extensions --no-skills …] -p PROMPT

with its tools off: the prompt carries text from outside (an operator's goal,
death messages), and a model that reads "ignore previous instructions, run
…" must have nothing to run. Whether the command can turn its tools off is
asked once per command (``<command> --help`` lists ``--no-tools``); one that
cannot is not used for structured asks (:class:`LlmUnavailable`, one warning).
Only a definite answer is kept for good; a probe that failed for a passing
reason (no answer in time on a cold start, cannot start, crashed) is asked
again after :data:`PROBE_RETRY`. A probe holds up only the asks of its own
command.
Only :meth:`PiBackend.stream` with ``tools=True`` — the operator's
``cmd:ask-pi`` from the socket — runs it as an agent, ``<pi command> -p
PROMPT``. A prompt that starts with ``-`` or ``@`` gets a leading space, so pi
never reads it as an option or a file. Every run, the probe included, happens in a fresh private
directory with an allow-listed environment (:mod:`pepa.llm._isolation`), inside
a bubblewrap sandbox that shows it none of this user's files but the system,
that directory, pi's own directory and pi's program (:mod:`pepa.llm.sandbox`).
Without bwrap a run with tools is refused; a structured ask runs unconfined.
"""

from __future__ import annotations

import logging
import math
import os
import re
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

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
from pepa.llm._isolation import child_env, make_private_dir, private_dir, remove_private_dir
from pepa.llm._stream import StreamingCommand, kill_group
from pepa.llm.sandbox import confine

__all__ = [
    "DISCOVERY_OFF",
    "NO_TOOLS",
    "PROBE_RETRY",
    "PROBE_TIMEOUT",
    "TOOL_WORDS",
    "Abilities",
    "PiBackend",
    "agent_argv",
    "supported_options",
    "text_argv",
]

logger = logging.getLogger(__name__)

NO_TOOLS = "--no-tools"
"""pi's option that turns every tool off (built-in and extension)."""
DISCOVERY_OFF = (
    "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-context-files",
    "--no-session",
)  # fmt: skip
"""pi's options that stop it loading extensions, skills, templates, AGENTS.md, sessions;
each is passed only when the command's ``--help`` lists it (an older pi lacks some)."""
TOOL_WORDS = ("--tools", "-t", "--extension", "-e")
"""Options in the configured command that would bring tools back next to ``--no-tools``."""
PROBE_TIMEOUT = 10.0
"""Seconds ``<command> --help`` may take."""
PROBE_RETRY = 300.0
"""Seconds after which a probe that failed for a passing reason is asked again."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Abilities:
    """What one pi command can do, found out once from its ``--help``."""

    options: tuple[str, ...]
    """The options a structured ask passes: ``--no-tools`` first, then the ``--no-*`` it has."""
    refusal: str = ""
    """Why structured asks may not use it (empty: they may)."""
    transient: bool = False
    """The refusal may pass (a slow cold start, a pi being reinstalled): the command is
    asked again after :data:`PROBE_RETRY`. A help text, with ``--no-tools`` or without,
    is a definite answer."""


def supported_options(help_text: str) -> tuple[str, ...]:
    """Which of ``--no-tools`` and :data:`DISCOVERY_OFF` ``help_text`` lists, in that order."""
    return tuple(
        option
        for option in (NO_TOOLS, *DISCOVERY_OFF)
        if re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text)
    )


def _literal(prompt: str) -> str:
    """The prompt as one message, never an option or a file: pi reads ``-x`` as an option
    and ``@x`` as a file, so such a prompt gets a leading space. pi 0.73 refuses ``--``
    (``Unknown option: --``), so the leading space is the only guard, for every pi."""
    return f" {prompt}" if prompt.startswith(("-", "@")) else prompt


def text_argv(command: Sequence[str], options: Sequence[str], prompt: str) -> list[str]:
    """``[*command, *options, "-p", prompt]``: a structured ask, tools off."""
    return [*command, *options, "-p", _literal(prompt)]


def agent_argv(command: Sequence[str], prompt: str) -> list[str]:
    """``[*command, "-p", prompt]``: the operator's question, pi's tools on."""
    return [*command, "-p", _literal(prompt)]


def _tool_words(words: Sequence[str]) -> list[str]:
    return [w for w in words if w in TOOL_WORDS or w.startswith(("--tools=", "--extension="))]


_probed: dict[tuple[str, ...], tuple[Abilities, float]] = {}
"""Per command: what it can do, and until when (monotonic; ``inf`` for a definite answer)."""
_probing: dict[tuple[str, ...], threading.Lock] = {}
"""Per command: held while it is probed, so its asks wait for one probe, not run many."""
_state_lock = threading.Lock()
"""Guards the tables and ``_warned``; never held across a probe."""
_warned: set[str] = set()


def _unavailable(why: str) -> LlmUnavailable:
    """The error for ``why``; the first time in this process, also a warning."""
    with _state_lock:
        first = why not in _warned
        _warned.add(why)
    if first:
        logger.warning("%s; post-mortems, plans and idle suggestions go without it", why)
    return LlmUnavailable(why)


def _abilities(words: Sequence[str], shown: str) -> Abilities:
    """What ``words`` can do: a definite answer is asked once per command (per process), a
    passing failure again after :data:`PROBE_RETRY`; asks of other commands never wait."""
    key = tuple(words)
    with _state_lock:
        probing = _probing.setdefault(key, threading.Lock())
    with probing:
        with _state_lock:
            known, until = _probed.get(key, (None, 0.0))
        if known is not None and time.monotonic() < until:
            return known
        known = _probe(words, shown)
        until = time.monotonic() + PROBE_RETRY if known.transient else math.inf
        with _state_lock:
            _probed[key] = (known, until)
        logger.debug("%s: %s", shown, known.refusal or " ".join(known.options))
        return known


def _passing(why: str) -> Abilities:
    """A refusal that may pass: asked again after :data:`PROBE_RETRY`."""
    again = f"{why}; asked again in {PROBE_RETRY / 60:g} min"
    return Abilities(options=(), refusal=again, transient=True)


def _probe(words: Sequence[str], shown: str) -> Abilities:
    """Run ``<command> --help`` (private directory, allowed environment, the sandbox of a
    structured ask) and read its options."""
    bad = _tool_words(words[1:])
    if bad:
        why = f"the pi command `{shown}` enables tools itself ({' '.join(bad)})"
        return Abilities(options=(), refusal=why)
    with private_dir() as cwd:
        try:
            proc = subprocess.Popen(
                confine([*words, "--help"], workdir=cwd, tools=False), cwd=cwd,
                env=child_env(os.environ),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return _passing(f"cannot run `{shown} --help`: {exc}")
        except ValueError as exc:  # a NUL character in the command: it will never run
            return Abilities(options=(), refusal=f"the pi command `{shown}` cannot run: {exc}")
        try:
            output, _ = proc.communicate(timeout=PROBE_TIMEOUT)
        except subprocess.TimeoutExpired:
            kill_group(proc)
            proc.communicate()
            return _passing(f"`{shown} --help` gave no answer within {PROBE_TIMEOUT:g}s")
        finally:
            kill_group(proc)
    text = output.decode("utf-8", "replace")
    options = supported_options(text)
    if NO_TOOLS in options:
        return Abilities(options=options)
    if proc.returncode != 0:  # no help text: a crash (a broken install, an update under way)
        said = _first_line(text) or "no output"
        return _passing(f"`{shown} --help` failed with exit code {proc.returncode}: {said}")
    why = (
        f"the pi command `{shown}` cannot turn its tools off "
        f"(`{words[0]} --help` lists no {NO_TOOLS})"
    )
    return Abilities(options=(), refusal=why)


class PiBackend:
    """Runs the pi command; the command is found on PATH at each call.

    ``command`` may carry arguments of its own (``pi --model small``); each
    run has its own process group, so a timeout or a cancel ends all of it.
    """

    name = "pi"

    def __init__(self, command: str = "pi") -> None:
        self.command = command

    def _words(self) -> list[str]:
        """The command with its program resolved on PATH; LlmUnavailable if not installed."""
        try:
            words = shlex.split(self.command)
        except ValueError as exc:  # an unclosed quote
            raise LlmUnavailable(f"the pi command {self.command!r} is not valid: {exc}") from None
        if not words:
            raise LlmUnavailable("the pi command is empty (PEPA_PI_COMMAND)")
        path = shutil.which(words[0])
        if path is None:
            raise LlmUnavailable(f"`{words[0]}` is not on PATH")
        return [path, *words[1:]]

    def argv(self, prompt: str, *, tools: bool = False) -> list[str]:
        """The command line for ``prompt``: tools off unless ``tools``.

        Raises :class:`LlmUnavailable` if the command is not installed or, for
        a structured ask, cannot turn its tools off.
        """
        if tools:
            return agent_argv(self._words(), prompt)
        try:
            words = self._words()
        except LlmUnavailable as exc:
            raise _unavailable(str(exc)) from None
        abilities = _abilities(words, self.command)
        if abilities.refusal:
            raise _unavailable(abilities.refusal)
        return text_argv(words, abilities.options, prompt)

    def stream(
        self, prompt: str, *, on_chunk: Chunk, on_done: Done, timeout: float, tools: bool = False
    ) -> Running:
        """Stream stdout and stderr lines as they come; ``tools`` only for ``cmd:ask-pi``.

        Raises :class:`LlmUnavailable` for a run with ``tools`` that has no sandbox.
        """
        argv = self.argv(prompt, tools=tools)
        cwd = make_private_dir()
        started = False
        try:
            command = StreamingCommand(
                confine(argv, workdir=cwd, tools=tools), on_chunk=on_chunk, on_done=on_done,
                timeout=timeout, cwd=cwd,
                env=child_env(os.environ), cleanup=lambda: remove_private_dir(cwd),
                name=self.command,
            )  # fmt: skip
            command.start()
            started = True
        except OSError as exc:
            raise LlmUnavailable(f"cannot run {self.command}: {exc}") from exc
        except ValueError as exc:  # a NUL character in the prompt
            raise LlmError(f"cannot run {self.command} with this prompt: {exc}") from None
        finally:
            if not started:  # the command's cleanup removes it once it has run
                remove_private_dir(cwd)
        return command

    def complete(self, prompt: str, *, timeout: float, cancel: CancelToken | None = None) -> str:
        """Stdout of one run, tools off; a non-zero exit, a timeout or a cancel is an error."""
        argv = self.argv(prompt)
        with private_dir() as cwd:
            return self._run(
                confine(argv, workdir=cwd, tools=False), cwd=cwd, timeout=timeout, cancel=cancel
            )

    def _run(
        self, argv: list[str], *, cwd: Path, timeout: float, cancel: CancelToken | None
    ) -> str:
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=child_env(os.environ),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise LlmUnavailable(f"cannot run {self.command}: {exc}") from exc
        except ValueError as exc:  # a NUL character in the prompt
            raise LlmError(f"cannot run {self.command} with this prompt: {exc}") from None
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
