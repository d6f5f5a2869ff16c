"""The bot's food list against minecraft-data: every food of every version it plays is ranked,
kept for starving, or never eaten (pure; the data comes from npm ci)."""

from __future__ import annotations

import json

import pytest

from pepa.base.node import node_modules
from pepa.game.versions import PLAYED
from pepa.policy.reflex.food import FOOD_PRIORITY, NEVER_EATEN, STARVING_ONLY, best_food

DATA = node_modules() / "minecraft-data" / "minecraft-data" / "data"


def foods_of(version: str) -> dict[str, float]:
    paths = json.loads((DATA / "dataPaths.json").read_text())["pc"][version]
    foods = json.loads((DATA / paths["foods"] / "foods.json").read_text())
    return {food["name"]: food["foodPoints"] for food in foods}


@pytest.mark.parametrize("version", PLAYED)
def test_every_food_of_the_version_has_its_place(version: str) -> None:
    placed = set(FOOD_PRIORITY) | set(STARVING_ONLY) | set(NEVER_EATEN)
    assert not set(foods_of(version)) - placed


def test_the_lists_do_not_overlap() -> None:
    lists = (FOOD_PRIORITY, STARVING_ONLY, NEVER_EATEN)
    assert sum(map(len, lists)) == len(set().union(*lists))


def test_1_12s_foods_are_eaten_and_its_raw_fish_only_when_starving() -> None:
    assert best_food({"cooked_fish": 1, "melon": 1}, 15) == "cooked_fish"
    assert best_food({"fish": 3}, 15) is None  # it may be a pufferfish
    assert best_food({"fish": 3}, 6) == "fish"
    assert best_food({"ominous_bottle": 1, "glow_berries": 1}, 5) == "glow_berries"
    assert best_food({"ominous_bottle": 1}, 1) is None
