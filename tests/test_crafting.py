"""Tool progression over minecraft-data's real recipes (pure; the data comes from npm ci)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.survival.crafting import (
    CraftingError,
    Recipe,
    Recipes,
    Step,
    plan_craft,
    prerequisites,
)
from pepa.world.node import node_modules

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
