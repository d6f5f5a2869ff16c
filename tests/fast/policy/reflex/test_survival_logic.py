"""The reflex chain, the failure tracker and the progress watch: pure, no threads."""

from __future__ import annotations

import math

import pytest

import skills
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState
from pepa.policy.reflex.failures import FailureTracker, SkillMetrics
from pepa.policy.reflex.food import FOOD_PRIORITY
from pepa.policy.reflex.taskslot import TaskSlot
from pepa.policy.watchdog.progress import ProgressWatch
from pepa.world.view import Vec3, WorldView
from skills.survive_escape import choose_mode

HERE = {"x": 0.0, "y": 5.0, "z": 0.0}


def world(**fields: object) -> WorldView:
    base: dict[str, object] = {
        "connected": True, "alive": True, "hp": 20, "food": 20, "position": HERE,
        "timeOfDay": 1000, "threats": [], "beds": [], "inventory": {"items": {}},
        "enclosure": {"openSides": 4, "ceiling": None},
    }  # fmt: skip
    base.update(fields)
    return WorldView.from_wire(base)


def hostile(entity_id: int, distance: float, x: float = 0.0, z: float = 0.0) -> dict[str, object]:
    return {"id": entity_id, "name": "zombie", "distance": distance,
            "position": {"x": x, "y": 5.0, "z": z}}  # fmt: skip


def test_nothing_to_do_is_idle() -> None:
    assert decide(world(), 0.0, ChainState()).reflex == "idle"


def test_offline_is_idle() -> None:
    assert decide(world(connected=False), 0.0, ChainState()).reason == "not in the world"


def test_closest_hostile_within_four_blocks_is_attacked() -> None:
    d = decide(world(threats=[hostile(9, 6.0), hostile(7, 3.0)]), 0.0, ChainState())
    assert (d.reflex, d.skill, d.args["entity_id"]) == ("defend", "combat.attack-nearest", 7)


def test_hostile_beyond_four_blocks_is_left_alone_when_healthy() -> None:
    assert decide(world(threats=[hostile(7, 6.0)]), 0.0, ChainState()).reflex == "idle"


def test_low_health_near_a_hostile_flees_directly_away() -> None:
    d = decide(world(hp=6, threats=[hostile(7, 3.0, x=3.0)]), 0.0, ChainState())
    assert (d.reflex, d.skill) == ("defend", "survive.flee")
    assert d.args["to"]["x"] == pytest.approx(-16.0)
    assert d.args["to"]["z"] == pytest.approx(0.0)


def test_three_hostiles_within_twelve_flee_even_when_healthy() -> None:
    crowd = [hostile(i, 8.0, x=0.0, z=8.0) for i in range(3)]
    d = decide(world(threats=crowd), 0.0, ChainState())
    assert d.skill == "survive.flee"
    assert d.args["to"]["z"] < 0


def test_an_order_ranks_below_defend_escape_and_eat_and_above_the_task() -> None:
    memory = ChainState(slot=TaskSlot(order={"kind": "follow", "operator": "alice"}))
    assert decide(world(threats=[hostile(7, 2.0)]), 0.0, memory).reflex == "defend"
    hungry = world(food=10, inventory={"items": {"bread": 2}})
    assert decide(hungry, 0.0, memory).reflex == "eat"
    trapped = world(enclosure={"openSides": 0, "ceiling": None})
    memory.observe(trapped, 0.0)
    assert decide(trapped, 5.0, memory).reflex == "escape"
    memory.slot.suggest("gather.wood", {}, "milestone")
    d = decide(world(), 6.0, memory)
    assert (d.reflex, d.skill) == ("operator", "nav.follow")


def test_hungry_eats_the_best_food_with_a_cooldown() -> None:
    items = {"bread": 2, "cooked_beef": 1, "rotten_flesh": 5}
    w = world(food=10, inventory={"items": items})
    d = decide(w, 100.0, ChainState())
    assert (d.skill, d.args["item"]) == ("survive.eat", "cooked_beef")
    assert decide(w, 100.0, ChainState(last_eat=98.0)).reflex == "idle"


def test_rotten_flesh_only_when_starving() -> None:
    w = world(food=10, inventory={"items": {"rotten_flesh": 5}})
    assert decide(w, 0.0, ChainState()).reflex == "idle"
    assert decide(
        world(food=5, inventory={"items": {"rotten_flesh": 5}}), 0.0, ChainState()
    ).skill == ("survive.eat")


def test_not_hungry_at_sixteen() -> None:
    assert (
        decide(world(food=16, inventory={"items": {"bread": 1}}), 0.0, ChainState()).reflex
        == "idle"
    )


def test_night_with_a_bed_and_no_hostile_within_eight_sleeps() -> None:
    bed = {"x": 3, "y": 5, "z": 0, "distance": 3.0}
    d = decide(world(timeOfDay=14000, beds=[bed]), 0.0, ChainState())
    assert (d.skill, d.args["bed"]) == ("survive.sleep", {"x": 3, "y": 5, "z": 0})
    near = world(timeOfDay=14000, beds=[bed], threats=[hostile(1, 7.0)])
    assert decide(near, 0.0, ChainState()).skill == "survive.shelter"  # the bed would refuse
    refused = decide(world(timeOfDay=14000, beds=[bed]), 5.0, ChainState(sleep_retry_at=30.0))
    assert refused.skill == "survive.shelter"
    assert decide(world(timeOfDay=6000, beds=[bed]), 0.0, ChainState()).reflex == "idle"


def test_trapped_for_three_seconds_escapes() -> None:
    memory = ChainState()
    trapped = world(enclosure={"openSides": 0, "ceiling": None})
    memory.observe(trapped, 10.0)
    assert decide(trapped, 11.0, memory).reflex == "idle"
    assert decide(trapped, 13.0, memory).skill == "survive.escape"
    memory.observe(world(), 14.0)
    assert memory.trapped_since is None


def test_a_bot_working_its_way_through_tight_spaces_is_not_trapped() -> None:
    memory = ChainState()
    enclosed = {"openSides": 0, "ceiling": 2}
    memory.observe(world(enclosure=enclosed), 10.0)
    # it moved on two blocks, still enclosed (digging through leaves): the clock starts again
    onward = world(enclosure=enclosed, position={**HERE, "x": HERE["x"] + 2})
    memory.observe(onward, 12.5)
    assert decide(onward, 14.0, memory).reflex == "idle"
    assert decide(onward, 15.5, memory).skill == "survive.escape"


@pytest.mark.parametrize("skill", ["gather.wood", "base.build-home", "farm.tend"])
def test_a_task_that_digs_gets_the_diggers_grace_before_escaping(skill: str) -> None:
    memory = ChainState()
    memory.slot.task = {"skill": skill, "args": {}}
    canopy = world(enclosure={"openSides": 0, "ceiling": 2})
    memory.observe(canopy, 0.0)
    assert decide(canopy, 10.0, memory).reflex == "task"  # its stone, in its own pit
    assert decide(canopy, 20.0, memory).skill == "survive.escape"


def test_escape_mode_depends_on_blocks_tools_and_ceiling() -> None:
    assert choose_mode(world(inventory={"items": {"dirt": 4}})) == "up"
    roofed = world(inventory={"items": {"dirt": 4, "stone_pickaxe": 1}},
                   enclosure={"openSides": 0, "ceiling": 2})  # fmt: skip
    assert choose_mode(roofed) == "dig"
    assert choose_mode(world()) == "any"


def test_every_food_in_the_priority_list_is_unique_and_no_skill_id_is_missing() -> None:
    assert len(set(FOOD_PRIORITY)) == len(FOOD_PRIORITY)
    for reflex_skill in ("combat.attack-nearest", "survive.flee", "survive.eat", "survive.sleep",
                         "survive.escape", "nav.goto", "nav.follow"):  # fmt: skip
        assert skills.get(reflex_skill).id == reflex_skill
    with pytest.raises(KeyError, match="known"):
        skills.get("teleport.home")


def test_three_failures_in_a_row_draft_one_proposal_then_cool_down() -> None:
    tracker = FailureTracker(threshold=3, cooldown=1800)
    assert tracker.record("nav.goto alice", False, "No path", 0.0) is None
    assert tracker.record("nav.goto alice", False, "No path", 1.0) is None
    draft = tracker.record("nav.goto alice", False, "No path", 2.0)
    assert draft is not None and draft.failures == ("No path",) * 3
    assert draft.file_name.endswith("-nav-goto-alice.md")
    assert "`nav.goto alice` keeps failing" in draft.markdown()
    for t in (3.0, 4.0, 5.0):
        assert tracker.record("nav.goto alice", False, "No path", t) is None
    # the failures went on during the cooldown: the first one after it drafts again
    assert tracker.record("nav.goto alice", False, "No path", 1900.0) is not None


def test_a_success_breaks_the_run() -> None:
    tracker = FailureTracker(threshold=3)
    tracker.record("x", False, "a", 0.0)
    tracker.record("x", False, "b", 1.0)
    tracker.record("x", True, "", 2.0)
    assert tracker.record("x", False, "c", 3.0) is None


def test_skill_metrics() -> None:
    metrics = SkillMetrics()
    metrics.record("survive.eat", True, 1.6)
    metrics.record("survive.eat", False, 0.4)
    assert metrics.as_dict() == {"survive.eat": {"ok": 1, "failed": 1, "mean_seconds": 1.0}}


def test_progress_watch_climbs_the_ladder_and_resets_on_progress() -> None:
    watch = ProgressWatch(stall_after=60.0)
    assert watch.observe(Vec3(**HERE), 0.0) is None  # no goal: nothing to judge
    watch.start("nav.goto alice", 0.0)
    assert watch.observe(Vec3(**HERE), 0.0) is None
    steps = []
    for t in (61.0, 122.0, 183.0, 244.0, 305.0):
        verdict = watch.observe(Vec3(**HERE), t)
        assert verdict is not None
        steps.append(verdict.step)
    assert steps == ["repath", "pillar-up", "dig-out", "alert", "alert"]
    assert watch.observe(Vec3(5.0, 5.0, 0.0), 306.0) is None  # progress
    assert watch.failed("No path", Vec3(**HERE), 306.0) is None  # one rung a window at most
    failed = watch.failed("No path", Vec3(**HERE), 365.0)
    assert failed is not None and failed.cause == "path failed: No path"
    assert failed.goal == "nav.goto alice"
    assert len(watch.danger) == 6
    watch.stop()
    assert watch.failed("No path", Vec3(**HERE), 1000.0) is None


def test_progress_watch_ignores_preemption_and_pauses_for_defend_escape_and_eat() -> None:
    watch = ProgressWatch(stall_after=60.0)
    watch.activity("task", "nav.goto 1 2 3", 0.0)
    for error in ("The goal was changed before it could be completed!", "stopped", "cannot see a"):
        assert watch.failed(error, None, 100.0) is None
    assert watch.failed("stopped 3 blocks short", None, 100.0) is not None
    watch.activity("defend", "survive.flee", 100.0)
    assert watch.failed("No path", None, 200.0) is None  # suspended
    watch.activity("task", "nav.goto 1 2 3", 200.0)
    assert watch.observe(Vec3(**HERE), 200.0) is None
    verdict = watch.observe(Vec3(**HERE), 260.0)
    assert verdict is not None and verdict.step == "pillar-up"  # a fresh clock, the same rung


def test_progress_needs_a_whole_block() -> None:
    watch = ProgressWatch(stall_after=10.0)
    watch.start("nav.explore", 0.0)
    watch.observe(Vec3(**HERE), 0.0)
    assert watch.observe(Vec3(0.5, 5.0, 0.0), 11.0) is not None
    assert math.isfinite(11.0)


def test_starving_at_zero_food_eats() -> None:
    d = decide(world(food=0, inventory={"items": {"bread": 1}}), 0.0, ChainState())
    assert (d.skill, d.args["item"]) == ("survive.eat", "bread")


def test_flee_has_a_direction_when_the_threats_surround_the_bot() -> None:
    around = [hostile(1, 1.0, x=1.0), hostile(2, 1.0, x=-1.0), hostile(3, 1.0, z=1.0)]
    balanced = [hostile(1, 1.0, x=1.0), hostile(2, 1.0, x=-1.0)]
    for threats in (around, balanced):
        to = decide(world(hp=4, threats=threats), 0.0, ChainState()).args["to"]
        assert math.hypot(to["x"] - HERE["x"], to["z"] - HERE["z"]) == pytest.approx(16.0)


def test_a_lesson_to_avoid_fighting_a_mob_makes_the_bot_flee_it() -> None:
    memory = ChainState()
    w = world(threats=[hostile(7, 3.0, x=3.0)])
    assert decide(w, 0.0, memory).skill == "combat.attack-nearest"
    memory.learn("combat.attack-nearest", "zombie", "avoid", "survive.flee", 0.55)
    assert decide(w, 0.0, memory).skill == "combat.attack-nearest"  # not confident enough
    memory.learn("combat.attack-nearest", "zombie", "avoid", "survive.flee", 0.7)
    d = decide(w, 0.0, memory)
    assert (d.skill, d.reason) == ("survive.flee", "lesson: avoid fighting zombie")
    assert d.advice == ("combat.attack-nearest", "zombie", "avoid", "")
    assert d.args["to"]["x"] < 0


def test_advice_runs_only_whitelisted_alternatives() -> None:
    w = world(threats=[hostile(7, 3.0, x=3.0)])
    memory = ChainState()
    memory.learn("combat.attack-nearest", "zombie", "prefer", "survive.pillar-up", 0.8)
    d = decide(w, 0.0, memory)
    assert (d.skill, d.advice) == (
        "survive.pillar-up",
        ("combat.attack-nearest", "zombie", "prefer", ""),
    )
    memory.learn("combat.attack-nearest", "zombie", "prefer", "nav.explore", 0.9)
    assert decide(w, 0.0, memory).skill == "combat.attack-nearest"  # not on the whitelist
    memory.learn("combat.attack-nearest", "zombie", "avoid", "", 0.9)
    assert decide(w, 0.0, memory).skill == "survive.flee"  # backs off the safest way
    memory.learn("combat.attack-nearest", "zombie", "note", "survive.flee", 0.95)
    assert decide(w, 0.0, memory).skill == "survive.flee"  # a note does not undo an avoid
    memory.learn("combat.attack-nearest", "zombie", "avoid", "", 0.3)  # graded down
    assert decide(w, 0.0, memory).advice is None


def test_a_dead_bot_decides_nothing() -> None:
    assert decide(world(hp=-5, threats=[hostile(7, 2.0)]), 0.0, ChainState()).reflex == "idle"


def test_the_task_slot_runs_below_the_survival_reflexes() -> None:
    memory = ChainState()
    memory.slot.suggest("nav.explore", {}, "pi: look around")
    d = decide(world(), 0.0, memory)
    assert (d.reflex, d.skill, d.reason) == ("task", "nav.explore", "pi: look around")
    hungry = world(food=5, inventory={"items": {"bread": 1}})
    assert decide(hungry, 0.0, memory).reflex == "eat"  # survival first
