"""Blueprints: buildings as data, read from JSON files, checked, turned and listed cell by cell.

A blueprint is a JSON file (``pepa/game/blueprints/<name>.json``; the format is in
docs/blueprints.md) of stacked layers of characters, bottom first: a layer's rows run north to
south, a row's characters west to east, and the ``legend`` says what each character is:

- ``{"role": "wall"}``: a block of one of the role's ``materials`` (any the builder holds);
  ``"keep": true`` lets a solid block already there stand (a floor on natural ground);
- ``{"item": "chest"}``: that block;
- ``"facing"`` on a door or a bed: the way its front looks (a door: out; a bed: toward its head);
- ``{"part": "door"}`` / ``{"part": "bed"}``: the cell a door's upper half or a bed's head
  takes (cleared, then filled by the door or the bed);
- ``{"air": true}``: cleared, left empty;
- a character not in the legend (a space): whatever is there stays.

``ground`` is the index of the layer the builder's feet stand in; the one below it is usually the
floor. :func:`cells` lists what to build in the order a builder can place it (floor, then walls
and roof from the bottom up, then furniture, torches and the door last), turned so that the
``front`` looks the way asked. Pure, but for reading the packaged files (:func:`load`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pepa.base.errors import PepaError

__all__ = [
    "FACINGS",
    "Blueprint",
    "BlueprintError",
    "Cell",
    "Spec",
    "available",
    "cells",
    "load",
    "needs",
    "parse",
    "turned",
]

FACINGS = ("north", "east", "south", "west")
"""Horizontal facings, each a quarter turn clockwise (seen from above) from the one before."""
_NAME = re.compile(r"^[a-z0-9_]{1,64}$")
_PARTS = ("door", "bed")
MAX_SIDE = 32
"""Cells a blueprint may span along each axis."""
_ORDER = {"floor": 0, "block": 1, "furniture": 2, "torch": 3, "door": 4}
"""The order of a build: what holds the rest up first, the door (the way out) last."""


class BlueprintError(PepaError, ValueError):
    """A blueprint that does not follow the format: names the file and what is wrong."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What one legend character stands for."""

    names: tuple[str, ...] = ()
    """Blocks that do (any one, in this order of preference); empty: air, or a part."""
    role: str = ""
    facing: str = ""
    keep: bool = False
    part: str = ""


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a building, relative to its origin (the north-west corner of the layer the
    builder stands in)."""

    dx: int
    dy: int
    dz: int
    names: tuple[str, ...]
    """Blocks that do here; empty: air (cleared), or a part a door or a bed fills."""
    facing: str = ""
    keep: bool = False
    role: str = ""
    part: str = ""

    @property
    def kind(self) -> str:
        """floor, block, furniture, torch or door: its place in a build's order."""
        if self.keep:
            return "floor"
        if self.role == "door":
            return "door"
        if self.names == ("torch",):
            return "torch"
        return "block" if self.role in ("wall", "roof", "floor") else "furniture"

    def as_js(self) -> list[Any]:
        """``[dx, dy, dz, names, facing, keep]``: the ``build`` action's cell."""
        return [self.dx, self.dy, self.dz, list(self.names), self.facing, self.keep]


@dataclass(frozen=True, slots=True)
class Blueprint:
    name: str
    about: str
    front: str
    ground: int
    materials: Mapping[str, tuple[str, ...]]
    legend: Mapping[str, Spec]
    layers: tuple[tuple[str, ...], ...]

    @property
    def size(self) -> tuple[int, int, int]:
        """(west to east, layers, north to south)."""
        return len(self.layers[0][0]), len(self.layers), len(self.layers[0])


def _fail(source: str, what: str) -> BlueprintError:
    return BlueprintError(f"blueprint {source}: {what}")


def _spec(source: str, char: str, raw: Any, materials: Mapping[str, tuple[str, ...]]) -> Spec:
    where = f"legend {char!r}"
    if not isinstance(raw, Mapping):
        raise _fail(source, f"{where} must be an object")
    known = {"role", "item", "facing", "keep", "part", "air"}
    unknown = set(raw) - known
    if unknown:
        raise _fail(source, f"{where} has unknown fields {sorted(unknown)}")
    kinds = [k for k in ("role", "item", "part", "air") if k in raw]
    if len(kinds) != 1:
        raise _fail(source, f"{where} needs exactly one of role, item, part, air")
    facing = raw.get("facing", "")
    if facing and facing not in FACINGS:
        raise _fail(source, f"{where}: facing {facing!r} is not one of {', '.join(FACINGS)}")
    keep = raw.get("keep", False)
    if not isinstance(keep, bool):
        raise _fail(source, f"{where}: keep must be true or false")
    if "air" in raw:
        if raw["air"] is not True or facing or keep:
            raise _fail(source, f"{where}: air is just true")
        return Spec()
    if "part" in raw:
        if raw["part"] not in _PARTS or facing or keep:
            raise _fail(source, f"{where}: part must be one of {', '.join(_PARTS)}")
        return Spec(part=raw["part"])
    if "role" in raw:
        role = raw["role"]
        if role not in materials:
            raise _fail(source, f"{where}: role {role!r} has no materials")
        if role in _PARTS and not facing:
            raise _fail(source, f"{where}: a {role} needs a facing")
        return Spec(names=materials[role], role=role, facing=facing, keep=keep)
    item = raw["item"]
    if not isinstance(item, str) or not _NAME.match(item):
        raise _fail(source, f"{where}: item {item!r} is not a block name")
    return Spec(names=(item,), facing=facing, keep=keep)


def parse(data: Any, source: str = "<data>") -> Blueprint:
    """A blueprint from its JSON data; :class:`BlueprintError` names what is wrong."""
    if not isinstance(data, Mapping):
        raise _fail(source, "must be a JSON object")
    for key in ("name", "about", "front", "ground", "materials", "legend", "layers"):
        if key not in data:
            raise _fail(source, f"has no {key!r}")
    name, about, front, ground = data["name"], data["about"], data["front"], data["ground"]
    if not isinstance(name, str) or not _NAME.match(name):
        raise _fail(source, f"name {name!r} must be 1-64 of a-z, 0-9, _")
    if not isinstance(about, str) or not 0 < len(about) <= 500:
        raise _fail(source, "about must be a sentence of at most 500 characters")
    if front not in FACINGS:
        raise _fail(source, f"front {front!r} is not one of {', '.join(FACINGS)}")
    raw_materials = data["materials"]
    if not isinstance(raw_materials, Mapping):
        raise _fail(source, "materials must map roles to lists of blocks")
    materials: dict[str, tuple[str, ...]] = {}
    for role, names in raw_materials.items():
        ok = (
            isinstance(names, list)
            and names
            and all(isinstance(n, str) and _NAME.match(n) for n in names)
        )
        if not _NAME.match(str(role)) or not ok:
            raise _fail(source, f"materials {role!r} must be a non-empty list of block names")
        materials[str(role)] = tuple(names)
    raw_legend = data["legend"]
    if not isinstance(raw_legend, Mapping):
        raise _fail(source, "legend must map characters to what they are")
    legend: dict[str, Spec] = {}
    for char, raw in raw_legend.items():
        if not isinstance(char, str) or len(char) != 1 or char == " ":
            raise _fail(source, f"legend key {char!r} must be one character other than a space")
        legend[char] = _spec(source, char, raw, materials)
    layers = _layers(source, data["layers"])
    if not isinstance(ground, int) or isinstance(ground, bool) or not 0 <= ground < len(layers):
        raise _fail(source, f"ground {ground!r} must be the index of a layer")
    blueprint = Blueprint(name, about, front, ground, materials, legend, layers)
    _check_cells(source, blueprint)
    return blueprint


def _layers(source: str, raw: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_SIDE:
        raise _fail(source, f"layers must be a list of 1 to {MAX_SIDE} layers")
    layers = []
    for i, layer in enumerate(raw):
        if not isinstance(layer, list) or not all(isinstance(r, str) for r in layer):
            raise _fail(source, f"layer {i} must be a list of rows (strings)")
        layers.append(tuple(layer))
    depth, width = len(layers[0]), len(layers[0][0]) if layers[0] else 0
    if not 0 < depth <= MAX_SIDE or not 0 < width <= MAX_SIDE:
        raise _fail(source, f"a layer must be 1 to {MAX_SIDE} rows of 1 to {MAX_SIDE} characters")
    for i, layer in enumerate(layers):
        if len(layer) != depth or any(len(r) != width for r in layer):
            raise _fail(source, f"layer {i} is not {depth} rows of {width} characters")
    return tuple(layers)


def _check_cells(source: str, bp: Blueprint) -> None:
    """Every character in the legend; each door or bed has its part where its facing puts it."""
    height = bp.size[1]
    grid: dict[tuple[int, int, int], Spec] = {}
    for y, layer in enumerate(bp.layers):
        for z, row in enumerate(layer):
            for x, char in enumerate(row):
                if char == " ":
                    continue
                if char not in bp.legend:
                    raise _fail(source, f"layer {y} row {z}: {char!r} is not in the legend")
                grid[x, y, z] = bp.legend[char]
    for (x, y, z), spec in grid.items():
        if spec.role not in _PARTS:
            continue
        dx, dz = _STEP[spec.facing]
        at = (x, y + 1, z) if spec.role == "door" else (x + dx, y, z + dz)
        if at[1] >= height or grid.get(at, Spec()).part != spec.role:
            raise _fail(source, f"the {spec.role} at layer {y} row {z} column {x} has no "
                        f"{spec.role} part where its other half goes")  # fmt: skip


_STEP = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
"""A facing's step on the map (x east, z south)."""


def turned(facing: str, quarters: int) -> str:
    """``facing`` turned ``quarters`` quarter turns clockwise (seen from above)."""
    return FACINGS[(FACINGS.index(facing) + quarters) % 4] if facing else facing


def cells(bp: Blueprint, front: str | None = None) -> list[Cell]:
    """What to build (and clear), turned so the blueprint's front looks ``front`` (its own when
    None), in build order; origin: the north-west corner of the ground layer after the turn."""
    front = front or bp.front
    if front not in FACINGS:
        raise BlueprintError(f"blueprint {bp.name}: front {front!r} is not one of {FACINGS}")
    quarters = (FACINGS.index(front) - FACINGS.index(bp.front)) % 4
    width, _, depth = bp.size
    out = []
    for y, layer in enumerate(bp.layers):
        for z, row in enumerate(layer):
            for x, char in enumerate(row):
                if char == " ":
                    continue
                spec = bp.legend[char]
                tx, tz, w, d = x, z, width, depth
                for _ in range(quarters):  # a quarter turn clockwise: (x, z) → (d - 1 - z, x)
                    tx, tz, w, d = d - 1 - tz, tx, d, w
                out.append(Cell(tx, y - bp.ground, tz, spec.names, turned(spec.facing, quarters),
                                spec.keep, spec.role, spec.part))  # fmt: skip
    out.sort(key=lambda c: (_ORDER[c.kind] if c.names else -1, c.dy, c.dz, c.dx))
    return out


def needs(bp: Blueprint) -> dict[str, int]:
    """What a build takes at most: cells per role (``wall``, ``roof``, ``floor``, ``door``,
    ``bed``) and per item (``chest``, ``torch`` …). A kept floor may take none."""
    count: Counter[str] = Counter()
    for cell in cells(bp):
        if cell.names:
            count[cell.role or cell.names[0]] += 1
    return dict(count)


def _package() -> Any:
    return resources.files("pepa.game").joinpath("blueprints")


def available() -> list[str]:
    """The names of the packaged blueprints."""
    return sorted(p.name[:-5] for p in _package().iterdir() if p.name.endswith(".json"))


def load(name: str) -> Blueprint:
    """The packaged blueprint ``name``; :class:`BlueprintError` when there is none or it is
    malformed."""
    if not _NAME.match(name) or name not in available():
        raise BlueprintError(f"no blueprint {name!r}; known: {', '.join(available())}")
    source = f"{name}.json"
    try:
        data = json.loads(_package().joinpath(source).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(source, f"cannot be read: {exc}") from None
    return parse(data, source)
