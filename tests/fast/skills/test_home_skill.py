"""base.build-home's shopping (skills/base_home.py): what the hut takes, wood and wool first,
the stone last with room for the nights' shelters, then the build itself."""

from __future__ import annotations

import pytest

import skills
from pepa.game import blueprints
from pepa.testing import FakeLink, entity, view
from skills.base_home import SHELTER_STOCK, STONE_SLACK, shopping

pytestmark = pytest.mark.timeout(30)

HUT = blueprints.load("hut")
KIT = {"oak_door": 1, "white_bed": 1, "chest": 2, "furnace": 1, "crafting_table": 1, "torch": 6}


def test_the_surface_work_comes_before_the_stone_but_after_a_shelters_blocks() -> None:
    first, *rest = shopping(HUT, {"birch_log": 3, "dirt": 4})
    assert first == ("cobblestone", SHELTER_STOCK - 4)  # a night's shelter held first
    wanted = [item for item, _ in rest]
    assert wanted[:2] == ["birch_door", "white_bed"]  # the wood held most of
    assert wanted[-1] == "cobblestone"
    assert shopping(HUT, {"cobblestone": SHELTER_STOCK})[0] == ("oak_door", 1)
    assert {"chest", "furnace", "crafting_table", "torch"} <= set(wanted)


def test_the_stone_is_dug_with_slack_and_a_little_short_is_enough() -> None:
    need = blueprints.needs(HUT)
    blocks = need["wall"] + need["roof"] + 8
    assert shopping(HUT, KIT) == [("cobblestone", blocks + STONE_SLACK)]
    assert shopping(HUT, {**KIT, "cobblestone": blocks}) == []
    assert shopping(HUT, {**KIT, "cobblestone": blocks - 1, "oak_planks": 30}) == [
        ("cobblestone", blocks + STONE_SLACK)
    ]  # planks go into crafts: they do not count toward the walls


def test_each_run_is_a_step_until_all_is_held_then_it_settles() -> None:
    link = FakeLink()
    home = skills.get("base.build-home")
    step = home.run(link, {}, view(items={"oak_log": 8}))
    assert step.step and link.last().name == "craft"
    need = blueprints.needs(HUT)
    built = home.run(link, {}, view(items={**KIT, "cobblestone": need["wall"] + need["roof"] + 8}))
    assert not built.step and link.last().name == "settle"
    assert len(link.last().args["cells"]) == len(blueprints.cells(HUT))


def test_the_beds_wool_is_looked_for_when_no_sheep_is_in_sight() -> None:
    link = FakeLink()
    planks = {"oak_planks": 3, "crafting_table": 1}
    skills.get("craft.white_bed").run(link, {"item": "white_bed"}, view(items=planks))
    assert link.last().name == "goto"  # exploring: no sheep within 32 blocks
    sheep = [entity(5, "sheep", 12.0, kind="animal")]
    skills.get("craft.white_bed").run(
        link, {"item": "white_bed"}, view(items=planks, entities=sheep)
    )
    assert link.last().name == "hunt" and link.last().args["names"] == ["sheep"]
    shears = {**planks, "shears": 1}
    skills.get("craft.white_bed").run(
        link, {"item": "white_bed"}, view(items=shears, entities=sheep)
    )
    assert link.last().name == "shear"
