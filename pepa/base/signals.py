"""Signal handlers that only record: a number into a deque, a byte into a self-pipe.

A Python signal handler runs on the main thread between two bytecodes of
whatever it was doing. A handler that takes a lock (``Event.set()``, a log
line, ``Popen.send_signal``) deadlocks when the main thread already holds that
lock, and one that raises (``KeyboardInterrupt``) lands in the middle of a
cleanup. So every process of pepa installs a :class:`SignalInbox`: its handler
appends the signal number to a deque (atomic, lock-free) and writes one byte
to a non-blocking pipe; the main loop waits on the pipe with ``select`` (woken
at once by a signal, or by :meth:`SignalInbox.wake` from another thread) and
acts on :meth:`SignalInbox.take` itself (or, in the worker, a thread of its
own does, so that a stuck main thread does not matter).

The pipe is closed by :meth:`SignalInbox.close` (or when the inbox is
collected); the handler can stay installed after that and then only records.
"""

from __future__ import annotations

import collections
import os
import select
import signal
import threading
import weakref
from collections.abc import Iterable
from types import FrameType, TracebackType
from typing import Any

__all__ = ["SignalInbox"]


class SignalInbox:
    """The signals received and not yet handled; :meth:`wait` sleeps until the next one."""

    def __init__(self, signums: Iterable[int] = ()) -> None:
        self.signums = tuple(signums)
        self._pending: collections.deque[int] = collections.deque()
        self._read, self._write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._previous: dict[int, Any] = {}
        self._finalizer = weakref.finalize(self, _close_fds, self._read, self._write)

    def install(self) -> SignalInbox:
        """Install the recording handler for every signal (main thread only)."""
        if self.signums and threading.current_thread() is not threading.main_thread():
            raise RuntimeError("signal handlers can only be installed from the main thread")
        for signum in self.signums:
            self._previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def restore(self) -> None:
        """Put the previous handlers back (main thread only)."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def close(self, *, restore: bool = True) -> None:
        """Close the pipe, and restore the previous handlers unless ``restore`` is False.

        Without restoring (main thread not needed), a signal that comes later is
        still only recorded: a process on its way out is not killed by the
        default action of a late SIGTERM.
        """
        if restore:
            self.restore()
        # forget the numbers before closing them: a handler running meanwhile writes
        # to -1 (EBADF, ignored), never to a descriptor reused by another open
        self._read = self._write = -1
        self._finalizer()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        # nothing here may take a lock, log, allocate much or raise
        self._pending.append(signum)
        self._poke()

    def wake(self) -> None:
        """Wake :meth:`wait` (safe from any thread)."""
        self._poke()

    def _poke(self) -> None:
        try:
            os.write(self._write, b"\0")
        except OSError:
            pass  # pipe full: a wake-up is already pending; closed: nobody waits

    def pending(self) -> bool:
        """Whether a signal was received and not taken yet (does not consume it)."""
        return bool(self._pending)

    def take(self) -> list[int]:
        """The signals received since the last call, oldest first (never blocks)."""
        try:
            while os.read(self._read, 512):
                pass
        except OSError:
            pass  # empty (EAGAIN) or closed
        taken: list[int] = []
        while True:
            try:
                taken.append(self._pending.popleft())
            except IndexError:
                return taken

    def wait(self, timeout: float | None) -> list[int]:
        """Sleep until a signal, a :meth:`wake` or ``timeout``; then :meth:`take`."""
        if not self._pending and self._read >= 0:
            try:
                select.select([self._read], [], [], timeout)
            except (OSError, ValueError):
                pass  # closed meanwhile
        return self.take()

    def __enter__(self) -> SignalInbox:
        return self.install()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _close_fds(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
