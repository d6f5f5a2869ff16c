"""Personal memory files of one server: written atomically, read back as checked data.

``current-task.json`` is what the bot is doing, written before a
meaningful action and cleared when it ends, so a restarted worker resumes it.
Every file read back here goes through a schema (:mod:`pepa.state.files`): a
corrupt, hand-broken or hostile file is moved aside with one warning and
counts as no task, no places, no plan — never a crash.

Nothing here follows a symbolic link: :func:`pepa.state.files.write_atomic` creates its
temporary file with ``O_EXCL | O_NOFOLLOW`` (mode 0600) and renames it over
the target (a link there is replaced, not written through); :func:`append_line`
opens with ``O_NOFOLLOW`` (:func:`pepa.state.files.open_append`) and refuses a
link or anything but a regular file.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from pepa.state.files import (
    Int,
    JsonFile,
    MapOf,
    Num,
    Obj,
    SchemaError,
    Str,
    Tagged,
    TextFile,
    load,
    open_append,
    read_bounded,
    write_atomic,
)
from pepa.state.plans import MAX_COUNT, plan_line_problem

__all__ = [
    "GOAL_FILE",
    "LOCATIONS_FILE",
    "MAX_COUNT",
    "PLAN_FILE",
    "Locations",
    "TaskFile",
    "append_line",
    "read_text",
    "task_schema",
]

logger = logging.getLogger(__name__)

SKILL = Str(max_len=64, pattern=r"[a-z0-9_]+(?:[.\-][a-z0-9_]+)*")
ITEM = Str(max_len=64, pattern=r"[a-z0-9_]+")
PLAYER = Str(max_len=16, pattern=r"[A-Za-z0-9_]{1,16}", what="a player name ([A-Za-z0-9_]{1,16})")
COORD = Num(lo=-30_000_000.0, hi=30_000_000.0)
"""Inside the world border."""
PLAN_FILE = TextFile(max_bytes=64 * 1024, max_lines=1000, max_line=500, line_rule=plan_line_problem)
"""``plan.md``: markdown; milestone lines follow the plan grammar (:mod:`pepa.state.plans`)."""
GOAL_FILE = TextFile(max_bytes=4096, max_lines=50, max_line=1000)
"""``goal.md``: free text."""
LOCATIONS_FILE = JsonFile(
    spec=MapOf(
        key=Str(max_len=32, pattern=r"[a-z0-9_\-]{1,32}"),
        value=Obj(
            required={"x": COORD, "y": Num(lo=-4096.0, hi=4096.0), "z": COORD},
            optional={"note": Str(max_len=200)},
        ),
        max_len=64,
    ),
    build=dict,
    max_bytes=64 * 1024,
    empty_ok=True,
)
"""``locations.json``: ``{"spawn": {"x": 1.5, "y": 64, "z": -3, "note": "…"}, …}``."""
READ_LIMIT = 4 * 1024 * 1024
"""Bytes :func:`read_text` reads at most (a diary of one day)."""


def task_schema(known_skill: Callable[[str], bool] | None = None) -> JsonFile[dict[str, Any]]:
    """``current-task.json``: a milestone (curriculum) or an operator's come/follow (reflex).

    ``known_skill``: a milestone naming a skill that does not exist is bad too
    (it would crash the reflex chain that runs it).
    """
    operator = Obj(required={"operator": PLAYER})
    milestone = Obj(
        required={"skill": Str(max_len=64, pattern=SKILL.pattern, known=known_skill)},
        optional={
            "milestone": Str(max_len=500),
            "args": Obj(optional={"item": ITEM, "count": Int(lo=1, hi=MAX_COUNT)}),
        },
    )
    return JsonFile(
        spec=Tagged(
            tag="kind", variants={"milestone": milestone, "come": operator, "follow": operator}
        ),
        build=dict,
        max_bytes=16 * 1024,
        empty_ok=True,
    )


class TaskFile:
    """``current-task.json``: the resume anchor."""

    def __init__(self, path: Path, known_skill: Callable[[str], bool] | None = None) -> None:
        self.path = path
        self.schema = task_schema(known_skill)

    def read(self) -> dict[str, Any] | None:
        """The task in progress, or None (missing, empty, or bad: moved aside with a warning)."""
        return load(self.path, self.schema, None, log=logger, then="starting with no task")

    def write(self, task: dict[str, Any]) -> None:
        """Record the task about to start.

        Checked against the file's own schema first: a task :meth:`read` would
        refuse (a milestone text with a tab, an over-long field) is not written
        and the file is cleared, so a restart never resumes a stale one.
        """
        try:
            self.schema.spec.check(task, "")
        except SchemaError as exc:
            logger.warning("not recording the task in %s: %s", self.path.name, exc)
            self.clear()
            return
        write_atomic(self.path, orjson.dumps(task, option=orjson.OPT_INDENT_2) + b"\n")

    def clear(self) -> None:
        """The task ended."""
        self.path.unlink(missing_ok=True)

    def sync(self, content: dict[str, Any] | None, written: dict[str, Any] | None) -> None:
        """Make the file hold ``content`` (None: no file), touching it only if that changed."""
        if content == written:
            return
        if content is None:
            self.clear()
        else:
            self.write(content)


def read_text(path: Path, default: str = "", *, limit: int = READ_LIMIT) -> str:
    """A memory file's text (the diary); missing is ``default``, unreadable costs one log line.

    Never through a symbolic link, never a FIFO, never more than ``limit`` bytes.
    """
    try:
        return read_bounded(path, limit).decode("utf-8")
    except FileNotFoundError:
        return default
    except (OSError, UnicodeDecodeError, SchemaError) as exc:
        logger.warning("cannot read %s (%s); using a safe default", path, exc)
        return default


def append_line(path: Path, line: str) -> None:
    """Append one line (diary, inventory log); a failure costs a log line, never the caller.

    Never through a symbolic link: the file is opened ``O_NOFOLLOW | O_APPEND``
    (created 0600) inside its folder opened ``O_NOFOLLOW``; a link, or anything
    but a regular file, is refused with one warning and nothing is written.
    """
    data = (line.rstrip("\n") + "\n").encode("utf-8", errors="replace")
    try:
        fd = open_append(path)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            logger.warning("refused to append to %s: it or its folder is a symbolic link", path)
        else:
            logger.warning("cannot append to %s: %s", path, exc)


class Locations:
    """``locations.json``: named places (``spawn``, ``base``, ``bed``, ``chest`` …)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.places: dict[str, dict[str, Any]] = load(
            path, LOCATIONS_FILE, {}, log=logger, then="starting with no places"
        )

    def remember(self, name: str, position: dict[str, float], note: str = "") -> bool:
        """Name a place (True when it is new or moved); written at once.

        A place ``locations.json`` would refuse to read back (outside the world,
        a bad name or note) is not kept: False.
        """
        place: dict[str, Any] = {k: round(float(position[k]), 1) for k in ("x", "y", "z")}
        if note:
            place["note"] = note
        if self.places.get(name) == place:
            return False
        try:
            LOCATIONS_FILE.spec.check({**self.places, name: place}, "")
        except SchemaError as exc:
            logger.debug("not remembering %s: %s", name, exc)  # may repeat per snapshot
            return False
        self.places[name] = place
        write_atomic(self.path, orjson.dumps(self.places, option=orjson.OPT_INDENT_2) + b"\n")
        return True
