"""Tool progression: what to gather and craft to make an item. Pure, over minecraft-data recipes.

Recipes, and the wood that makes planks, are the server's version's: 1.12's
``log``/``log2`` and ``planks`` as much as 1.20's cherry and bamboo or 1.21's
pale oak (:attr:`Recipes.wood`, :attr:`Recipes.logs`). Any wood counts as wood
(:func:`is_wood`): a milestone of ``3 oak_log`` is met by birch, mangrove or
crimson too.

``plan_craft("wooden_pickaxe", inventory, recipes)`` answers with the ordered
steps — gather logs, craft planks, sticks and a crafting table, then the
pickaxe — using what the inventory already holds first. Recipes come from
the minecraft-data package ``npm ci`` installed (``Recipes.load``); tests may
build a :class:`Recipes` from plain dicts. Only the pure part lives here: the
``craft.<item>`` skill that runs the steps needs a server that crafts (the
survival sandbox).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BASE_RESOURCES",
    "DIAMOND_PICKAXES",
    "FURNACE",
    "IRON_PICKAXES",
    "PICKAXES",
    "SMELTING",
    "WOOD_STOCK",
    "CraftingError",
    "Recipe",
    "Recipes",
    "Step",
    "gatherer",
    "grows",
    "held",
    "is_planks",
    "is_wood",
    "obtainable",
    "plan_craft",
    "plan_craft_rest",
    "prerequisites",
]

BASE_RESOURCES = {
    "gather.stone": ("cobblestone",),
    "gather.iron": ("iron_ore",),
    "gather.coal": ("coal",),
    "gather.diamond": ("diamond",),
    "gather.water": ("water_bucket",),
    "gather.wool": ("white_wool",),
    "gather.seeds": ("wheat_seeds",),
    "farm.tend": ("wheat",),
}
"""Items that come from gathering, not crafting, and the skill that gathers them (wood, whose
names change with the version, is :func:`grows`)."""
_WOOD_ENDS = ("_log", "_wood", "_stem", "_hyphae")
_NOT_WOOD = frozenset(
    ("melon_stem", "pumpkin_stem", "attached_melon_stem", "attached_pumpkin_stem", "mushroom_stem")
)
_OLD_LOGS = ("log", "log2")
"""1.12 and older: every log is ``log`` or ``log2`` (the kind in its metadata)."""
TABLE = "crafting_table"
FURNACE = "furnace"
SMELTING = {"iron_ingot": "iron_ore"}
"""Item → what a furnace smelts into it (vanilla 1.16.5 ``data/minecraft/recipes/iron_ingot.json``,
a ``minecraft:smelting`` recipe: one ore, one ingot; minecraft-data has crafting recipes only)."""
WOOD_STOCK = 6
"""Logs' worth of wood a chop for a craft gathers up to (planks count a quarter, sticks an
eighth). After the stone tier the rest of the tree takes about that much: sticks for the iron
tools, a shield's six planks and planks to smelt 13 ingots (1.5 a plank). Wood grows only on
the surface: by night in its shelter the bot can dig stone and iron but not one log, so a craft
that runs out of wood waits for the morning (at the gauntlet's x24 a day has 25 s of light).
Not for the first chop: bare-handed, 8 logs took the gauntlet's bot two days (a log is 3 s,
then the walk to the next tree), and the stone tier waited for them."""
COAL_SMELTS, PLANK_SMELTS = 8.0, 1.5
"""Items one coal (or charcoal) and one plank smelt: burn time over the 200 ticks of a smelt
(vanilla 1.16.5 ``AbstractFurnaceTileEntity.getBurnTimes``: coal 1600, planks 300)."""


def is_wood(name: str) -> bool:
    """Whether ``name`` is wood that alone crafts planks, in any version: every family's log,
    wood, stem and hyphae, stripped or not, bamboo blocks, 1.12's ``log`` and ``log2``
    (``tests/fast/game/test_crafting.py`` holds this to minecraft-data's recipes of every
    version)."""
    bare = name.removeprefix("stripped_")
    if name in _OLD_LOGS or bare == "bamboo_block":
        return True
    return name.endswith(_WOOD_ENDS) and name not in _NOT_WOOD


def grows(name: str) -> bool:
    """Whether ``name`` is wood as trees and huge fungi grow it (what a chop digs): a log or a
    stem, not stripped (an axe's work) and not a six-sided wood block (a craft's)."""
    return name in _OLD_LOGS or (
        is_wood(name) and not name.startswith("stripped_") and name.endswith(("_log", "_stem"))
    )


def is_planks(name: str) -> bool:
    """Whether ``name`` is planks: any family's, or 1.12's ``planks``."""
    return name == "planks" or name.endswith("_planks")


def gatherer(item: str) -> str | None:
    """The skill that gathers ``item``; None: it is crafted or smelted."""
    if grows(item):
        return "gather.wood"
    for skill, items in BASE_RESOURCES.items():
        if item in items:
            return skill
    return None


def held(item: str, inventory: Mapping[str, int]) -> int:
    """How many of ``item`` the inventory holds; any wood counts as wood, any planks as planks
    (a milestone of ``3 oak_log`` is met by birch logs, or 1.12's ``log``, too)."""
    for kind in (is_wood, is_planks):
        if kind(item):
            return sum(n for name, n in inventory.items() if kind(name))
    return int(inventory.get(item, 0))


class CraftingError(Exception):
    """The item cannot be made from what there is and what can be gathered."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Recipe:
    """One way to craft ``count`` of ``result``."""

    result: str
    count: int
    ingredients: Mapping[str, int]
    """Item name → how many of it one craft uses."""
    needs_table: bool
    """Whether the shape is larger than the 2x2 inventory grid."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One thing to do, in order."""

    skill: str
    """``gather.wood``, ``gather.stone``, ``gather.iron``, ``craft.<item>`` or ``smelt.<item>``."""
    item: str
    """What it yields."""
    count: int
    """How many to gather, or how many crafts to perform."""


class Recipes:
    """Recipes of one game version, by result name."""

    def __init__(self, by_result: Mapping[str, list[Recipe]]) -> None:
        self.by_result = by_result
        alone = {
            name
            for result, variants in by_result.items()
            if is_planks(result)
            for recipe in variants
            for name, n in recipe.ingredients.items()
            if len(recipe.ingredients) == 1 and n == 1
        }
        self.wood = frozenset(alone)
        """Every item that alone crafts planks in this version."""
        self.logs = tuple(sorted(name for name in alone if grows(name)))
        """The wood of :attr:`wood` that grows (what a chop digs), sorted."""
        self.planks = "oak_planks" if "oak_planks" in by_result else "planks"
        """The planks a craft makes when nothing says which (1.12: ``planks``)."""

    @classmethod
    def load(cls, version: str, data_root: Path) -> Recipes:
        """Read minecraft-data's recipes for ``version`` (``data_root`` = its ``data`` folder)."""
        paths = json.loads((data_root / "dataPaths.json").read_text())["pc"][version]
        items = json.loads((data_root / paths["items"] / "items.json").read_text())
        raw = json.loads((data_root / paths["recipes"] / "recipes.json").read_text())
        names = {item["id"]: item["name"] for item in items}
        by_result: dict[str, list[Recipe]] = {}
        for variants in raw.values():
            for variant in variants:
                recipe = _recipe(variant, names)
                # 1.12 names a block's kinds alike (granite and polished granite are both
                # stone): a recipe of a kind from another is one from itself, none to plan
                if recipe is not None and recipe.result not in recipe.ingredients:
                    by_result.setdefault(recipe.result, []).append(recipe)
        return cls(by_result)


def _recipe(variant: Mapping[str, object], names: Mapping[int, str]) -> Recipe | None:
    result = variant["result"]
    assert isinstance(result, dict)
    if "inShape" in variant:
        shape = variant["inShape"]
        assert isinstance(shape, list)
        cells = [cell for row in shape for cell in row if cell is not None]
        needs_table = len(shape) > 2 or any(len(row) > 2 for row in shape)
    else:
        cells = list(variant.get("ingredients") or [])  # type: ignore[call-overload]
        needs_table = len(cells) > 4
    ids = [_item_id(cell) for cell in cells]
    if not ids or any(i not in names for i in ids) or result.get("id") not in names:
        return None  # tag ingredients and the like: not used by tool progression
    if result.get("metadata", 0) and not is_planks(names[result["id"]]):
        return None  # 1.12: another kind under the item's name (diorite is stone 3): not it
    counts: dict[str, int] = {}
    for i in ids:
        counts[names[i]] = counts.get(names[i], 0) + 1  # type: ignore[index]
    return Recipe(
        result=names[result["id"]],
        count=int(result.get("count", 1)),
        ingredients=counts,
        needs_table=needs_table,
    )


def _item_id(cell: object) -> int | None:
    """An ingredient's item id: a plain id, or 1.12's ``{"id", "metadata"}`` (a log's kind in
    its metadata: the kinds are one item here)."""
    if isinstance(cell, dict):
        cell = cell.get("id")
    return cell if isinstance(cell, int) and not isinstance(cell, bool) else None


def plan_craft(
    target: str, inventory: Mapping[str, int], recipes: Recipes, *, count: int = 1
) -> list[Step]:
    """The steps that make ``count`` of ``target`` starting from ``inventory``."""
    return plan_craft_rest(target, inventory, recipes, count=count)[0]


def plan_craft_rest(
    target: str, inventory: Mapping[str, int], recipes: Recipes, *, count: int = 1
) -> tuple[list[Step], dict[str, int]]:
    """:func:`plan_craft`'s steps, and what is left of ``inventory`` once they are done and
    the ``count`` made are spent: the planks and sticks a craft made more of than it used,
    the table placed on the way."""
    stock = dict(inventory)
    steps: list[Step] = []
    _make(target, count, stock, recipes, steps, depth=0)
    return _merge(steps), {item: n for item, n in stock.items() if n > 0}


def _make(
    item: str, count: int, stock: dict[str, int], recipes: Recipes, steps: list[Step], depth: int
) -> None:
    if depth > 8:
        raise CraftingError(f"recipes for {item} nest too deep")
    have = stock.get(item, 0)
    if have >= count:
        stock[item] = have - count
        return
    missing = count - have
    stock[item] = 0
    skill = gatherer(item)
    if skill is not None:
        steps.append(Step(skill=skill, item=item, count=missing))
        return
    if item in SMELTING:
        _smelt(item, missing, stock, recipes, steps, depth)
        return
    recipe = _choose(item, stock, recipes)
    crafts = math.ceil(missing / recipe.count)
    if recipe.needs_table and item != TABLE and stock.get(TABLE, 0) < 1:
        _make(TABLE, 1, stock, recipes, steps, depth + 1)
        stock[TABLE] = stock.get(TABLE, 0) + 1  # placed and kept, not used up
    for ingredient, per_craft in recipe.ingredients.items():
        _make(ingredient, per_craft * crafts, stock, recipes, steps, depth + 1)
    steps.append(Step(skill=f"craft.{item}", item=item, count=crafts))
    stock[item] = stock.get(item, 0) + crafts * recipe.count - missing


def _smelt(
    item: str, count: int, stock: dict[str, int], recipes: Recipes, steps: list[Step], depth: int
) -> None:
    """Smelt ``count`` of ``item``: a furnace (held, placed for the smelt and taken back), the
    input, and fuel: coal when held, else planks."""
    if stock.get(FURNACE, 0) < 1:
        _make(FURNACE, 1, stock, recipes, steps, depth + 1)
        stock[FURNACE] = stock.get(FURNACE, 0) + 1  # kept: the smelt picks it up again
    _make(SMELTING[item], count, stock, recipes, steps, depth + 1)
    coal = next((f for f in ("coal", "charcoal") if stock.get(f, 0) > 0), None)
    if coal is not None and stock[coal] >= math.ceil(count / COAL_SMELTS):
        fuel, pieces = coal, math.ceil(count / COAL_SMELTS)
    else:  # the planks held, else oak ones (1.12: planks) from logs
        held = sorted(n for n, c in stock.items() if is_planks(n) and c > 0)
        fuel, pieces = next(iter(held), recipes.planks), math.ceil(count / PLANK_SMELTS)
    _make(fuel, pieces, stock, recipes, steps, depth + 1)
    steps.append(Step(skill=f"smelt.{item}", item=item, count=count))


def _choose(item: str, stock: Mapping[str, int], recipes: Recipes) -> Recipe:
    """The variant whose ingredients the stock covers best; then one whose every ingredient
    can be had (gathered, smelted or crafted: from 1.17 a stone pickaxe's variants also take
    cobbled deepslate or blackstone, which the skills do not gather); then one of wood that
    grows (a log, not a stripped log or a wood block, which are made from logs), oak first."""
    variants = recipes.by_result.get(item)
    if not variants:
        raise CraftingError(f"no recipe makes {item}")

    def score(recipe: Recipe) -> tuple[int, bool, int, int]:
        held = sum(
            min(_available(name, stock, recipes, 2), need)
            for name, need in recipe.ingredients.items()
        )
        had = all(obtainable(name, recipes) for name in recipe.ingredients)
        logs = sum(grows(name) for name in recipe.ingredients)
        oak = sum(name.startswith("oak_") for name in recipe.ingredients)
        return held, had, logs, oak

    return max(variants, key=score)


def obtainable(item: str, recipes: Recipes, depth: int = 3) -> bool:
    """Whether the skills can come by ``item`` from nothing within ``depth`` crafts."""
    if gatherer(item) is not None or item in SMELTING or is_wood(item):
        return True
    if depth == 0:
        return False
    return any(
        all(obtainable(name, recipes, depth - 1) for name in recipe.ingredients)
        for recipe in recipes.by_result.get(item, ())
    )


def _available(item: str, stock: Mapping[str, int], recipes: Recipes, depth: int) -> int:
    """Roughly how many of ``item`` the stock holds or yields within ``depth`` crafts."""
    held = stock.get(item, 0)
    if depth == 0:
        return held
    best = 0
    for recipe in recipes.by_result.get(item, ()):
        crafts = min(
            _available(name, stock, recipes, depth - 1) // need
            for name, need in recipe.ingredients.items()
        )
        best = max(best, crafts * recipe.count)
    return held + best


def _merge(steps: list[Step]) -> list[Step]:
    """Join consecutive identical steps (two gather.wood in a row become one)."""
    merged: list[Step] = []
    for step in steps:
        if merged and merged[-1].skill == step.skill and merged[-1].item == step.item:
            last = merged.pop()
            step = Step(skill=step.skill, item=step.item, count=last.count + step.count)
        merged.append(step)
    return merged


PICKAXES = ("netherite_pickaxe", "diamond_pickaxe", "iron_pickaxe", "stone_pickaxe",
            "golden_pickaxe", "wooden_pickaxe")  # fmt: skip


IRON_PICKAXES = PICKAXES[:4]
"""The pickaxes that harvest iron ore (vanilla 1.16.5: stone tier or better)."""
DIAMOND_PICKAXES = PICKAXES[:3]
"""The pickaxes that harvest diamond ore (vanilla 1.16.5: iron tier or better)."""


def prerequisites(skill: str, inventory: Mapping[str, int], recipes: Recipes) -> list[Step]:
    """What must happen before ``skill`` can work: ``gather.stone`` and ``gather.coal`` need a
    pickaxe first, ``gather.iron`` a stone one (whose stone needs a pickaxe first),
    ``gather.diamond`` an iron one, ``gather.water`` an empty bucket."""
    has = [p for p in PICKAXES if inventory.get(p, 0) > 0]
    if skill in ("gather.stone", "gather.iron", "gather.coal", "gather.diamond") and not has:
        return plan_craft("wooden_pickaxe", inventory, recipes)
    if skill in ("gather.iron", "gather.diamond") and not any(p in IRON_PICKAXES for p in has):
        return plan_craft("stone_pickaxe", inventory, recipes)
    if skill == "gather.diamond" and not any(p in DIAMOND_PICKAXES for p in has):
        return plan_craft("iron_pickaxe", inventory, recipes)
    if skill == "gather.water" and inventory.get("bucket", 0) <= 0:
        return plan_craft("bucket", inventory, recipes)
    return []
