"""One daemon per state directory: an advisory ``flock`` on ``daemon.lock``."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from pepa.base.errors import LockError

__all__ = ["StateLock"]


class StateLock:
    """Held for the life of ``pepa start``; released by the kernel even on kill -9."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> StateLock:
        """Take the lock or raise :class:`LockError` naming the holder's pid."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise LockError(
                f"another pepa daemon (pid {holder}) is already using {self.path.parent}"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        """Drop the lock (the file stays; its content is stale once unlocked)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> StateLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
