"""The catalogue of the bot's actions: one row each, the one place an action is declared.

A row names the action, its arguments (name, type, default), its :class:`Result` and one line
of doc. Everything else follows from it:

- :class:`pepa.link.api.Link` has two generic entry points, ``link.act(name, **args)`` for an
  :attr:`Result.ACTION` (an action id at once, an ``actionDone`` event carrying it at the end)
  and ``link.call(name, **args)`` for the instant ones (:attr:`Result.CHECK`, :attr:`Result.NONE`);
- :class:`pepa.link.minecraft.MinecraftLink` calls the bot's JS function
  :attr:`Action.js` (the name in camelCase) with the arguments in the row's order, converted
  by their types (:meth:`Action.to_js`); an action's id goes first;
- :class:`pepa.testing.FakeLink` records each call as ``(name, {argument: value})``.

:meth:`Action.bind` checks a call against its row before anything reaches JS: an unknown
action, an unknown or missing argument or one of the wrong type raises
:class:`ActionCallError` naming the action and the argument. ``tests/fast/link/test_actions.py``
holds the catalogue, the bot's JS (its registry, ``pepa/link/js/actions/index.js``) and both links
to each other.

Adding an action: one function in a family module of ``pepa/link/js/actions/``, one row
here, one skill in ``skills/``.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pepa.base.errors import PepaError

__all__ = [
    "ACTIONS",
    "CATALOGUE",
    "REQUIRED",
    "Action",
    "ActionCallError",
    "Arg",
    "Result",
    "Type",
    "camel",
    "checked",
    "row",
]


class ActionCallError(PepaError, TypeError):
    """A call that does not match its action's row: no such action, no such argument, one
    missing, or one of the wrong type. Never sent to JS: it is a bug in the caller."""


class Result(enum.Enum):
    """What a call of the action gives back."""

    ACTION = "action"
    """An action id at once (None: the link refused); it ends with ``actionDone`` carrying it."""
    CHECK = "check"
    """An instant call whose answer is a bool (False too when the link refused it)."""
    NONE = "none"
    """An instant call with nothing to say (``call`` returns whether it was made)."""


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of an argument every call must give."""


@dataclass(frozen=True, slots=True)
class Type:
    """An argument's type: how a value is checked, kept and sent to JS."""

    name: str
    """As the errors and the docs say it: ``float``, ``list[str]`` …"""
    take: Callable[[Any], Any]
    """The value as the catalogue keeps it; raises ValueError or TypeError when it is not one."""
    to_js: Callable[[Any], Any] = lambda value: value
    """The kept value as the bot's JS takes it (plain JSON: lists, not tuples)."""


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("not a number")
    return float(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("not an int")
    return value


def _exact(kind: type) -> Callable[[Any], Any]:
    def take(value: Any) -> Any:
        if not isinstance(value, kind):
            raise TypeError(f"not a {kind.__name__}")
        return value

    return take


def _names(value: Any) -> list[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError("not a list of names")
    if not all(isinstance(name, str) for name in value):
        raise TypeError("a name that is not a str")
    return list(value)


def _points(size: int) -> Callable[[Any], list[tuple[float, ...]]]:
    def take(value: Any) -> list[tuple[float, ...]]:
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise TypeError("not a list")
        points = []
        for point in value:
            if isinstance(point, str | bytes) or not isinstance(point, Sequence):
                raise TypeError(f"{point!r} is not a list of {size} numbers")
            if len(point) != size:
                raise ValueError(f"{point!r} has {len(point)} numbers, not {size}")
            points.append(tuple(_number(c) for c in point))
        return points

    return take


def _named(value_of: Callable[[Any], Any], what: str, key: str) -> Callable[[Any], dict[str, Any]]:
    """A mapping of names (``key``: how an error calls one) to values ``value_of`` takes."""

    def take(value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise TypeError(f"not a mapping of {what}")
        if not all(isinstance(name, str) for name in value):
            raise TypeError(f"{key} that is not a str")
        return {name: value_of(v) for name, v in value.items()}

    return take


_reach = _named(_number, "names to blocks", "a name")


def _cells(value: Any) -> list[tuple[int, int, int, tuple[str, ...], str, bool]]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise TypeError("not a list of cells")
    out = []
    for cell in value:
        if isinstance(cell, str | bytes) or not isinstance(cell, Sequence) or len(cell) != 6:
            raise TypeError(f"{cell!r} is not [dx, dy, dz, names, facing, keep]")
        dx, dy, dz, names, facing, keep = cell
        if facing not in ("", "north", "east", "south", "west"):
            raise ValueError(f"{cell!r}: facing {facing!r} is not a horizontal direction")
        out.append((_integer(dx), _integer(dy), _integer(dz), tuple(_names(names)), facing,
                    _exact(bool)(keep)))  # fmt: skip
    return out


FLOAT = Type("float", _number)
INT = Type("int", _integer)
BOOL = Type("bool", _exact(bool))
STR = Type("str", _exact(str))
NAMES = Type("list[str]", _names, list)
XZ = Type("list[(x, z)]", _points(2), lambda points: [list(p) for p in points])
XYZ = Type("list[(x, y, z)]", _points(3), lambda points: [list(p) for p in points])
XZR = Type("list[(x, z, radius)]", _points(3), lambda points: [list(p) for p in points])


_counts = _named(_integer, "items to counts", "an item")


COUNTS = Type(
    "{item: count}",
    _counts,
    lambda counts: [[name, n] for name, n in sorted(counts.items())],
)
CELLS = Type(
    "list[(dx, dy, dz, names, facing, keep)]",
    _cells,
    lambda cells: [
        [dx, dy, dz, list(names), facing, keep] for dx, dy, dz, names, facing, keep in cells
    ],
)
REACH = Type(
    "{name: blocks}",
    _reach,
    lambda reach: [[name, blocks] for name, blocks in sorted(reach.items())],
)
COSTS = Type(
    "{block: cost}",
    _reach,
    lambda costs: [[name, cost] for name, cost in sorted(costs.items())],
)


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of an action."""

    name: str
    """Its Python name (snake_case); JS calls it :attr:`js`."""
    type: Type
    default: Any = REQUIRED

    @property
    def js(self) -> str:
        """The parameter's name in the bot's JS."""
        return camel(self.name)


@dataclass(frozen=True, slots=True)
class Action:
    """One row of the catalogue."""

    name: str
    """Its Python name (snake_case); the bot's JS function is :attr:`js`."""
    result: Result
    doc: str
    args: tuple[Arg, ...] = ()
    order: bool = False
    """A standing order to the bridge (what it avoids, what it strikes first), not something
    the bot does now: :class:`pepa.testing.FakeLink` keeps these apart from its actions."""

    @property
    def js(self) -> str:
        """The bot's JS function (``bot_helper.js``'s api) that runs it."""
        return camel(self.name)

    def bind(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every argument by name, the given ones checked and the rest defaulted (in the row's
        order); :class:`ActionCallError` when ``given`` does not fit this row."""
        known = {arg.name for arg in self.args}
        for name in given:
            if name not in known:
                expected = ", ".join(a.name for a in self.args) or "no arguments"
                raise ActionCallError(
                    f"action {self.name!r} has no argument {name!r} (it takes {expected})"
                )
        values: dict[str, Any] = {}
        for arg in self.args:
            if arg.name not in given:
                if arg.default is REQUIRED:
                    raise ActionCallError(f"action {self.name!r} needs the argument {arg.name!r}")
                values[arg.name] = arg.type.take(arg.default)
                continue
            try:
                values[arg.name] = arg.type.take(given[arg.name])
            except (TypeError, ValueError) as exc:
                raise ActionCallError(
                    f"action {self.name!r}: argument {arg.name!r} must be {arg.type.name}, "
                    f"got {given[arg.name]!r} ({exc})"
                ) from None
        return values

    def to_js(self, values: Mapping[str, Any]) -> list[Any]:
        """Bound values (:meth:`bind`) as the JS function's positional arguments."""
        return [arg.type.to_js(values[arg.name]) for arg in self.args]


_CAMEL = re.compile(r"_([a-z])")


def camel(name: str) -> str:
    """``goto_player`` → ``gotoPlayer``: a catalogue name as the bot's JS spells it."""
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


def _row(name: str, result: Result, doc: str, *args: Arg, order: bool = False) -> Action:
    return Action(name, result, doc, args, order)


A, C, N = Result.ACTION, Result.CHECK, Result.NONE

CATALOGUE: tuple[Action, ...] = (
    # -- movement (js/actions/movement.js) ---------------------------------------------------
    _row("goto", A, "Walk to within reach of a position.",
         Arg("x", FLOAT), Arg("y", FLOAT), Arg("z", FLOAT), Arg("reach", FLOAT, 1.0)),
    _row("charge", A, "Goto's walk with the shield's guard on: it stops while an archer draws.",
         Arg("x", FLOAT), Arg("y", FLOAT), Arg("z", FLOAT), Arg("reach", FLOAT, 1.0)),
    _row("goto_player", A, "Walk to where a player stands, the goal moving with them.",
         Arg("name", STR), Arg("reach", FLOAT, 2.0)),
    _row("follow", A, "Keep within reach of a player until stopped (done only on failure).",
         Arg("name", STR), Arg("reach", FLOAT, 2.0)),
    _row("stop", N, "Stop walking, digging and any action under way."),
    _row("set_danger", C, "Make the pathfinder go around these areas from now on.",
         Arg("areas", XZR), order=True),
    _row("set_hazards", C, "Make each step on, into or against these block types cost more "
         "(100: never taken) from now on.", Arg("below", COSTS, {}), Arg("inside", COSTS, {}),
         Arg("touching", COSTS, {}), order=True),
    _row("look_around", C, "Turn the head somewhere else, at once."),
    # -- flight (js/actions/flight.js) -------------------------------------------------------
    _row("escape", A, "Get reach blocks away: up pillars, dig digs, surface climbs, any either.",
         Arg("reach", FLOAT, 3.0), Arg("mode", STR, "any")),
    _row("flee", A, "Sprint distance blocks from the (x, z) sources over the most open ground.",
         Arg("sources", XZ), Arg("distance", FLOAT, 16.0)),
    _row("cover", A, "Walk to a cell within radius hidden from the archers at sources.",
         Arg("sources", XYZ), Arg("radius", FLOAT, 6.0), Arg("avoid", XZ, ())),
    # -- gathering and digging (js/actions/gathering.js) -------------------------------------
    _row("gather", A, "Dig the nearest names blocks until holding count of drops (or names).",
         Arg("names", NAMES), Arg("count", INT), Arg("radius", FLOAT, 48.0),
         Arg("drops", NAMES, ()), Arg("under_cover", BOOL, False)),
    # -- deep mining (js/actions/mining.js) ---------------------------------------------------
    _row("mine", A, "Stair down to feet at y level, tunnel to names blocks within radius until "
         "holding count of drops, walk back; off names mining rules to leave out (tests).",
         Arg("names", NAMES), Arg("count", INT), Arg("level", INT, 12), Arg("drops", NAMES, ()),
         Arg("radius", FLOAT, 24.0), Arg("off", NAMES, ())),
    # -- crafting and smelting (js/actions/crafting.js) --------------------------------------
    _row("craft", A, "Craft an item times times, at a table (the held one placed) if it needs.",
         Arg("item", STR), Arg("times", INT, 1), Arg("under_cover", BOOL, False)),
    _row("smelt", A, "Smelt count of item burning fuel in a furnace near by or one it places.",
         Arg("item", STR), Arg("count", INT), Arg("fuel", STR), Arg("under_cover", BOOL, False)),
    # -- combat (js/actions/combat.js) -------------------------------------------------------
    _row("attack", C, "Swing once at an entity (stop_first: stop first, in the same call).",
         Arg("entity_id", INT), Arg("stop_first", BOOL, False)),
    _row("arm", C, "Strike the first blow at these hostiles ({name: reach}) in the bridge.",
         Arg("reach", REACH), Arg("hp", FLOAT, 0.0), Arg("food", INT, 0), order=True),
    _row("hunt", A, "Kill the nearest animal named in names and pick up its drops.",
         Arg("names", NAMES), Arg("radius", FLOAT, 32.0)),
    # -- shelter and building (js/actions/building.js) ---------------------------------------
    _row("shelter", A, "Wall the bot in for the night: into the ground, or with held blocks."),
    _row("place", A, "Place one item block on the ground next to the bot.", Arg("item", STR)),
    # -- a home (js/actions/home.js) ---------------------------------------------------------
    _row("site", A, "Find the flattest open ground within radius for a width x depth footprint "
         "(its origin: the north-west corner of the cells the builder stands in).",
         Arg("width", INT), Arg("depth", INT), Arg("radius", INT, 24)),
    _row("build", A, "Clear the site and place a blueprint's cells (pepa.game.blueprints) from "
         "the origin x, y, z.", Arg("x", INT), Arg("y", INT), Arg("z", INT), Arg("cells", CELLS)),
    _row("settle", A, "Site the cells' footprint within radius and build them there; a door in "
         "them makes the room behind it the home.", Arg("radius", INT), Arg("cells", CELLS)),
    _row("set_home", C, "The home is the room behind the door at or beside x, y, z: its blocks "
         "are never broken for a path, its door is walked through.",
         Arg("x", INT), Arg("y", INT), Arg("z", INT), order=True),
    _row("go_home", A, "Into the home through its door, the door shut behind."),
    _row("leave_home", A, "Out of the home through its door, the door shut behind."),
    # -- eating, sleeping, breathing, speaking (js/actions/body.js) --------------------------
    _row("eat", A, "Eat one item from the inventory.", Arg("item", STR)),
    _row("sleep", A, "Walk to the bed at x, y, z and lie down.",
         Arg("x", INT), Arg("y", INT), Arg("z", INT)),
    _row("surface", A, "Swim up until the head is out of the water and the air is full."),
    _row("chat", C, "Say text (the caller rate-limits).", Arg("text", STR)),
    # -- gear (js/actions/gear.js) -----------------------------------------------------------
    _row("wear", A, "Put on the best armour held and a shield in the off-hand."),
    # -- buckets (js/actions/buckets.js) -----------------------------------------------------
    _row("scoop", A, "Fill an empty bucket at the nearest water source within radius.",
         Arg("radius", FLOAT, 48.0)),
    _row("pour", A, "Pour the held water bucket into the cell x, y, z (lava hardens, fire goes "
         "out).", Arg("x", INT), Arg("y", INT), Arg("z", INT)),
    # -- storage (js/actions/storage.js) -----------------------------------------------------
    _row("store", A, "Walk to the chest at x, y, z and put in the items held (none named: all), "
         "but for keep's count of each.", Arg("x", INT), Arg("y", INT), Arg("z", INT),
         Arg("items", NAMES, ()), Arg("keep", COUNTS, {})),
    _row("fetch", A, "Walk to the chest at x, y, z and take up to count of item out of it.",
         Arg("x", INT), Arg("y", INT), Arg("z", INT), Arg("item", STR), Arg("count", INT, 64)),
    _row("look_in", A, "Walk to the chest at x, y, z, open it and read what it holds.",
         Arg("x", INT), Arg("y", INT), Arg("z", INT)),
    # -- farming (js/actions/farming.js) -----------------------------------------------------
    _row("farm", A, "Make or tend the size x size field round water at x, z (the held water "
         "bucket poured there if none): till, harvest ripe crops, plant seeds on empty farmland.",
         Arg("x", INT), Arg("z", INT), Arg("size", INT, 5), Arg("seeds", STR, "wheat_seeds")),
    _row("till", A, "Till the block at x, y, z with a held hoe (into farmland; coarse dirt into "
         "dirt).", Arg("x", INT), Arg("y", INT), Arg("z", INT)),
    # -- husbandry (js/actions/husbandry.js) -------------------------------------------------
    _row("breed", A, "Feed two adults of the first of names whose food is held, within radius; "
         "done with fed and whether a young one came.", Arg("names", NAMES),
         Arg("radius", FLOAT, 16.0)),
    _row("shear", A, "Shear the nearest woolly adult sheep within radius and pick up its wool.",
         Arg("radius", FLOAT, 16.0)),
    _row("lure", A, "Hold the food of names and walk to x, y, z, paced so tempted animals keep up; "
         "done with how many followed.", Arg("names", NAMES), Arg("x", FLOAT), Arg("y", FLOAT),
         Arg("z", FLOAT)),
)  # fmt: skip
"""Every action, by family (the JS module that runs it)."""

ACTIONS: dict[str, Action] = {action.name: action for action in CATALOGUE}
"""The catalogue by name."""


def row(name: str) -> Action:
    """The catalogue's row for ``name``; :class:`ActionCallError` names the known ones."""
    try:
        return ACTIONS[name]
    except KeyError:
        known = ", ".join(sorted(ACTIONS))
        raise ActionCallError(f"no action {name!r} in the catalogue; known: {known}") from None


def checked(name: str, args: Mapping[str, Any], *, instant: bool) -> tuple[Action, dict[str, Any]]:
    """The row of ``name`` and the call's bound values (:meth:`Action.bind`), for ``act``
    (``instant`` False: an :attr:`Result.ACTION` row) or ``call`` (an instant row)."""
    action = row(name)
    if instant and action.result is Result.ACTION:
        raise ActionCallError(f"action {name!r} ends with actionDone: use link.act({name!r}, ...)")
    if not instant and action.result is not Result.ACTION:
        raise ActionCallError(f"action {name!r} is an instant call: use link.call({name!r}, ...)")
    return action, action.bind(args)
