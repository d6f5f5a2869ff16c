"""The dashboard's main loop: terminal modes, the clock, the inbox, painting.

The loop is the only impure part of the dashboard besides the reader thread::

    key = term.inkey(timeout=tick)           # the clock
    for item in inbox: state = reduce(state, item)   # events from the reader thread
    state, commands = reduce(state, key)     # then send the commands
    paint(render(state, width, height))      # only the lines that changed

Terminal modes are stacked context managers (fullscreen, cbreak, hidden
cursor, in-band resize notification), so the terminal is restored on every
exit: ``q``, Ctrl-C, SIGTERM, or a crash. Signal handlers only record
(SIGINT and SIGTERM in a :class:`~pepa.base.signals.SignalInbox`, SIGWINCH in a
:class:`_ResizeFlag`); the loop looks at them on every tick. The SIGINT/SIGTERM
inbox is the outermost context: installed before the first terminal mode and
removed after the last is restored, so a signal never raises in the middle of
a terminal restore.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import queue
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, TypeVar

from blessed import Terminal
from blessed.keyboard import Keystroke

from pepa.base.errors import PepaError
from pepa.base.signals import SignalInbox
from tui.connection import Connection
from tui.reducer import reduce
from tui.render import render
from tui.state import CommandFailed, Input, Key, LogLine, State

__all__ = ["TICK", "DashboardError", "Screen", "drained", "key_of", "run"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

TICK = 0.1
"""Seconds ``inkey`` waits: how late at most an event from the daemon is shown."""

_QUERY_TIMEOUT = 0.25  # terminal capability queries (synchronized output, resize events)


class DashboardError(PepaError):
    """The dashboard cannot start (no terminal)."""


def run(resolve: Callable[[], Path], *, term: Terminal | None = None, tick: float = TICK) -> int:
    """Run the dashboard until ``q`` or Ctrl-C; return the exit code (0).

    ``resolve`` gives the daemon's socket path (see :class:`~tui.connection.Connection`).
    Raises :class:`DashboardError` when stdin or stdout is not a terminal.
    """
    term = term or Terminal()
    if not term.is_a_tty or not sys.stdin.isatty():
        raise DashboardError("the dashboard needs a terminal (stdin and stdout must be a tty)")
    inbox: queue.SimpleQueue[Input] = queue.SimpleQueue()
    with _log_to_panel(inbox.put), Connection(resolve, inbox.put) as connection:
        try:
            with (
                _stop_signals() as stop,  # first in, last out: a signal in a restore is recorded
                term.fullscreen(),
                term.cbreak(),
                term.hidden_cursor(),
                _ResizeFlag() as resized,
                term.notify_on_resize(timeout=_QUERY_TIMEOUT),
            ):
                _loop(term, inbox, connection, resized, tick, stop)
        except KeyboardInterrupt:
            pass  # a Ctrl-C before the handlers were installed
    return 0


def _loop(
    term: Terminal,
    inbox: queue.SimpleQueue[Input],
    connection: Connection,
    resized: _ResizeFlag,
    tick: float,
    stop: SignalInbox | None = None,
) -> None:
    state = State()
    screen = Screen(term)
    while not state.quit:
        if stop is not None and stop.take():
            return  # SIGINT or SIGTERM: unwind the terminal modes in order
        key = term.inkey(timeout=tick)
        changed = False
        for item in drained(inbox):
            state, _ = reduce(state, item)
            changed = True
        if key:
            if key.name == "RESIZE_EVENT":
                resized.set()
            state, commands = reduce(state, key_of(key))
            for command in commands:
                why = connection.send(command)
                if why is not None:
                    state, _ = reduce(state, CommandFailed(command=command.TYPE, reason=why))
            changed = True
        if state.quit:
            break
        size = (term.width, term.height)
        full = resized.consume() or size != screen.size
        if changed or full:
            screen.paint(render(state, size[0], size[1], term), size, full=full)


def drained(inbox: queue.SimpleQueue[_T]) -> Iterator[_T]:
    """What the inbox holds now, without waiting."""
    while True:
        try:
            yield inbox.get_nowait()
        except queue.Empty:
            return


def key_of(keystroke: Keystroke) -> Key:
    """A blessed keystroke as the reducer's :class:`~tui.state.Key`."""
    return Key(char=str(keystroke), name=keystroke.name)


class Screen:
    """Writes frames to the terminal, only the lines that changed since the last one."""

    def __init__(self, term: Terminal) -> None:
        self._term = term
        self._lines: list[str] = []
        self.size: tuple[int, int] = (0, 0)
        """The size of the last frame painted."""

    def paint(self, lines: list[str], size: tuple[int, int], *, full: bool = False) -> None:
        """Show ``lines`` (each exactly as wide as the screen); repaint all if ``full``."""
        term = self._term
        parts: list[str] = []
        previous = self._lines
        if full or size != self.size:
            parts.append(term.normal + term.clear)
            previous = []
        for row, line in enumerate(lines):
            if row < len(previous) and previous[row] == line:
                continue
            parts.append(term.move_yx(row, 0) + line + term.normal)
        self._lines = list(lines)
        self.size = size
        if not parts:
            return
        with term.synchronized_output(timeout=_QUERY_TIMEOUT):
            term.stream.write("".join(parts))
            term.stream.flush()


class _ResizeFlag:
    """A flag set by SIGWINCH (or by an in-band resize event); the loop consumes it.

    A deque, not an Event: the handler must take no lock (``Event.set`` does).
    """

    def __init__(self) -> None:
        self._hits: collections.deque[bool] = collections.deque()
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> _ResizeFlag:
        sigwinch = getattr(signal, "SIGWINCH", None)
        if sigwinch is not None and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(sigwinch, self._on_signal)
            self._installed = True
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGWINCH, self._previous)
            self._installed = False

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._hits.append(True)  # only a flag: the loop repaints on its next tick

    def set(self) -> None:
        """Mark the screen as resized."""
        self._hits.append(True)

    def consume(self) -> bool:
        """Whether the screen was resized since the last call."""
        hit = False
        while True:
            try:
                self._hits.popleft()
            except IndexError:
                return hit
            hit = True


@contextlib.contextmanager
def _stop_signals() -> Iterator[SignalInbox | None]:
    """SIGINT and SIGTERM only recorded, for the loop to quit (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield None
        return
    with SignalInbox((signal.SIGINT, signal.SIGTERM)) as stop:
        yield stop


class _PanelHandler(logging.Handler):
    """Shows the dashboard's own warnings in its log panel instead of on the screen."""

    def __init__(self, post: Callable[[Input], None]) -> None:
        super().__init__(logging.WARNING)
        self._post = post

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = "error" if record.levelno >= logging.ERROR else "warn"
            text = record.getMessage()
            self._post(LogLine(ts=record.created, level=level, source="tui", text=text))
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def _log_to_panel(post: Callable[[Input], None]) -> Iterator[None]:
    """Route warnings to the panel; keep Python's last-resort handler off the screen."""
    root = logging.getLogger()
    handler = _PanelHandler(post)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
