"""The lessons the reflex chain consults: advice on a skill, and the knobs they turn. Pure.

:class:`Lessons` is the chain's copy of the lessons in force (the reflex
actor feeds it ``ActiveLessons`` at start and every ``LessonLearned``). It
keeps them in a :class:`pepa.policy.reflex.situation.LessonIndex`, so each
decision recalls the lessons about situations like the present one:
:meth:`Lessons.advised` for a skill about to run against a hostile, and
:meth:`Lessons.tuning` for the knobs of the policy (:mod:`pepa.policy.reflex.knobs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pepa.policy.reflex.hazards import HAZARD_MOB
from pepa.policy.reflex.knobs import KNOB_PREFIX, KNOBS, Tuning, tuning
from pepa.policy.reflex.situation import LessonIndex, Situation, situation_of
from pepa.world.view import Entity, WorldView

__all__ = ["ADVICE_ALTERNATIVES", "ADVICE_CONFIDENCE", "Lessons"]

ADVICE_CONFIDENCE = 0.6
"""Lessons at or above this weight (confidence, discounted for a coarse match) change what
the chain does."""
ADVICE_ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "combat.attack-nearest": ("survive.flee", "survive.pillar-up"),
}
"""The only skills advice may run instead of a skill (a whitelist), safest first."""

Key = tuple[str, str, str, str]
"""A lesson's identity: (skill, hostile, verdict, situation signature)."""


@dataclass
class Lessons:
    """The lessons in force, by skill and situation."""

    index: LessonIndex = field(default_factory=LessonIndex)
    alternatives: dict[Key, str] = field(default_factory=dict)
    """What each lesson runs instead (advice), or its change (a knob lesson)."""
    knobs: bool = False
    """Whether any knob lesson was learned (none: the knobs keep their defaults, nothing to
    recall)."""

    def learn(
        self, skill: str, hostile: str, verdict: str, alternative: str, confidence: float,
        signature: str = "",
    ) -> None:  # fmt: skip
        """Take a lesson into account from now on (again: its new confidence).

        A lesson with no situation is about its hostile anywhere (recalled at
        the coarsest level, in full); one with a situation is recalled first
        where the present is like it.
        """
        situation = replace(Situation.parse(signature), mob=hostile)
        key = (skill, hostile, verdict, signature)
        self.index.put(key, skill, situation, verdict, confidence, general=not signature)
        self.alternatives[key] = alternative
        self.knobs = self.knobs or skill.startswith(KNOB_PREFIX)

    def take(self, lesson: Any) -> None:
        """:meth:`learn` a lesson as the knowledge actor hands it over (an ``ActiveLesson`` at
        start, a ``LessonLearned`` after: both carry these fields)."""
        self.learn(
            lesson.skill, lesson.hostile, lesson.verdict, lesson.alternative,
            lesson.confidence, lesson.signature,
        )  # fmt: skip

    def advised(self, skill: str, hostile: str, world: WorldView) -> tuple[str, str, str] | None:
        """(verdict, skill to run instead, the lesson's situation) when a confident lesson about
        a situation like the present changes ``skill``, else None.

        ``avoid`` backs the skill off: its whitelisted alternative runs, or the
        first one of the whitelist when the lesson names none; ``prefer`` runs
        the lesson's alternative, and only when the whitelist allows it.
        """
        if not self.index.about(skill, hostile):
            return None
        allowed = ADVICE_ALTERNATIVES.get(skill, ())
        present = replace(situation_of(world), mob=hostile)
        for found in self.index.recall(skill, present):
            key = found.key
            if key[1] != hostile or found.weight < ADVICE_CONFIDENCE:
                continue
            if found.verdict not in ("avoid", "prefer"):
                continue
            alternative = self.alternatives.get(key, "")
            if alternative in allowed:
                return found.verdict, alternative, key[3]
            if found.verdict == "avoid" and allowed:
                return found.verdict, allowed[0], key[3]
        return None

    def kept_from(
        self, threats: Sequence[Entity], radius: float
    ) -> tuple[Entity, tuple[str, str, str, str]] | None:
        """The nearest of ``threats`` within ``radius`` of a mob type a confident lesson keeps the
        bot from (``hazard.mob``: one that hurt it too hard before), with the lesson's key;
        None when there is none."""
        for threat in threats:
            if threat.distance > radius:
                break
            if not self.index.about(HAZARD_MOB, threat.name):
                continue
            for found in self.index.recall(HAZARD_MOB, Situation(mob=threat.name)):
                if found.verdict == "avoid" and found.weight >= ADVICE_CONFIDENCE:
                    return threat, found.key
        return None

    def tuning(
        self, world: WorldView, mob: str | None = None, names: Iterable[str] = KNOBS
    ) -> Tuning:
        """The policy's knobs for the present (:mod:`pepa.policy.reflex.knobs`): each moved by the
        heaviest confident lesson about a situation like this one, within its bounds. ``mob``:
        the hostile the fight knobs are about, when not the nearest in view (an archer that
        cannot see the bot is nearer than the mob the policy fights). ``names``: the knobs the
        caller reads (each is a recall; the others keep their defaults)."""
        if not self.knobs:
            return Tuning()
        present = situation_of(world)
        if mob is not None:
            present = replace(present, mob=mob)

        def recalled(skill: str, mob: str | None) -> Iterator[tuple[str, float, str, Any]]:
            like = present if mob is None else replace(present, mob=mob)
            for found in self.index.recall(skill, like):
                yield found.verdict, found.weight, self.alternatives.get(found.key, ""), found.key

        return tuning(recalled, ADVICE_CONFIDENCE, names)
