"""Tool progression over minecraft-data's real recipes (pure; the data comes from npm ci)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pepa.base.node import node_modules
from pepa.game.crafting import (
    CraftingError,
    Recipe,
    Recipes,
    Step,
    grows,
    held,
    is_wood,
    plan_craft,
    plan_craft_rest,
    prerequisites,
)
from pepa.game.versions import PLAYED

VERSION = "1.16.5"


@pytest.fixture(scope="module")
def recipes() -> Recipes:
    return Recipes.load(VERSION, node_modules() / "minecraft-data" / "minecraft-data" / "data")


def gathered(steps: list[Step], skill: str) -> int:
    return sum(s.count for s in steps if s.skill == skill)


def test_a_wooden_pickaxe_from_nothing_is_logs_planks_table_sticks_pickaxe(
    recipes: Recipes,
) -> None:
    steps = plan_craft("wooden_pickaxe", {}, recipes)
    skills = [s.skill for s in steps]
    assert gathered(steps, "gather.wood") == 3  # 12 planks: table 4, pickaxe 3, sticks 2
    assert skills.index("craft.crafting_table") < skills.index("craft.wooden_pickaxe")
    assert skills.index("craft.stick") < skills.index("craft.wooden_pickaxe")
    assert skills[-1] == "craft.wooden_pickaxe"
    # what is left: the placed table, 3 planks and 2 of the 4 sticks (a stone pickaxe's)
    assert plan_craft_rest("wooden_pickaxe", {}, recipes)[1] == {
        "crafting_table": 1, "oak_planks": 3, "stick": 2,
    }  # fmt: skip


def test_what_the_inventory_holds_is_used_first(recipes: Recipes) -> None:
    steps = plan_craft(
        "wooden_pickaxe", {"crafting_table": 1, "stick": 4, "spruce_planks": 5}, recipes
    )
    assert steps == [Step(skill="craft.wooden_pickaxe", item="wooden_pickaxe", count=1)]


def test_held_birch_logs_make_birch_planks_instead_of_gathering_oak(recipes: Recipes) -> None:
    steps = plan_craft("stone_pickaxe", {"birch_log": 3}, recipes)
    assert gathered(steps, "gather.wood") == 0
    assert gathered(steps, "gather.stone") == 3
    assert {s.item for s in steps if s.skill.startswith("craft.")} >= {"birch_planks", "stick"}


def test_gather_stone_without_a_pickaxe_crafts_a_wooden_one_first(recipes: Recipes) -> None:
    first = prerequisites("gather.stone", {"dirt": 10}, recipes)
    assert first[-1].skill == "craft.wooden_pickaxe"
    assert prerequisites("gather.stone", {"stone_pickaxe": 1}, recipes) == []
    assert prerequisites("gather.wood", {}, recipes) == []


def test_a_table_is_needed_only_for_shapes_larger_than_two_by_two(recipes: Recipes) -> None:
    sticks = plan_craft("stick", {"oak_planks": 2}, recipes)
    assert sticks == [Step(skill="craft.stick", item="stick", count=1)]


def test_an_item_nobody_can_craft_is_a_clear_error() -> None:
    tiny = Recipes({"stick": [Recipe(result="stick", count=4, ingredients={"oak_planks": 2},
                                     needs_table=False)]})  # fmt: skip
    with pytest.raises(CraftingError, match="no recipe makes oak_planks"):
        plan_craft("stick", {}, tiny)


def test_leftovers_carry_over_between_crafts() -> None:
    tiny = Recipes(
        {
            "oak_planks": [Recipe(result="oak_planks", count=4, ingredients={"oak_log": 1},
                                  needs_table=False)],
            "stick": [Recipe(result="stick", count=4, ingredients={"oak_planks": 2},
                             needs_table=False)],
        }
    )  # fmt: skip
    steps = plan_craft("stick", {}, tiny, count=8)
    assert steps == [
        Step(skill="gather.wood", item="oak_log", count=1),
        Step(skill="craft.oak_planks", item="oak_planks", count=1),
        Step(skill="craft.stick", item="stick", count=2),
    ]


def test_the_data_folder_is_where_npm_ci_put_it() -> None:
    assert Path(node_modules() / "minecraft-data" / "minecraft-data" / "data").is_dir()


DATA = node_modules() / "minecraft-data" / "minecraft-data" / "data"


def items_of(version: str) -> set[str]:
    paths = json.loads((DATA / "dataPaths.json").read_text())["pc"][version]
    return {item["name"] for item in json.loads((DATA / paths["items"] / "items.json").read_text())}


@pytest.mark.parametrize("version", PLAYED)
def test_every_version_plans_a_pickaxe_from_the_wood_that_grows_there(version: str) -> None:
    book = Recipes.load(version, DATA)
    items = items_of(version)
    # what crafts planks alone in minecraft-data is all wood by the name rule, none missed
    assert book.wood and all(is_wood(name) for name in book.wood), sorted(book.wood)
    assert book.logs and set(book.logs) <= book.wood and all(grows(n) for n in book.logs)
    assert book.planks in items
    steps = plan_craft("wooden_pickaxe", {}, book)
    assert steps[0].skill == "gather.wood" and grows(steps[0].item) and steps[0].item in items
    assert steps[-1] == Step(skill="craft.wooden_pickaxe", item="wooden_pickaxe", count=1)


@pytest.mark.parametrize("version", PLAYED)
def test_every_version_derives_the_whole_default_plan(version: str) -> None:
    """From 1.17 a stone pickaxe's first variant in minecraft-data takes cobbled deepslate,
    which no skill gathers: the plan stopped there (no recipe makes cobbled_deepslate)."""
    import skills
    from pepa.policy.curriculum.plan import DEFAULT_GOAL, derive_plan

    plan = derive_plan(
        DEFAULT_GOAL, Recipes.load(version, DATA), set(skills.REGISTRY) | {"craft.*"}
    )
    texts = [m.text for m in plan]
    assert not [t for t in texts if "cannot make" in t], texts
    assert {m.skill for m in plan} >= {"gather.wood", "craft.stone_pickaxe", "craft.iron_pickaxe"}


@pytest.mark.parametrize("version", ["1.12.2", "1.16.5", "1.20.4"])
def test_the_name_rule_is_exactly_minecraft_datas_wood(version: str) -> None:
    """Where minecraft-data lists a planks recipe for every wood (not 1.21's, which keeps the
    logs only), the items the name rule calls wood are exactly those."""
    wood = {name for name in items_of(version) if is_wood(name)}
    assert wood == Recipes.load(version, DATA).wood


def test_the_newer_wood_families_and_old_logs_count_as_wood() -> None:
    newer = {"mangrove_log": 1, "cherry_log": 1, "crimson_stem": 1, "bamboo_block": 1,
             "stripped_pale_oak_log": 1, "warped_hyphae": 1, "melon_stem": 5}  # fmt: skip
    assert held("oak_log", newer) == 6  # a melon's stem is no wood
    assert held("oak_log", {"log": 3, "log2": 1}) == 4  # 1.12: the kind is metadata
    assert held("birch_planks", {"planks": 4, "cherry_planks": 2}) == 6
    assert not any(
        grows(n) for n in ("stripped_oak_log", "oak_wood", "bamboo_block", "mushroom_stem")
    )


def test_at_1_12_the_planks_come_from_log_and_feed_the_furnace() -> None:
    book = Recipes.load("1.12.2", DATA)
    steps = plan_craft("iron_ingot", {"stone_pickaxe": 1}, book)
    assert steps[:2] == [  # for the table; the furnace's fuel: planks again
        Step(skill="gather.wood", item="log", count=1),
        Step(skill="craft.planks", item="planks", count=1),
    ]
    assert steps[-3:] == [*steps[:2], Step(skill="smelt.iron_ingot", item="iron_ingot", count=1)]
