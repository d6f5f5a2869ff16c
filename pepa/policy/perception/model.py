"""The world model: pure bookkeeping over snapshots from the JS side.

:class:`WorldModel` turns each raw snapshot (one JSON object built by
``bot_helper.js``) into a typed :class:`~pepa.world.view.WorldView`, once,
and into the typed events that changed since the last one. It never reads a
clock or a socket.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pepa.runtime.events import (
    DawnBroke,
    DuskFell,
    HealthChanged,
    HostileGone,
    HostileSpotted,
    PlayerSpotted,
)
from pepa.world.view import THREAT_RADIUS, Entity, Vec3, WorldView

__all__ = ["DAWN", "DUSK", "THREAT_RADIUS", "WorldModel"]

DUSK = 13000
"""Tick of the day when night begins (the dusk remark)."""
DAWN = 23000
"""Tick of the day when night ends."""

Event = HealthChanged | HostileSpotted | HostileGone | PlayerSpotted | DuskFell | DawnBroke


def _is_night(time_of_day: int | None) -> bool | None:
    if time_of_day is None:
        return None
    return DUSK <= time_of_day < DAWN


@dataclass(slots=True)
class WorldModel:
    """What perception believes about the world, updated snapshot by snapshot."""

    deaths: int = 0
    """Deaths counted since the worker started."""
    last_death: Vec3 | None = None
    """Where the bot last died."""
    version: str | None = None
    """The game version of the current connection."""
    view: WorldView = field(default_factory=WorldView)
    """The latest view (a disconnected, empty one before the first snapshot)."""
    _hostiles_seen: set[int] = field(default_factory=set)
    _told: set[int] = field(default_factory=set)
    """Hostiles told of (:class:`HostileSpotted`) and not told gone (:class:`HostileGone`)."""
    _players_seen: set[str] = field(default_factory=set)
    _hp: float | None = None
    _food: int | None = None
    _night: bool | None = None

    @property
    def has_seen(self) -> bool:
        """Whether a snapshot has arrived since the last disconnect."""
        return self.view.connected or self._hp is not None

    def apply(self, snapshot: Mapping[str, Any]) -> list[Event]:
        """Take a new raw snapshot; return the events it implies, oldest first."""
        view = WorldView.parse(snapshot, deaths=self.deaths, version=self.version)
        self.view = view
        events: list[Event] = []
        if view.hp is not None and (view.hp != self._hp or view.food != self._food):
            events.append(HealthChanged(hp=view.hp, food=view.food or 0, previous_hp=self._hp))
            self._hp, self._food = view.hp, view.food
        hostiles: set[int] = set()
        players: set[str] = set()
        for entity in view.entities:
            if entity.hostile and entity.distance <= THREAT_RADIUS:
                hostiles.add(entity.id)
                if entity.id not in self._hostiles_seen:
                    events.append(_spotted(entity))
                    self._told.add(entity.id)
            elif entity.player and entity.username:
                players.add(entity.username)
                if entity.username not in self._players_seen:
                    events.append(PlayerSpotted(name=entity.username, distance=entity.distance))
        self._hostiles_seen, self._players_seen = hostiles, players
        events.extend(self.gone(self._told - {e.id for e in view.entities}))
        night = _is_night(view.time_of_day)
        if night is not None and self._night is not None and night != self._night:
            events.append(DuskFell() if night else DawnBroke())
        self._night = night if night is not None else self._night
        return events

    def spotted(self, entities: Iterable[Any]) -> list[HostileSpotted]:
        """Hostiles in a raw ``entities`` event, before any snapshot: the fast path to defend."""
        events: list[HostileSpotted] = []
        for raw in entities:
            entity = Entity.parse(raw)
            if (
                entity is not None
                and entity.hostile
                and entity.distance <= THREAT_RADIUS
                and entity.id not in self._hostiles_seen
            ):
                self._hostiles_seen.add(entity.id)
                self._told.add(entity.id)
                events.append(_spotted(entity))
        return events

    def gone(self, ids: Iterable[Any]) -> list[HostileGone]:
        """The hostiles told of that are no longer in the bot's world: a raw ``entities``
        event's ``gone`` ids, or ids a snapshot no longer shows. A mob that came and went
        between two snapshots was never in a view: without this its :class:`HostileSpotted`
        stayed in the reflex's world, a ghost the bot kept swinging at and counted among the
        mobs round it."""
        events: list[HostileGone] = []
        for entity_id in sorted(i for i in ids if isinstance(i, int) and i in self._told):
            self._told.discard(entity_id)
            self._hostiles_seen.discard(entity_id)
            events.append(HostileGone(entity_id=entity_id))
        return events

    def connected(self, version: str | None) -> None:
        """A new connection: remember its game version."""
        self.version = version
        self.view = replace(self.view, version=version)

    def died(self, position: Any) -> None:
        """Count a death (``position`` is the JS event's raw position)."""
        self.deaths += 1
        self.last_death = Vec3.parse(position)
        self._hostiles_seen.clear()
        self._told.clear()
        self.view = replace(self.view, deaths=self.deaths, hp=0.0, alive=False)

    def disconnected(self) -> None:
        """Forget what was seen; the next connection starts fresh."""
        self.view = WorldView(deaths=self.deaths, version=self.version)
        self._hostiles_seen.clear()
        self._told.clear()
        self._players_seen.clear()
        self._hp = self._food = None


def _spotted(entity: Entity) -> HostileSpotted:
    return HostileSpotted(name=entity.name, distance=entity.distance, entity_id=entity.id)
