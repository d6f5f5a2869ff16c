"""Attribution, pure: a death or a near-miss put down to block types, mob types, what the bot
was doing and where, by contrast with what it met unhurt; the lessons that makes. No threads,
no database, no clock."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pepa.policy.learning.attribution import (
    DEATH_CONFIDENCE,
    HARMLESS_FOR,
    HARMLESS_GAP,
    NEAR_MISS_CONFIDENCE,
    NEAR_MISS_GAP,
    NEAR_MISS_WINDOW,
    HarmlessWatch,
    NearMissWatch,
    activity_of,
    attribute,
    hazard_lessons,
)
from pepa.policy.learning.deaths import DeathAnalysis
from pepa.runtime.events import AdviceApplied
from pepa.testing import entity, view
from pepa.world.contact import Contact
from pepa.world.death import DamageSource, DeathCause

pytestmark = pytest.mark.timeout(10)

GRASS = Contact(below=("grass_block",))
"""Walking a field: what the bot met unhurt."""
HOT = Contact(below=("strange_floor",))
"""A block nothing in pepa names: what it learns about comes from the blows alone."""


def blow(kind: str = "generic", amount: float = 1.0, **more: object) -> DamageSource:
    return DamageSource(kind=kind, amount=amount, **more)  # type: ignore[arg-type]


def test_a_block_met_as_the_blows_came_is_blamed_one_met_unhurt_is_not() -> None:
    hurt = Contact(below=("strange_floor", "grass_block"), touching=("oak_log",))
    found = attribute(
        [blow(contact=hurt), blow(contact=hurt)],
        safe=[GRASS, Contact(touching=("oak_log",))], skill="nav.goto 10 64 0",
    )  # fmt: skip
    assert found.blocks == (("below", "strange_floor"),)
    assert (found.kind, found.lost, found.activity) == ("generic", 2.0, "walking")
    assert hazard_lessons(found, death=True)[0].skill == "hazard.below"
    # nothing met unhurt: each block touched as it hurt is blamed, the heaviest first
    both = attribute([blow(contact=hurt), blow(contact=hurt)], safe=[])
    assert set(both.blocks) == {("below", "strange_floor"), ("below", "grass_block"),
                                ("touching", "oak_log")}  # fmt: skip
    # one blow nothing explained (a blast whose creeper was gone) is no evidence
    assert attribute([blow(contact=hurt)], safe=[]).blocks == ()


def test_a_fall_is_put_down_to_where_it_began_not_where_it_ended() -> None:
    start = Contact(below=("stone",), inside=("odd_plate",), touching=("stone_bricks",))
    fell = blow("fall", 19.0, fall=22.0, contact=Contact(below=("dirt",)), start=start)
    found = attribute([fell], safe=[Contact(below=("stone",))])
    assert found.blocks == (("inside", "odd_plate"),)  # not the floor it walked, not a wall
    (lesson,) = hazard_lessons(found, death=True)
    assert (lesson.skill, lesson.hostile, lesson.verdict, lesson.signature) == (
        "hazard.inside", "odd_plate", "avoid", "",
    )  # fmt: skip
    assert "fall" in lesson.text and "odd_plate" in lesson.text


def test_a_foes_blows_blame_no_block_and_only_a_heavy_hitter_is_kept_from() -> None:
    bites = [blow("mob", 3.0, by="zombie", contact=HOT) for _ in range(6)]
    found = attribute(bites, safe=[])
    assert (found.mob, found.how, found.blocks) == ("zombie", "melee", ())
    assert hazard_lessons(found, death=True) == ()  # a zombie's blow is one the policy knows
    smash = attribute([blow("mob", 11.0, by="odd_brute"), blow("mob", 9.0, by="odd_brute")])
    (lesson,) = hazard_lessons(smash, death=False)
    assert (lesson.skill, lesson.hostile, lesson.confidence) == (
        "hazard.mob", "odd_brute", NEAR_MISS_CONFIDENCE,
    )  # fmt: skip
    shot = attribute([blow("arrow", 7.0, by="odd_archer")])
    assert (shot.mob, shot.how) == ("odd_archer", "ranged")


def test_drowning_starving_and_the_void_blame_no_block() -> None:
    water = Contact(inside=("water",), below=("sand",))
    found = attribute([blow(k, 5.0, contact=water) for k in ("drowning", "starvation", "void")])
    assert found.blocks == ()


def test_the_surroundings_and_the_activity_are_said() -> None:
    last = view(position=(0.5, 30.0, 0.5)).to_wire()
    last["contact"] = {"below": ["stone"], "inside": [], "touching": ["lava"]}
    found = attribute([blow(contact=HOT)], skill="gather.iron_ore", last=last)
    assert found.surroundings == ("underground", "near lava")
    assert activity_of("gather.iron_ore") == "digging" and activity_of(None) == "standing"
    assert "while digging; underground, near lava" in found.describe()


def test_a_near_miss_is_a_large_loss_in_a_short_while_survived() -> None:
    watch = NearMissWatch()
    assert watch.hurt(blow(amount=4.0), hp=16.0, now=0.0) == ()
    assert watch.hurt(blow(amount=3.0), hp=13.0, now=NEAR_MISS_WINDOW + 1) == ()  # 4 too old
    blows = watch.hurt(blow(amount=5.0), hp=8.0, now=NEAR_MISS_WINDOW + 2)
    assert [s.amount for _, s in blows] == [3.0, 5.0]
    # one episode, one near-miss: the next counts only after the gap
    assert watch.hurt(blow(amount=8.0), hp=6.0, now=NEAR_MISS_WINDOW + 3) == ()
    later = NEAR_MISS_WINDOW + 3 + NEAR_MISS_GAP
    assert [s.amount for _, s in watch.hurt(blow(amount=8.0), hp=12.0, now=later)] == [8.0]


def test_a_close_call_on_low_health_counts_and_a_death_does_not() -> None:
    watch = NearMissWatch()
    assert len(watch.hurt(blow(amount=4.0), hp=3.0, now=0.0)) == 1  # half the loss, 3 left
    dying = NearMissWatch()
    assert dying.hurt(blow(amount=12.0), hp=0.0, now=0.0) == ()  # the death teaches that
    dying.died()
    assert dying.hurt(blow(amount=3.0), hp=17.0, now=1.0) == ()  # a new life, a new count


def walked_onto(deaths: DeathAnalysis, until: float) -> None:
    """Grass unhurt from 0 s, the strange floor from 5 s: health drops a point a second."""
    t, hp = 0.0, 20.0
    while t <= until:
        on = GRASS if t < 5.0 else HOT
        hp -= 1.0 if t >= 5.0 else 0.0
        deaths.observe(replace(view(hp=hp), contact=on), t)
        t += 0.5


def test_a_death_is_put_down_to_the_block_the_bot_stood_on_as_it_died() -> None:
    deaths = DeathAnalysis()
    deaths.doing("task", "nav.goto 40 64 0")
    walked_onto(deaths, until=14.0)
    # the last 8 blows only (death_cause.js keeps as many): the floor hurt before them too
    cause = DeathCause(kind="generic", sources=tuple(
        blow(contact=HOT, ago=8.0 - i) for i in range(8)))  # fmt: skip
    post = deaths.died("died", now=14.5, cause=cause)
    assert post.attribution is not None and post.attribution.blocks == (("below", "strange_floor"),)
    (lesson,) = post.hazards
    assert (lesson.hostile, lesson.confidence) == ("strange_floor", DEATH_CONFIDENCE)
    assert "while walking" in lesson.text


def test_a_near_miss_teaches_less_than_a_death() -> None:
    deaths = DeathAnalysis()
    deaths.doing("task", "nav.goto 40 64 0")
    walked_onto(deaths, until=6.0)
    near = None
    for i in range(8):
        near = near or deaths.hurt(blow(contact=HOT), hp=18.0 - i, now=6.0 + i * 0.5)
    assert near is not None
    (lesson,) = near.lessons
    assert (lesson.skill, lesson.hostile, lesson.confidence) == (
        "hazard.below", "strange_floor", NEAR_MISS_CONFIDENCE,
    )  # fmt: skip
    assert lesson.text.startswith("nearly died")


def test_a_death_in_a_fight_names_the_mob_and_blames_no_block() -> None:
    deaths = DeathAnalysis()
    deaths.observe(replace(view(hp=20, entities=[entity(3, "odd_brute", 2.0)]), contact=GRASS), 0)
    cause = DeathCause(kind="mob", killer="odd_brute", sources=(
        blow("mob", 10.0, by="odd_brute", contact=GRASS, ago=1.0),
        blow("mob", 10.0, by="odd_brute", contact=GRASS, ago=0.0),
    ))  # fmt: skip
    post = deaths.died("slain by odd_brute", now=3.0, cause=cause)
    assert [(x.skill, x.hostile) for x in post.hazards] == [("hazard.mob", "odd_brute")]


def test_a_trap_is_put_down_to_what_the_bot_stepped_on_to_spring_it() -> None:
    buried = Contact(below=("stone",), inside=("gravel",), touching=("gravel",))
    sprung = Contact(below=("stone",), inside=("odd_wire",))
    found = attribute([blow("suffocation", 1.0, contact=buried, start=sprung)] * 4,
                      safe=[Contact(below=("stone",))])  # fmt: skip
    assert ("inside", "odd_wire") in found.blocks and ("below", "stone") not in found.blocks


def test_a_block_met_unhurt_grades_its_lesson_down_one_that_hurts_never() -> None:
    watch = HarmlessWatch()
    watch.learn("hazard.below", "grass_block", 0.75, in_force=0.6)  # blamed with a bush
    watch.learn("hazard.below", "strange_floor", 0.75, in_force=0.6)
    watch.learn("combat.attack-nearest", "zombie", 0.9, in_force=0.6)  # not about a block
    assert watch.observe(GRASS, 0.0) == ()
    assert watch.observe(GRASS, HARMLESS_FOR - 0.5) == ()
    assert watch.observe(GRASS, HARMLESS_FOR) == (("below", "grass_block"),)
    assert watch.observe(GRASS, HARMLESS_FOR + 10) == ()  # once a while at most
    assert watch.observe(GRASS, HARMLESS_FOR + HARMLESS_GAP) == (("below", "grass_block"),)
    # the strange floor hurts whenever it is stood on: never met unhurt that long
    t = 200.0
    for step in range(20):
        watch.hurt(t + step * 0.5)
        assert watch.observe(HOT, t + step * 0.5 + 0.1) == ()
    watch.learn("hazard.below", "grass_block", 0.45, in_force=0.6)  # out of force
    assert watch.observe(GRASS, 500.0) == () and watch.observe(GRASS, 600.0) == ()


def test_the_death_analysis_fails_a_block_lesson_met_unhurt() -> None:
    deaths = DeathAnalysis()
    deaths.harmless.learn("hazard.below", "grass_block", 0.75, in_force=0.6)
    grades = [g for t in range(8) for g in deaths.observe(replace(view(hp=20), contact=GRASS), t)]
    assert [(g.skill, g.hostile, g.success) for g in grades] == [
        ("hazard.below", "grass_block", False)
    ]


def test_a_mob_lesson_followed_as_the_bot_died_is_graded_down_not_taught_again() -> None:
    deaths = DeathAnalysis()
    keep = AdviceApplied(skill="hazard.mob", hostile="odd_brute", verdict="avoid",
                         instead="survive.flee")  # fmt: skip
    deaths.advice(keep, now=0.0)
    bitten = blow("mob", 12.0, by="odd_brute")
    near = deaths.hurt(bitten, hp=8.0, now=1.0)  # hurt in the flight the lesson chose
    assert near is not None and near.lessons == ()
    slain = DeathCause(kind="mob", killer="odd_brute", sources=(bitten, bitten))
    post = deaths.died("slain by odd_brute", now=2.0, cause=slain)
    assert post.hazards == ()
    assert [(g.skill, g.hostile, g.success) for g in post.grades] == [
        ("hazard.mob", "odd_brute", False)
    ]
    fresh = DeathAnalysis().died("slain by odd_brute", now=2.0, cause=slain)
    assert [(x.skill, x.hostile) for x in fresh.hazards] == [("hazard.mob", "odd_brute")]


def test_a_flight_that_held_and_a_death_soon_after_fail_the_mob_lesson() -> None:
    deaths = DeathAnalysis()
    keep = AdviceApplied(skill="hazard.mob", hostile="odd_brute", verdict="avoid",
                         instead="survive.flee")  # fmt: skip
    deaths.advice(keep, now=0.0)
    assert [g.success for g in deaths.finished("survive.flee", ok=True, now=5.0)] == [True]
    bitten = blow("mob", 12.0, by="odd_brute")
    slain = DeathCause(kind="mob", killer="odd_brute", sources=(bitten, bitten))
    post = deaths.died("slain by odd_brute", now=20.0, cause=slain)  # the mob came back
    assert [(g.skill, g.success) for g in post.grades] == [("hazard.mob", False)]
    assert post.hazards == ()


def test_a_mob_the_fight_policy_has_a_row_for_is_learnt_about_by_its_advice_not_kept_from() -> None:
    blast = attribute([blow("explosion", 11.0, by="creeper")] * 2)
    assert blast.how == "explosion" and hazard_lessons(blast, death=True) == ()
    hard = attribute([blow("mob", 12.0, by="zombie")] * 2)  # a zombie hitting like a brute
    assert hazard_lessons(hard, death=True) == ()
