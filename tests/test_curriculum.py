"""The curriculum's pure parts: plans from goals, ticking milestones, the next making step."""

from __future__ import annotations

import pytest

import skills
from pepa.survival.crafting import Recipes
from pepa.survival.curriculum import (
    derive_plan,
    next_milestone,
    parse_plan,
    render_plan,
    tick,
    validate_plan,
)
from pepa.world.node import node_modules
from skills._making import next_step

pytestmark = pytest.mark.timeout(30)

KNOWN = set(skills.REGISTRY) | {"craft.*"}


@pytest.fixture(scope="module")
def recipes() -> Recipes:
    return Recipes.load("1.16.5", node_modules() / "minecraft-data" / "minecraft-data" / "data")


def test_the_default_goal_climbs_the_tech_tree_with_existing_skills_only(recipes: Recipes) -> None:
    plan = derive_plan("survive", recipes, KNOWN)
    texts = [m.text for m in plan]
    assert texts[:4] == [
        "3 oak_log (gather.wood)",
        "1 crafting_table (craft.crafting_table)",
        "1 wooden_pickaxe (craft.wooden_pickaxe)",
        "3 cobblestone (gather.stone)",
    ]
    assert "1 stone_pickaxe (craft.stone_pickaxe)" in texts
    assert "1 furnace (craft.furnace)" in texts
    assert texts[-2:] == ["5 food (acquire-food)", "1 chest (place-chest)"]
    for m in plan:
        skill = skills.get(m.skill)  # every step is a skill the bot has
        assert skill.id == m.skill


def test_a_goal_naming_items_plans_for_them_and_stone_needs_a_pickaxe_first(
    recipes: Recipes,
) -> None:
    texts = [m.text for m in derive_plan("Make a stone axe, please", recipes, KNOWN)]
    assert texts.index("1 wooden_pickaxe (craft.wooden_pickaxe)") < texts.index(
        "3 cobblestone (gather.stone)"
    )
    assert texts[-1] == "1 stone_axe (craft.stone_axe)"


def test_a_goal_for_food_or_a_chest_alone_is_just_that(recipes: Recipes) -> None:
    assert [m.text for m in derive_plan("some food", recipes, KNOWN)] == ["5 food (acquire-food)"]
    assert [m.text for m in derive_plan("a chest", recipes, KNOWN)] == ["1 chest (place-chest)"]


def test_what_no_skill_can_make_ends_the_plan_with_an_honest_note(recipes: Recipes) -> None:
    plan = derive_plan("an iron pickaxe", recipes, KNOWN)
    assert plan and not plan[-1].actionable and "iron_pickaxe" in plan[-1].text
    without_stone = derive_plan("stone pickaxe", recipes, KNOWN - {"gather.stone"})
    assert without_stone[-1].text == "stone_pickaxe: needs gather.stone, not a skill yet"


def test_ticking_keeps_the_operators_lines_and_checks_what_the_inventory_shows() -> None:
    text = (
        "# Plan\n\nGoal: tools\n\n- [ ] 3 oak_log (gather.wood)\n- [ ] build a hut by the lake\n"
        "- [ ] 1 wooden_pickaxe (craft.wooden_pickaxe)\n- [ ] 1 chest (place-chest)\n"
    )
    new, newly = tick(text, {"birch_log": 2, "oak_log": 1})
    assert [m.text for m in newly] == ["3 oak_log (gather.wood)"]
    assert "- [x] 3 oak_log (gather.wood)\n- [ ] build a hut by the lake\n" in new
    assert tick(new, {"oak_log": 3})[1] == []  # nothing new
    _, placed = tick(new, {}, succeeded=("place-chest",))
    assert [m.skill for m in placed] == ["place-chest"]
    _, crafted_step = tick(new, {}, succeeded=("craft.wooden_pickaxe",))
    assert crafted_step == []  # a craft step succeeding is not the pickaxe in the bag
    nxt = next_milestone(parse_plan(new))
    assert nxt is not None and nxt.skill == "craft.wooden_pickaxe"  # the note is skipped


def test_a_plan_round_trips_and_an_llm_plan_keeps_only_known_skills() -> None:
    plan = validate_plan(
        ["4 oak_log (gather.wood)", "- [ ] 1 boat (sail.away)", "1 furnace (craft.furnace)"],
        {"gather.wood", "craft.furnace"},
    )
    assert [m.skill for m in plan] == ["gather.wood", "craft.furnace"]
    assert parse_plan(render_plan("g", plan)) == plan
    with pytest.raises(ValueError, match="no milestone with a known skill"):
        validate_plan(["dance (party.time)", "just vibes"], {"gather.wood"})


def world(**items: int) -> dict[str, object]:
    return {"inventory": {"items": items}, "version": "1.16.5"}


def test_making_goes_one_step_at_a_time_from_what_is_held() -> None:
    assert next_step("wooden_pickaxe", 1, world()) == ("gather.wood", "oak_log", 3)
    assert next_step("wooden_pickaxe", 1, world(oak_log=3)) == ("craft.oak_planks", "oak_planks", 3)
    step = next_step("wooden_pickaxe", 1, world(oak_planks=12))
    assert step is not None and step[0] in ("craft.crafting_table", "craft.stick")
    assert next_step("wooden_pickaxe", 1, world(wooden_pickaxe=1)) is None
    # stone without a pickaxe: the pickaxe's first step; with one: mine
    assert next_step("cobblestone", 3, world()) == ("gather.wood", "oak_log", 3)
    assert next_step("cobblestone", 3, world(wooden_pickaxe=1)) == (
        "gather.stone", "cobblestone", 3,
    )  # fmt: skip


def test_the_craft_family_covers_every_recipe_and_nothing_else() -> None:
    assert skills.get("craft.furnace").id == "craft.furnace"
    assert skills.has_family("craft")
    with pytest.raises(KeyError, match=r"unknown skill 'craft\.unobtainium'"):
        skills.get("craft.unobtainium")
