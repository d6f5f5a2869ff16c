"""The curriculum: ``goal.md`` → ``plan.md`` milestones → the next task. Pure.

A milestone is one check-box line of ``plan.md`` (its grammar: :mod:`pepa.state.plans`)
that names what to hold and the skill that gets it. A milestone is done when the inventory holds the
count (``base.place-chest`` and other skills that leave nothing in the inventory
are ticked when the skill succeeds). Offline, :func:`derive_plan` turns a
goal into milestones with the crafting planner over minecraft-data recipes
(wood → planks → table → wooden pickaxe → stone → stone tools → furnace →
iron ore → ingots → iron tools, armour and a shield → coal, torches and a water bucket →
diamonds, mined deep → diamond tools and armour),
using only skills that exist; an LLM's plan goes through :func:`validate_plan`.
A plan that names skills by their ids of before (``place-chest``) is brought
to the current ids by :func:`rename_skills`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from pepa.game.crafting import (
    DIAMOND_PICKAXES,
    FURNACE,
    IRON_PICKAXES,
    PICKAXES,
    TABLE,
    CraftingError,
    Recipes,
    gatherer,
    held,
    plan_craft_rest,
)
from pepa.state.plans import (
    BOX,
    Milestone,
    actionable_lines,
    milestone,
    parse_plan,
)

__all__ = [
    "DEFAULT_GOAL",
    "DEFAULT_TARGETS",
    "GEAR",
    "derive_plan",
    "describe_plan",
    "goal_reply",
    "is_gear",
    "next_milestone",
    "tick",
    "validate_plan",
]


DEFAULT_GOAL = (
    "survive: wooden and stone tools, a furnace, a home, iron tools, "
    "iron armour and a shield, food in the bag, then diamond tools and armour"
)
"""The goal a fresh bot works toward until an operator sets another."""
DEFAULT_TARGETS: tuple[tuple[str, int], ...] = (
    ("wooden_pickaxe", 1),
    ("stone_pickaxe", 1),
    ("stone_sword", 1),
    ("furnace", 1),
    ("home", 1),
    ("bread", 1),
    ("iron_pickaxe", 1),
    ("iron_sword", 1),
    ("iron_chestplate", 1),
    ("shield", 1),
    ("iron_helmet", 1),
    ("iron_leggings", 1),
    ("iron_boots", 1),
    ("diamond_pickaxe", 1),
    ("diamond_sword", 1),
    ("diamond_chestplate", 1),
    ("diamond_helmet", 1),
    ("diamond_leggings", 1),
    ("diamond_boots", 1),
)
"""The tech tree the offline planner climbs for a general survival goal: stone, a furnace, a
home (``base.build-home``: a house with a bed and chests, :data:`HOME_MILESTONE`), bread from
its wheat field (``farm.tend``), then iron
(smelted) tools, the chestplate and a shield first, the rest of the armour; then diamonds, mined
deep (torches and a water bucket first): the pickaxe, the sword, the armour."""
MINING_KIT: tuple[tuple[str, int], ...] = (("torch", 16), ("water_bucket", 1))
"""What the bot holds before its first deep mine: torches for the tunnels' walls, and water
against lava and fire (docs/mining.md)."""
FOOD_MILESTONE = ("food", 5, "food.hunt")
CHEST_MILESTONE = ("chest", 1, "base.place-chest")
HOME_MILESTONE = ("home", 1, "base.build-home")
"""The house (pepa/game/blueprints/hut.json): its skill gets what it takes, then builds."""
NON_INVENTORY = {"base.place-chest", "base.build-home"}
"""Skills whose milestone only the skill's success can tick (nothing stays in the inventory)."""
_WORD = re.compile(r"[a-z]+")


def is_done(m: Milestone, inventory: Mapping[str, int], food: int = 0) -> bool:
    """Whether the inventory satisfies an actionable milestone."""
    if not m.actionable or m.skill in NON_INVENTORY:
        return m.done
    if m.item == "food":
        return food >= m.count
    return held(m.item, inventory) >= m.count


def tick(
    text: str,
    inventory: Mapping[str, int],
    *,
    food: int = 0,
    succeeded: Collection[str] = (),
) -> tuple[str, list[Milestone]]:
    """``plan.md`` with every satisfied milestone checked, and the ones newly checked.

    ``succeeded`` names skills that just succeeded, for the milestones the
    inventory cannot show (a chest placed). A craft skill may succeed at one
    step of many (planks on the way to a pickaxe): only the inventory says
    when its milestone is met. Lines other than unchecked actionable milestones
    are kept byte for byte, so an operator's edits survive.

    A milestone for an item that a milestone above it asks for too is checked
    only once everything above it is checked: the default plan's second
    ``oak_log`` milestone is wood for planks to smelt iron with, needed after
    the first logs went into the table and the tools, so the logs held when
    the first was met do not count for it.
    """
    out, newly = [], []
    items_above: set[str] = set()
    all_above_done = True
    for raw in text.splitlines(keepends=True):
        box = BOX.match(raw.rstrip("\n"))
        if box is None:
            out.append(raw)
            continue
        (m,) = parse_plan(raw) or [Milestone(done=False, text="")]
        if m.actionable and not m.done:
            met = is_done(m, inventory, food) or (m.skill in NON_INVENTORY and m.skill in succeeded)
            if met and (all_above_done or m.item not in items_above):
                newly.append(Milestone(done=True, text=m.text, item=m.item, count=m.count,
                                       skill=m.skill))  # fmt: skip
                ending = "\n" if raw.endswith("\n") else ""
                raw = f"{box.group(1)}x{box.group(3)}{box.group(4)}{ending}"
            else:
                all_above_done = False
        if m.actionable:
            items_above.add(m.item)
        out.append(raw)
    return "".join(out), newly


def describe_plan(milestones: Sequence[Milestone]) -> str:
    """The plan in one chat line: progress and the next three steps."""
    if not milestones:
        return "I have no plan yet."
    done = sum(m.done for m in milestones)
    upcoming = [m.text for m in milestones if not m.done][:3]
    rest = "; then ".join(upcoming) if upcoming else "all done"
    return f"Plan {done}/{len(milestones)} done. Next: {rest}."


def goal_reply(goal: str, milestones: Sequence[Milestone]) -> str:
    """The chat reply to a new goal: the plan's length and its first step."""
    first = next_milestone(milestones)
    return f"Goal set: {goal}. Plan: {len(milestones)} steps" + (
        f", first {first.text}." if first else "; no step uses a skill I have."
    )


GEAR = re.compile(r"^(?:[a-z]+_(?:helmet|chestplate|leggings|boots)|shield)$")
"""Items that are gear: armour and a shield (the knob ``gear_first`` puts them first)."""


def is_gear(m: Milestone) -> bool:
    """Whether milestone ``m`` makes armour or a shield."""
    return bool(GEAR.match(m.item))


def next_milestone(milestones: Sequence[Milestone]) -> Milestone | None:
    """The first unchecked milestone the curriculum can work on."""
    return next((m for m in milestones if not m.done and m.actionable), None)


def derive_plan(goal: str, recipes: Recipes, skills: Collection[str]) -> list[Milestone]:
    """Milestones toward ``goal`` with the existing skills only (offline planner).

    Items the goal names (``stone axe``, ``furnace``) become targets; with none
    named, or a goal to ``survive``, the default tech tree comes first. A chest
    is placed by ``base.place-chest`` (which crafts it), not a craft milestone.
    Each target is planned with the crafting planner from what earlier
    targets left: its raw materials become gathering
    milestones, the target itself one ``craft.<item>`` milestone (the craft
    skill plans planks, sticks and the table itself when it runs). A target
    that needs something no skill can get yet ends the plan with a note.
    """
    words = set(_WORD.findall(goal.lower()))
    named = [
        t for t in _targets(goal, recipes) if not (t[0] == "chest" and "base.place-chest" in skills)
    ]
    wants = words & {"food", "eat", "chest"}  # asks only for what a non-craft milestone gives
    general = (not named and not wants) or "survive" in words
    targets = (
        # what the tree itself gathers (a goal's "diamond tools" names diamonds) is no target
        [*DEFAULT_TARGETS, *(t for t in named if t not in DEFAULT_TARGETS and not gatherer(t[0]))]
        if general
        else named
    )
    plan: list[Milestone] = []
    stock: dict[str, int] = {}
    queue = list(targets)
    while queue:
        item, count = queue.pop(0)
        if (item, count) == HOME_MILESTONE[:2]:  # no craft: its skill gets what it takes
            if HOME_MILESTONE[2] in skills:
                plan.append(milestone(*HOME_MILESTONE))
            continue
        try:
            steps, rest = plan_craft_rest(item, stock, recipes, count=count)
        except CraftingError as exc:
            plan.append(Milestone(done=False, text=f"{item}: the skills cannot make it ({exc})"))
            break
        missing = [s.skill for s in steps if not _can(s.skill, skills)]
        if missing:
            plan.append(Milestone(done=False, text=f"{item}: needs {missing[0]}, not a skill yet"))
            break
        gathered: dict[tuple[str, str], int] = {}
        for step in steps:
            if not step.skill.startswith(("craft.", "smelt.")):  # gathered, or grown (wheat)
                gathered[(step.item, step.skill)] = (
                    gathered.get((step.item, step.skill), 0) + step.count
                )
        if ("cobblestone", "gather.stone") in gathered and not any(p in stock for p in PICKAXES):
            queue[:0] = [("wooden_pickaxe", 1), (item, count)]  # stone needs a pickaxe first
            continue
        if ("iron_ore", "gather.iron") in gathered and not any(p in stock for p in IRON_PICKAXES):
            queue[:0] = [("stone_pickaxe", 1), (item, count)]  # iron needs a stone one first
            continue
        if item == "water_bucket" and "bucket" not in stock:
            queue[:0] = [("bucket", 1), (item, count)]  # water needs a bucket to be carried in
            continue
        if ("diamond", "gather.diamond") in gathered:
            kit = [k for k in MINING_KIT if k[0] not in stock]
            if not any(p in stock for p in DIAMOND_PICKAXES):
                kit.insert(0, ("iron_pickaxe", 1))  # diamonds need an iron pickaxe first
            if kit:
                queue[:0] = [*kit, (item, count)]
                continue
        plan += [milestone(it, n, skill) for (it, skill), n in gathered.items()]
        if any(s.skill == f"craft.{TABLE}" for s in steps):
            plan.append(milestone(TABLE, 1, f"craft.{TABLE}"))
        if any(s.skill == f"craft.{FURNACE}" for s in steps) and item != FURNACE:
            plan.append(milestone(FURNACE, 1, f"craft.{FURNACE}"))
        if item != TABLE and not gatherer(item):  # a gathered target's milestone is above
            plan.append(milestone(item, count, f"craft.{item}"))
        # what the crafts left: planks and sticks they made more of than they used, and the
        # furnace a smelt made (carried: each smelt places it and takes it back)
        stock = rest
        stock[item] = stock.get(item, 0) + count
        stock[TABLE] = 1  # placed once, used for every later craft
    if "food.hunt" in skills and (general or words & {"food", "eat"}):
        plan.append(milestone(*FOOD_MILESTONE))
    home = any(m.skill == HOME_MILESTONE[2] for m in plan)  # its chests are at base
    if "base.place-chest" in skills and not home and (general or "chest" in words):
        plan.append(milestone(*CHEST_MILESTONE))
    return plan


def _can(skill: str, skills: Collection[str]) -> bool:
    # the craft skill smelts on its way (an ingot for a pickaxe)
    return skill in skills or (skill.startswith(("craft.", "smelt.")) and "craft.*" in skills)


def _targets(goal: str, recipes: Recipes) -> list[tuple[str, int]]:
    words = _WORD.findall(goal.lower())
    found: list[tuple[str, int]] = []
    for size in (3, 2, 1):
        for i in range(len(words) - size + 1):
            name = "_".join(words[i : i + size])
            made = name in recipes.by_result or gatherer(name) is not None
            if made and not any(name in t for t, _ in found):
                found.append((name, 1))
    order = {name: goal.lower().replace(" ", "_").find(name) for name, _ in found}
    return sorted(found, key=lambda t: order[t[0]])


def validate_plan(lines: Sequence[str], skills: Collection[str]) -> list[Milestone]:
    """An LLM's plan: keep only actionable milestones whose skill exists; raise on nothing.

    A line outside the plan grammar (:func:`plan_line_problem`: a count of 0 or
    past :data:`MAX_COUNT`, a name past :data:`MAX_NAME`) is dropped, so the
    ``plan.md`` written from the rest passes its own reader.
    """
    if len(lines) > 40:
        raise ValueError(f"the plan has {len(lines)} lines; 40 at most")
    plan = [m for m in actionable_lines(lines) if _can(m.skill, skills)]
    if not plan:
        raise ValueError("the plan has no milestone with a known skill")
    return plan
