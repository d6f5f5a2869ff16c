"""State files validated as data: file schemas, a bounded reader, a quarantine; and the two
safe ways to write one (:func:`write_atomic`, :func:`open_append`), never through a link.

The value specs live in :mod:`pepa.state.schema`; they are re-exported here.

Every file the daemon reads back from its state folder (``current-task.json``,
``plan.md``, ``goal.md``, ``persona.json``, ``llm-budget.json``,
``locations.json``, ``worker-exit.json``, proposals) is hand-editable, so it is
checked as data, not just as JSON: types, ranges, string lengths and
patterns, list and map sizes, enum values, and for text files a size cap,
a line cap, no control characters and the file's line grammar. A wrong type
must cost one warning, never a crash loop of the actor that reads it.

:func:`load` reads a file without following a symbolic link (``O_NOFOLLOW``),
without blocking on a FIFO (``O_NONBLOCK``, regular files only) and never more
than the schema's ``max_bytes``. A file that fails is moved aside to
``<name>.bad-<UTC timestamp>`` (``-2``, ``-3`` … when that exists: an earlier
bad file is never overwritten), one warning names the file and the failing
field, and the caller gets its fresh default::

    current-task.json: field "args" must be an object, got [1, 2];
    moved aside to current-task.json.bad-20261201T120000; starting fresh

Loaders never raise for bad content; a :class:`SchemaError` escaping a spec's
``check`` is the only signal, and :func:`load` turns it into the above.

A file that cannot be *read* (out of descriptors, an I/O error, no
permission) is not bad: it stays where it is, untouched, one warning says
so, and the caller gets its default for now (or, with ``unreadable="raise"``,
the OSError, for a file whose absence must not be assumed — the operator
bindings fail closed)::

    current-task.json: cannot be read (Too many open files); left in place; starting with no task
"""

from __future__ import annotations

import errno
import logging
import os
import re
import secrets
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

import orjson

from pepa.state.schema import (
    DAY,
    Int,
    ListOf,
    MapOf,
    Num,
    Obj,
    OneOf,
    SchemaError,
    Spec,
    Stamp,
    Str,
    Tagged,
    TupleOf,
    show,
)

__all__ = [
    "DAY",
    "WORKER_EXIT",
    "FileSchema",
    "Int",
    "JsonFile",
    "ListOf",
    "MapOf",
    "Num",
    "Obj",
    "OneOf",
    "SchemaError",
    "Spec",
    "Stamp",
    "Str",
    "Tagged",
    "TextFile",
    "TupleOf",
    "load",
    "open_append",
    "quarantine",
    "read_bounded",
    "reject",
    "show",
    "write_atomic",
]

logger = logging.getLogger(__name__)

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

_BAD_SUFFIXES = 100
"""``.bad-<ts>``, ``.bad-<ts>-2`` … ``-100``: then the file stays where it is."""


_CONTROL_IN_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
"""Control characters and the line separators, but a tab is fine in a line of a text file."""


# -- file schemas -------------------------------------------------------------------------


class FileSchema(Protocol[T_co]):
    """How one state file is read: its size cap and its parser."""

    @property
    def max_bytes(self) -> int:
        """Bytes the file may hold."""
        ...

    @property
    def empty_ok(self) -> bool:
        """Whether an empty (or blank) file means "nothing" rather than "bad"."""
        ...

    def parse(self, raw: bytes) -> T_co:
        """The typed value; raises :class:`SchemaError` when the bytes are not one."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class JsonFile(Generic[T]):
    """A JSON file: ``spec`` checks the value, ``build`` turns the checked value into a ``T``."""

    spec: Spec
    build: Callable[[Any], T]
    max_bytes: int = 64 * 1024
    empty_ok: bool = False

    def parse(self, raw: bytes) -> T:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise SchemaError("", f"is not JSON ({exc})") from None
        return self.build(self.spec.check(data, ""))


@dataclass(frozen=True, slots=True, kw_only=True)
class TextFile:
    """A UTF-8 text file: size, line count and line length caps, no control characters.

    ``line_rule`` returns why a line breaks the file's grammar, or None.
    """

    max_bytes: int
    max_lines: int
    max_line: int
    line_rule: Callable[[str], str | None] | None = None
    empty_ok: bool = True

    def parse(self, raw: bytes) -> str:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SchemaError("", f"is not UTF-8 text (byte {exc.start})") from None
        lines = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines():
        if lines[-1] == "":  # \x1c, \x85 … must stay in a line to be seen
            lines.pop()
        if len(lines) > self.max_lines:
            raise SchemaError("", f"must have at most {self.max_lines} lines, got {len(lines)}")
        for number, line in enumerate(lines, 1):
            where = str(number)
            if len(line) > self.max_line:
                problem = f"must be at most {self.max_line} characters, got {len(line)}"
                raise SchemaError(where, problem, line=True)
            bad = _CONTROL_IN_LINE.search(line)
            if bad is not None:
                problem = f"must not hold control characters, got {bad.group()!r}"
                raise SchemaError(where, problem, line=True)
            broken = self.line_rule(line) if self.line_rule is not None else None
            if broken is not None:
                raise SchemaError(where, broken, line=True)
        return text


# -- reading, quarantine ------------------------------------------------------------------


def read_bounded(path: Path, max_bytes: int, *, private: bool = False) -> bytes:
    """The bytes of a regular file, never through a symbolic link, never more than ``max_bytes``.

    FileNotFoundError when there is none; :class:`SchemaError` when it is a link,
    not a regular file, or too large — and with ``private`` (a file holding a
    secret) when another user owns it or its mode lets anyone else read or write
    it; OSError when it cannot be read (the file may well be fine: EMFILE, EIO,
    EACCES …).
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SchemaError("", "is a symbolic link, not a file") from None
        if exc.errno == errno.ENXIO:  # a socket (or a device with nothing behind it)
            raise SchemaError("", "is not a regular file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SchemaError("", "is not a regular file")
        if private:
            _check_private(info)
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > max_bytes:
        raise SchemaError("", f"must be at most {max_bytes} bytes, got more")
    return b"".join(chunks)


def _check_private(info: os.stat_result) -> None:
    """A secret's file is this user's and 0600 or narrower, else :class:`SchemaError`."""
    if info.st_uid != os.geteuid():
        raise SchemaError(
            "", f"is owned by uid {info.st_uid}, not by this user (uid {os.geteuid()})"
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise SchemaError(
            "", f"has mode {stat.S_IMODE(info.st_mode):04o}; a file holding a secret must be 0600"
        )


def quarantine(path: Path) -> Path:
    """Move ``path`` aside to ``<name>.bad-<UTC ts>`` (never over an earlier one); the new path."""
    stamp = f"{datetime.now(UTC):%Y%m%dT%H%M%S}"
    for n in range(1, _BAD_SUFFIXES + 1):
        target = path.with_name(f"{path.name}.bad-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            os.link(path, target, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOTSUP):
                raise
            if os.path.lexists(target):  # no hard links here (a folder, or the file system)
                continue
            os.rename(path, target)
            return target
        os.unlink(path)
        return target
    raise FileExistsError(errno.EEXIST, f"{_BAD_SUFFIXES} bad copies already", str(path))


_warned: dict[str, str] = {}
"""Path → the last problem warned about, so a file that cannot be moved or read warns once."""
_warned_lock = threading.Lock()


def _forget(path: Path) -> None:
    with _warned_lock:
        _warned.pop(str(path), None)


def _first_time(path: Path, problem: str) -> bool:
    """Whether ``problem`` is new for ``path`` (and remember it): warn only then."""
    with _warned_lock:
        if _warned.get(str(path)) == problem:
            return False
        if len(_warned) >= 1000:
            _warned.pop(next(iter(_warned)))
        _warned[str(path)] = problem
    return True


def reject(
    path: Path, problem: str, *, log: logging.Logger | None = None, then: str = "starting fresh"
) -> None:
    """Move a bad file aside and say so: ``<name>: <problem>; moved aside to …; <then>``.

    A file that cannot be moved is warned about once (until its problem changes).
    """
    try:
        moved = quarantine(path)
    except FileNotFoundError:
        return  # another reader moved it already: that one warned
    except OSError as exc:
        if not _first_time(path, problem):
            return
        where = f"cannot move it aside ({exc.strerror or exc})"
    else:
        _forget(path)
        where = f"moved aside to {moved.name}"
    (log or logger).warning("%s: %s; %s; %s", path.name, problem, where, then)


def load(
    path: Path,
    schema: FileSchema[T],
    default: T,
    *,
    log: logging.Logger | None = None,
    then: str = "starting fresh",
    unreadable: Literal["default", "raise"] = "default",
) -> T:
    """The checked value of a state file, or ``default``: missing (silently), or bad (see above).

    Only bad content (a :class:`SchemaError`) moves the file aside. A failure to
    read it (any other OSError: EMFILE, EIO, EACCES …) leaves it in place: one
    warning (until a read succeeds or the problem changes) and ``default``, or
    with ``unreadable="raise"`` the OSError itself, nothing warned. Never raises
    for what the file holds.
    """
    try:
        raw = read_bounded(path, schema.max_bytes)
        if schema.empty_ok and not raw.strip():
            _forget(path)
            return default
        value = schema.parse(raw)
    except FileNotFoundError:
        _forget(path)
        return default
    except SchemaError as exc:
        reject(path, str(exc), log=log, then=then)
        return default
    except OSError as exc:
        if unreadable == "raise":
            raise
        problem = f"cannot be read ({exc.strerror or exc})"
        if _first_time(path, problem):
            (log or logger).warning("%s: %s; left in place; %s", path.name, problem, then)
        return default
    _forget(path)
    return value


WORKER_EXIT = JsonFile(
    spec=Obj(optional={"code": Int(lo=-(2**31), hi=2**31), "reason": Str(max_len=500, clamp=True)}),
    build=dict,
    max_bytes=64 * 1024,
)
"""``worker-exit.json``, the worker's last word to the process supervisor: ``{"code", "reason"}``.

The reason is free text (an exception's): cut to 500 characters, control
characters turned into spaces, before it reaches the supervisor's one line.
"""


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never half.

    The temporary file beside it is created 0600 with ``O_EXCL | O_NOFOLLOW``
    (a planted link at its name fails the open), fsynced, then renamed over
    ``path`` — which replaces a link at ``path`` rather than writing through it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o600)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable; a file system that cannot is not an error."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def open_append(path: Path) -> int:
    """A descriptor that appends to ``path`` (created 0600), never through a symbolic link.

    The folder is opened ``O_NOFOLLOW`` (created if missing), the file
    ``O_NOFOLLOW | O_APPEND | O_NONBLOCK`` inside it (a FIFO cannot block the
    open); a link raises ELOOP, anything but a regular file EINVAL. The
    descriptor is blocking and close-on-exec; a file of ours wider than 0600
    is narrowed. The caller closes it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(path.name, flags | os.O_CLOEXEC, 0o600, dir_fd=folder)
    finally:
        os.close(folder)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if stat.S_IMODE(info.st_mode) != 0o600 and info.st_uid == os.getuid():
            os.fchmod(fd, 0o600)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd
