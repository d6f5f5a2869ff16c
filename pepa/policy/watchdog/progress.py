"""The watchdog's rules: is a movement goal making progress? Pure.

:class:`ProgressWatch` follows what the reflex runs: a movement skill
(:data:`MOVEMENT_SKILLS`) is a goal to watch, anything else ends the watch.
While a goal is active it keeps the best horizontal distance covered; no
progress for ``stall_after`` seconds, or a walk the pathfinder gave up on,
is a stall. Each stall climbs one rung of the ladder: re-path → pillar up →
dig out → alert the operators — at most one rung per ``stall_after`` window,
so a burst of failures climbs one rung, not the whole ladder.

What is not a stall: a walk ended by a pre-emption or a goal change
(:func:`preempted`: the pathfinder's "goal was changed", the runner's own
cancellation), a walk waiting for a player to come into sight (it is not
judged until the bot moves again or the walk is started again: :meth:`resume`),
and anything while defend, escape or eat runs (:data:`SUSPENDING`: the watch
is suspended; the same goal resuming after them gets a fresh stall clock but
keeps its rung, so a walk interrupted every minute still climbs the ladder).
Progress restarts the stall clock; only a new goal (or the end of the goal)
puts the ladder back at its first rung. Every verdict names its cause
(``no progress 60 s on nav.goto``, ``path failed: No path to the goal!``),
short enough to be counted by cause. Time is always passed in (``now``,
monotonic seconds); nothing here reads a clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pepa.world.view import Vec3

__all__ = [
    "LADDER",
    "MOVEMENT_SKILLS",
    "NOT_STUCK",
    "PREEMPTED",
    "SUSPENDING",
    "ProgressWatch",
    "StuckVerdict",
    "movement_goal",
    "preempted",
]

LADDER = ("repath", "pillar-up", "dig-out", "alert")
"""What to try after each successive stall."""
MOVEMENT_SKILLS = ("nav.goto", "nav.follow", "nav.explore")
"""Skills whose progress is measured in blocks walked (escapes are watched by their own end; a
flight runs under defend, which suspends the watch)."""
SUSPENDING = ("breathe", "defend", "escape", "eat")
"""Reflexes that pre-empt a walk for their own reasons: no verdict while one runs."""
NOT_STUCK = ("cannot see",)
"""Walk errors that say nothing about the terrain: the target is out of sight (the reflex waits)."""
PREEMPTED = (
    "The goal was changed",  # mineflayer-pathfinder 2.4.5 lib/goto.js GoalChanged: setGoal(other)
    "Path was stopped",  # the same file, PathStopped: bot.pathfinder.stop()
    "GoalChanged",  # the same two errors as String(error) gives them: name first
    "PathStopped",
)
"""A walk another action replaced: the pathfinder's words."""
CANCELLED = "stopped"
"""The bot's JS: a long action that saw ``stop()`` bump the context's ``epoch`` gives up with
this (``pepa/link/js/context.js``)."""


def movement_goal(skill: str | None) -> str | None:
    """``skill`` (with its arguments, ``nav.goto 1 2 3``) if it is a movement, else None."""
    if skill and skill.split(" ")[0] in MOVEMENT_SKILLS:
        return skill
    return None


def preempted(error: str) -> bool:
    """True when a walk ended because another action replaced it: never a stall."""
    return error == CANCELLED or error.startswith(PREEMPTED)


DEATH_RADIUS = 4.0
"""Blocks round a death's place the pathfinder walks around when it can (each step inside
costs 30 more: ``pepa/link/js/context.js`` DANGER_COST)."""
KEPT_AREAS = 32
"""Places of each kind (stuck, died) kept for the pathfinder."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StuckVerdict:
    """The watchdog's judgement that the bot is stuck, and what to try."""

    step: str
    """A rung of :data:`LADDER`."""
    cause: str
    """Why, without the goal's arguments (``no progress 60 s on nav.goto``): counted by cause."""
    goal: str
    """The goal it was judged on (``nav.goto 20 64 0``)."""
    position: Vec3 | None
    """Where."""


@dataclass(slots=True, kw_only=True)
class ProgressWatch:
    """Follows one movement goal at a time."""

    stall_after: float = 60.0
    """Seconds without horizontal progress that make a stall; also the least time between rungs."""
    min_progress: float = 1.0
    """Blocks of horizontal movement that count as progress."""
    goal: str | None = None
    _anchor: Vec3 | None = None
    _since: float = 0.0
    _rung: int = 0
    _climbed_at: float | None = None
    _waiting: bool = False
    """The walk waits for its target to come into sight: no verdict until the bot moves."""
    _suspended: bool = False
    """Defend, escape or eat runs: :attr:`goal` and its rung are kept for when it resumes."""
    danger: list[tuple[float, float, float]] = field(default_factory=list)
    """Places where the bot got stuck (x, z, radius), to steer the pathfinder away from."""
    deaths: list[tuple[float, float, float]] = field(default_factory=list)
    """Places where the bot died (x, z, :data:`DEATH_RADIUS`), the last :data:`KEPT_AREAS`."""

    def died_at(self, x: float, z: float) -> None:
        """The bot died here: the pathfinder walks around the place from now on."""
        self.deaths.append((round(x, 1), round(z, 1), DEATH_RADIUS))
        del self.deaths[:-KEPT_AREAS]

    def areas(self) -> list[tuple[float, float, float]]:
        """Every place the pathfinder should walk around: where it got stuck, where it died."""
        return [*self.danger, *self.deaths]

    def activity(self, reflex: str | None, skill: str | None, now: float) -> None:
        """The reflex now runs ``skill`` for ``reflex``: watch it if it is a new movement."""
        if reflex in SUSPENDING:
            self._suspended, self._anchor = self.goal is not None, None
            return
        goal = movement_goal(skill)
        if goal is None:
            self.stop()  # not a walk
        elif goal != self.goal:
            self.start(goal, now)
        elif self._suspended:  # the same walk after defend, escape or eat: it keeps its rung
            self.resume(now)

    def resume(self, now: float) -> None:
        """The walk starts again (after a suspension, or its target came into sight): judge it
        afresh from now, on the rung it had reached."""
        if self.goal is not None:
            self._anchor, self._since, self._waiting, self._suspended = None, now, False, False

    def start(self, goal: str, now: float) -> None:
        """A new movement goal begins."""
        self.goal, self._anchor, self._since, self._rung = goal, None, now, 0
        self._waiting = self._suspended = False

    def stop(self) -> None:
        """The movement goal ended."""
        self.goal, self._anchor, self._rung, self._waiting = None, None, 0, False
        self._suspended = False

    def observe(self, position: Vec3 | None, now: float) -> StuckVerdict | None:
        """A new position; a verdict when the goal has stalled for too long."""
        if self.goal is None or self._suspended or position is None:
            return None
        if self._anchor is None:
            self._anchor, self._since = position, now
            return None
        if position.horizontal_distance(self._anchor) >= self.min_progress:
            self._anchor, self._since, self._waiting = position, now, False
            return None
        if self._waiting or now - self._since < self.stall_after or not self._may_climb(now):
            return None
        self._since = now
        cause = f"no progress {self.stall_after:g} s on {self.goal.split(' ')[0]}"
        return self._climb(self.goal, cause, position, now)

    def failed(self, error: str, position: Vec3 | None, now: float) -> StuckVerdict | None:
        """The pathfinder gave the walk up (no path, stuck, timeout, short of the goal)."""
        if self.goal is None or self._suspended or preempted(error):
            return None
        if error.startswith(NOT_STUCK):
            self._waiting = True
            return None
        if not self._may_climb(now):
            return None
        return self._climb(self.goal, f"path failed: {error}", position, now)

    def _may_climb(self, now: float) -> bool:
        """At most one rung per window, whatever the goal."""
        return self._climbed_at is None or now - self._climbed_at >= self.stall_after

    def _climb(self, goal: str, cause: str, position: Vec3 | None, now: float) -> StuckVerdict:
        step = LADDER[min(self._rung, len(LADDER) - 1)]
        self._rung += 1
        self._climbed_at = now
        if position is not None:
            self.danger.append((position.x, position.z, 3.0))
            del self.danger[:-KEPT_AREAS]
        return StuckVerdict(step=step, cause=cause, goal=goal, position=position)
