"""The curriculum's own files: ``plan.md`` (+ ``.bak``), ``goal.md``, the diary, the inventory log.

The curriculum is their one writer (``docs/memory.md``); this is how it reads
and writes them. Each file is read back through its schema (a bad one is moved
aside and counts as none); a plan is written only if its own reader would
accept it, so nothing here can leave a ``plan.md`` that the next read refuses.
A plan naming skills by their old ids is rewritten once with the current ones.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import orjson

from pepa.state.files import SchemaError, load, write_atomic
from pepa.state.memory import GOAL_FILE, PLAN_FILE, append_line, read_text
from pepa.state.plans import rename_skills

__all__ = ["PlanBook"]

logger = logging.getLogger(__name__)


def _same(name: str) -> str:
    return name


class PlanBook:
    """``plan.md``, ``goal.md``, the diary and ``inventory-log.jsonl`` of one state folder."""

    def __init__(self, folder: Path, *, canonical: Callable[[str], str] = _same) -> None:
        self.dir = folder
        self.canonical = canonical
        """Maps an old skill id to its current one (``skills.canonical``)."""
        self.unrenamed = ""
        """A plan whose renaming its reader would refuse (kept as it is; said once)."""

    def plan(self) -> str:
        """``plan.md`` checked against its schema; a bad one is moved aside (no plan).

        A plan naming skills by old ids is rewritten once with the current ones
        (the old text kept in ``plan.md.bak``), so its milestones tick when the
        renamed skills finish.
        """
        text = load(self.dir / "plan.md", PLAN_FILE, "", log=logger, then="starting with no plan")
        renamed = rename_skills(text, self.canonical)
        if renamed == text or text == self.unrenamed:
            return text
        if not self.write_plan(renamed, backup=text):
            self.unrenamed = text
            return text
        logger.info("plan.md: milestones renamed to the current skill ids (backup in plan.md.bak)")
        return renamed

    def write_plan(self, text: str, *, backup: str = "") -> bool:
        """Write ``plan.md`` (``backup``, the old text, to ``plan.md.bak`` first) if its own
        reader accepts it; False, with a warning and the old plan kept, when not."""
        try:
            PLAN_FILE.parse(text.encode())
        except SchemaError as exc:
            logger.warning("plan.md left as it is: the new plan %s", exc)
            return False
        if backup:
            write_atomic(self.dir / "plan.md.bak", backup.encode())
        write_atomic(self.dir / "plan.md", text.encode())
        return True

    def goal(self) -> str:
        """``goal.md`` checked against its schema; a bad one is moved aside (no goal)."""
        text = load(self.dir / "goal.md", GOAL_FILE, "", log=logger, then="starting with no goal")
        return text.strip()

    def write_goal(self, text: str) -> None:
        """Replace ``goal.md`` (``text`` already one clean line)."""
        write_atomic(self.dir / "goal.md", f"{text}\n".encode())

    def diary_today(self) -> list[str]:
        """Today's diary lines (blank ones left out)."""
        return [line for line in read_text(self._diary_path()).splitlines() if line.strip()]

    def diary(self, text: str) -> None:
        """Append one line to today's diary."""
        append_line(self._diary_path(), f"- {datetime.now(UTC):%H:%M} {text}")

    def log_inventory(self, items: Mapping[str, int]) -> None:
        """Append the inventory, dated, to ``inventory-log.jsonl``."""
        entry = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "items": dict(items)}
        append_line(self.dir / "inventory-log.jsonl", orjson.dumps(entry).decode())

    def _diary_path(self) -> Path:
        return self.dir / "diary" / f"{datetime.now(UTC):%Y-%m-%d}.md"
