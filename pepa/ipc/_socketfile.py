"""The socket file of the IPC server: bound 0600, stale ones replaced, removed only if ours.

Split from :mod:`pepa.ipc.server` (which re-exports these names): nothing here
runs after ``bind``; the serving, its limits and its threads live there.
"""

from __future__ import annotations

import logging
import os
import socket
import stat
import sys
from pathlib import Path

from pepa.base.errors import PepaError
from pepa.ipc.client import daemon_listening

logger = logging.getLogger(__name__)

AF_UNIX_PATH_MAX = 107 if sys.platform.startswith("linux") else 103
"""The longest socket path (in bytes) the kernel accepts."""

_PROBE_TIMEOUT = 1.0  # seconds to decide whether an existing socket is alive


class IpcServerError(PepaError):
    """The IPC socket cannot be served (path too long, in use, or not bindable)."""


def bind(path: Path) -> tuple[socket.socket, tuple[int, int]]:
    """Bind and listen on ``path`` with mode 0600; return the socket and file identity."""
    size = len(os.fsencode(path))
    if size > AF_UNIX_PATH_MAX:
        raise IpcServerError(
            f"socket path is {size} bytes, over the {AF_UNIX_PATH_MAX}-byte limit of "
            f"Unix sockets: {path} (use a shorter state directory)"
        )
    _clear_stale(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    inode = None
    try:
        # umask is process-wide; it is narrowed just for bind() so the socket file
        # is never group- or world-accessible, not even briefly.
        old_umask = os.umask(0o177)
        try:
            sock.bind(os.fspath(path))
        finally:
            os.umask(old_umask)
        st = os.lstat(path)
        inode = (st.st_dev, st.st_ino)
        os.chmod(path, 0o600)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        unlink_if_ours(path, inode)
        raise IpcServerError(f"cannot listen on {path}: {exc.strerror or exc}") from exc
    return sock, inode


def _clear_stale(path: Path) -> None:
    """Remove a socket file nobody accepts on; refuse a live one or a non-socket."""
    try:
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise IpcServerError(f"{path} exists and is not a socket; remove it first")
        live = daemon_listening(path, _PROBE_TIMEOUT)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise IpcServerError(f"cannot check the existing socket {path}: {exc}") from exc
    if live:
        raise IpcServerError(f"another daemon is listening on {path}")
    logger.info("replacing stale socket %s", path)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def unlink_if_ours(path: Path, inode: tuple[int, int] | None) -> None:
    """Remove ``path`` if it is still the file identified by ``inode``."""
    if inode is None:
        return
    try:
        st = os.lstat(path)
        if (st.st_dev, st.st_ino) == inode:
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        logger.warning("could not remove socket %s: %s", path, exc)
