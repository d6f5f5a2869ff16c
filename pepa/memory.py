"""Personal memory files of one server, written atomically (temp file + rename).

``current-task.json`` is what the bot is doing, written before a
meaningful action and cleared when it ends, so a restarted worker resumes it.
A corrupt or hand-broken file gets one log line and counts as no task.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path
from typing import Any

import orjson

__all__ = ["Locations", "TaskFile", "append_line", "read_text", "write_atomic"]

logger = logging.getLogger(__name__)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class TaskFile:
    """``current-task.json``: the resume anchor."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any] | None:
        """The task in progress, or None (missing, empty or unreadable file)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            logger.warning("cannot read %s (%s); starting with no task", self.path, exc)
            return None
        if not data.strip():
            return None
        try:
            task = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            logger.warning("%s is not valid JSON (%s); starting with no task", self.path, exc)
            return None
        if not isinstance(task, dict) or not isinstance(task.get("kind"), str):
            logger.warning("%s has no task kind; starting with no task", self.path)
            return None
        return task

    def write(self, task: dict[str, Any]) -> None:
        """Record the task about to start."""
        write_atomic(self.path, orjson.dumps(task, option=orjson.OPT_INDENT_2) + b"\n")

    def clear(self) -> None:
        """The task ended."""
        self.path.unlink(missing_ok=True)


def read_text(path: Path, default: str = "") -> str:
    """A memory file's text; missing is ``default``, unreadable costs one log line."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return default
    except (OSError, UnicodeDecodeError) as exc:
        logger.warning("cannot read %s (%s); using a safe default", path, exc)
        return default


def append_line(path: Path, line: str) -> None:
    """Append one line (diary, inventory log); a failure costs a log line, never the caller."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line.rstrip("\n") + "\n")
    except OSError as exc:
        logger.warning("cannot append to %s: %s", path, exc)


class Locations:
    """``locations.json``: named places (``spawn``, ``base``, ``bed``, ``chest`` …)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.places: dict[str, dict[str, Any]] = self._load()

    def _load(self) -> dict[str, dict[str, Any]]:
        text = read_text(self.path)
        if not text.strip():
            return {}
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            logger.warning("%s is not valid JSON (%s); starting with no places", self.path, exc)
            return {}
        if not isinstance(data, dict):
            logger.warning("%s is not a JSON object; starting with no places", self.path)
            return {}
        return {
            str(name): place
            for name, place in data.items()
            if isinstance(place, dict) and all(isinstance(place.get(k), int | float) for k in "xyz")
        }

    def remember(self, name: str, position: dict[str, float], note: str = "") -> bool:
        """Name a place (True when it is new or moved); written at once."""
        place = {k: round(float(position[k]), 1) for k in ("x", "y", "z")}
        if note:
            place["note"] = note  # type: ignore[assignment]
        if self.places.get(name) == place:
            return False
        self.places[name] = place
        write_atomic(self.path, orjson.dumps(self.places, option=orjson.OPT_INDENT_2) + b"\n")
        return True
