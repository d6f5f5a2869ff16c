"""The state directories are private: 0700, owned by the daemon's user.

The state root and each server's directory hold the socket, the lock, the
logs, the knowledge base and the bot's memory. ``pepa start`` (before it takes
the lock), the worker (at its start) and ``pepa world`` all call
:func:`secure_state`:

- a directory that does not exist is created 0700 (mode set explicitly after
  ``mkdir``, whatever the umask);
- one that exists must be a directory owned by this process's user, else
  :class:`StateDirError` (one line; exit code 2);
- one of ours with any other mode (``0755``, group-writable…) is tightened to
  0700, and the caller says so once.

The state root itself may be a symbolic link (``state -> /mnt/usb/pepa-state``
on a Raspberry Pi): it is followed once, and the directory it leads to is
checked as above. Nothing inside the root is followed: the server directory
is created, opened and checked relative to the root's descriptor with
``O_NOFOLLOW`` (``fstat``/``fchmod`` on that descriptor), so a link planted at
``<root>/<host>_<port>``, or a directory swapped for one between the check and
the change, is refused, not followed.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pepa.base.errors import PepaError

__all__ = [
    "MIB",
    "PRIVATE",
    "DirVerdict",
    "StateDirError",
    "judge",
    "open_folder",
    "secure_dir",
    "secure_state",
]

PRIVATE = 0o700
"""The mode of every state directory."""
MIB = 1024 * 1024
"""Bytes in a mebibyte (log and file caps are set in MiB)."""


class StateDirError(PepaError):
    """A state directory is not safely this user's (exit code 2)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DirVerdict:
    """What to do with an existing directory, decided from its ``stat`` alone."""

    refuse: str = ""
    """Why it cannot be used (empty: it can)."""
    tighten: bool = False
    """Its mode is not 0700 and must be set so."""


def judge(st_mode: int, st_uid: int, euid: int) -> DirVerdict:
    """Pure: the verdict on a directory with this ``lstat`` mode and owner."""
    if stat.S_ISLNK(st_mode):
        return DirVerdict(
            refuse="is a symbolic link; pepa follows none inside its state directory "
            "(only the state root itself may be one)"
        )
    if not stat.S_ISDIR(st_mode):
        return DirVerdict(refuse="is not a directory")
    if st_uid != euid:
        return DirVerdict(
            refuse=f"is owned by uid {st_uid}, not by this user (uid {euid}); "
            "pepa keeps its state only in a directory of its own user"
        )
    return DirVerdict(tighten=stat.S_IMODE(st_mode) != PRIVATE)


def secure_dir(path: Path, *, follow: bool = False) -> str:
    """Create ``path`` 0700 or check and tighten it; a note if an existing one was tightened.

    With ``follow`` a symbolic link at ``path`` is followed (the state root);
    without, it is refused.
    """
    fd, note = _secure(path, follow=follow)
    os.close(fd)
    return note


def _secure(
    path: Path, *, follow: bool, dir_fd: int | None = None, name: str | None = None
) -> tuple[int, str]:
    """:func:`secure_dir`, keeping the directory open: its descriptor and the note.

    ``name`` (relative to ``dir_fd``) is what is created and opened; ``path``
    is only what messages show.
    """
    target = str(path) if name is None else name
    created = False
    try:
        os.mkdir(target, PRIVATE, dir_fd=dir_fd)
        created = True
    except FileExistsError:
        pass
    except OSError as exc:
        raise StateDirError(f"cannot create the state directory {path}: {exc.strerror}") from exc
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(target, flags, dir_fd=dir_fd)
    except OSError as exc:
        raise StateDirError(_why_not(path, target, dir_fd, exc, followed=follow)) from exc
    try:
        st = os.fstat(fd)
        verdict = judge(st.st_mode, st.st_uid, os.geteuid())
        if verdict.refuse:
            raise StateDirError(f"the state directory {path} {verdict.refuse}")
        if verdict.tighten:
            os.fchmod(fd, PRIVATE)
    except OSError as exc:
        os.close(fd)
        raise StateDirError(f"cannot make the state directory {path} private: {exc}") from exc
    except BaseException:
        os.close(fd)
        raise
    if not verdict.tighten or created:
        return fd, ""  # created: the umask narrowed mkdir's mode, nothing to say
    return fd, f"{path} was mode {stat.S_IMODE(st.st_mode):04o}; it is 0700 now (private to you)"


def _why_not(path: Path, target: str, dir_fd: int | None, exc: OSError, *, followed: bool) -> str:
    """The one line saying why ``path`` could not be opened as a directory."""
    try:
        st = os.stat(target, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return f"cannot open the state directory {path}: {exc.strerror}"
    if followed and stat.S_ISLNK(st.st_mode) and exc.errno == errno.ENOENT:
        link = os.readlink(target, dir_fd=dir_fd)
        return (
            f"the state directory {path} is a symbolic link to {link}, which does not exist "
            "(not mounted?)"
        )
    if followed and stat.S_ISLNK(st.st_mode) and exc.errno == errno.ENOTDIR:
        return f"the state directory {path} is a symbolic link to something not a directory"
    verdict = judge(st.st_mode, st.st_uid, os.geteuid())
    why = verdict.refuse or exc.strerror or errno.errorcode.get(exc.errno or 0, "?")
    return f"the state directory {path} {why}"


def secure_state(state_root: Path, server_dir: Path) -> list[str]:
    """Secure the state root and the server directory under it; the notes to say once.

    The root may be a symbolic link to a directory of ours; the server
    directory (``<root>/<host>_<port>``, or a fleet bot's ``<root>/<host>_<port>/<name>``
    and the server's directory above it) may not be one.
    """
    try:
        state_root.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StateDirError(f"cannot create {state_root.parent}: {exc.strerror}") from exc
    root_fd, note = _secure(state_root, follow=True)
    notes = [note]
    try:
        if server_dir == state_root:
            pass
        elif server_dir.parent == state_root:  # pepa's layout: checked through the root's fd
            fd, note = _secure(server_dir, follow=False, dir_fd=root_fd, name=server_dir.name)
            os.close(fd)
            notes.append(note)
        elif server_dir.parent.parent == state_root:  # a fleet's bot: <root>/<host>_<port>/<name>
            server = server_dir.parent
            server_fd, note = _secure(server, follow=False, dir_fd=root_fd, name=server.name)
            notes.append(note)
            try:
                fd, note = _secure(server_dir, follow=False, dir_fd=server_fd, name=server_dir.name)
                os.close(fd)
                notes.append(note)
            finally:
                os.close(server_fd)
        else:  # not pepa's layout (tests, callers of their own)
            server_dir.parent.mkdir(mode=PRIVATE, parents=True, exist_ok=True)
            notes.append(secure_dir(server_dir))
    finally:
        os.close(root_fd)
    return [note for note in notes if note]


def open_folder(folder: Path) -> int | None:
    """A descriptor of ``folder`` opened without following a symlink; None if it is missing.

    Raises ``OSError`` (``ELOOP``/``ENOTDIR``) when ``folder`` is a symlink or
    not a directory.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(folder, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise OSError(exc.errno, f"{folder} is not a plain directory (a symlink?)") from exc
        raise
