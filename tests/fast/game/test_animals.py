"""Farm animals' food is written twice, once a language: ``pepa/game/animals.py`` (the skills'
preconditions) and ``pepa/game/js/animals.js`` (the world server's husbandry and the bot's
actions). The two agree (the JS read through node, no server)."""

from __future__ import annotations

from pathlib import Path

from pepa.game import animals
from tests.js import run_node

ANIMALS_JS = Path(animals.__file__).parent / "js" / "animals.js"


def test_the_python_and_the_js_food_tables_agree() -> None:
    js = run_node(
        "const a = require(process.argv[1]); process.stdout.write(JSON.stringify(a.FOOD))",
        str(ANIMALS_JS),
    )
    assert {name: tuple(food) for name, food in js.items()} == dict(animals.FOOD)


def test_food_held_names_the_animals_the_inventory_can_feed() -> None:
    inventory = {"wheat": 3, "carrot": 0, "wheat_seeds": 1, "dirt": 5}
    assert animals.food_held(["cow", "pig", "chicken", "sheep", "zombie"], inventory) == [
        "cow",
        "chicken",
        "sheep",
    ]
