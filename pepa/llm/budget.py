"""One shared rate budget for every LLM call the bot makes on its own.

At most :data:`MAX_CALLS` calls (post-mortems, idle escalations,
reflections) in any rolling hour, plus a cooldown per kind: 12 minutes
between two post-mortems, 10 minutes between two escalations. A call is
counted when it starts, whether or not its reply is any good, so a failing
model cannot burn more than the budget. Operator questions (``cmd:ask-pi``)
are not counted: a person asked.

:class:`LlmBudget` is pure (``now`` is a wall-clock time passed in, so the
budget survives a restart of the process); :func:`load_budget` and
:func:`save_budget` keep it in a small JSON file written atomically, so a
crash loop cannot reset it. The file is checked against :data:`BUDGET_FILE`
(known kinds, times no more than a day ahead — clamped to now — at most 64
entries); a file that fails is moved aside with one warning and the budget
starts fresh.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pepa.state.files import Int, JsonFile, ListOf, Obj, OneOf, Stamp, TupleOf, load, write_atomic

__all__ = [
    "BUDGET_FILE",
    "COOLDOWNS",
    "KINDS",
    "MAX_CALLS",
    "WINDOW",
    "LlmBudget",
    "load_budget",
    "save_budget",
]

logger = logging.getLogger(__name__)

MAX_CALLS = 3
"""LLM calls allowed in any rolling :data:`WINDOW`."""
WINDOW = 3600.0
"""Seconds of the rolling window."""
KINDS = ("analysis", "escalation", "reflection", "plan")
"""What a call is for."""
COOLDOWNS: Mapping[str, float] = {"analysis": 720.0, "escalation": 600.0, "reflection": 3600.0}
"""Seconds between two calls of the same kind (none for the others)."""
BUDGET_FILE = JsonFile(
    spec=Obj(
        required={"calls": ListOf(item=TupleOf(items=(Stamp(), OneOf(values=KINDS))), max_len=64)},
        optional={"version": Int(lo=1, hi=1)},
    ),
    build=lambda data: LlmBudget(calls=sorted(data["calls"])),
    max_bytes=16 * 1024,
)
"""``llm-budget.json``: ``{"version": 1, "calls": [[wall time, kind], …]}``."""


@dataclass(slots=True, kw_only=True)
class LlmBudget:
    """Which calls were made when; says whether another one may start."""

    max_calls: int = MAX_CALLS
    """Calls per window."""
    window: float = WINDOW
    """Seconds of the rolling window."""
    cooldowns: Mapping[str, float] = field(default_factory=lambda: dict(COOLDOWNS))
    """Per-kind cooldowns in seconds."""
    calls: list[tuple[float, str]] = field(default_factory=list)
    """(wall time, kind) of recent calls, oldest first."""

    def refusal(self, kind: str, now: float) -> str | None:
        """Why a ``kind`` call may not start at ``now``, or None when it may."""
        if kind not in KINDS:
            raise ValueError(f"unknown LLM call kind {kind!r}")
        self._forget(now)
        recent = [t for t, _ in self.calls if now - t < self.window]
        if len(recent) >= self.max_calls:
            wait = recent[0] + self.window - now
            return f"{len(recent)} LLM calls in the last hour (next in {wait:.0f}s)"
        cooldown = self.cooldowns.get(kind, 0.0)
        last = max((t for t, k in self.calls if k == kind), default=None)
        if last is not None and now - last < cooldown:
            return f"{kind} cooldown ({cooldown - (now - last):.0f}s left)"
        return None

    def spend(self, kind: str, now: float) -> None:
        """Count a ``kind`` call starting at ``now``."""
        if kind not in KINDS:
            raise ValueError(f"unknown LLM call kind {kind!r}")
        self._forget(now)
        self.calls.append((now, kind))

    def try_spend(self, kind: str, now: float) -> str | None:
        """Spend a ``kind`` call if allowed; returns the refusal otherwise."""
        why = self.refusal(kind, now)
        if why is None:
            self.spend(kind, now)
        return why

    def _forget(self, now: float) -> None:
        # a time in the future (the clock went back) counts as now: conservative, but bounded
        keep = max(self.window, *self.cooldowns.values(), 0.0)
        self.calls = sorted((min(t, now), k) for t, k in self.calls if now - min(t, now) < keep)

    def to_json(self) -> dict[str, Any]:
        """Plain values for the file."""
        return {"version": 1, "calls": [[t, k] for t, k in self.calls]}

    @classmethod
    def from_json(cls, data: Any) -> LlmBudget:
        """The budget a file holds; ValueError (:class:`SchemaError`) if it is not one."""
        return BUDGET_FILE.build(BUDGET_FILE.spec.check(data, ""))


def load_budget(path: Path | None) -> LlmBudget:
    """The budget kept at ``path``; fresh if there is none, or a bad one (moved aside, warned)."""
    if path is None:
        return LlmBudget()
    then = "the budget is corrupt: starting a fresh one"
    return load(path, BUDGET_FILE, LlmBudget(), log=logger, then=then)


def save_budget(path: Path | None, budget: LlmBudget) -> None:
    """Write the budget atomically (a temporary file renamed over ``path``); never raises."""
    if path is None:
        return
    try:
        write_atomic(path, orjson.dumps(budget.to_json()))
    except OSError as exc:
        logger.warning("cannot save the LLM budget %s: %s", path, exc)
