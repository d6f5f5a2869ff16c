"""contact.js: the blocks under the bot, inside its body and at its sides, as vanilla decides
what a block does to an entity, read from a world of named cells (no server)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pepa.link.minecraft import BOT_JS
from tests.js import run_node

pytestmark = pytest.mark.timeout(60)

CONTACT = r"""
const { Vec3 } = require('vec3')
const { contactOf } = require(process.argv[1])
const cells = JSON.parse(process.argv[2]) // {"x,y,z": [name, boundingBox]}
const at = JSON.parse(process.argv[3])
const bot = {
  blockAt: (p) => {
    const c = cells[`${p.x},${p.y},${p.z}`]
    return c ? { name: c[0], boundingBox: c[1] } : { name: 'air', boundingBox: 'empty' }
  }
}
process.stdout.write(JSON.stringify(contactOf(bot, new Vec3(at[0], at[1], at[2]))))
"""


def contact(cells: dict[tuple[int, int, int], tuple[str, str]], at: tuple[float, ...]) -> Any:
    raw = {f"{x},{y},{z}": list(v) for (x, y, z), v in cells.items()}
    return run_node(CONTACT, str(BOT_JS / "contact.js"), json.dumps(raw), json.dumps(list(at)))


FLOOR = {(x, 63, z): ("stone", "block") for x in range(-2, 3) for z in range(-2, 3)}


def test_the_block_under_the_feet_centre_is_what_it_stands_on() -> None:
    cells = {**FLOOR, (0, 63, 0): ("magma_block", "block")}
    got = contact(cells, (0.5, 64.0, 0.5))
    assert got == {"below": ["magma_block"], "inside": [], "touching": []}
    # on an edge over air, the blocks under the footprint
    edge = {(1, 63, 0): ("stone", "block")}
    assert contact(edge, (0.85, 64.0, 0.5))["below"] == ["stone"]


def test_a_block_it_can_be_in_is_inside_a_solid_one_beside_it_is_touched() -> None:
    cells = {
        **FLOOR, (0, 64, 0): ("stone_pressure_plate", "empty"), (1, 64, 0): ("cactus", "block"),
        (0, 65, -1): ("sweet_berry_bush", "empty"),
    }  # fmt: skip
    pressed = contact(cells, (0.69, 64.0, 0.5))  # the box's side 0.01 from the cactus's cell
    assert pressed["inside"] == ["stone_pressure_plate"]
    assert pressed["touching"] == ["cactus"]
    assert "sweet_berry_bush" not in pressed["inside"]  # a cell beside, not overlapped
    clear = contact(cells, (0.5, 64.0, 0.5))  # the box 0.2 from the cactus: no contact
    assert clear["touching"] == []
    in_bush = contact(cells, (0.5, 64.0, -0.1))
    assert "sweet_berry_bush" in in_bush["inside"]


def test_a_solid_block_round_the_feet_is_inside_gravel_that_buried_it() -> None:
    cells = {**FLOOR, (0, 64, 0): ("gravel", "block"), (0, 65, 0): ("gravel", "block"),
             (1, 64, 0): ("gravel", "block")}  # fmt: skip
    got = contact(cells, (0.5, 64.0, 0.5))
    assert got["inside"] == ["gravel"] and got["touching"] == []  # 0.2 from the side cell
    assert contact(cells, (0.75, 64.0, 0.5))["touching"] == ["gravel"]
