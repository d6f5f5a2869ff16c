"""The offline post-mortem: causes and lessons from a death's context bundle (pure)."""

from __future__ import annotations

from pepa.policy.learning.postmortem import analyse


def test_losing_a_fight_teaches_to_flee_that_mob() -> None:
    bundle = {
        "last_skill": "combat.attack-nearest zombie",
        "last_hostile": {"name": "zombie", "distance": 1.2},
        "snapshots": [{"hp": 20, "food": 18}, {"hp": 10, "food": 18}, {"hp": 0, "food": 18}],
    }
    post = analyse("killed near zombie", bundle)
    assert post.cause == "lost a fight to zombie"
    assert "health 20 → 0" in post.analysis
    assert post.lesson is not None
    lesson = post.lesson
    assert (lesson.skill, lesson.hostile, lesson.verdict, lesson.alternative) == (
        "combat.attack-nearest",
        "zombie",
        "avoid",
        "survive.flee",
    )
    assert lesson.confidence >= 0.6


def test_killed_while_busy_is_a_note_not_an_order() -> None:
    bundle = {"last_skill": "nav.follow alice", "last_hostile": {"name": "skeleton", "distance": 9}}
    post = analyse("died", bundle)
    assert post.cause == "killed by skeleton while doing nav.follow alice"
    assert post.lesson is not None and post.lesson.verdict == "note"


def test_starving_teaches_to_eat_earlier() -> None:
    post = analyse("died", {"snapshots": [{"hp": 2, "food": 0}]})
    assert post.cause == "starvation"
    assert post.lesson is not None and post.lesson.skill == "survive.eat"


def test_an_unexplained_death_makes_no_lesson() -> None:
    post = analyse("fell", {"snapshots": [{"hp": 20, "food": 20}]})
    assert (post.cause, post.lesson) == ("fell", None)
