"""Situations and recall by situation (``pepa/policy/reflex/situation.py``), and the chain's advice
through it. Pure: no threads, no server."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState
from pepa.policy.reflex.situation import (
    FIELDS,
    LEVELS,
    LessonIndex,
    Situation,
    fight_signature,
    situation_of,
)
from pepa.world.view import WorldView

FIGHT = "combat.attack-nearest"


def world(**fields: Any) -> WorldView:
    base: dict[str, Any] = {
        "connected": True, "alive": True, "hp": 20, "food": 20,
        "position": {"x": 100.5, "y": 70.0, "z": -3.5}, "timeOfDay": 1000, "threats": [],
        "inventory": {"items": {}}, "enclosure": {"openSides": 4, "ceiling": None},
    }  # fmt: skip
    base.update(fields)
    return WorldView.from_wire(base)


def zombies(n: int, distance: float = 3.0) -> list[dict[str, Any]]:
    return [
        {"id": i, "name": "zombie", "distance": distance + i,
         "position": {"x": 100.5 + distance + i, "y": 70.0, "z": -3.5}}
        for i in range(n)
    ]  # fmt: skip


def test_a_view_becomes_a_few_buckets() -> None:
    view = world(
        hp=5, food=14, isDay=False, threats=zombies(2),
        inventory={"items": {"stone_sword": 1, "bread": 3}}, worn=["iron_chestplate"],
    )  # fmt: skip
    assert situation_of(view, cause="mob") == Situation(
        cause="mob", mob="zombie", crowd="2", time="night", hp="low", food="mid",
        weapon="stone", armour="light", terrain="surface", cell="1,-1",
    )  # fmt: skip
    assert situation_of(world(isDay=True)) == Situation(
        mob="", crowd="0", time="day", hp="high", food="high", weapon="fist", armour="none",
        terrain="surface", cell="1,-1",
    )  # fmt: skip
    assert situation_of(world(position={"x": 0, "y": 20, "z": 0})).terrain == "underground"
    assert situation_of(world(threats=zombies(5))).crowd == "3+"
    assert situation_of(world(inventory={"items": {"iron_axe": 1}})).weapon == "diamond"
    assert situation_of(world().to_wire()) == situation_of(world())  # a bundle's snapshot too


def test_a_signature_reads_back_and_garbage_reads_as_unknown() -> None:
    s = situation_of(world(isDay=True, threats=zombies(1)), cause="mob")
    assert Situation.parse(s.signature()) == s
    assert Situation.parse("mob=zombie;evil=1;hp=;nonsense;crowd=\x1b[2J") == Situation(
        mob="zombie"
    )
    assert Situation.parse(None) == Situation() and Situation().signature() == ""
    assert s.describe() == "mob: zombie x1, day, hp high, food high, fist, no armour, surface"


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({f: st.sampled_from(["", "a", "b_2", "3+"]) for f in FIELDS}))
def test_any_situation_survives_its_signature(values: dict[str, str]) -> None:
    s = Situation(**values)
    assert Situation.parse(s.signature()) == s


def test_recall_backs_off_to_coarser_situations_and_discounts_them() -> None:
    index = LessonIndex()
    night = Situation(mob="zombie", crowd="2", time="night", hp="low", food="high",
                      weapon="fist", armour="none", terrain="surface", cell="0,0")  # fmt: skip
    index.put("specific", FIGHT, night, "avoid", 0.7)
    index.put("anywhere", FIGHT, Situation(mob="zombie"), "note", 0.5, general=True)
    same = index.recall(FIGHT, night)
    assert [(r.key, r.level) for r in same] == [("specific", 0), ("anywhere", 4)]
    elsewhere = Situation(**{**_fields(night), "cell": "9,9", "terrain": "underground"})
    assert index.recall(FIGHT, elsewhere)[0].level == 1  # same fight, another place
    by_day = Situation(**{**_fields(night), "time": "day", "food": "low"})
    (specific, anywhere) = index.recall(FIGHT, by_day)
    assert (specific.level, specific.weight) == (2, pytest.approx(0.63))
    assert (anywhere.level, anywhere.weight) == (4, 0.5)  # a general lesson counts in full
    armed = Situation(**{**_fields(night), "weapon": "iron", "crowd": "1"})
    assert [(r.key, r.level) for r in index.recall(FIGHT, armed)] == [
        ("anywhere", 4), ("specific", 4),
    ]  # fmt: skip
    assert index.recall("nav.goto", night) == []
    index.drop("specific")
    index.drop("missing")
    assert [r.key for r in index.recall(FIGHT, night)] == ["anywhere"] and len(index) == 1
    assert len(LEVELS) == 5


_LESSON = st.tuples(
    st.sampled_from([FIGHT, "survive.flee"]),
    st.fixed_dictionaries({f: st.sampled_from(["", "zombie", "spider"]) for f in ("mob", "crowd")}),
    st.sampled_from(["avoid", "prefer", "note"]),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_LESSON, max_size=8), st.sets(st.integers(0, 7)), st.sampled_from(["zombie", "husk"])
)
def test_about_says_whether_any_situation_with_the_mob_recalls_a_lesson(
    lessons: list[tuple[str, dict[str, str], str, bool]], dropped: set[int], mob: str
) -> None:
    """``about`` (the arming asks it before it works out a situation) is exactly "some
    situation with this mob recalls a lesson about the skill", after puts and drops."""
    index = LessonIndex()
    for number, (skill, fields, verdict, general) in enumerate(lessons):
        index.put(number, skill, Situation(**fields), verdict, 0.7, general=general)
    for number in dropped:
        index.drop(number)
    for skill in (FIGHT, "survive.flee"):
        situations = [Situation(mob=mob, crowd=crowd) for crowd in ("", "zombie", "spider")]
        recalled = any(index.recall(skill, situation) for situation in situations)
        assert index.about(skill, mob) == recalled
        assert index.about(skill, mob) == any(
            skill == s and fields["mob"] == mob and n not in dropped
            for n, (s, fields, _, _) in enumerate(lessons)
        )


def _fields(s: Situation) -> dict[str, str]:
    return {f: getattr(s, f) for f in FIELDS}


def test_a_lesson_from_one_fight_changes_like_fights_only_until_confirmed() -> None:
    """Learned once (0.7) from a night fight on half health with no sword: the bot flees a
    zombie in a fight like it, and still fights one at noon with a sword at full health;
    learned again (0.9), it flees that zombie too."""
    at_night = world(hp=10, isDay=False, threats=zombies(1))
    met = situation_of(at_night, cause="mob").signature()
    memory = ChainState()
    assert decide(at_night, 0.0, memory).skill == FIGHT  # the policy alone fights it
    memory.learn(FIGHT, "zombie", "avoid", "survive.flee", 0.7, met)
    like = world(hp=11, isDay=False, threats=zombies(1), position={"x": 900, "y": 70, "z": 9})
    fled = decide(like, 0.0, memory)
    assert (fled.skill, fled.advice) == ("survive.flee", (FIGHT, "zombie", "avoid", met))
    noon = world(hp=20, isDay=True, threats=zombies(1), inventory={"items": {"iron_sword": 1}})
    assert decide(noon, 0.0, memory).skill == FIGHT
    memory.learn(FIGHT, "zombie", "avoid", "survive.flee", 0.9, met)
    assert decide(noon, 0.0, memory).skill == "survive.flee"


def test_a_lesson_with_no_situation_acts_anywhere_as_before() -> None:
    memory = ChainState()
    memory.learn(FIGHT, "zombie", "avoid", "survive.flee", 0.6)
    for view in (world(threats=zombies(1)), world(hp=15, isDay=False, threats=zombies(1))):
        assert decide(view, 0.0, memory).advice == (FIGHT, "zombie", "avoid", "")


def test_a_lesson_about_another_mob_never_applies() -> None:
    memory = ChainState()
    memory.learn(FIGHT, "skeleton", "avoid", "survive.flee", 0.95)
    assert decide(world(threats=zombies(1)), 0.0, memory).skill == FIGHT


def test_many_lessons_about_other_fights_never_hide_one_about_the_mob_anywhere() -> None:
    memory = ChainState()
    memory.learn(FIGHT, "creeper", "avoid", "survive.flee", 0.6)  # a seed: any situation
    for hp in ("low", "mid", "high"):
        for weapon in ("iron", "diamond"):
            other = Situation(cause="explosion", mob="creeper", crowd="2", hp=hp, weapon=weapon)
            memory.learn(FIGHT, "creeper", "avoid", "survive.flee", 0.7, other.signature())
    creeper = [{"id": 1, "name": "creeper", "distance": 3.0,
                "position": {"x": 103.5, "y": 70.0, "z": -3.5}}]  # fmt: skip
    decision = decide(world(threats=creeper), 0.0, memory)
    assert decision.advice == (FIGHT, "creeper", "avoid", "")


def test_a_fight_is_signed_as_it_was_when_the_mob_came_near_and_anywhere_alike() -> None:
    before = world(hp=18, threats=[]).to_wire()
    met = world(hp=16, isDay=False, threats=zombies(2)).to_wire()
    later = world(hp=2, threats=zombies(1)).to_wire()
    signed = fight_signature([before, met, later], "zombie", "mob")
    assert signed == "cause=mob;mob=zombie;crowd=2;hp=high;weapon=fist;armour=none"
    far = world(hp=17, isDay=True, position={"x": 5000, "y": 20, "z": 9}, threats=zombies(2))
    assert fight_signature([far.to_wire()], "zombie", "mob") == signed  # another place and time
    assert fight_signature([before], "zombie", "mob") == ""
