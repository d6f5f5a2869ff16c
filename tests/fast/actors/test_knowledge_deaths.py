"""Death analysis, pure: the context bundle of a death, its offline post-mortem, and the
grading of lessons by what followed their advice. No threads, no database, no clock."""

from __future__ import annotations

import pytest

from pepa.policy.learning.deaths import (
    ADVICE_WINDOW,
    DeathAnalysis,
    Grade,
    active_lessons,
    announcement,
    drafts_of,
)
from pepa.runtime.events import AdviceApplied, LessonLearned
from pepa.runtime.events.queries import ActiveLesson
from pepa.state.knowledge import LessonRecord
from pepa.testing import entity, view

pytestmark = pytest.mark.timeout(10)

FLEE = AdviceApplied(
    skill="combat.attack-nearest", hostile="zombie", verdict="avoid", instead="survive.flee"
)
PILLAR = AdviceApplied(
    skill="combat.attack-nearest", hostile="spider", verdict="prefer", instead="survive.pillar-up"
)


def test_the_bundle_is_the_last_30_seconds_of_the_world_as_plain_json() -> None:
    deaths = DeathAnalysis()
    deaths.observe(view(hp=20), now=0.0)
    deaths.doing("defend", "combat.attack-nearest zombie")
    for t, hp in ((10.0, 15), (25.0, 8), (35.0, 3)):
        deaths.observe(view(hp=hp, entities=[entity(7, "zombie", 1.5)], items={"bread": 2}), t)
    deaths.doing(None, None)  # idle: the last activity stays

    bundle = deaths.bundle()
    assert [s["hp"] for s in bundle["snapshots"]] == [15, 8, 3]  # the one at 0 s is too old
    assert bundle["last_skill"] == "combat.attack-nearest zombie"
    assert bundle["last_hostile"]["name"] == "zombie" and bundle["last_hostile"]["distance"] == 1.5
    assert (bundle["hp"], bundle["food"]) == (3, 20)
    assert bundle["inventory"]["items"] == {"bread": 2}
    assert (
        bundle["snapshots"][-1]
        == view(hp=3, entities=[entity(7, "zombie", 1.5)], items={"bread": 2}).to_wire()
    )


def test_a_death_with_nothing_seen_has_an_empty_bundle_and_no_lesson() -> None:
    post = DeathAnalysis().died("fell from a high place", now=5.0)
    assert post.bundle["snapshots"] == [] and post.bundle["last_hostile"] is None
    assert post.analysis.cause == "fell from a high place" and post.analysis.lesson is None
    assert post.grades == ()


def test_a_lost_fight_is_a_post_mortem_with_an_avoid_lesson() -> None:
    deaths = DeathAnalysis()
    deaths.doing("defend", "combat.attack-nearest zombie")
    deaths.observe(view(hp=9, entities=[entity(7, "zombie", 1.5)]), now=0.0)
    deaths.observe(view(hp=2, entities=[entity(7, "zombie", 1.5)]), now=1.0)
    post = deaths.died("killed near zombie", now=2.0)
    assert post.analysis.cause == "lost a fight to zombie"
    assert post.analysis.lesson is not None
    assert (post.analysis.lesson.verdict, post.analysis.lesson.alternative) == (
        "avoid", "survive.flee",
    )  # fmt: skip


def test_advice_that_held_is_graded_once_the_rest_waits_for_its_own_outcome() -> None:
    deaths = DeathAnalysis()
    deaths.advice(FLEE, now=0.0)
    deaths.advice(FLEE, now=1.0)  # re-dispatched
    deaths.advice(PILLAR, now=2.0)
    assert deaths.finished("survive.flee", ok=False, now=3.0) == ()
    assert deaths.finished("survive.flee", ok=True, now=4.0) == (
        Grade(skill="combat.attack-nearest", hostile="zombie", verdict="avoid", success=True),
    )
    assert deaths.finished("survive.flee", ok=True, now=5.0) == ()  # graded already
    assert [a for _, a in deaths.advised] == [PILLAR]


def test_a_death_fails_every_lesson_followed_within_the_window() -> None:
    deaths = DeathAnalysis()
    deaths.advice(FLEE, now=0.0)
    deaths.advice(PILLAR, now=50.0)
    post = deaths.died("killed", now=ADVICE_WINDOW + 10.0)  # FLEE is too old to blame
    assert post.grades == (
        Grade(skill="combat.attack-nearest", hostile="spider", verdict="prefer", success=False),
    )
    assert deaths.advised == []


def test_an_llm_lesson_becomes_a_draft_with_a_situation() -> None:
    (draft,) = drafts_of(
        [{"skill": "combat.attack-nearest", "verdict": "note", "text": "t", "confidence": 0.5}]
    )
    assert (draft.hostile, draft.alternative, draft.situation) == ("", "", "after a death")


def test_lessons_are_announced_and_only_the_confident_ones_are_active() -> None:
    sure = LessonRecord(
        skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
        alternative="survive.flee", confidence=0.6, text="flee",
    )  # fmt: skip
    unsure = LessonRecord(
        skill="combat.attack-nearest", hostile="spider", verdict="avoid",
        alternative="survive.flee", confidence=0.59, text="flee",
    )  # fmt: skip
    assert announcement(sure) == LessonLearned(
        skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
        alternative="survive.flee", confidence=0.6,
    )  # fmt: skip
    assert active_lessons([sure, unsure]) == (
        ActiveLesson(
            skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
            alternative="survive.flee", confidence=0.6,
        ),
    )  # fmt: skip
