"""Run a block with no free file descriptor: every ``open`` in it fails with a real EMFILE."""

from __future__ import annotations

import errno
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["is_open", "no_free_descriptors"]


@contextmanager
def no_free_descriptors() -> Iterator[None]:
    """Lower the soft descriptor limit to the highest one open and fill every hole below it.

    The kernel then refuses any new descriptor with EMFILE, as it does for a
    daemon that leaks them. Restored (fillers closed, limit back) on the way out.
    Keep the block short and free of threads that open files.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(name) for name in os.listdir("/proc/self/fd"))
    fillers: list[int] = []
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1, hard))
    try:
        while True:
            try:
                fillers.append(os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC))
            except OSError as exc:
                if exc.errno != errno.EMFILE:
                    raise
                break
        yield
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def is_open(fd: int) -> bool:
    """Whether descriptor ``fd`` is open in this process."""
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
