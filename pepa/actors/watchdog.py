"""Watchdog: notices when a movement goal stops making progress.

It follows what the reflex runs (``ActivityChanged``: which reflex, which
skill) and where the bot is (``WorldObserved``). No horizontal progress for
60 s on a movement skill, or a walk the pathfinder gave up on, climbs one
rung of the ladder — re-path, pillar up, dig out, alert the operators — at
most one rung a minute, published as :class:`StuckDetected` (its ``reason``
is the verdict's cause) for the reflex to act on. A pre-empted walk is never
a stall, nor is waiting to see an operator (judged again once a player
comes into sight), and nothing is judged while
defend, escape or eat runs. The rules
are the pure :class:`pepa.policy.reflex.ProgressWatch`; this actor only routes
events to it and its verdicts out, one ``stuck: <cause> → <step>`` log line
each (the gauntlet counts them by cause).

It also steers the pathfinder round bad places (``set_danger``: each step
inside one costs more): where the bot got stuck, and where it died, from
``Died`` and, at start, the knowledge base's last deaths (``DeathPlaces``),
so a place that killed the bot is walked around in later runs too (with
learning on: a place of death is a lesson). And it keeps the pathfinder off the
block types lessons name (``set_hazards``, :class:`pepa.policy.watchdog.hazards.HazardBook`):
from the lessons in force at start (``ActiveLessons``) and each ``LessonLearned``
after, so what hurt the bot at one place is kept off everywhere.
"""

from __future__ import annotations

import logging
from typing import Any

from pepa.base.errors import SupervisionError
from pepa.link.api import Link
from pepa.policy.reflex.hazards import IN_FORCE, HazardBook
from pepa.policy.watchdog.progress import MOVEMENT_SKILLS, ProgressWatch, StuckVerdict
from pepa.runtime import SupervisedActor, SupervisionContext
from pepa.runtime.events import (
    ActionFinished,
    ActivityChanged,
    Connected,
    Died,
    ErrorRaised,
    LessonLearned,
    PlayerSpotted,
    StuckDetected,
    WorldObserved,
)
from pepa.runtime.events.queries import ActiveLessons, DeathPlaces

__all__ = ["MOVEMENT_SKILLS", "Watchdog"]

logger = logging.getLogger(__name__)


class Watchdog(SupervisedActor):
    """Publishes :class:`StuckDetected` when the bot stops getting anywhere."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        link: Link | None = None,
        stall_after: float = 60.0,
        learning: bool = True,
    ) -> None:
        super().__init__(supervision=supervision)
        self.link = link
        self.watch = ProgressWatch(stall_after=stall_after)
        self.learning = learning
        """False: places of death and the lessons' block types are not walked around (they
        are lessons; the gauntlet's control run); places the bot got stuck still are."""
        self.hazards = HazardBook()
        """The block types lessons keep the pathfinder off."""

    def setup(self) -> None:
        events = (WorldObserved, ActivityChanged, ActionFinished, Connected, PlayerSpotted, Died)
        for event_type in events:
            self.runtime.bus.subscribe(event_type, self.handle)
        if not self.learning:
            return
        self.runtime.bus.subscribe(LessonLearned, self.handle)
        knowledge = self.peer("knowledge")
        try:  # where the bot died before (the knowledge base's danger places)
            for x, z in knowledge.request(DeathPlaces(), timeout=2.0):
                self.watch.died_at(x, z)
        except SupervisionError as exc:
            logger.warning("no death places to walk around this time: %s", exc)
        try:  # the block types lessons keep it off
            for lesson in knowledge.request(ActiveLessons(), timeout=2.0):
                self.hazards.learn(lesson.skill, lesson.hostile, lesson.confidence)
        except SupervisionError as exc:
            logger.warning("no block lessons to keep off this time: %s", exc)
        if len(self.hazards):
            self._keep_off()

    def on_message(self, message: Any) -> Any:
        match message:
            case ActivityChanged(reflex=reflex, skill=skill):
                self.watch.activity(reflex, skill, self.now())
            case WorldObserved(view=view):
                self._report(self.watch.observe(view.position, self.now()))
            case ActionFinished(ok=False, action="goto" | "follow", error=error):
                self._report(self.watch.failed(error, None, self.now()))
            case ActionFinished():
                pass
            case PlayerSpotted():  # a walk waiting to see someone starts again: judge it
                self.watch.resume(self.now())
            case Connected():
                self._steer()
                self._keep_off()
            case LessonLearned() if not self.learning:
                pass
            case LessonLearned(skill=skill, hostile=hostile, confidence=confidence):
                if self.hazards.learn(skill, hostile, confidence):
                    logger.info(
                        "paths keep off %s (%s) %s (a lesson, confidence %.2f)", hostile,
                        skill, "from now on" if confidence >= IN_FORCE else "no longer", confidence,
                    )  # fmt: skip
                    self._keep_off(changed=True)
            case Died(position=position):
                if position and self.learning:  # a death with no place: nothing to walk round
                    self.watch.died_at(position["x"], position["z"])
                    self._steer()
                    logger.info(
                        "paths go round where the bot died at %.0f %.0f from now on (a lesson)",
                        position["x"], position["z"],
                    )  # fmt: skip
            case _:
                return super().on_message(message)
        return None

    def _steer(self) -> None:
        """Hand the remembered danger areas to the pathfinder (a new connection forgets them)."""
        areas = self.watch.areas()
        if self.link is not None and areas:
            self.link.call("set_danger", areas=areas)

    def _keep_off(self, *, changed: bool = False) -> None:
        """Hand the lessons' block types to the pathfinder (a new connection forgets them; a
        ``changed`` book is handed over even empty: the last one left went out of force)."""
        if self.link is not None and (changed or len(self.hazards)):
            self.link.call("set_hazards", **self.hazards.costs())

    def _report(self, verdict: StuckVerdict | None) -> None:
        if verdict is None:
            return
        logger.warning("stuck: %s → %s (%s)", verdict.cause, verdict.step, verdict.goal)
        self.publish(StuckDetected(step=verdict.step, reason=verdict.cause))
        self._steer()
        if verdict.step == "alert":
            self.publish(ErrorRaised(source="watchdog", text=f"stuck: {verdict.cause}"))
