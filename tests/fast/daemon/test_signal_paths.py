"""Who acts on a recorded signal, and when, without a daemon: the inboxes' pipes are closed at
the end; the dashboard's inbox is installed before the terminal modes and removed after them,
so a signal during the terminal restore is recorded, never raised inside it."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from blessed import Terminal
from blessed.keyboard import Keystroke

from pepa.base.signals import SignalInbox
from pepa.daemon.config import Config
from pepa.daemon.worker import Worker
from tests.descriptors import is_open


class Records(logging.Handler):
    """Every log message, for checks from the test's thread."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def recording() -> Iterator[Records]:
    records = Records()
    root = logging.getLogger()
    level = root.level
    root.addHandler(records)
    root.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        root.removeHandler(records)
        root.setLevel(level)


def waiting_on_stop(thread: int) -> bool:
    """Whether thread ``thread`` waits on an event, and not for a thread to start (the
    only other wait in the test below). Code objects only: reading another thread's
    frame locals is not safe."""
    codes = []
    frame = sys._current_frames().get(thread)
    while frame is not None:
        codes.append(frame.f_code)
        frame = frame.f_back
    return threading.Event.wait.__code__ in codes and threading.Thread.start.__code__ not in codes


@pytest.mark.timeout(30)
def test_the_worker_dumps_and_stops_while_its_main_thread_is_blocked(tmp_path: Path) -> None:
    with recording() as records, SignalInbox((signal.SIGUSR1, signal.SIGTERM)) as inbox:
        pipe = (inbox._read, inbox._write)
        worker = Worker(Config(state_dir=tmp_path), signals=inbox)
        main = threading.get_ident()

        def signal_once_blocked() -> None:  # on a busy machine, not before the main thread waits
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not waiting_on_stop(main):
                threading.Event().wait(0.01)
            # to the main thread itself: a signal another thread takes would wait for the
            # main thread's next bytecode, after its 20 s wait
            signal.pthread_kill(main, signal.SIGUSR1)
            signal.pthread_kill(main, signal.SIGTERM)

        sender = threading.Thread(target=signal_once_blocked, name="test-signal-sender")
        with worker.acting_on_signals():
            sender.start()
            # the main thread never looks at the inbox: it is blocked right here
            assert worker.stop_event.wait(20)
        sender.join(10)
        assert worker.exit_reason == "SIGTERM"
        assert "SIGUSR1: the traceback of every thread follows" in records.messages
        dump = next(m for m in records.messages if m.startswith("Current state of MainThread"))
        assert "stop_event.wait(20)" in dump  # where the main thread was stuck
        assert not any(map(is_open, pipe))  # the pipe is closed at the end of the run
        assert signal.getsignal(signal.SIGTERM) == inbox._on_signal  # still only recorded
    assert not any(t.name == "signals" for t in threading.enumerate())


class SpyTerminal(Terminal):
    """A terminal whose modes record what passed through their restore.

    The first ``inkey`` sends SIGTERM (``kill`` on the dashboard); restoring
    cbreak sends SIGINT (the impatient second Ctrl-C during the restore).
    """

    def __init__(self) -> None:
        super().__init__(kind="xterm-256color", stream=io.StringIO(), force_styling=True)
        self.exits: list[tuple[str, str]] = []
        self.keys = 0
        self._depth = {"fullscreen": 0, "cbreak": 0, "hidden_cursor": 0}

    @property
    def is_a_tty(self) -> bool:
        return True

    def inkey(self, timeout: float | None = None, *args: Any, **kwargs: Any) -> Keystroke:
        self.keys += 1
        if self.keys == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return Keystroke("")

    @contextlib.contextmanager
    def _spy(
        self, name: str, mode: contextlib.AbstractContextManager[Any], then: int = 0
    ) -> Iterator[None]:
        if self._depth[name]:  # blessed's own queries nest cbreak: not the dashboard's mode
            with mode:
                yield
            return
        passed = ""
        self._depth[name] += 1
        try:
            with mode:
                yield
            if then:
                os.kill(os.getpid(), then)  # right after this mode was restored
        except BaseException as exc:
            passed = type(exc).__name__
            raise
        finally:
            self._depth[name] -= 1
            self.exits.append((name, passed))

    def fullscreen(self) -> Any:
        return self._spy("fullscreen", super().fullscreen())

    def cbreak(self) -> Any:
        return self._spy("cbreak", super().cbreak(), then=signal.SIGINT)

    def hidden_cursor(self) -> Any:
        return self._spy("hidden_cursor", super().hidden_cursor())


@pytest.mark.timeout(30)
def test_a_signal_during_the_terminal_restore_is_recorded_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tui import app

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    term = SpyTerminal()
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert app.run(lambda: tmp_path / "nobody.sock", term=term, tick=0.01) == 0
    assert term.keys == 1  # SIGTERM: the loop quit at its next tick
    assert term.exits == [("hidden_cursor", ""), ("cbreak", ""), ("fullscreen", "")]
    assert term.stream.getvalue().endswith(term.exit_fullscreen)  # alternate screen left
    # the handlers as they were (a run started in the background ignores SIGINT from the start)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
