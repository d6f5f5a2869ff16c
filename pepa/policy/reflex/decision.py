"""What the reflex chain answers (:class:`Decision`), what it remembers between decisions
(:class:`ChainState`, owned by the reflex actor), and which reflex pre-empts which
(:data:`PRIORITY`). Pure."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pepa.policy.reflex import combat, night
from pepa.policy.reflex.advice import Lessons
from pepa.policy.reflex.knobs import KNOBS, Tuning
from pepa.policy.reflex.taskslot import TaskSlot
from pepa.world.view import Entity, Vec3, WorldView

__all__ = [
    "COVER_HOLD",
    "COVER_RETRY",
    "EAT_COOLDOWN",
    "PRIORITY",
    "SAFE_DISTANCE",
    "SAFE_FOR",
    "TRAPPED_MOVED",
    "ChainState",
    "Decision",
    "archers_in_range",
    "pursuing",
]

SAFE_DISTANCE = 20.0
"""A flight goes on while a hostile is this close (a zombie's follow range is 35, but one
out of sight for 3 s gives up: vanilla NearestAttackableTargetGoal's 60 unseen ticks)."""

SAFE_FOR = 3.0
"""Seconds with no hostile within :data:`SAFE_DISTANCE` before a flight ends and tasks resume."""

COVER_HOLD = 15.0
"""Seconds in cover with no archer seeing the bot after which cover ends though an archer is
still in range: one that cannot see the bot (behind a wall, in a cave below) must not hold
back eating, the night's shelter and the task for good; once it sees the bot again, cover is
taken again."""

COVER_RETRY = 5.0
"""Seconds after a cover search that ended in sight of an archer before another is made
(a search that ended hidden may be made again at once: the archer came round)."""


def archers_in_range(world: WorldView) -> tuple[Entity, ...]:
    """Archers within their range, seen or not."""
    return tuple(
        e
        for e in world.entities
        if e.hostile and combat.is_archer(e) and e.distance <= combat.ARCHER_RANGE
    )


def pursuing(world: WorldView) -> tuple[Entity, ...]:
    """Hostiles within SAFE_DISTANCE (the view's threats stop at 16: these go on to 20)."""
    return tuple(e for e in world.entities if e.hostile and e.distance <= SAFE_DISTANCE)


EAT_COOLDOWN = 5.0

TRAPPED_MOVED = 1.0
"""Blocks moved while enclosed that start the trapped clock again."""


PRIORITY = {
    "breathe": 55,
    "defend": 50,
    "escape": 45,
    "eat": 40,
    "operator": 35,
    "sleep": 30,
    "night": 30,
    "stock": 25,
    "task": 20,
    "idle": 0,
}
"""Higher pre-empts lower."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """What the bot should be doing now."""

    reflex: str
    """Which link of the chain won (``defend``, ``eat`` …)."""
    skill: str | None = None
    """The skill to run (``combat.attack-nearest`` …); None to do nothing."""
    args: Mapping[str, Any] = field(default_factory=dict)
    """The skill's arguments."""
    reason: str = ""
    """Why, in a few words (for logs and the dashboard)."""
    advice: tuple[str, str, str, str] | None = None
    """(skill, hostile, verdict, situation signature) of the lesson that changed this decision,
    if one did."""

    @property
    def priority(self) -> int:
        """Rank in the chain."""
        return PRIORITY[self.reflex]


@dataclass(slots=True, kw_only=True)
class ChainState:
    """What the chain remembers between decisions (owned by the reflex actor)."""

    slot: TaskSlot = field(default_factory=TaskSlot)
    """The operator's come/follow order and the task (curriculum or suggestion)."""
    last_eat: float = -math.inf
    """When the bot last tried to eat."""
    sleep_retry_at: float = -math.inf
    """No sleep attempt before this time (after a refusal)."""
    trapped_since: float | None = None
    """Since when no side has been open at the spot where the bot stands."""
    trapped_at: Vec3 | None = None
    """Where the bot stood when it was first seen enclosed."""
    sleeping: bool = False
    """Whether the bot lies in a bed."""
    struck_creeper_at: float = -math.inf
    """When the bot last swung at a creeper (it backs off after each strike)."""
    flight_since: float | None = None
    """Since when the bot has been fleeing; None when it is not."""
    clear_since: float | None = None
    """Since when, in a flight, no hostile has been within :data:`SAFE_DISTANCE`."""
    cover_since: float | None = None
    """Since when the bot has kept to cover from archers; None when it does not."""
    cover_tried_at: float = -math.inf
    """When the bot last set out for cover."""
    hidden_at: float = -math.inf
    """When, in cover, no archer within range last saw the bot."""
    archers_gone_since: float | None = None
    """Since when, in cover, no archer has been within range."""
    unseen_since: float | None = None
    """Since when, in cover, no archer in range has seen the bot."""
    shelter: Vec3 | None = None
    """Where the bot walled itself in for the night (:func:`night.shelter_spot`); None when out."""
    night_retry_at: float = -math.inf
    """No shelter attempt before this time (after one failed)."""
    stock_retry_at: float = -math.inf
    """No hunt for the night before this time (after one failed: knob ``night_food``)."""
    home: Vec3 | None = None
    """Where the home is (the cell inside its door, ``locations.json`` ``home``): the night
    plan walks there at dusk (:func:`night.plan`); walls round the bot there are no shelter."""
    home_retry_at: float = -math.inf
    """No walk home before this time (after one failed)."""
    morning_retry_at: float = -math.inf
    """No way out of the shelter tried before this time (after one failed)."""
    ways_out_failed: int = 0
    """Ways out of the shelter that failed in a row (the reflex actor gives up at WAYS_OUT)."""
    lessons: Lessons = field(default_factory=Lessons)
    """The lessons in force, by skill and situation (:mod:`pepa.policy.reflex.advice`)."""

    def learn(
        self, skill: str, hostile: str, verdict: str, alternative: str, confidence: float,
        signature: str = "",
    ) -> None:  # fmt: skip
        """Take a lesson into account from now on (:meth:`Lessons.learn`)."""
        self.lessons.learn(skill, hostile, verdict, alternative, confidence, signature)

    def tuning(
        self, world: WorldView, mob: str | None = None, names: Iterable[str] = KNOBS
    ) -> Tuning:
        """The policy's knobs for the present (:meth:`Lessons.tuning`)."""
        return self.lessons.tuning(world, mob, names)

    def started(self, decision: Decision, now: float) -> None:
        """Remember what the chain needs of a skill the reflex actor has just started."""
        if decision.skill == "survive.eat":
            self.last_eat = now
        elif decision.skill == "combat.attack-nearest" and decision.args.get("name") == "creeper":
            self.struck_creeper_at = now
        elif decision.skill == "survive.flee" and decision.args.get("flight"):
            self.clear_since = None
            if self.flight_since is None:
                self.flight_since = now
        elif decision.skill == "survive.cover":
            self.cover_tried_at, self.archers_gone_since = now, None
            if self.cover_since is None:
                self.cover_since = now

    def may_cover(self, now: float) -> bool:
        """Whether a search for cover may be made now (not just after one that found none)."""
        return now - self.cover_tried_at >= COVER_RETRY or self.hidden_at >= self.cover_tried_at

    def in_cover(self) -> bool:
        """Whether the bot keeps to cover (an archer in range, or gone for under SAFE_FOR)."""
        return self.cover_since is not None

    def observe(self, world: WorldView, now: float) -> None:
        """Update the time-based parts from a new world view."""
        self._follow_flight(world, now)
        self._follow_cover(world, now)
        enclosure = world.enclosure
        lead = self.tuning(world, names=("dusk_lead",)).dusk_lead
        self.shelter = night.shelter_spot(world, self.shelter, lead, self.home)
        trapped = (
            world.connected
            and enclosure is not None
            and enclosure.open_sides == 0
            and not night.resting(world, self.shelter, lead)  # by night walls are a shelter
        )
        self.sleeping = world.sleeping
        here = world.position
        moved = (
            here is not None
            and self.trapped_at is not None
            and here.distance_to(self.trapped_at) >= TRAPPED_MOVED
        )
        if trapped and (self.trapped_since is None or moved):
            # a bot that works its way on through tight spaces is not stuck: the
            # clock starts again at each new spot
            self.trapped_since, self.trapped_at = now, here
        elif not trapped:
            self.trapped_since, self.trapped_at = None, None

    def _follow_flight(self, world: WorldView, now: float) -> None:
        """A flight ends once no hostile has been within SAFE_DISTANCE for SAFE_FOR seconds."""
        if self.flight_since is None:
            return
        if not world.in_world:
            self.flight_since = self.clear_since = None
        elif pursuing(world):
            self.clear_since = None
        elif self.clear_since is None:
            self.clear_since = now
        elif now - self.clear_since >= SAFE_FOR:
            self.flight_since = self.clear_since = None

    def _follow_cover(self, world: WorldView, now: float) -> None:
        """Cover ends once no archer has been within its range for SAFE_FOR seconds."""
        if self.cover_since is None:
            return
        archers = archers_in_range(world)
        if not world.in_world:
            self.cover_since = self.archers_gone_since = self.unseen_since = None
        elif archers:
            self.archers_gone_since = None
            if all(a.sight is False for a in archers):
                self.hidden_at = now
                self.unseen_since = self.unseen_since if self.unseen_since is not None else now
                if now - self.unseen_since >= COVER_HOLD:
                    self.cover_since = self.unseen_since = None
            else:
                self.unseen_since = None
        elif self.archers_gone_since is None:
            self.archers_gone_since = now
        elif now - self.archers_gone_since >= SAFE_FOR:
            self.cover_since = self.archers_gone_since = None
