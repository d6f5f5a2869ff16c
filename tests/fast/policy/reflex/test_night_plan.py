"""The night plan, pure: bed or shelter at dusk, food before dark, out in the morning; and how
the reflex chain and the reflex actor run it (through the fake link)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pepa.actors.reflex import Reflex
from pepa.policy.reflex import night
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState
from pepa.policy.reflex.outcomes import MORNING_RETRY, NIGHT_RETRY, WAYS_OUT
from pepa.runtime.events import ActionFinished, HomeKnown, TaskSuggested, WorldObserved
from pepa.testing import ActorHarness, FakeLink, entity, view
from pepa.world.view import Vec3, WorldView
from skills.craft import craft_skill
from skills.gather import STONE
from skills.smelt import smelt_skill

pytestmark = pytest.mark.timeout(30)

CRAFT, SMELT = craft_skill("craft.stone_pickaxe"), smelt_skill("smelt.iron_ingot")
assert CRAFT is not None and SMELT is not None

BED = {"x": 3, "y": 64, "z": 0, "distance": 3.0}
SHELTERED = {"open_sides": 0, "ceiling": 2}


def at(time: int, **fields: Any) -> WorldView:
    return view(time_of_day=time, **fields)


def step(world: WorldView, **kw: Any) -> night.NightStep | None:
    args: dict[str, Any] = {"shelter": None, "food": None, "may_sleep": True, "may_shelter": True}
    return night.plan(world, **{**args, **kw})


def test_the_night_runs_from_dusk_until_the_morning() -> None:
    assert not night.is_night(11999) and night.is_night(12000) and night.is_night(23458)
    assert not night.is_night(23459) and not night.is_night(0) and not night.is_night(None)
    assert night.is_night(24000 + 13000)  # a day count on top of the time of day


def test_by_day_nothing_unless_the_bot_is_still_in_its_shelter() -> None:
    assert step(at(6000)) is None
    out = step(at(100), shelter=Vec3(0.5, 64.0, 0.5))
    assert out is not None and (out.kind, out.skill) == ("leave-shelter", "survive.escape")
    assert out.args == {"mode": "surface"}  # up to the roof's level, not 3 blocks along a mine


def test_at_dusk_with_no_bed_the_bot_eats_to_full_then_shelters_then_waits() -> None:
    hungry = at(12100, food=18)
    supper = step(hungry, food="bread")
    assert supper is not None and (supper.kind, supper.args) == ("eat", {"item": "bread"})
    shelter = step(hungry, food=None)  # nothing to eat (or just ate): shelter anyway
    assert shelter is not None and (shelter.kind, shelter.skill) == ("shelter", "survive.shelter")
    assert step(at(12100, food=20), food="bread").kind == "shelter"  # full: no supper
    waiting = step(at(15000), shelter=Vec3(0.5, 62.0, 0.5))
    assert waiting is not None and (waiting.kind, waiting.skill) == ("wait", None)
    assert step(at(15000), may_shelter=False) is None  # a failed shelter rests


def test_a_bed_near_by_is_the_refuge_once_it_can_be_used() -> None:
    assert step(at(12100, beds=[BED])) is None  # too early for a bed: work on
    sleep = step(at(12600, beds=[BED]))
    assert sleep is not None and sleep.skill == "survive.sleep"
    assert sleep.args == {"bed": {"x": 3, "y": 64, "z": 0}}
    zombie = [entity(1, "zombie", 7.0)]
    # a bed that would refuse (a monster by it) or refused a moment ago: a shelter instead
    assert step(at(14000, beds=[BED], entities=zombie)).kind == "shelter"
    assert step(at(14000, beds=[BED]), may_sleep=False).kind == "shelter"
    sheltered = step(at(14000, beds=[BED]), may_sleep=False, shelter=Vec3(0.5, 62.0, 0.5))
    assert sheltered is not None and sheltered.kind == "wait"  # and it stays there
    asleep = step(at(14000, beds=[BED], sleeping=True))
    assert asleep is not None and asleep.kind == "wait"


def test_the_shelter_is_where_the_bot_is_closed_in_by_night_until_it_leaves() -> None:
    closed = at(14000, **SHELTERED, position=(0.5, 62.0, 0.5))
    spot = night.shelter_spot(closed, None)
    assert spot == Vec3(0.5, 62.0, 0.5)
    morning = at(50, **SHELTERED, position=(0.5, 62.0, 0.5))
    assert night.shelter_spot(morning, spot) == spot  # still in it at dawn
    out = at(60, position=(3.5, 64.0, 0.5))
    assert night.shelter_spot(out, spot) is None
    assert night.shelter_spot(at(6000, **SHELTERED), None) is None  # by day walls are walls
    assert night.shelter_spot(at(14000, open_sides=0), None) is None  # no roof: no shelter


def test_walls_by_night_are_a_shelter_not_a_trap_but_a_trap_by_day() -> None:
    memory = ChainState()
    closed = at(14000, **SHELTERED, position=(0.5, 62.0, 0.5))
    memory.observe(closed, 10.0)
    assert memory.shelter is not None and memory.trapped_since is None
    decision = decide(closed, 30.0, memory)
    assert (decision.reflex, decision.skill) == ("night", None)  # wait, no escape
    half_built = at(12500, open_sides=0, ceiling=None)  # dug down, no roof yet
    memory = ChainState()
    memory.observe(half_built, 10.0)
    assert memory.trapped_since is None
    # the morning: out of the shelter with the escape skill, and the trapped rule agrees
    memory = ChainState()
    memory.observe(closed, 10.0)
    dawn = at(10, **SHELTERED, position=(0.5, 62.0, 0.5))
    memory.observe(dawn, 20.0)
    assert decide(dawn, 20.0, memory).skill == "survive.escape"
    assert memory.trapped_since == 20.0
    by_day = ChainState()
    by_day.observe(at(6000, open_sides=0), 10.0)
    assert by_day.trapped_since == 10.0


def test_the_chain_puts_defence_hunger_and_orders_before_the_night() -> None:
    dusk = 12100
    assert decide(at(dusk), 0.0, ChainState()).skill == "survive.shelter"
    fight = at(dusk, entities=[entity(1, "zombie", 2.0)])
    assert decide(fight, 0.0, ChainState()).reflex == "defend"
    supper = decide(at(dusk, food=18, items={"bread": 2}), 0.0, ChainState())
    assert (supper.reflex, supper.skill, supper.args) == ("eat", "survive.eat", {"item": "bread"})
    just_ate = ChainState(last_eat=0.0)
    assert decide(at(dusk, food=18, items={"bread": 2}), 1.0, just_ate).skill == ("survive.shelter")
    kept = decide(at(dusk, food=18, items={"golden_apple": 1}), 0.0, ChainState())
    assert kept.skill == "survive.shelter"  # golden apples are not a supper
    assert decide(at(dusk), 0.0, ChainState(night_retry_at=10.0)).reflex == "idle"


def finish(h: ActorHarness[Reflex], link: FakeLink, **kw: Any) -> None:
    done = link.done(**kw)
    h.send(
        ActionFinished(
            action_id=done["id"], ok=done["ok"], action=done["action"], error=done["error"]
        )
    )


def test_the_reflex_actor_shelters_at_dusk_and_rests_a_failed_shelter(tmp_path: Path) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path, peers={"knowledge": lambda m: ()})
    h.send(WorldObserved(view=at(12100, items={"dirt": 8})))
    assert link.last().name == "shelter"
    finish(h, link, ok=False, error="no blocks left to build with")
    link.clear()
    h.advance(NIGHT_RETRY - 1.0)
    assert link.calls("shelter") == []
    h.advance(1.5)
    assert len(link.calls("shelter")) == 1
    finish(h, link)  # built; the view does not show the walls yet: no rebuild at once
    assert len(link.calls("shelter")) == 1
    h.send(WorldObserved(view=at(13000, **SHELTERED)))  # walled in: waits, no escape
    link.clear()
    h.advance(10.0)
    assert link.calls("escape") == [] and link.calls("shelter") == []
    h.send(WorldObserved(view=at(20, **SHELTERED)))  # morning
    assert link.last().name == "escape"
    h.stop()


STONE_TASK = {"skill": "gather.stone", "args": {"count": 3}, "reason": "milestone"}
IRON_TASK = {"skill": "gather.iron", "args": {"count": 3}, "reason": "milestone"}


def test_in_its_shelter_a_mining_task_goes_on_under_cover_when_a_fit_pickaxe_is_held() -> None:
    inside = Vec3(0.5, 62.0, 0.5)
    picked = at(15000, items={"wooden_pickaxe": 1})
    mine = step(picked, shelter=inside, task=STONE_TASK)
    assert mine is not None and (mine.kind, mine.skill) == ("mine", "gather.stone")
    assert mine.args == {"count": 3, "under_cover": True}
    assert step(picked, shelter=inside, task=IRON_TASK).kind == "wait"  # wood cannot mine iron
    stone = at(15000, items={"stone_pickaxe": 1})
    assert step(stone, shelter=inside, task=IRON_TASK).kind == "mine"
    bare = step(at(15000), shelter=inside, task=STONE_TASK)  # a pickaxe would be a walk outside
    assert bare is not None and bare.kind == "wait"
    wood = {"skill": "gather.wood", "args": {}, "reason": "milestone"}
    assert step(stone, shelter=inside, task=wood).kind == "wait"
    sword = {"skill": "craft.wooden_sword", "args": {}, "reason": "milestone"}
    assert step(stone, shelter=inside, task=sword).kind == "wait"  # its planks need wood
    out = step(at(15000, items={"stone_pickaxe": 1}), task=STONE_TASK)  # not sheltered yet
    assert out is not None and out.kind == "shelter"


PICKAXE_TASK = {"skill": "craft.stone_pickaxe", "args": {}, "reason": "milestone"}
INGOT_TASK = {"skill": "smelt.iron_ingot", "args": {"count": 3}, "reason": "milestone"}


def test_in_its_shelter_a_craft_goes_on_at_the_held_table_and_waits_without_one() -> None:
    inside = Vec3(0.5, 62.0, 0.5)
    kit = {"wooden_pickaxe": 1, "cobblestone": 3, "stick": 2}
    work = step(at(15000, items={**kit, "crafting_table": 1}), shelter=inside, task=PICKAXE_TASK)
    assert work is not None and (work.kind, work.skill) == ("mine", "craft.stone_pickaxe")
    assert work.args == {"under_cover": True} and work.reason == "working in the shelter"
    no_table = step(at(15000, items=kit), shelter=inside, task=PICKAXE_TASK)
    assert no_table is not None and no_table.kind == "wait"  # its planks for a table need wood
    planks = {**kit, "oak_planks": 4}  # a table from planks: a 2x2 craft, done in the shelter
    assert step(at(15000, items=planks), shelter=inside, task=PICKAXE_TASK).kind == "mine"
    sticks = {"wooden_pickaxe": 1, "cobblestone": 3, "oak_planks": 2, "crafting_table": 1}
    assert step(at(15000, items=sticks), shelter=inside, task=PICKAXE_TASK).kind == "mine"
    stone = {"wooden_pickaxe": 1, "stick": 2, "crafting_table": 1}  # cobblestone dug under cover
    assert step(at(15000, items=stone), shelter=inside, task=PICKAXE_TASK).kind == "mine"
    assert not night.works_under_cover(PICKAXE_TASK, kit)
    assert night.works_under_cover(PICKAXE_TASK, {**kit, "crafting_table": 1})
    assert not night.works_under_cover({"skill": "hunt.cow", "args": {}}, kit)


def test_in_its_shelter_a_smelt_goes_on_in_the_held_furnace_and_waits_without_one() -> None:
    inside = Vec3(0.5, 62.0, 0.5)
    ore = {"stone_pickaxe": 1, "iron_ore": 3, "coal": 1}
    work = step(at(15000, items={**ore, "furnace": 1}), shelter=inside, task=INGOT_TASK)
    assert work is not None and (work.kind, work.skill) == ("mine", "smelt.iron_ingot")
    assert work.args == {"count": 3, "under_cover": True}
    no_furnace = step(at(15000, items=ore), shelter=inside, task=INGOT_TASK)
    assert no_furnace is not None and no_furnace.kind == "wait"  # its table needs wood
    kit = {**ore, "cobblestone": 8, "crafting_table": 1}  # the furnace, crafted at the held table
    assert step(at(15000, items=kit), shelter=inside, task=INGOT_TASK).kind == "mine"
    assert not night.works_under_cover(INGOT_TASK, ore)
    assert night.works_under_cover(INGOT_TASK, {**ore, "furnace": 1})


def test_the_craft_and_smelt_skills_pass_under_cover_to_the_link() -> None:
    link = FakeLink()
    kit = {"cobblestone": 3, "stick": 2, "crafting_table": 1, "wooden_pickaxe": 1}
    CRAFT.run(link, {"under_cover": True}, at(15000, items=kit))
    assert link.last().name == "craft" and link.last().args == {
        "item": "stone_pickaxe",
        "times": 1,
        "under_cover": True,
    }
    CRAFT.run(link, {}, at(6000, items=kit))
    assert link.last().args["under_cover"] is False  # by day: anywhere
    ore = {"iron_ore": 2, "coal": 1, "furnace": 1, "stone_pickaxe": 1}
    SMELT.run(link, {"count": 2, "under_cover": True}, at(15000, items=ore))
    assert link.last().name == "smelt" and link.last().args == {
        "item": "iron_ore",
        "count": 2,
        "fuel": "coal",
        "under_cover": True,
    }


def test_the_shelter_is_kept_while_the_bot_mines_below_its_floor_by_night() -> None:
    spot = Vec3(0.5, 62.0, 0.5)
    shaft = at(15000, open_sides=0, ceiling=None, position=(0.5, 50.0, 0.5))
    assert night.shelter_spot(shaft, spot) == spot
    tunnel = at(15000, open_sides=1, ceiling=2, position=(6.5, 48.0, 0.5))
    assert night.shelter_spot(tunnel, spot) == spot
    assert night.shelter_spot(at(15000, position=(0.5, 64.0, 0.5)), spot) is None  # climbed out
    assert night.shelter_spot(at(15000, position=(12.5, 50.0, 0.5)), spot) is None  # too far
    # in the morning down the mine: out of the shelter, the task's walk takes it up
    assert night.shelter_spot(at(100, position=(0.5, 50.0, 0.5)), spot) is None


def test_the_chain_runs_the_mining_task_by_night_and_the_gather_skill_keeps_under_cover() -> None:
    memory = ChainState()
    memory.slot.suggest("gather.stone", {"count": 3}, "milestone")
    closed = at(14000, **SHELTERED, position=(0.5, 62.0, 0.5), items={"wooden_pickaxe": 1})
    memory.observe(closed, 10.0)
    decision = decide(closed, 10.0, memory)
    assert (decision.reflex, decision.skill) == ("task", "gather.stone")
    assert decision.args == {"count": 3, "under_cover": True}
    down = at(15000, open_sides=0, position=(0.5, 58.0, 0.5), items={"wooden_pickaxe": 1})
    memory.observe(down, 20.0)  # down the shaft: still sheltered, not trapped
    assert memory.trapped_since is None and decide(down, 20.0, memory).skill == "gather.stone"
    link = FakeLink()
    STONE.run(link, decision.args, closed)
    assert link.last().name == "gather" and link.last().args["under_cover"] is True
    STONE.run(link, {"count": 3}, at(6000, items={"wooden_pickaxe": 1}))
    assert link.last().name == "gather" and link.last().args["under_cover"] is False  # by day
    assert STONE.run(link, decision.args, at(15000, items={"cobblestone": 3})).ok  # held: done


def test_the_bot_leaves_its_shelter_in_full_day_with_no_hostile_near() -> None:
    inside = Vec3(0.5, 62.0, 0.5)
    for dawn in (23459, 23700, 23999, 24000 + 23500):  # undead do not burn yet: stay
        out = step(at(dawn), shelter=inside)
        assert out is not None and (out.kind, out.skill) == ("wait", None), dawn
    zombie = [entity(1, "zombie", 12.0)]
    assert step(at(100, entities=zombie), shelter=inside).kind == "wait"
    assert step(at(100, entities=[entity(1, "zombie", 20.0)]), shelter=inside).kind == (
        "leave-shelter"
    )
    assert step(at(100), shelter=inside, may_leave=False).kind == "wait"  # a way out failed
    unknown = step(replace(view(), time_of_day=None), shelter=inside)  # no time: no change
    assert unknown is not None and (unknown.kind, unknown.skill) == ("wait", None)
    assert step(replace(view(), time_of_day=None)) is None
    # the trapped rule agrees: walls round a bot waiting for full day are not a trap
    memory = ChainState()
    memory.observe(at(14000, **SHELTERED, position=(0.5, 62.0, 0.5)), 10.0)
    dawn = at(23700, **SHELTERED, position=(0.5, 62.0, 0.5))
    memory.observe(dawn, 20.0)
    assert memory.trapped_since is None and decide(dawn, 30.0, memory).skill is None


def test_in_the_morning_work_that_goes_on_in_the_shelter_goes_on_before_the_way_out() -> None:
    inside = Vec3(0.5, 62.0, 0.5)
    ore = {"iron_ore": 3, "coal": 1, "furnace": 1, "stone_pickaxe": 1}
    smelt = {"skill": "smelt.iron_ingot", "args": {"count": 3}}
    for morning in (23700, 100):  # before full day and in it: a smelt under way is not cut
        out = step(at(morning, items=ore), shelter=inside, task=smelt)
        assert out is not None and (out.kind, out.skill) == ("mine", "smelt.iron_ingot")
        assert out.args == {"count": 3, "under_cover": True}
    wood = {"skill": "gather.wood", "args": {"count": 4}}  # surface work: out to it
    out = step(at(100, items=ore), shelter=inside, task=wood)
    assert out is not None and out.kind == "leave-shelter"


def test_a_shelter_just_built_stops_the_task_before_the_view_shows_its_walls(
    tmp_path: Path,
) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path, peers={"knowledge": lambda m: ()})
    h.send(WorldObserved(view=at(12100, items={"dirt": 8, "oak_log": 1})))
    h.send(
        TaskSuggested(
            skill="gather.wood", args={"count": 4}, source="curriculum", reason="m", milestone="m"
        )
    )
    assert [a.name for a in link.actions] == ["shelter"]
    finish(h, link)  # built; the view still shows the open surface
    h.advance(1.0)
    assert link.calls("gather") == [] and link.calls("shelter") == [link.actions[0]]
    h.stop()


def test_a_failed_way_out_in_the_morning_rests_before_the_next(tmp_path: Path) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path, peers={"knowledge": lambda m: ()})
    inside = {**SHELTERED, "position": (0.5, 62.0, 0.5)}
    h.send(WorldObserved(view=at(15000, **inside)))
    h.send(WorldObserved(view=at(100, **inside)))
    for _ in range(5):
        finish(h, link, ok=False, error="No path to the goal!")
    assert len(link.calls("escape")) == 1
    h.advance(MORNING_RETRY + 1.0)
    assert len(link.calls("escape")) == 2
    # WAYS_OUT failures in a row (the night plan's or the trapped reflex's tries): no longer
    # "in the shelter"; the task's own walk finds its way up
    for _ in range(WAYS_OUT - 1):
        assert h.actor.memory.shelter is not None
        finish(h, link, ok=False, error="No path to the goal!")
        h.advance(MORNING_RETRY + 1.0)
    assert h.actor.memory.shelter is None and h.actor.memory.ways_out_failed == 0
    h.stop()


HOME = Vec3(100.5, 64.0, 0.5)


def test_at_dusk_the_bot_walks_home_from_afar_and_shelters_when_home_is_too_far() -> None:
    away = at(12100, position=(40.5, 64.0, 0.5))  # 60 blocks from home, no bed near
    home = step(away, home=HOME)
    assert home is not None and (home.kind, home.skill) == ("home", "base.go-home")
    assert step(away) is not None and step(away).kind == "shelter"  # no home: a shelter
    far = at(12100, position=(100.5 + night.HOME_REACH + 5, 64.0, 0.5))
    assert step(far, home=HOME).kind == "shelter"  # too far to walk before dark
    # at home, or with its bed in sight, the bed is the refuge as before
    assert step(at(12100, position=(101.5, 64.0, 0.5)), home=HOME).kind == "wait"  # no bed seen
    assert step(at(12100, position=(101.5, 64.0, 0.5), beds=[BED]), home=HOME) is None
    assert step(at(12600, position=(90.5, 64.0, 0.5), beds=[BED]), home=HOME).kind == "sleep"
    assert step(at(6000, position=(40.5, 64.0, 0.5)), home=HOME) is None  # by day: work


def test_walls_at_home_are_never_a_shelter_to_dig_out_of() -> None:
    inside = at(14000, **SHELTERED, position=(100.5, 64.0, 1.5))
    assert night.shelter_spot(inside, None) is not None  # walls, a roof: as a shelter …
    assert night.shelter_spot(inside, None, home=HOME) is None  # … but it is home
    assert step(at(50, **SHELTERED, position=(100.5, 64.0, 1.5)), home=HOME) is None


def test_the_reflex_actor_tells_the_bridge_its_home_and_walks_there_at_dusk(
    tmp_path: Path,
) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path, peers={"knowledge": lambda m: ()})
    h.send(HomeKnown(x=100.5, y=64.0, z=0.5))
    assert [c.args for c in link.calls("set_home")] == [{"x": 100, "y": 64, "z": 0}]
    h.send(WorldObserved(view=at(12100, position=(40.5, 64.0, 0.5))))
    assert link.last().name == "go_home"
    finish(h, link, ok=False, error="no door at the home")  # the way failed: a shelter
    h.send(WorldObserved(view=at(12150, position=(40.5, 64.0, 0.5), items={"dirt": 8})))
    assert link.last().name == "shelter"
    h.stop()
