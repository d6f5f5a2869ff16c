"""Death analysis: a death and the recent world into a post-mortem and lessons; lessons graded
by what followed their advice. Pure: values and ``now`` in, values out.

:class:`DeathAnalysis` is what the knowledge actor consults on every death
and every outcome. It keeps the last :data:`BUNDLE_SECONDS` of world
snapshots (as the plain JSON of :meth:`WorldView.to_wire`, the shape the LLM
prompts and the ``deaths`` rows read), the reflex chain's last activity, and
the lessons followed lately whose outcome is not known yet. On a death it
answers the context bundle, the offline post-mortem
(:func:`pepa.policy.learning.postmortem.analyse`) and the grades of the lessons
followed within :data:`ADVICE_WINDOW` (they failed); on a skill that finished
well, the grades of the lessons whose alternative it was (they held). The
actor stores what it answers; nothing here touches the database or the bus.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pepa.policy.learning.attribution import (
    SAFE_BEFORE,
    Attribution,
    HarmlessWatch,
    NearMissWatch,
    attribute,
    hazard_lessons,
)
from pepa.policy.learning.postmortem import PostMortemDraft, analyse
from pepa.policy.reflex.hazards import HAZARD_PREFIX, hazard_skill
from pepa.policy.reflex.situation import fight_signature
from pepa.runtime.events import AdviceApplied, LessonLearned
from pepa.runtime.events.queries import ActiveLesson
from pepa.state.knowledge.records import LessonDraft
from pepa.world.contact import Contact
from pepa.world.death import DamageSource, DeathCause
from pepa.world.view import WorldView

__all__ = [
    "ACT_ON",
    "ADVICE_WINDOW",
    "BUNDLE_SECONDS",
    "MAX_SNAPSHOTS",
    "DeathAnalysis",
    "Grade",
    "NearMiss",
    "PostMortem",
    "active_lessons",
    "announcement",
    "drafts_of",
]

BUNDLE_SECONDS = 30.0
"""How much of the past a death's context bundle keeps."""
MAX_SNAPSHOTS = 150
"""Snapshots in a bundle at most (30 s at 5 Hz)."""
ADVICE_WINDOW = 60.0
"""A death this soon after following a lesson counts against the lesson."""
ACT_ON = 0.6
"""The confidence from which the reflex chain acts on a lesson."""


class LessonLike(Protocol):
    """What a stored lesson shows (:class:`pepa.state.knowledge.LessonRecord`)."""

    @property
    def skill(self) -> str: ...
    @property
    def hostile(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def alternative(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def signature(self) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Grade:
    """One lesson's outcome: the alternative it advised went well, or the bot died."""

    skill: str
    hostile: str
    verdict: str
    success: bool
    signature: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class PostMortem:
    """What a death leaves: the context bundle to store, the offline analysis, the grades."""

    bundle: dict[str, Any]
    """Snapshots (oldest first), last skill, last hostile, hp, food, inventory, and the
    cause (:meth:`DeathCause.as_dict`)."""
    analysis: PostMortemDraft
    """The offline post-mortem (cause, text, perhaps a lesson)."""
    grades: tuple[Grade, ...]
    """Lessons followed lately: they failed."""
    attribution: Attribution | None = None
    """What the death is put down to, in terms that carry to other places."""
    hazards: tuple[LessonDraft, ...] = ()
    """The lessons about the blocks and mob types it blames (:func:`hazard_lessons`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NearMiss:
    """A large loss of health survived: what it is put down to, and what it teaches."""

    attribution: Attribution
    lessons: tuple[LessonDraft, ...]


class DeathAnalysis:
    """The recent world, the last activity and the advice in flight, for deaths and outcomes."""

    def __init__(self, *, bundle_seconds: float = BUNDLE_SECONDS) -> None:
        self.bundle_seconds = bundle_seconds
        self.recent: deque[tuple[float, WorldView]] = deque()
        """``(when, view)``, oldest first, at most ``bundle_seconds`` old (views are immutable:
        each is put in wire form only for a death's bundle, not at every snapshot)."""
        self.activity: str | None = None
        """The skill (else the reflex) the chain ran last."""
        self.advised: list[tuple[float, AdviceApplied]] = []
        """Lessons followed lately whose outcome is not known yet."""
        self.followed: dict[tuple[str, str], float] = {}
        """When each (skill, hostile) lesson was last followed, graded or not: a hazard lesson
        followed within :data:`ADVICE_WINDOW` of a death failed (a flight that ended well and
        was begun again as the mob came back held, and the bot died all the same)."""
        self.near_misses = NearMissWatch()
        self.harmless = HarmlessWatch()
        """Block lessons shown wrong: the block met unhurt (graded down)."""

    def observe(self, view: WorldView, now: float) -> tuple[Grade, ...]:
        """A new world view: kept for the next death's bundle; the block lessons it shows wrong
        (the block met unhurt: :class:`HarmlessWatch`) fail."""
        self.recent.append((now, view))
        while self.recent and now - self.recent[0][0] > self.bundle_seconds:
            self.recent.popleft()
        return tuple(
            Grade(skill=hazard_skill(relation), hostile=block, verdict="avoid", success=False)
            for relation, block in self.harmless.observe(view.contact, now)
        )

    def doing(self, reflex: str | None, skill: str | None) -> None:
        """What the reflex chain does now (an idle chain keeps the last activity)."""
        self.activity = skill or reflex or self.activity

    def advice(self, advice: AdviceApplied, now: float) -> None:
        """The chain followed a lesson; its outcome will grade it."""
        self.advised.append((now, advice))
        self.followed[(advice.skill, advice.hostile)] = now

    def died(self, reason: str, now: float, cause: DeathCause | None = None) -> PostMortem:
        """The bundle and offline post-mortem of a death; the lessons followed lately failed."""
        bundle = self.bundle()
        cause = cause or DeathCause()
        bundle["cause"] = cause.as_dict()
        self.near_misses.died()
        self.harmless.hurt(now)
        blows = cause.sources
        began = _began([(now - s.ago, s) for s in blows], now)
        last = bundle["snapshots"][-1] if bundle["snapshots"] else None
        found = attribute(blows, safe=self._safe(began), skill=self.activity, last=last)
        grades = self._outcome(None, now)
        graded = {(g.skill, g.hostile) for g in grades}
        grades += tuple(
            Grade(skill=skill, hostile=hostile, verdict="avoid", success=False)
            for (skill, hostile), at in self.followed.items()
            if skill.startswith(HAZARD_PREFIX) and now - at <= ADVICE_WINDOW
            and (skill, hostile) not in graded
        )  # fmt: skip
        failed = {(g.skill, g.hostile) for g in grades}
        return PostMortem(
            bundle=bundle, analysis=analyse(reason, bundle), grades=grades,
            attribution=found if blows else None,
            # a lesson followed as the bot died failed: the death grades it, not teaches it again
            hazards=tuple(
                x for x in (hazard_lessons(found, death=True) if blows else ())
                if (x.skill, x.hostile) not in failed
            ),
        )  # fmt: skip

    def hurt(self, source: DamageSource, hp: float, now: float) -> NearMiss | None:
        """A blow survived; a :class:`NearMiss` when it makes one (:class:`NearMissWatch`)."""
        self.harmless.hurt(now)
        blows = self.near_misses.hurt(source, hp, now)
        if not blows:
            return None
        last = self.recent[-1][1].to_wire() if self.recent else None
        found = attribute([s for _, s in blows], safe=self._safe(_began(blows, now)),
                          skill=self.activity, last=last)  # fmt: skip
        following = {lesson for lesson, at in self.followed.items() if now - at <= ADVICE_WINDOW}
        lessons = hazard_lessons(found, death=False)
        # hurt while following a lesson about the same thing: no confirmation of it
        return NearMiss(
            attribution=found, lessons=tuple(x for x in lessons
                                             if (x.skill, x.hostile) not in following),
        )  # fmt: skip

    def _safe(self, began: float) -> list[Contact]:
        """What the bot met unhurt: the contacts of the snapshots :data:`SAFE_BEFORE` or more
        before ``began`` (the episode's start) after which its health did not drop for as long
        (blows older than those kept show as drops too). One pass from the newest back, with
        the lowest health of the next :data:`SAFE_BEFORE` seconds in a monotonic queue."""
        safe: list[Contact] = []
        # (when, hp) of the later snapshots that may still be the lowest: the oldest on the
        # left, hp falling to the right (the right end is the lowest, and expires first)
        lowest: deque[tuple[float, float]] = deque()
        for at, view in reversed(self.recent):
            while lowest and lowest[-1][0] - at > SAFE_BEFORE:
                lowest.pop()  # the oldest kept is out of this one's window
            unhurt = view.hp is not None and (not lowest or lowest[-1][1] >= view.hp)
            if unhurt and view.contact is not None and at <= began - SAFE_BEFORE:
                safe.append(view.contact)
            if view.hp is not None:
                while lowest and lowest[0][1] >= view.hp:
                    lowest.popleft()
                lowest.appendleft((at, view.hp))
        return safe

    def finished(self, skill: str, ok: bool, now: float) -> tuple[Grade, ...]:
        """A skill run ended: a good end holds the lessons that advised it."""
        return self._outcome(skill, now) if ok else ()

    def bundle(self) -> dict[str, Any]:
        """The context bundle of a death now."""
        snapshots = [view.to_wire() for _, view in list(self.recent)[-MAX_SNAPSHOTS:]]
        last = snapshots[-1] if snapshots else {}
        threats = last.get("threats") or []
        return {
            "snapshots": snapshots[-MAX_SNAPSHOTS:],
            "last_skill": self.activity,
            "last_hostile": threats[0] if threats else None,
            "hp": last.get("hp"),
            "food": last.get("food"),
            "inventory": last.get("inventory"),
        }

    def _outcome(self, finished: str | None, now: float) -> tuple[Grade, ...]:
        """Grade the lessons followed lately: ``finished`` skill went well, None: the bot died.

        Advice older than :data:`ADVICE_WINDOW` is forgotten ungraded; one
        outcome grades each (skill, hostile, verdict) once, however often the
        chain re-dispatched it. Advice whose alternative is not ``finished``
        waits for its own outcome.
        """
        fresh = [(at, a) for at, a in self.advised if now - at <= ADVICE_WINDOW]
        keep: list[tuple[float, AdviceApplied]] = []
        grades: dict[tuple[str, str, str, str], Grade] = {}
        for at, advice in fresh:
            if finished is not None and advice.instead != finished:
                keep.append((at, advice))
                continue
            key = (advice.skill, advice.hostile, advice.verdict, advice.signature)
            grades.setdefault(
                key,
                Grade(
                    skill=advice.skill, hostile=advice.hostile, verdict=advice.verdict,
                    success=finished is not None, signature=advice.signature,
                ),
            )  # fmt: skip
        self.advised = keep
        return tuple(grades.values())


def _began(blows: Iterable[tuple[float, DamageSource]], now: float) -> float:
    """When an episode of ``(when, blow)`` began: its first blow or, for a fall, the moment
    the fall began (a fall of ``d`` blocks lasts about ``sqrt(2 d / 25)`` s with the air's drag)."""
    starts = [
        at - (math.sqrt(2 * s.fall / 25) if s.kind == "fall" and s.fall else 0.0) for at, s in blows
    ]
    return min(starts, default=now)


def drafts_of(
    lessons: Iterable[Mapping[str, Any]], bundle: Mapping[str, Any] | None = None
) -> tuple[LessonDraft, ...]:
    """An LLM post-mortem's validated lessons (``DeathAnalysed.lessons``) as drafts to store.

    The model may leave out the situation (it is optional in the reply); the
    ``lessons`` table needs one, so it becomes ``after a death``. A lesson
    about a hostile is signed with the fight's situation from the death's
    ``bundle`` (as the offline post-mortem signs its own), so the model's
    advice acts in like fights, not everywhere; with no bundle (the death is
    too old), it is about its hostile anywhere.
    """
    snapshots = list((bundle or {}).get("snapshots") or [])
    kind = str(((bundle or {}).get("cause") or {}).get("kind") or "")
    if kind in ("", "unknown"):
        kind = "mob"  # no word from the server: the offline post-mortem guesses the same
    return tuple(
        LessonDraft(
            skill=str(lesson["skill"]),
            situation=str(lesson.get("situation") or "after a death"),
            hostile=str(lesson.get("hostile") or ""), verdict=str(lesson["verdict"]),
            alternative=str(lesson.get("alternative") or ""), text=str(lesson["text"]),
            confidence=float(lesson["confidence"]),
            signature=(
                fight_signature(snapshots, str(lesson["hostile"]), kind)
                if lesson.get("hostile") else ""
            ),
        )
        for lesson in lessons
    )  # fmt: skip


def announcement(lesson: LessonLike) -> LessonLearned:
    """The event that tells the reflex chain a lesson's new confidence."""
    return LessonLearned(
        skill=lesson.skill, hostile=lesson.hostile, verdict=lesson.verdict,
        alternative=lesson.alternative, confidence=lesson.confidence, signature=lesson.signature,
    )  # fmt: skip


def active_lessons(lessons: Iterable[LessonLike]) -> tuple[ActiveLesson, ...]:
    """The lessons the reflex chain acts on (confidence ≥ :data:`ACT_ON`), as given."""
    return tuple(
        ActiveLesson(
            skill=x.skill, hostile=x.hostile, verdict=x.verdict, alternative=x.alternative,
            confidence=x.confidence, signature=x.signature,
        )
        for x in lessons
        if x.confidence >= ACT_ON
    )  # fmt: skip
