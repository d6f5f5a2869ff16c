"""What the bot takes out of its chests before a milestone, and what it stores (pure:
pepa/policy/curriculum/storage.py), and the memory of its chests (pepa/state/storage.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.game.carry import KEEP_BLOCKS, surplus
from pepa.policy.curriculum.storage import STORE_FROM, to_fetch, to_store
from pepa.state.storage import Storage, chest_key

pytestmark = pytest.mark.timeout(30)

CHEST = (10, 64, -3)
V = "1.16.5"


def test_stored_ingots_are_fetched_before_an_iron_pickaxe_mines_ore() -> None:
    held = {"stick": 2, "stone_pickaxe": 1, "crafting_table": 1}
    stored = {"iron_ingot": [(CHEST, 5)], "dirt": [((0, 64, 0), 40)]}
    assert to_fetch("iron_pickaxe", 1, held, stored, V) == ("iron_ingot", 5, CHEST)


def test_nothing_is_fetched_that_would_not_change_the_next_step() -> None:
    held = {"stick": 2, "stone_pickaxe": 1, "crafting_table": 1}
    assert to_fetch("iron_pickaxe", 1, held, {"dirt": [(CHEST, 40)]}, V) is None
    assert to_fetch("iron_pickaxe", 1, {**held, "iron_pickaxe": 1}, {}, V) is None  # held
    assert to_fetch("no_such_item", 1, held, {"dirt": [(CHEST, 4)]}, V) is None


def test_the_fullest_chest_is_fetched_from() -> None:
    stored = {"oak_log": [((1, 64, 1), 12), ((2, 64, 2), 3)]}
    assert to_fetch("crafting_table", 1, {}, stored, V) == ("oak_log", 12, (1, 64, 1))


def test_the_bot_keeps_its_tools_armour_food_light_and_a_stack_of_blocks() -> None:
    items = {
        "iron_pickaxe": 1, "stone_sword": 1, "iron_chestplate": 1, "shield": 1, "bread": 4,
        "torch": 10, "water_bucket": 1, "cobblestone": 50, "dirt": 10, "iron_ore": 7,
        "white_wool": 2, "rotten_flesh": 3, "wheat_seeds": 5,
    }  # fmt: skip
    assert surplus(items) == {
        "cobblestone": 50 - KEEP_BLOCKS, "iron_ore": 7, "white_wool": 2, "rotten_flesh": 3,
    }  # fmt: skip


def test_the_chests_are_remembered_across_a_restart_and_a_broken_file_is_set_aside(
    tmp_path: Path,
) -> None:
    path = tmp_path / "storage.json"
    storage = Storage(path)
    key = chest_key(10.7, 64.0, -2.2)
    assert key == "10,64,-3"
    assert storage.saw(key, {"iron_ingot": 5, "dirt": 0}, 1_796_000_000.0)
    assert not storage.saw(key, {"Iron Ingot!": 5}, 1_796_000_001.0)  # kept as it was
    again = Storage(path)
    assert again.where("iron_ingot") == [(key, 5)] and again.totals() == {"iron_ingot": 5}
    again.forget(key)
    assert Storage(path).chests == {}
    path.write_text('{"10,64,-3": {"items": {"dirt": -4}, "at": 1}}')
    assert Storage(path).chests == {}
    assert list(tmp_path.glob("storage.json.bad-*"))


HOME_CHESTS = [(10, 64, -3), (11, 64, -3)]


def test_the_bot_stores_when_home_is_near_and_its_bag_heavy_or_full() -> None:
    heavy = {"cobblestone": 32 + 64 * STORE_FROM, "iron_pickaxe": 1}
    assert to_store(heavy, 10, 20.0, HOME_CHESTS) == (HOME_CHESTS[0], "blocks")
    assert to_store(heavy, 10, 200.0, HOME_CHESTS) is None  # too far for a heavy bag
    light = {"iron_ore": 7, "cobblestone": 40, "bread": 3}
    assert to_store(light, 10, 20.0, HOME_CHESTS) is None
    assert to_store(light, 2, 500.0, HOME_CHESTS) == (HOME_CHESTS[0], "blocks")  # full
    assert to_store({"iron_ore": 7}, 1, 5.0, HOME_CHESTS) == (HOME_CHESTS[1], "other")
    assert to_store({"iron_ore": 7}, 1, 5.0, HOME_CHESTS[:1]) == (HOME_CHESTS[0], "other")
    assert to_store(light, 1, 5.0, []) is None  # no chest known
    assert to_store(light, 1, None, HOME_CHESTS) is None  # no home
