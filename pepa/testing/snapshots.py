"""Snapshots as the JS side sends them (raw fields), and their typed view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView

__all__ = ["entity", "raw_snapshot", "view"]


def entity(
    entity_id: int,
    name: str,
    distance: float,
    *,
    kind: str = "hostile",
    position: tuple[float, float, float] | None = None,
    sight: bool | None = None,
) -> dict[str, Any]:
    """One raw JS entity: ``kind`` is ``hostile``, ``animal`` or ``player``; ``sight``: whether
    it sees the bot (the JS side marks hostiles within 24 blocks)."""
    raw: dict[str, Any] = {"id": entity_id, "name": name, "distance": distance}
    if kind == "hostile":
        raw.update(type="hostile", kind="Hostile mobs")
    elif kind == "player":
        raw.update(type="player", username=name)
    else:
        raw.update(type="animal", kind="Passive mobs")
    if position is not None:
        raw["position"] = dict(zip("xyz", position, strict=True))
    if sight is not None:
        raw["sight"] = sight
    return raw


def raw_snapshot(
    *,
    hp: float = 20,
    food: int = 20,
    position: tuple[float, float, float] | None = (0.5, 64.0, 0.5),
    entities: list[dict[str, Any]] | None = None,
    items: Mapping[str, int] | None = None,
    time_of_day: int = 1000,
    open_sides: int = 4,
    ceiling: int | None = None,
    beds: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A connected, alive bot's snapshot in the JS shape; ``extra`` overrides any raw field."""
    raw: dict[str, Any] = {
        "connected": True,
        "alive": True,
        "hp": hp,
        "food": food,
        "saturation": 5.0,
        "position": dict(zip("xyz", position, strict=True)) if position else None,
        "dimension": "overworld",
        "timeOfDay": time_of_day,
        "isDay": not 13000 <= time_of_day < 23000,
        "moving": False,
        "sleeping": False,
        "heldItem": None,
        "enclosure": {"openSides": open_sides, "ceiling": ceiling},
        "beds": beds or [],
        "entities": entities or [],
        "inventory": {"counts": dict(items or {}), "emptySlots": 36 - len(items or {})},
    }
    raw.update(extra)
    return raw


def view(**fields: Any) -> WorldView:
    """The typed view of :func:`raw_snapshot` with these arguments."""
    version = fields.pop("version", "1.20.4")
    return WorldView.parse(raw_snapshot(**fields), version=version)
