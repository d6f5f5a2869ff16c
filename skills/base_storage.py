"""base.store and base.fetch: the home's chests (the curriculum decides when, which chest and
what: :mod:`pepa.policy.curriculum.storage`, and remembers what they hold, ``storage.json``).

``base.store`` puts the surplus of one sort (``args["item"]``: ``blocks`` or ``other``,
:func:`pepa.game.carry.sort_of`) in the chest at ``x, y, z``: what the bot need not carry
(:func:`pepa.game.carry.surplus`). ``base.fetch`` takes ``count`` of ``item`` out of it.
Both walk there (through the home's door: the bridge's walks cross it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.game.carry import sort_of, surplus
from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, started

__all__ = ["FETCH", "STORE"]


def _at(args: Mapping[str, Any]) -> dict[str, int] | None:
    try:
        return {axis: int(args[axis]) for axis in "xyz"}
    except (KeyError, TypeError, ValueError):
        return None


def _store_check(world: WorldView, args: Mapping[str, Any]) -> str | None:
    if _at(args) is None:
        return "no chest named (x, y, z)"
    sort = str(args.get("item") or "")
    if not any(sort_of(n) == sort for n in surplus(world.inventory.items)):
        return f"nothing of sort {sort!r} to store"
    return None


def _store(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    sort = str(args.get("item") or "")
    extra = {n: c for n, c in surplus(world.inventory.items).items() if sort_of(n) == sort}
    at = _at(args) or {}
    keep = {n: world.inventory.items.get(n, 0) - c for n, c in extra.items()}
    kept = {n: c for n, c in keep.items() if c > 0}
    return started(link.act("store", **at, items=sorted(extra), keep=kept), f"store {sort}")


def _fetch_check(world: WorldView, args: Mapping[str, Any]) -> str | None:
    if _at(args) is None or not args.get("item"):
        return "no chest or item named"
    return None


def _fetch(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    at = _at(args) or {}
    count = int(args.get("count") or 1)
    return started(link.act("fetch", **at, item=str(args["item"]), count=count), "fetch")


STORE = Skill(
    id="base.store",
    description="Put what the bot need not carry in a chest at home (blocks or the rest).",
    coach_may_dispatch=False,
    precondition=_store_check,
    runner=_store,
)
FETCH = Skill(
    id="base.fetch",
    description="Take an item out of a chest at home.",
    coach_may_dispatch=False,
    precondition=_fetch_check,
    runner=_fetch,
)
