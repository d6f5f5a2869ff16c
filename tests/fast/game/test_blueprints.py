"""Blueprints (pepa/game/blueprints.py): the packaged ones are valid, a malformed one is refused
with what is wrong, a turned one keeps its shape, and the build order holds the house up."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from pepa.game import blueprints
from pepa.game.blueprints import BlueprintError
from pepa.link.actions import ActionCallError, row

HUT = blueprints.load("hut")


def raw() -> dict[str, Any]:
    return copy.deepcopy(
        {
            "name": "box",
            "about": "A test box.",
            "front": "south",
            "ground": 1,
            "materials": {"wall": ["cobblestone"], "door": ["oak_door"]},
            "legend": {
                "#": {"role": "wall"},
                "D": {"role": "door", "facing": "south"},
                "d": {"part": "door"},
                ".": {"air": True},
            },
            "layers": [["###", "###", "###"], ["###", "#.#", "#D#"], ["###", "#.#", "#d#"]],
        }
    )


def test_every_packaged_blueprint_loads() -> None:
    assert "hut" in blueprints.available()
    for name in blueprints.available():
        assert blueprints.load(name).name == name


def test_the_hut_has_a_bed_chests_a_door_and_light() -> None:
    need = blueprints.needs(HUT)
    assert need["bed"] == 1 and need["door"] == 1 and need["chest"] == 2
    assert need["furnace"] == 1 and need["crafting_table"] == 1 and need["torch"] >= 2
    assert need["wall"] + need["roof"] <= 64  # a stack of cobblestone builds it


def test_the_build_order_puts_the_floor_first_and_the_door_last() -> None:
    order = [c.kind for c in blueprints.cells(HUT) if c.names]
    assert order[0] == "floor" and order[-1] == "door"
    assert order.index("furniture") > max(i for i, k in enumerate(order) if k == "block")
    # air is cleared before anything is placed
    cells = blueprints.cells(HUT)
    first_block = next(i for i, c in enumerate(cells) if c.names)
    assert all(c.names for c in cells[first_block:])


@pytest.mark.parametrize("front", ["north", "east", "west"])
def test_a_turned_blueprint_keeps_its_cells_and_turns_its_facings(front: str) -> None:
    plain, turned = blueprints.cells(HUT), blueprints.cells(HUT, front)
    assert sorted(c.names for c in plain) == sorted(c.names for c in turned)
    door = next(c for c in turned if c.role == "door")
    assert door.facing == front
    bed = next(c for c in turned if c.role == "bed")
    quarters = blueprints.FACINGS.index(front) - blueprints.FACINGS.index("south")
    assert bed.facing == blueprints.turned("north", quarters)
    width, _, depth = HUT.size
    assert all(0 <= c.dx < max(width, depth) and 0 <= c.dz < max(width, depth) for c in turned)
    # the bed's head (its part) lies where the turned facing points
    step = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}[bed.facing]
    head = next(c for c in turned if c.part == "bed")
    assert (head.dx, head.dz) == (bed.dx + step[0], bed.dz + step[1])


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda d: d.pop("ground"), "has no 'ground'"),
        (lambda d: d.update(front="up"), "front 'up'"),
        (lambda d: d["layers"][1].__setitem__(1, "#x#"), "'x' is not in the legend"),
        (lambda d: d["layers"][2].__setitem__(2, "###"), "has no door part"),
        (lambda d: d["legend"].update(X={"role": "roof"}), "role 'roof' has no materials"),
        (lambda d: d["legend"].update(X={"item": "Stone!"}), "is not a block name"),
        (lambda d: d["legend"].update(X={"item": "a", "air": True}), "exactly one of"),
        (lambda d: d["layers"][0].append("###"), "layer 1 is not 4 rows of 3"),
        (lambda d: d["legend"]["D"].pop("facing"), "needs a facing"),
        (lambda d: d.update(layers=[]), "1 to 32 layers"),
    ],
)
def test_a_malformed_blueprint_is_refused_with_what_is_wrong(change: Any, error: str) -> None:
    data = raw()
    change(data)
    with pytest.raises(BlueprintError, match=error.replace("(", r"\(")):
        blueprints.parse(json.loads(json.dumps(data)), "box.json")


def test_an_unknown_blueprint_names_the_known_ones() -> None:
    with pytest.raises(BlueprintError, match=r"known: .*hut"):
        blueprints.load("castle")
    with pytest.raises(BlueprintError):
        blueprints.load("../hut")


def test_the_build_action_takes_the_cells_and_refuses_malformed_ones() -> None:
    cells = [c.as_js() for c in blueprints.cells(blueprints.parse(raw()))]
    values = row("build").bind({"x": 0, "y": 64, "z": 0, "cells": cells})
    assert row("build").to_js(values)[3] == cells
    for bad in ([[0, 0, 0, ["dirt"], "up", False]], [[0, 0, 0, "dirt", "", False]], [[0, 0]]):
        with pytest.raises(ActionCallError, match="cells"):
            row("build").bind({"x": 0, "y": 64, "z": 0, "cells": bad})
