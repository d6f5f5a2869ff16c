"""The watchdog's rules: is a movement goal making progress? Pure.

While a movement goal is active, :class:`ProgressWatch` keeps the best
horizontal distance covered; no progress for ``stall_after`` seconds, or a
pathfinder failure, is a stall. Each stall climbs one rung of the ladder:
re-path → pillar up → dig out → alert the operators. Progress or a new goal
resets the ladder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LADDER", "ProgressWatch", "StuckVerdict"]

LADDER = ("repath", "pillar-up", "dig-out", "alert")
"""What to try after each successive stall."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StuckVerdict:
    """The watchdog's judgement that the bot is stuck, and what to try."""

    step: str
    """A rung of :data:`LADDER`."""
    reason: str
    """Why it judged the bot stuck."""
    position: Mapping[str, float] | None
    """Where."""


@dataclass(slots=True, kw_only=True)
class ProgressWatch:
    """Follows one movement goal at a time."""

    stall_after: float = 60.0
    """Seconds without horizontal progress that make a stall."""
    min_progress: float = 1.0
    """Blocks of horizontal movement that count as progress."""
    goal: str | None = None
    _anchor: tuple[float, float] | None = None
    _since: float = 0.0
    _rung: int = 0
    danger: list[tuple[float, float, float]] = field(default_factory=list)
    """Places where the bot got stuck (x, z, radius), to steer the pathfinder away from."""

    def start(self, goal: str, now: float) -> None:
        """A new movement goal begins."""
        self.goal, self._anchor, self._since, self._rung = goal, None, now, 0

    def stop(self) -> None:
        """The movement goal ended."""
        self.goal, self._anchor, self._rung = None, None, 0

    def observe(self, position: Mapping[str, Any] | None, now: float) -> StuckVerdict | None:
        """A new position; a verdict when the goal has stalled for too long."""
        if self.goal is None or not position:
            return None
        here = (float(position["x"]), float(position["z"]))
        if self._anchor is None or math.dist(here, self._anchor) >= self.min_progress:
            self._anchor, self._since = here, now
            return None
        if now - self._since < self.stall_after:
            return None
        self._since = now
        return self._climb(f"no progress for {self.stall_after:g}s toward {self.goal}", position)

    def failed(self, error: str, position: Mapping[str, Any] | None) -> StuckVerdict | None:
        """The pathfinder reported a failure (no path, stuck, timeout)."""
        if self.goal is None:
            return None
        return self._climb(f"pathfinder: {error}", position)

    def _climb(self, reason: str, position: Mapping[str, Any] | None) -> StuckVerdict:
        step = LADDER[min(self._rung, len(LADDER) - 1)]
        self._rung += 1
        if position:
            self.danger.append((float(position["x"]), float(position["z"]), 3.0))
            del self.danger[:-32]
        return StuckVerdict(step=step, reason=reason, position=position)
