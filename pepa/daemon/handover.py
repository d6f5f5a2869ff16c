"""The worker's configuration travels through a pipe, never the environment.

The environment is inherited by every process under the worker (the JS
bridge's Node, ``pi``, git) and readable in ``/proc/<pid>/environ``; the
configuration holds the AuthMe password, the OpenAI key and the database URL.
So the parent writes the configuration into a fresh pipe, closes its end,
and starts the worker with only the read end passed on (``pass_fds``) and
its number in ``PEPA_CONFIG_FD``. The worker reads to the end, closes the fd
and forgets the variable. The whole payload is written before the worker
starts (a pipe holds 64 KiB; the configuration is ~1 KiB), so neither side can
block on the other.

This module also names the rest of what the parent and its worker share (the
environment variables it sets for the worker, the file the worker leaves its
exit reason in): the parent imports only this, not the worker's actor tree.
"""

from __future__ import annotations

import fcntl
import os

from pepa.base.errors import PepaError
from pepa.ipc.paths import EXIT_FILE

__all__ = [
    "ENV_CONFIG_FD", "ENV_PARENT", "ENV_RELOAD_TOKEN", "EXIT_FILE", "MAX_PAYLOAD",
    "HandoverError", "receive", "send",
]  # fmt: skip

ENV_CONFIG_FD = "PEPA_CONFIG_FD"
"""The number of the worker's inherited read end (not a secret)."""
ENV_PARENT = "PEPA_PARENT_PID"
"""The process supervisor's pid: the worker asks Linux to end it when that process dies."""
ENV_RELOAD_TOKEN = "PEPA_RELOAD_TOKEN"
"""Set by ``pepa start --reload``: the token that ``cmd:reload-failed`` must carry."""
MAX_PAYLOAD = 1 << 20
"""Bytes a handover may carry (Linux's default ``pipe-max-size``)."""


class HandoverError(PepaError):
    """The configuration cannot be handed over (too large, or no pipe to read)."""


def send(payload: bytes) -> int:
    """A pipe already holding ``payload``, write end closed: its read end (inheritable).

    The caller passes the fd to the child (``pass_fds``) and closes it afterwards.
    """
    if len(payload) > MAX_PAYLOAD:
        raise HandoverError(f"the configuration is {len(payload)} bytes (at most {MAX_PAYLOAD})")
    read_fd, write_fd = os.pipe2(os.O_CLOEXEC)
    try:
        if len(payload) > 65536:
            fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, len(payload))
        os.set_blocking(write_fd, False)
        view = memoryview(payload)
        while view:
            written = os.write(write_fd, view)  # never blocks: BlockingIOError if full
            view = view[written:]
    except OSError as exc:
        os.close(read_fd)
        raise HandoverError(f"cannot hand the configuration over: {exc}") from exc
    finally:
        os.close(write_fd)
    return read_fd


def receive(fd: int) -> bytes:
    """Read the payload from ``fd`` to its end and close it."""
    chunks: list[bytes] = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
            if sum(map(len, chunks)) > MAX_PAYLOAD:
                raise HandoverError(f"more than {MAX_PAYLOAD} bytes on fd {fd}")
    except OSError as exc:
        raise HandoverError(f"cannot read the configuration from fd {fd}: {exc}") from exc
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
    return b"".join(chunks)
