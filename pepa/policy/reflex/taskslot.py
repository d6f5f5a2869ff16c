"""The task slot: what the bot works on beyond reflexes; what ``current-task.json`` holds.

Two things share the slot, and an operator always outranks the plan:

- an **order** — an operator's ``come`` or ``follow`` — ranks below defend,
  escape and eat and above the night plan and the task (see
  :mod:`pepa.policy.reflex.chain`): waiting on an order never stops a reflex;
- a **task** — the curriculum's milestone, or a skill an LLM suggested while
  idle — runs when nothing more urgent does.

``current-task.json`` has one writer, the reflex actor, and it writes
:meth:`TaskSlot.persisted`: the order while there is one, else the milestone
(a suggestion is not worth resuming). So a milestone that ends never deletes
an operator's order, an order never loses the milestone behind it, and
``stay`` clears only the order. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ORDER_KINDS", "TaskSlot"]

ORDER_KINDS = ("come", "follow")
"""Operator orders that occupy the slot (``stay`` ends them)."""


@dataclass(slots=True)
class TaskSlot:
    """The order and the task, and what of them a restart should resume."""

    order: dict[str, Any] | None = None
    """``{"kind": "come" | "follow", "operator": name}``."""
    task: dict[str, Any] | None = None
    """``{"skill", "args", "reason"}`` plus ``milestone`` for the curriculum's tasks."""

    def give_order(self, kind: str, operator: str) -> None:
        """An operator's come/follow: replaces any earlier order, keeps the task behind it."""
        if kind not in ORDER_KINDS:
            raise ValueError(f"{kind!r} is not an order that occupies the task slot")
        self.order = {"kind": kind, "operator": operator}

    def end_order(self) -> None:
        """The order is done, failed or cancelled (``stay``); the task stays."""
        self.order = None

    def suggest(
        self, skill: str, args: Mapping[str, Any], reason: str, milestone: str = ""
    ) -> None:
        """A new task (a milestone or a suggestion) replaces the old one."""
        self.task = {"skill": skill, "args": dict(args), "reason": reason}
        if milestone:
            self.task["milestone"] = milestone

    def drop_task(self, skill: str | None = None, milestone: str | None = None) -> bool:
        """End the task (only if it is ``skill`` / ``milestone`` when given); whether it ended."""
        task = self.task
        if task is None:
            return False
        if skill is not None and task.get("skill") != skill:
            return False
        if milestone is not None and task.get("milestone", "") != milestone:
            return False
        self.task = None
        return True

    def persisted(self) -> dict[str, Any] | None:
        """What ``current-task.json`` should hold now (None: no file)."""
        if self.order is not None:
            return dict(self.order)
        task = self.task
        if task is None or not task.get("milestone"):
            return None
        content: dict[str, Any] = {
            "kind": "milestone",
            "skill": task["skill"],
            "milestone": task["milestone"],
        }
        args = {k: v for k, v in (task.get("args") or {}).items() if k in ("item", "count")}
        if args:
            content["args"] = args
        return content

    @classmethod
    def resumed(cls, content: Mapping[str, Any] | None) -> TaskSlot:
        """The slot a restart resumes from ``current-task.json`` (already checked by its schema)."""
        slot = cls()
        if content is None:
            return slot
        kind = content.get("kind")
        if kind in ORDER_KINDS:
            slot.give_order(str(kind), str(content.get("operator")))
        elif kind == "milestone":
            milestone = str(content.get("milestone") or content.get("skill"))
            slot.suggest(
                str(content["skill"]),
                content.get("args") or {},
                f"milestone {milestone}",
                milestone=milestone,
            )
        return slot
