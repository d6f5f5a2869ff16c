"""The curriculum's pure parts: plans from goals, ticking milestones, renamed skills, which
milestone goes out (the Assigner) and the next making step."""

from __future__ import annotations

import pytest

import skills
from pepa.base.node import node_modules
from pepa.game.crafting import WOOD_STOCK, Recipes
from pepa.game.steps import DIAMOND_LEVEL, smelting_fuel, wood_to_hold
from pepa.policy.curriculum.assigner import (
    FAILURES_TO_REST,
    LOST_AFTER_TICKS,
    RETRY_AFTER,
    SETTLE,
    Assigner,
    Outcome,
    Task,
    food_in,
)
from pepa.policy.curriculum.plan import (
    DEFAULT_GOAL,
    derive_plan,
    describe_plan,
    goal_reply,
    next_milestone,
    tick,
    validate_plan,
)
from pepa.state.plans import parse_plan, rename_skill, rename_skills, render_plan
from pepa.testing import FakeLink, view
from pepa.world.view import WorldView
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
    # the home (with its chests, so no chest of its own) after the furnace, before iron
    home = texts.index("1 home (base.build-home)")
    assert texts.index("1 furnace (craft.furnace)") < home < texts.index("3 iron_ore (gather.iron)")
    assert "1 chest (base.place-chest)" not in texts
    assert texts[-1] == "5 food (food.hunt)"
    # then the farm by it: wheat grown (farm.tend) baked into bread
    assert texts[home + 1 : home + 3] == ["3 wheat (farm.tend)", "1 bread (craft.bread)"]
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


def test_the_default_goal_goes_on_to_iron_tools_armour_and_a_shield(recipes: Recipes) -> None:
    texts = [m.text for m in derive_plan("survive", recipes, KNOWN)]
    crafted = [t.split(" (")[0].split(" ", 1)[1] for t in texts if "(craft." in t]
    assert crafted[crafted.index("furnace") : crafted.index("iron_boots") + 1] == [
        "furnace", "bread", "iron_pickaxe", "iron_sword", "iron_chestplate", "shield",
        "iron_helmet", "iron_leggings", "iron_boots",
    ]  # fmt: skip
    # iron ore is mined once a stone pickaxe is made, and the furnace comes before it
    assert texts.index("1 stone_pickaxe (craft.stone_pickaxe)") < texts.index(
        "3 iron_ore (gather.iron)"
    )
    assert texts.index("1 furnace (craft.furnace)") < texts.index("3 iron_ore (gather.iron)")
    assert "iron" in DEFAULT_GOAL and "shield" in DEFAULT_GOAL


def test_past_iron_the_default_goal_mines_diamonds_with_the_mining_kit_first(
    recipes: Recipes,
) -> None:
    texts = [m.text for m in derive_plan("survive", recipes, KNOWN)]
    crafted = [t.split(" (")[0].split(" ", 1)[1] for t in texts if "(craft." in t]
    assert crafted[crafted.index("iron_boots") + 1 :] == [
        "torch", "bucket", "diamond_pickaxe", "diamond_sword", "diamond_chestplate",
        "diamond_helmet", "diamond_leggings", "diamond_boots",
    ]  # fmt: skip
    first_diamonds = texts.index("3 diamond (gather.diamond)")
    # torches for the tunnels and water against lava are held before the first deep mine
    assert texts.index("16 torch (craft.torch)") < first_diamonds
    assert texts.index("1 water_bucket (gather.water)") < first_diamonds
    assert texts.index("4 coal (gather.coal)") < texts.index("16 torch (craft.torch)")
    # the goal's words name diamonds, which the tree gathers: no target of their own
    assert "diamond (craft.diamond)" not in " ".join(texts)
    assert sum(t.endswith("(gather.diamond)") for t in texts) == 6


def test_a_diamond_pickaxe_alone_plans_the_iron_pickaxe_and_the_kit_first(
    recipes: Recipes,
) -> None:
    texts = [m.text for m in derive_plan("a diamond pickaxe", recipes, KNOWN)]
    assert texts[-1] == "1 diamond_pickaxe (craft.diamond_pickaxe)"
    before = texts[: texts.index("3 diamond (gather.diamond)")]
    assert "1 iron_pickaxe (craft.iron_pickaxe)" in before
    assert "16 torch (craft.torch)" in before
    assert "1 water_bucket (gather.water)" in before


def test_an_iron_goal_alone_makes_the_stone_pickaxe_and_the_furnace_on_the_way(
    recipes: Recipes,
) -> None:
    texts = [m.text for m in derive_plan("an iron pickaxe", recipes, KNOWN)]
    assert texts.index("1 stone_pickaxe (craft.stone_pickaxe)") < texts.index(
        "3 iron_ore (gather.iron)"
    )
    assert "1 furnace (craft.furnace)" in texts
    assert texts[-1] == "1 iron_pickaxe (craft.iron_pickaxe)"


def test_a_goal_for_food_or_a_chest_alone_is_just_that(recipes: Recipes) -> None:
    assert [m.text for m in derive_plan("some food", recipes, KNOWN)] == ["5 food (food.hunt)"]
    assert [m.text for m in derive_plan("a chest", recipes, KNOWN)] == [
        "1 chest (base.place-chest)"
    ]


def test_what_no_skill_can_make_ends_the_plan_with_an_honest_note(recipes: Recipes) -> None:
    plan = derive_plan("a golden apple", recipes, KNOWN)  # gold: no skill mines it
    assert plan and not plan[-1].actionable and "golden_apple" in plan[-1].text
    without_mining = derive_plan("a diamond pickaxe", recipes, KNOWN - {"gather.diamond"})
    assert without_mining[-1].text == "diamond_pickaxe: needs gather.diamond, not a skill yet"
    without_stone = derive_plan("stone pickaxe", recipes, KNOWN - {"gather.stone"})
    assert without_stone[-1].text == "stone_pickaxe: needs gather.stone, not a skill yet"


def test_ticking_keeps_the_operators_lines_and_checks_what_the_inventory_shows() -> None:
    text = (
        "# Plan\n\nGoal: tools\n\n- [ ] 3 oak_log (gather.wood)\n- [ ] build a hut by the lake\n"
        "- [ ] 1 wooden_pickaxe (craft.wooden_pickaxe)\n- [ ] 1 chest (base.place-chest)\n"
    )
    new, newly = tick(text, {"birch_log": 2, "oak_log": 1})
    assert [m.text for m in newly] == ["3 oak_log (gather.wood)"]
    assert "- [x] 3 oak_log (gather.wood)\n- [ ] build a hut by the lake\n" in new
    assert tick(new, {"oak_log": 3})[1] == []  # nothing new
    _, placed = tick(new, {}, succeeded=("base.place-chest",))
    assert [m.skill for m in placed] == ["base.place-chest"]
    _, crafted_step = tick(new, {}, succeeded=("craft.wooden_pickaxe",))
    assert crafted_step == []  # a craft step succeeding is not the pickaxe in the bag
    nxt = next_milestone(parse_plan(new))
    assert nxt is not None and nxt.skill == "craft.wooden_pickaxe"  # the note is skipped


def test_the_plan_counts_what_earlier_crafts_left(recipes: Recipes) -> None:
    texts = [m.text for m in derive_plan(DEFAULT_GOAL, recipes, KNOWN)]
    # the wooden pickaxe's 3 logs leave planks and sticks for the stone tools: no more wood
    stone_tools = texts[texts.index("1 wooden_pickaxe (craft.wooden_pickaxe)") :][:5]
    assert stone_tools == [
        "1 wooden_pickaxe (craft.wooden_pickaxe)", "3 cobblestone (gather.stone)",
        "1 stone_pickaxe (craft.stone_pickaxe)", "2 cobblestone (gather.stone)",
        "1 stone_sword (craft.stone_sword)",
    ]  # fmt: skip


def test_a_second_milestone_for_the_same_item_waits_for_everything_above_it() -> None:
    text = (
        "- [ ] 3 oak_log (gather.wood)\n- [ ] 1 wooden_pickaxe (craft.wooden_pickaxe)\n"
        "- [ ] 3 cobblestone (gather.stone)\n- [ ] a note\n- [ ] 1 oak_log (gather.wood)\n"
        "- [ ] 1 stone_pickaxe (craft.stone_pickaxe)\n- [ ] 2 cobblestone (gather.stone)\n"
    )
    # the logs and stone held meet each item's first milestone only: the later ones are
    # what the crafts between leave to gather again
    new, newly = tick(text, {"oak_log": 3, "cobblestone": 3})
    assert [m.text for m in newly] == ["3 oak_log (gather.wood)", "3 cobblestone (gather.stone)"]
    # once the pickaxe is made, the log held now is the second milestone's (a note is no step)
    new, newly = tick(new, {"wooden_pickaxe": 1, "oak_log": 1, "cobblestone": 3})
    assert [m.text for m in newly] == ["1 wooden_pickaxe (craft.wooden_pickaxe)",
                                       "1 oak_log (gather.wood)"]  # fmt: skip
    # the stone pickaxe is still to make: the stone held is not yet the next two
    assert tick(new, {"wooden_pickaxe": 1, "cobblestone": 9})[1] == []
    new, newly = tick(new, {"stone_pickaxe": 1, "cobblestone": 2})
    assert [m.item for m in newly] == ["stone_pickaxe", "cobblestone"]
    assert "- [ ]" not in new.replace("- [ ] a note", "")


def test_a_plan_round_trips_and_an_llm_plan_keeps_only_known_skills() -> None:
    plan = validate_plan(
        ["4 oak_log (gather.wood)", "- [ ] 1 boat (sail.away)", "1 furnace (craft.furnace)"],
        {"gather.wood", "craft.furnace"},
    )
    assert [m.skill for m in plan] == ["gather.wood", "craft.furnace"]
    assert parse_plan(render_plan("g", plan)) == plan
    with pytest.raises(ValueError, match="no milestone with a known skill"):
        validate_plan(["dance (party.time)", "just vibes"], {"gather.wood"})


def world(**items: int) -> WorldView:
    return view(items=items, version="1.16.5")


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


def test_a_chop_gathers_a_stock_of_wood_for_the_night() -> None:
    # the first chops: what is asked (the stone tier comes first)
    assert wood_to_hold(3, {}) == 3
    # from the stone tier on the chop goes on to the stock; planks and sticks count toward it
    stone = {"stone_pickaxe": 1}
    assert wood_to_hold(3, stone) == WOOD_STOCK
    kit = {**stone, "birch_log": 2, "oak_planks": 8, "stick": 8}
    assert wood_to_hold(3, kit) == 2 + WOOD_STOCK - 5
    assert wood_to_hold(12, {**stone, "oak_log": 1}) == 12  # asked for more: more
    assert wood_to_hold(1, {**stone, "oak_log": WOOD_STOCK}) == WOOD_STOCK  # stocked: as asked
    link = FakeLink()
    skills.get("craft.iron_pickaxe").run(link, {}, world(**stone, iron_ingot=3))
    assert link.last().name == "gather" and link.last().args["count"] == WOOD_STOCK
    # under cover by night a chop never walks out of the shelter
    before = len(link.actions)
    night = skills.get("craft.iron_pickaxe").run(
        link, {"under_cover": True}, world(**stone, iron_ingot=3)
    )
    assert not night.ok and night.detail == "wood waits for the morning"
    assert len(link.actions) == before


def test_iron_is_mined_with_a_stone_pickaxe_and_smelted_in_a_carried_furnace() -> None:
    # iron ore without a stone pickaxe: the stone pickaxe's first step
    tools = {"wooden_pickaxe": 1, "crafting_table": 1, "stick": 2}
    assert next_step("iron_ore", 3, world(**tools)) == ("gather.stone", "cobblestone", 3)
    assert next_step("iron_ore", 3, world(stone_pickaxe=1)) == ("gather.iron", "iron_ore", 3)
    # ore, a furnace and fuel held: smelt them all in one go
    held = {"stone_pickaxe": 1, "furnace": 1, "iron_ore": 3, "coal": 1}
    assert next_step("iron_ingot", 3, world(**held)) == ("smelt.iron_ingot", "iron_ingot", 3)
    # no furnace: make one first (8 cobblestone at a table)
    held = {"stone_pickaxe": 1, "iron_ore": 1, "coal": 1, "crafting_table": 1}
    assert next_step("iron_ingot", 1, world(**held)) == ("gather.stone", "cobblestone", 8)
    assert next_step("iron_ingot", 1, world(**held, cobblestone=8)) == (
        "craft.furnace", "furnace", 1,
    )  # fmt: skip
    # no coal: planks burn (1.5 smelts a plank), made from a log
    step = next_step("iron_ingot", 3, world(furnace=1, iron_ore=3, oak_log=1))
    assert step == ("craft.oak_planks", "oak_planks", 1)
    held = {"furnace": 1, "iron_ore": 3, "birch_planks": 2}  # planks of any wood burn
    assert next_step("iron_ingot", 3, world(**held)) == ("smelt.iron_ingot", "iron_ingot", 3)


def test_a_smelt_step_burns_the_best_fuel_held_through_the_link() -> None:
    link = FakeLink()
    held = {"furnace": 1, "iron_ore": 2, "oak_planks": 4, "coal": 1}
    skills.get("smelt.iron_ingot").run(link, {"count": 2}, world(**held))
    assert link.last().name == "smelt" and link.last().args == {
        "item": "iron_ore",
        "count": 2,
        "fuel": "coal",
        "under_cover": False,
    }
    assert smelting_fuel({"birch_planks": 3, "oak_log": 1}) == "birch_planks"
    assert smelting_fuel({"dirt": 3}) is None
    skills.get("craft.iron_ingot").run(link, {}, world(furnace=1, iron_ore=1))
    assert link.last().name == "gather"  # nothing to burn: wood for planks first
    assert skills.get("gear.wear").check(world(iron_chestplate=1), {}) is None
    assert skills.get("gear.wear").check(world(dirt=1), {}) == "no armour or shield to put on"
    wearing = view(items={"iron_chestplate": 1}, worn=["iron_chestplate"], version="1.16.5")
    assert wearing.worn == ("iron_chestplate",)
    assert skills.get("gear.wear").check(wearing, {}) == "no armour or shield to put on"
    skills.get("gear.wear").run(link, {}, world(shield=1))
    assert link.last().name == "wear"


def test_gather_water_scoops_with_a_held_bucket_only() -> None:
    water = skills.get("gather.water")
    assert water.check(world(water_bucket=1), {}) == "no empty bucket held"
    assert water.check(world(bucket=1), {}) is None
    link = FakeLink()
    water.run(link, {}, world(bucket=1))
    assert link.last().name == "scoop" and link.last().args == {"radius": 48.0}


def test_the_craft_family_covers_every_recipe_and_nothing_else() -> None:
    assert skills.get("craft.furnace").id == "craft.furnace"
    assert skills.has_family("craft")
    with pytest.raises(KeyError, match=r"unknown skill 'craft\.unobtainium'"):
        skills.get("craft.unobtainium")


# -- renamed skill ids -------------------------------------------------------------------------


def test_renaming_touches_only_the_skill_of_a_milestone() -> None:
    old = (
        "# Plan\n\nGoal: a chest (place-chest)\n\n- [ ] 1 chest (place-chest)  \n"
        "- [x] 5 food (acquire-food)\r\n* [ ] look around (explore)\n- [ ] 1 map (explore)\n"
        "- [ ] 3 oak_log (gather.wood)\n"
    )
    assert rename_skills(old, skills.canonical) == (
        "# Plan\n\nGoal: a chest (place-chest)\n\n- [ ] 1 chest (base.place-chest)  \n"
        "- [x] 5 food (food.hunt)\r\n* [ ] look around (explore)\n- [ ] 1 map (nav.explore)\n"
        "- [ ] 3 oak_log (gather.wood)\n"
    )
    current = rename_skills(old, skills.canonical)
    assert rename_skills(current, skills.canonical) == current  # a fixed point
    assert rename_skill("1 chest (place-chest)", skills.canonical) == "1 chest (base.place-chest)"
    assert rename_skill("build a hut", skills.canonical) == "build a hut"


def test_the_plan_in_one_line_and_the_reply_to_a_goal() -> None:
    plan = parse_plan(
        "- [x] 1 oak_log (gather.wood)\n- [ ] a note\n- [ ] 1 furnace (craft.furnace)\n"
    )
    assert describe_plan(plan) == "Plan 1/3 done. Next: a note; then 1 furnace (craft.furnace)."
    assert describe_plan([]) == "I have no plan yet."
    assert goal_reply("a furnace", plan) == (
        "Goal set: a furnace. Plan: 3 steps, first 1 furnace (craft.furnace)."
    )
    assert goal_reply("fly", []) == "Goal set: fly. Plan: 0 steps; no step uses a skill I have."


# -- the Assigner: which milestone goes out, and when -----------------------------------------

PLAN = parse_plan(
    "- [x] 1 crafting_table (craft.crafting_table)\n- [ ] a note\n- [ ] 1 bogus (craft.bogus)\n"
    "- [ ] 3 oak_log (gather.wood)\n- [ ] 1 wooden_pickaxe (craft.wooden_pickaxe)\n"
)
LOGS = Task(skill="gather.wood", milestone="3 oak_log (gather.wood)", item="oak_log", count=3)


def assigner() -> Assigner:
    return Assigner(known=lambda skill: skill != "craft.bogus", canonical=skills.canonical)


def test_the_first_actionable_known_milestone_goes_out_once_in_the_world() -> None:
    a = assigner()
    assert a.next(PLAN, connected=False, now=0.0) is None
    task = a.next(PLAN, connected=True, now=0.0)
    assert task == LOGS and a.assigned == LOGS
    assert task.args() == {"item": "oak_log", "count": 3}
    assert a.next(PLAN, connected=True, now=1.0) is None  # one at a time
    assert not a.ready(connected=True, now=1.0)


def test_a_task_that_ends_lets_the_world_settle_before_the_next_goes_out() -> None:
    a = assigner()
    a.next(PLAN, connected=True, now=0.0)
    outcome = a.finished("gather.wood", ok=True, now=10.0)
    assert outcome == Outcome(succeeded=("gather.wood",), ended=LOGS)
    assert a.next(PLAN, connected=True, now=10.0 + SETTLE / 2) is None
    a.observed()  # a fresh view shows the logs
    assert a.next(PLAN, connected=True, now=10.5) == LOGS  # (the plan was not ticked here)


def test_three_failures_in_a_row_rest_a_milestone_for_retry_after() -> None:
    a = assigner()
    for attempt in range(1, FAILURES_TO_REST + 1):
        now = attempt * 10.0
        assert a.next(PLAN, connected=True, now=now) == LOGS
        outcome = a.finished("gather.wood", ok=False, now=now)
        assert outcome.ended == LOGS and outcome.succeeded == ()
        assert outcome.rested == ("" if attempt < FAILURES_TO_REST else LOGS.milestone)
    rested_at = FAILURES_TO_REST * 10.0
    later = rested_at + SETTLE
    assert a.next(PLAN, connected=True, now=later) == Task.of(PLAN[4])  # the next one instead
    a.finished("craft.wooden_pickaxe", ok=False, now=later)
    assert a.failures == {PLAN[4].text: 1}
    a.next(PLAN, connected=True, now=later + SETTLE)
    a.withdraw()
    back = a.next(PLAN, connected=True, now=rested_at + RETRY_AFTER)
    assert back == LOGS


def test_a_success_resets_the_failures_and_names_a_place() -> None:
    a = assigner()
    chest = parse_plan("- [ ] 1 chest (place-chest)\n")
    task = a.next(chest, connected=True, now=0.0)
    assert task is not None and task.skill == "place-chest"
    assert a.finished("base.place-chest", ok=False, now=1.0).ended == task  # old id, same skill
    a.observed()
    a.next(chest, connected=True, now=2.0)
    outcome = a.finished("base.place-chest", ok=True, now=3.0)
    assert outcome == Outcome(succeeded=("base.place-chest",), ended=task, place="chest")
    assert a.failures == {}
    assert a.finished("survive.sleep", ok=True, now=4.0) == Outcome(
        succeeded=("survive.sleep",), place="bed"
    )  # not the task out: ticks and names a place all the same
    assert a.finished("survive.sleep", ok=False, now=4.0) == Outcome()


def test_a_task_out_while_the_chain_idles_goes_out_again() -> None:
    a = assigner()
    assert all(a.watch(idle=True) is None for _ in range(LOST_AFTER_TICKS * 2))  # nothing out
    a.next(PLAN, connected=True, now=0.0)
    assert [a.watch(idle=True) for _ in range(LOST_AFTER_TICKS - 1)] == [None] * 5
    assert a.watch(idle=False) is None  # busy: counted again from zero
    assert [a.watch(idle=True) for _ in range(LOST_AFTER_TICKS)][-1] == LOGS
    assert a.watch(idle=True) is None and a.assigned == LOGS


def test_a_task_is_taken_back_when_its_milestone_is_reached_or_the_plan_replaced() -> None:
    a = assigner()
    a.next(PLAN, connected=True, now=0.0)
    assert a.reached([PLAN[4]]) is None and a.assigned == LOGS
    assert a.reached([PLAN[3]]) == LOGS and a.assigned is None
    assert a.withdraw() is None
    a.resume(Task(skill="place-chest", milestone="1 chest (place-chest)"))
    chest = parse_plan("- [ ] 1 chest (base.place-chest)\n")
    assert a.reached(chest) == Task(skill="place-chest", milestone="1 chest (place-chest)")


def test_a_task_file_record_says_which_milestone_is_out() -> None:
    record = {"kind": "milestone", "skill": "gather.wood", "milestone": LOGS.milestone,
              "args": {"item": "oak_log", "count": 3}}  # fmt: skip
    assert Task.from_record(record) == LOGS
    assert Task.from_record({"kind": "milestone", "skill": "craft.stick"}) == Task(
        skill="craft.stick"
    )
    assert Task(skill="craft.stick").args() == {}
    assert Task.from_record({"kind": "follow", "operator": "alice"}) is None
    assert Task.from_record(None) is None
    assert food_in({"beef": 2, "bread": 1, "dirt": 9}) == 3


def test_diamonds_are_mined_deep_with_an_iron_pickaxe_and_never_from_a_shelter() -> None:
    # no iron pickaxe: the iron pickaxe's first step (a furnace's stone), not a mine
    held = {"stone_pickaxe": 1, "stick": 2, "crafting_table": 1}
    assert next_step("diamond", 3, world(**held)) == ("gather.stone", "cobblestone", 8)
    assert next_step("diamond", 3, world(iron_pickaxe=1)) == ("gather.diamond", "diamond", 3)
    link = FakeLink()
    skills.get("gather.diamond").run(link, {"count": 3}, world(iron_pickaxe=1, diamond=1))
    assert link.last().name == "mine" and link.last().args == {
        "names": ["diamond_ore"],
        "count": 3,
        "level": DIAMOND_LEVEL,
        "drops": ["diamond"],
        "radius": 24.0,
        "off": [],
    }
    before = len(link.actions)
    kit = world(iron_pickaxe=1, stick=2, crafting_table=1)
    night = skills.get("craft.diamond_pickaxe").run(link, {"under_cover": True}, kit)
    assert not night.ok and night.detail == "diamonds wait for the morning"
    assert len(link.actions) == before
    # coal for torches: any pickaxe digs it
    assert next_step("coal", 4, world(wooden_pickaxe=1)) == ("gather.coal", "coal", 4)
    skills.get("gather.coal").run(link, {"count": 4}, world(wooden_pickaxe=1))
    assert link.last().name == "gather" and link.last().args["drops"] == ["coal"]
