"""Knobs of the survival policy turned by lessons (``pepa/policy/reflex/knobs.py``): validated,
bounded, recalled by situation, and what the offline post-mortem turns. Pure."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.policy.learning.postmortem import analyse
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState
from pepa.policy.reflex.knobs import KNOBS, TUNE, Tuning, knob_skill, parse_change, tuning
from pepa.policy.reflex.situation import situation_of
from pepa.world.view import WorldView

HERE = {"x": 0.5, "y": 70.0, "z": 0.5}


def world(**fields: Any) -> WorldView:
    base: dict[str, Any] = {
        "connected": True, "alive": True, "hp": 20, "food": 20, "position": HERE,
        "timeOfDay": 1000, "isDay": True, "threats": [], "inventory": {"items": {}},
        "enclosure": {"openSides": 4, "ceiling": None},
    }  # fmt: skip
    base.update(fields)
    return WorldView.from_wire(base)


def mob(name: str, distance: float, n: int = 1) -> list[dict[str, Any]]:
    return [{"id": 10 + i, "name": name, "distance": distance + i, "sight": True,
             "position": {"x": 0.5 + distance + i, "y": 70.0, "z": 0.5}}
            for i in range(n)]  # fmt: skip


def learn_from(memory: ChainState, post: Any) -> None:
    for knob in (post.lesson, *post.knobs):
        if knob is not None:
            memory.learn(knob.skill, knob.hostile, knob.verdict, knob.alternative,
                         knob.confidence, knob.signature)  # fmt: skip


def fighting(post: Any) -> tuple[Any, ...]:
    """The knobs a post-mortem turns about fights (not the plan's order: ``gear_first``)."""
    return tuple(k for k in post.knobs if k.skill != "knob.gear_first")


def creeper(distance: float) -> list[dict[str, Any]]:
    return [{"id": 9, "name": "creeper", "distance": distance,
             "position": {"x": 0.5 + distance, "y": 70.0, "z": 0.5}}]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "change"),
    [
        ("creeper_keep", "+7", 7.0),
        ("creeper_keep", "-2.5", -2.5),
        ("eat_below", "+3", 3.0),
        ("eat_below", "+30", None),  # beyond the knob's whole span
        ("creeper_keep", "7", None),  # the sign is required
        ("creeper_keep", "+1e3", None),
        ("creeper_keep", "+7; rm -rf /", None),
        ("creeper_keep", "+nan", None),
        ("low_hp", "+2", None),  # not a knob
    ],
)
def test_a_change_is_a_signed_number_within_the_knobs_span(
    name: str, text: str, change: float | None
) -> None:
    assert parse_change(name, text) == change


def test_tuning_takes_the_heaviest_confident_change_and_stays_within_bounds() -> None:
    lessons = {
        knob_skill("creeper_keep"): [(TUNE, 0.55, "+7", "weak"), (TUNE, 0.9, "+10", "strong")],
        knob_skill("eat_below"): [("note", 0.9, "+3", "not a tune"), (TUNE, 0.8, "+3", "fed")],
    }
    tuned = tuning(lambda skill, mob: sorted(lessons.get(skill, []), key=lambda r: -r[1]), 0.6)
    assert tuned.creeper_keep == KNOBS["creeper_keep"].high == 10.0
    assert tuned.eat_below == 19.0
    assert [name for name, _ in tuned.turned] == ["creeper_keep", "eat_below"]
    assert tuning(lambda skill, mob: [], 0.6) == Tuning()


def test_blown_up_by_a_creeper_the_bot_keeps_its_distance_in_like_fights() -> None:
    bundle = {
        "last_skill": "combat.attack-nearest creeper",
        "snapshots": [world(threats=creeper(3.0)).to_wire()],
        "cause": {"key": "death.attack.explosion.player", "killer": "creeper"},
    }
    post = analyse("blown up by creeper", bundle)
    (keep,) = fighting(post)
    assert (keep.skill, keep.hostile, keep.verdict, keep.alternative) == (
        "knob.creeper_keep", "creeper", TUNE, "+7",
    )  # fmt: skip
    assert keep.signature.startswith("cause=explosion;mob=creeper;crowd=1;hp=high;weapon=fist")
    memory = ChainState()
    near = world(threats=creeper(3.0))
    assert decide(near, 0.0, memory).skill == "combat.attack-nearest"  # strike it in reach
    memory.learn(keep.skill, keep.hostile, keep.verdict, keep.alternative, keep.confidence,
                 keep.signature)  # fmt: skip
    backed = decide(near, 0.0, memory)
    assert backed.skill == "survive.flee" and "keeping 7 from the creeper" in backed.reason
    armed = world(threats=creeper(3.0), inventory={"items": {"iron_sword": 1}})
    assert decide(armed, 0.0, memory).skill == "combat.attack-nearest"  # not a like fight
    assert memory.tuning(world(threats=creeper(9.0))).creeper_keep == 7.0


def test_starved_once_the_bot_eats_earlier_everywhere() -> None:
    post = analyse("starved", {"cause": {"key": "death.attack.starve"}, "snapshots": []})
    earlier, _ = post.knobs
    assert (earlier.skill, earlier.alternative, earlier.signature) == ("knob.eat_below", "+3", "")
    peckish = world(food=17, inventory={"items": {"bread": 3}})
    memory = ChainState()
    assert decide(peckish, 0.0, memory).reflex == "idle"
    memory.learn(earlier.skill, earlier.hostile, earlier.verdict, earlier.alternative,
                 earlier.confidence, earlier.signature)  # fmt: skip
    ate = decide(peckish, 0.0, memory)
    assert (ate.reflex, ate.args) == ("eat", {"item": "bread"})
    assert "(a lesson: eat below 19)" in ate.reason
    assert ate.advice == ("knob.eat_below", "", TUNE, "")  # graded by how the meal goes
    assert decide(world(food=20, inventory={"items": {"bread": 3}}), 0.0, memory).reflex == "idle"


def test_a_knob_lesson_with_a_change_out_of_bounds_moves_nothing() -> None:
    memory = ChainState()
    signature = situation_of(world(threats=creeper(3.0)), cause="explosion").signature()
    memory.learn("knob.creeper_keep", "creeper", TUNE, "+999", 0.95, signature)
    memory.learn("knob.no_such_knob", "", TUNE, "+1", 0.95, "")
    assert memory.tuning(world(threats=creeper(3.0))) == Tuning()


def test_killed_by_two_zombies_the_bot_flees_from_two_in_like_fights() -> None:
    pair = world(hp=10, threats=mob("zombie", 2.0, 2))
    bundle = {
        "last_skill": "gather.logs",  # busy: the death's lesson is a note, the knobs act
        "snapshots": [pair.to_wire()],
        "cause": {"key": "death.attack.mob", "killer": "zombie"},
    }
    post = analyse("slain by zombie", bundle)
    margin, crowd = fighting(post)
    assert (margin.skill, margin.alternative) == ("knob.fight_margin", "+4")
    assert (crowd.skill, crowd.alternative, crowd.hostile) == ("knob.crowd", "-1", "zombie")
    assert crowd.signature == margin.signature
    assert "mob=zombie;crowd=2;hp=mid;weapon=fist;armour=none" in crowd.signature
    memory = ChainState()
    assert decide(pair, 0.0, memory).skill == "combat.attack-nearest"  # 2 of 3: it fights
    learn_from(memory, post)
    fled = decide(pair, 0.0, memory)
    assert fled.skill == "survive.flee" and fled.reason.startswith("outnumbered: 2 hostiles")
    assert fled.reason.endswith("(a lesson)")
    assert fled.advice == ("knob.crowd", "zombie", TUNE, crowd.signature)
    armed = world(hp=20, threats=mob("zombie", 2.0, 2), inventory={"items": {"iron_sword": 1}})
    assert decide(armed, 0.0, memory).skill == "combat.attack-nearest"  # not a like fight
    one = world(hp=10, threats=mob("zombie", 2.0))
    assert memory.tuning(one).crowd == 0.0  # a lone zombie is not the crowd it learnt about


def test_shot_dead_by_a_skeleton_the_bot_wants_more_health_before_closing_in() -> None:
    near = world(hp=14, threats=mob("skeleton", 6.0))
    bundle = {
        "last_skill": "",
        "snapshots": [near.to_wire()],
        "cause": {"key": "death.attack.arrow", "killer": "skeleton"},
    }
    post = analyse("shot by skeleton", bundle)
    (margin,) = fighting(post)  # alone: no crowd
    memory = ChainState()
    assert decide(near, 0.0, memory).skill == "combat.approach"  # 14 > 12: close in
    learn_from(memory, post)
    fled = decide(near, 0.0, memory)
    assert (
        fled.skill == "survive.flee" and fled.reason == "hp 14 < 16 to fight a skeleton (a lesson)"
    )
    assert fled.advice == ("knob.fight_margin", "skeleton", TUNE, margin.signature)
    assert decide(world(hp=20, threats=mob("skeleton", 6.0)), 0.0, memory).skill == (
        "combat.approach"  # at full health (another bucket) the policy's own rule stands
    )
    assert decide(world(hp=14, threats=mob("zombie", 2.0)), 0.0, memory).skill == (
        "combat.attack-nearest"  # a zombie is not a skeleton
    )


def test_lessons_never_make_the_crowd_below_two_nor_a_death_unseen_teach_a_fight() -> None:
    memory = ChainState()
    signature = situation_of(world(hp=10, threats=mob("zombie", 2.0, 2))).signature()
    memory.learn("knob.crowd", "zombie", TUNE, "-2", 0.95, signature)
    alone = world(hp=10, threats=mob("zombie", 2.0))
    assert decide(alone, 0.0, memory).skill == "combat.attack-nearest"
    unseen = {"snapshots": [world().to_wire()], "cause": {"key": "death.attack.arrow",
              "killer": "skeleton"}}  # fmt: skip
    assert fighting(analyse("shot", unseen)) == ()


def test_drowned_once_the_bot_comes_up_for_air_sooner_everywhere() -> None:
    post = analyse("drowned", {"cause": {"key": "death.attack.drown"}, "snapshots": []})
    (sooner,) = post.knobs
    assert (sooner.skill, sooner.alternative, sooner.signature) == ("knob.air_below", "+8", "")
    memory = ChainState()
    under = world(air=12, headInWater=True)
    assert decide(under, 0.0, memory).reflex == "idle"  # 9 s of air left: the default waits
    low = decide(world(air=8, headInWater=True), 0.0, memory)
    assert (low.reflex, low.skill, low.advice) == ("breathe", "survive.surface", None)
    learn_from(memory, post)
    up = decide(under, 0.0, memory)
    assert (up.reflex, up.skill) == ("breathe", "survive.surface")
    assert up.reason == "air 12 of 20 under water (a lesson: up at 16)"
    assert up.advice == ("knob.air_below", "", TUNE, "")
    assert decide(world(air=12), 0.0, memory).reflex == "idle"  # the head out: air comes back
    assert decide(world(air=20, headInWater=True), 0.0, memory).reflex == "idle"


def test_breathing_comes_before_a_fight() -> None:
    zombie = world(air=4, headInWater=True, threats=mob("zombie", 2.0))
    assert decide(zombie, 0.0, ChainState()).reflex == "breathe"


def test_a_hidden_archer_nearest_lends_its_lesson_to_no_other_fight() -> None:
    memory = ChainState()
    skeleton_fight = situation_of(world(hp=14, threats=mob("skeleton", 6.0))).signature()
    memory.learn("knob.fight_margin", "skeleton", TUNE, "+8", 0.95, skeleton_fight)
    hidden = {"id": 20, "name": "skeleton", "distance": 5.0, "sight": False,
              "position": {"x": 5.5, "y": 70.0, "z": 0.5}}  # fmt: skip
    zombie = {"id": 21, "name": "zombie", "distance": 6.0, "sight": True,
              "position": {"x": 0.5, "y": 70.0, "z": 6.5}}  # fmt: skip
    both = world(hp=14, threats=[hidden, zombie])
    assert memory.tuning(both).fight_margin == 8.0  # the nearest in view is the skeleton
    assert memory.tuning(both, "zombie").fight_margin == 0.0
    near = world(hp=14, threats=[hidden, {**zombie, "distance": 2.0}])
    assert decide(near, 0.0, memory).skill == "combat.attack-nearest"  # the zombie, unmoved


def slain_by_night(time: int, enclosure: dict[str, Any]) -> dict[str, Any]:
    """A death's bundle: slain by a zombie at ``time`` of day, with walls round it or none."""
    before = {"connected": True, "alive": True, "hp": 6, "food": 20, "position": HERE,
              "timeOfDay": time, "isDay": False, "threats": mob("zombie", 2.0),
              "inventory": {"items": {}}, "enclosure": enclosure}  # fmt: skip
    return {"cause": {"key": "death.attack.mob", "killer": "zombie"},
            "snapshots": [before, {**before, "hp": 0}]}  # fmt: skip


def test_caught_out_by_night_the_bot_starts_for_shelter_sooner_everywhere() -> None:
    out = {"openSides": 4, "ceiling": None}
    post = analyse("slain", slain_by_night(14000, out))
    (sooner,) = [k for k in post.knobs if k.skill == "knob.dusk_lead"]
    assert (sooner.alternative, sooner.signature) == ("+1000", "")  # the night anywhere
    sheltered = analyse("slain", slain_by_night(14000, {"openSides": 0, "ceiling": 2}))
    assert "knob.dusk_lead" not in [k.skill for k in sheltered.knobs]  # its shelter failed
    mining = {**slain_by_night(14000, out), "last_skill": "gather.stone"}  # down from its shelter
    assert "knob.dusk_lead" not in [k.skill for k in analyse("slain", mining).knobs]
    in_bed = {**slain_by_night(14000, out), "last_skill": "survive.sleep"}
    assert "knob.dusk_lead" not in [k.skill for k in analyse("slain", in_bed).knobs]
    by_day = analyse("slain", slain_by_night(6000, out))
    assert "knob.dusk_lead" not in [k.skill for k in by_day.knobs]
    # at 11200 with no bed the default policy works on; with the lesson it shelters
    evening = world(timeOfDay=11200, isDay=True)
    memory = ChainState()
    assert decide(evening, 0.0, memory).reflex == "idle"
    learn_from(memory, post)
    early = decide(evening, 0.0, memory)
    assert (early.reflex, early.skill) == ("night", "survive.shelter")
    assert early.reason == "dusk, no bed near (a lesson: 1000 ticks before dusk)"
    assert early.advice == ("knob.dusk_lead", "", TUNE, "")
    assert decide(world(timeOfDay=10900), 0.0, memory).reflex == "idle"  # not yet
    at_dusk = decide(world(timeOfDay=12100), 0.0, memory)  # the default's own night: no lesson
    assert at_dusk.reason == "dusk, no bed near" and at_dusk.advice is None
    morning = world(timeOfDay=1000, enclosure={"openSides": 0, "ceiling": 2})
    memory.observe(world(timeOfDay=14000, enclosure={"openSides": 0, "ceiling": 2}), 0.5)
    out = decide(morning, 1.0, memory)  # the way out in the morning is no lesson's doing
    assert out.skill == "survive.escape" and out.advice is None and "lesson" not in out.reason
    memory = ChainState()
    learn_from(memory, post)
    # closed in early, the walls are its shelter, not a trap to escape from
    closed = world(timeOfDay=11300, enclosure={"openSides": 0, "ceiling": 2})
    memory.observe(closed, 1.0)
    assert memory.shelter is not None and memory.trapped_since is None


def test_killed_with_no_armour_on_the_plan_makes_armour_first_everywhere() -> None:
    bare = analyse("slain", slain_by_night(6000, {"openSides": 4, "ceiling": None}))
    (first,) = [k for k in bare.knobs if k.skill == "knob.gear_first"]
    assert (first.alternative, first.signature, first.hostile) == ("+1", "", "")
    armoured = slain_by_night(6000, {"openSides": 4, "ceiling": None})
    for snapshot in armoured["snapshots"]:
        snapshot["worn"] = ["iron_chestplate"]
    assert "knob.gear_first" not in [k.skill for k in analyse("slain", armoured).knobs]
    memory = ChainState()
    assert memory.tuning(world(), names=("gear_first",)).gear_first == 0
    learn_from(memory, bare)
    assert memory.tuning(world(), names=("gear_first",)).gear_first == 1


def test_starved_once_the_bot_hunts_for_the_night_before_dusk_everywhere() -> None:
    post = analyse("starved", {"cause": {"key": "death.attack.starve"}, "snapshots": []})
    _, stock = post.knobs
    assert (stock.skill, stock.alternative, stock.signature) == ("knob.night_food", "+4", "")
    late = world(timeOfDay=10000, inventory={"items": {"bread": 1, "golden_apple": 5}})
    memory = ChainState()
    assert decide(late, 0.0, memory).reflex == "idle"  # the default: no stocking up
    learn_from(memory, post)
    hunt = decide(late, 0.0, memory)
    assert (hunt.reflex, hunt.skill) == ("stock", "food.hunt")  # golden apples are kept, not food
    assert hunt.reason == "1 food for the night (a lesson: 4 before dusk)"
    assert hunt.advice == ("knob.night_food", "", TUNE, "")
    early = world(timeOfDay=8000, inventory={"items": {"bread": 1}})
    assert decide(early, 0.0, memory).reflex == "idle"  # not yet
    stocked = world(timeOfDay=10000, inventory={"items": {"bread": 2, "cooked_beef": 2}})
    assert decide(stocked, 0.0, memory).reflex == "idle"
    at_dusk = decide(world(timeOfDay=12100, inventory={"items": {"bread": 1}}), 0.0, memory)
    assert at_dusk.skill == "survive.shelter"  # the night itself comes first
    bed = {"x": 3, "y": 70, "z": 0, "distance": 3.0}
    by_bed = world(timeOfDay=10000, inventory={"items": {"bread": 1}}, beds=[bed])
    assert decide(by_bed, 0.0, memory).reflex == "idle"  # a night slept through needs no food
    memory.stock_retry_at = 30.0  # a hunt failed a moment ago
    assert decide(late, 10.0, memory).reflex == "idle"
    assert decide(late, 30.0, memory).skill == "food.hunt"


def test_killed_in_a_fight_begun_hungry_the_bot_eats_before_like_fights() -> None:
    met = world(hp=20, food=17, threats=mob("zombie", 10.0), inventory={"items": {"bread": 2}})
    bundle = {
        "snapshots": [met.to_wire()],
        "cause": {"key": "death.attack.mob", "killer": "zombie"},
    }
    (eat,) = [k for k in analyse("slain", bundle).knobs if k.skill == "knob.fight_food"]
    assert (eat.alternative, eat.hostile) == ("+18", "zombie")
    assert "mob=zombie;crowd=1;hp=high" in eat.signature
    fed = {**bundle, "snapshots": [world(hp=20, food=19, threats=mob("zombie", 10.0),
                                         inventory={"items": {"bread": 2}}).to_wire()]}  # fmt: skip
    assert "knob.fight_food" not in [k.skill for k in analyse("slain", fed).knobs]
    memory = ChainState()
    assert decide(met, 0.0, memory).reflex == "idle"  # 17 food: the default waits
    learn_from(memory, analyse("slain", bundle))
    meal = decide(met, 0.0, memory)
    assert (meal.reflex, meal.skill, meal.args) == ("eat", "survive.eat", {"item": "bread"})
    assert meal.reason == "food 17 with a zombie at 10 (a lesson: eat below 18 before a fight)"
    assert meal.advice is not None and meal.advice[0] == "knob.fight_food"
    close = world(hp=20, food=17, threats=mob("zombie", 5.0), inventory={"items": {"bread": 2}})
    assert decide(close, 0.0, memory).skill != "survive.eat"  # too close to stop and eat
    spider = world(hp=20, food=17, threats=mob("spider", 10.0), inventory={"items": {"bread": 2}})
    assert decide(spider, 0.0, memory).reflex == "idle"  # another mob's fight
