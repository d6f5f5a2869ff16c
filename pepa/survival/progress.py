"""The watchdog's rules: is a movement goal making progress? Pure.

:class:`ProgressWatch` follows what the reflex runs: a movement skill
(:data:`MOVEMENT_SKILLS`) is a goal to watch, anything else ends the watch.
While a goal is active it keeps the best horizontal distance covered; no
progress for ``stall_after`` seconds, or a pathfinder failure, is a stall
(a walk to a player the bot cannot see is not). Each stall climbs one rung
of the ladder: re-path → pillar up → dig out → alert the operators.
Progress restarts the stall clock; only a new goal (or the end of the goal)
puts the ladder back at its first rung. Time is always passed in (``now``,
monotonic seconds); nothing here reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pepa.world.view import Vec3

__all__ = [
    "LADDER",
    "MOVEMENT_SKILLS",
    "NOT_STUCK",
    "ProgressWatch",
    "StuckVerdict",
    "movement_goal",
]

LADDER = ("repath", "pillar-up", "dig-out", "alert")
"""What to try after each successive stall."""
MOVEMENT_SKILLS = ("nav.goto", "nav.follow", "survive.flee", "nav.explore")
"""Skills whose progress is measured in blocks walked (escapes are watched by their own end)."""
NOT_STUCK = ("cannot see",)
"""Pathfinder errors that say nothing about the terrain (the target is out of sight)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StuckVerdict:
    """The watchdog's judgement that the bot is stuck, and what to try."""

    step: str
    """A rung of :data:`LADDER`."""
    reason: str
    """Why it judged the bot stuck."""
    position: Vec3 | None
    """Where."""


def movement_goal(skill: str | None) -> str | None:
    """``skill`` (with its arguments, ``nav.goto 1 2 3``) if it is a movement, else None."""
    if skill and skill.split(" ")[0] in MOVEMENT_SKILLS:
        return skill
    return None


@dataclass(slots=True, kw_only=True)
class ProgressWatch:
    """Follows one movement goal at a time."""

    stall_after: float = 60.0
    """Seconds without horizontal progress that make a stall."""
    min_progress: float = 1.0
    """Blocks of horizontal movement that count as progress."""
    goal: str | None = None
    _anchor: Vec3 | None = None
    _since: float = 0.0
    _rung: int = 0
    danger: list[tuple[float, float, float]] = field(default_factory=list)
    """Places where the bot got stuck (x, z, radius), to steer the pathfinder away from."""

    def activity(self, skill: str | None, now: float) -> None:
        """The reflex now runs ``skill`` (None: nothing): watch it if it is a new movement."""
        goal = movement_goal(skill)
        if goal is None:
            self.stop()
        elif goal != self.goal:
            self.start(goal, now)

    def start(self, goal: str, now: float) -> None:
        """A new movement goal begins."""
        self.goal, self._anchor, self._since, self._rung = goal, None, now, 0

    def stop(self) -> None:
        """The movement goal ended."""
        self.goal, self._anchor, self._rung = None, None, 0

    def observe(self, position: Vec3 | None, now: float) -> StuckVerdict | None:
        """A new position; a verdict when the goal has stalled for too long."""
        if self.goal is None or position is None:
            return None
        if self._anchor is None or position.horizontal_distance(self._anchor) >= self.min_progress:
            self._anchor, self._since = position, now
            return None
        if now - self._since < self.stall_after:
            return None
        self._since = now
        return self._climb(f"no progress for {self.stall_after:g}s toward {self.goal}", position)

    def failed(self, error: str, position: Vec3 | None) -> StuckVerdict | None:
        """The pathfinder reported a failure (no path, stuck, timeout)."""
        if self.goal is None or error.startswith(NOT_STUCK):
            return None
        return self._climb(f"pathfinder: {error}", position)

    def _climb(self, reason: str, position: Vec3 | None) -> StuckVerdict:
        step = LADDER[min(self._rung, len(LADDER) - 1)]
        self._rung += 1
        if position is not None:
            self.danger.append((position.x, position.z, 3.0))
            del self.danger[:-32]
        return StuckVerdict(step=step, reason=reason, position=position)
