"""The world model: pure bookkeeping over snapshots from the JS side.

:class:`WorldModel` turns each raw snapshot (one JSON object built by
``bot_helper.js``) into the view every client sees and into the typed events
that changed since the last one. It never reads a clock or a socket: callers
pass ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pepa.events import DawnBroke, DuskFell, HealthChanged, HostileSpotted, PlayerSpotted

__all__ = ["THREAT_RADIUS", "WorldModel", "is_hostile"]

THREAT_RADIUS = 16.0
"""Hostiles within this many blocks are threats in the snapshot."""
DUSK = 13000
DAWN = 23000


def is_hostile(entity: dict[str, Any]) -> bool:
    """Whether minecraft-data classes this entity as a hostile mob."""
    return entity.get("kind") == "Hostile mobs" or entity.get("type") == "hostile"


def _is_night(time_of_day: int | None) -> bool | None:
    if time_of_day is None:
        return None
    return DUSK <= time_of_day < DAWN


@dataclass(slots=True)
class WorldModel:
    """What perception believes about the world, updated snapshot by snapshot."""

    deaths: int = 0
    last_death: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    _hostiles_seen: set[int] = field(default_factory=set)
    _players_seen: set[str] = field(default_factory=set)
    _hp: float | None = None
    _food: int | None = None
    _night: bool | None = None

    def apply(self, snapshot: dict[str, Any]) -> list[Any]:
        """Take a new raw snapshot; return the events it implies, oldest first."""
        self.raw = snapshot
        events: list[Any] = []
        hp, food = snapshot.get("hp"), snapshot.get("food")
        if hp is not None and (hp != self._hp or food != self._food):
            events.append(HealthChanged(hp=hp, food=food or 0, previous_hp=self._hp))
            self._hp, self._food = hp, food
        hostiles: set[int] = set()
        players: set[str] = set()
        for entity in snapshot.get("entities") or []:
            distance = entity.get("distance")
            if distance is None:
                continue
            if is_hostile(entity) and distance <= THREAT_RADIUS:
                hostiles.add(entity["id"])
                if entity["id"] not in self._hostiles_seen:
                    name = entity.get("name") or "mob"
                    events.append(
                        HostileSpotted(name=name, distance=distance, entity_id=entity["id"])
                    )
            elif entity.get("type") == "player" and entity.get("username"):
                players.add(entity["username"])
                if entity["username"] not in self._players_seen:
                    events.append(PlayerSpotted(name=entity["username"], distance=distance))
        self._hostiles_seen, self._players_seen = hostiles, players
        night = _is_night(snapshot.get("timeOfDay"))
        if night is not None and self._night is not None and night != self._night:
            events.append(DuskFell() if night else DawnBroke())
        self._night = night if night is not None else self._night
        return events

    def spotted(self, entities: list[dict[str, Any]]) -> list[Any]:
        """Hostiles in a raw ``entities`` event, before any snapshot: the fast path to defend."""
        events: list[Any] = []
        for entity in entities:
            distance = entity.get("distance")
            if (
                distance is not None
                and is_hostile(entity)
                and distance <= THREAT_RADIUS
                and entity["id"] not in self._hostiles_seen
            ):
                self._hostiles_seen.add(entity["id"])
                name = entity.get("name") or "mob"
                events.append(HostileSpotted(name=name, distance=distance, entity_id=entity["id"]))
        return events

    def died(self, position: dict[str, Any] | None) -> None:
        """Count a death."""
        self.deaths += 1
        self.last_death = position
        self._hostiles_seen.clear()

    def disconnected(self) -> None:
        """Forget what was seen; the next connection starts fresh."""
        self.raw = {}
        self._hostiles_seen.clear()
        self._players_seen.clear()
        self._hp = self._food = None

    def threats(self) -> list[dict[str, Any]]:
        """Hostiles within the threat radius, nearest first."""
        return [
            {
                "name": e.get("name"),
                "distance": e.get("distance"),
                "id": e.get("id"),
                "position": e.get("position"),
            }
            for e in self.raw.get("entities") or []
            if is_hostile(e) and e.get("distance") is not None and e["distance"] <= THREAT_RADIUS
        ]

    def player(self, name: str) -> dict[str, Any] | None:
        """The entity of player ``name`` if the bot can see them."""
        for entity in self.raw.get("entities") or []:
            if entity.get("type") == "player" and entity.get("username") == name:
                return entity
        return None

    def view(self) -> dict[str, Any]:
        """The world fields of the snapshot (DESIGN section 5)."""
        raw = self.raw
        inventory = raw.get("inventory") or {}
        return {
            "connected": bool(raw.get("connected")),
            "alive": raw.get("alive"),
            "hp": raw.get("hp"),
            "food": raw.get("food"),
            "saturation": raw.get("saturation"),
            "position": raw.get("position"),
            "dimension": raw.get("dimension"),
            "timeOfDay": raw.get("timeOfDay"),
            "isDay": raw.get("isDay"),
            "moving": raw.get("moving"),
            "heldItem": raw.get("heldItem"),
            "sleeping": raw.get("sleeping"),
            "enclosure": raw.get("enclosure"),
            "beds": raw.get("beds") or [],
            "threats": self.threats(),
            "players": [
                {"name": e.get("username"), "distance": e.get("distance")}
                for e in raw.get("entities") or []
                if e.get("type") == "player"
            ],
            "animals": [
                {"name": e.get("name"), "distance": e.get("distance"), "id": e.get("id")}
                for e in raw.get("entities") or []
                if e.get("type") in ("mob", "passive", "animal") and not is_hostile(e)
            ],
            "inventory": {
                "items": inventory.get("counts", {}),
                "emptySlots": inventory.get("emptySlots"),
            },
            "deaths": self.deaths,
        }
