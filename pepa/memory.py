"""Personal memory files of one server, written atomically (temp file + rename).

Only ``current-task.json`` for now: what the bot is doing, written before a
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

__all__ = ["TaskFile", "write_atomic"]

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
