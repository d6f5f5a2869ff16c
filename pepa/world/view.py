"""The typed world view: what perception believes at one moment, as frozen values.

``bot_helper.js`` hands Python one JSON object per snapshot; :func:`WorldView.parse`
turns it into a :class:`WorldView` once, checking every field's type on the way
(a field of the wrong type counts as absent, never as a crash). Rules, skills
and actors take this type; only the IPC edge turns it back into plain JSON
(:meth:`WorldView.to_wire`, the ``world`` fields of the status snapshot in
``docs/ipc.md``).

Every value here is immutable: a view handed to five actors is the same
object, and none can change what the others see. Updates between snapshots
(a hostile spotted, health changed) make a new view with :meth:`WorldView.with_threat`
and :meth:`WorldView.with_health`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from pepa.world.contact import Contact

__all__ = [
    "THREAT_RADIUS",
    "Bed",
    "Enclosure",
    "Entity",
    "Inventory",
    "Vec3",
    "WorldView",
    "is_hostile",
]

THREAT_RADIUS = 16.0
"""Hostiles within this many blocks are threats in the view."""
ANIMAL_TYPES = frozenset({"mob", "passive", "animal", "ambient", "water_creature"})
"""mineflayer's types of a creature that is not a player (1.16 calls every one ``mob``, later
versions ``animal``, ``ambient`` …); not hostile and not a thing, it is an animal."""
THING_KINDS = frozenset({"Drops", "Projectiles", "Vehicles", "Immobile", "Blocks"})
"""minecraft-data's categories of what is not a creature (1.16 types them ``mob`` too): items
on the ground, arrows, boats, armour stands, falling blocks. ``bot_helper.js`` leaves them out
of its snapshots and events; these are never animals all the same."""

_EMPTY: Mapping[str, int] = MappingProxyType({})


def _num(value: Any) -> float | None:
    """A finite number as the JS side sent it (an int stays an int on the wire), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True, slots=True)
class Vec3:
    """A point in the world, in blocks."""

    x: float
    y: float
    z: float

    @classmethod
    def parse(cls, raw: Any) -> Vec3 | None:
        """``{"x": …, "y": …, "z": …}`` with finite numbers, else None."""
        fields = _map(raw)
        x, y, z = _num(fields.get("x")), _num(fields.get("y")), _num(fields.get("z"))
        if x is None or y is None or z is None:
            return None
        return cls(x, y, z)

    def as_dict(self) -> dict[str, float]:
        """``{"x": …, "y": …, "z": …}``: the shape of skill arguments and the wire."""
        return {"x": self.x, "y": self.y, "z": self.z}

    def distance_to(self, other: Vec3) -> float:
        """Blocks between the two points."""
        return math.dist((self.x, self.y, self.z), (other.x, other.y, other.z))

    def horizontal_distance(self, other: Vec3) -> float:
        """Blocks between the two points, ignoring height."""
        return math.hypot(self.x - other.x, self.z - other.z)


def is_hostile(entity: Mapping[str, Any]) -> bool:
    """Whether minecraft-data classes a raw JS entity as a hostile mob."""
    return entity.get("kind") == "Hostile mobs" or entity.get("type") == "hostile"


@dataclass(frozen=True, slots=True, kw_only=True)
class Entity:
    """A mob, animal or player the bot can see."""

    id: int
    """The server's entity id (what an attack targets)."""
    name: str
    """``zombie``, ``cow``, a player's name …"""
    distance: float
    """Blocks from the bot when the snapshot was taken."""
    position: Vec3 | None = None
    """Where it stands, when known."""
    type: str | None = None
    """mineflayer's type: ``player``, ``hostile``, ``passive``, ``mob`` …"""
    kind: str | None = None
    """minecraft-data's category, e.g. ``Hostile mobs``."""
    username: str | None = None
    """A player's account name."""
    swelling: bool | None = None
    """A creeper's fuse is lit (it hisses and explodes 1.5 s later); None for other mobs."""
    sight: bool | None = None
    """Whether it sees the bot, eyes to eyes through blocks with a collision box (what a
    skeleton needs to shoot); None when not known (not a hostile, or farther than 24)."""

    @property
    def hostile(self) -> bool:
        """Whether it is a hostile mob."""
        return self.kind == "Hostile mobs" or self.type == "hostile"

    @property
    def player(self) -> bool:
        """Whether it is a player."""
        return self.type == "player"

    @property
    def animal(self) -> bool:
        """Whether it is a mob that is not hostile (what hunting looks for)."""
        return self.type in ANIMAL_TYPES and self.kind not in THING_KINDS and not self.hostile

    @classmethod
    def parse(cls, raw: Any) -> Entity | None:
        """One entity of the JS snapshot; None when it has no id or no distance."""
        fields = _map(raw)
        entity_id, distance = _int(fields.get("id")), _num(fields.get("distance"))
        if entity_id is None or distance is None:
            return None
        username = _str(fields.get("username"))
        return cls(
            id=entity_id,
            name=_str(fields.get("name")) or username or "mob",
            distance=distance,
            position=Vec3.parse(fields.get("position")),
            type=_str(fields.get("type")),
            kind=_str(fields.get("kind")),
            username=username,
            swelling=_bool(fields.get("swelling")),
            sight=_bool(fields.get("sight")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Bed:
    """A bed block near the bot (the snapshot lists them at night only)."""

    x: int
    y: int
    z: int
    distance: float

    @classmethod
    def parse(cls, raw: Any) -> Bed | None:
        """``{"x", "y", "z", "distance"}``, else None."""
        fields = _map(raw)
        x, y, z = _int(fields.get("x")), _int(fields.get("y")), _int(fields.get("z"))
        distance = _num(fields.get("distance"))
        if x is None or y is None or z is None or distance is None:
            return None
        return cls(x=x, y=y, z=z, distance=distance)


@dataclass(frozen=True, slots=True, kw_only=True)
class Enclosure:
    """Whether the bot can walk away from where it stands."""

    open_sides: int
    """Sides (of four) whose feet and head blocks are free."""
    ceiling: int | None = None
    """Blocks up to the first solid block above the feet (2 to 6), None when open."""

    @classmethod
    def parse(cls, raw: Any) -> Enclosure | None:
        """``{"openSides", "ceiling"}``, else None."""
        fields = _map(raw)
        sides = _int(fields.get("openSides"))
        if sides is None:
            return None
        return cls(open_sides=sides, ceiling=_int(fields.get("ceiling")))


@dataclass(frozen=True, slots=True, kw_only=True)
class Inventory:
    """What the bot carries: item name → count, and free slots."""

    items: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    """Counts by item name (read-only)."""
    empty_slots: int | None = None
    """Free slots of the main inventory."""

    def count(self, name: str) -> int:
        """How many of ``name`` the bot carries."""
        return self.items.get(name, 0)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.items.get(name, 0) > 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)

    @classmethod
    def parse(cls, raw: Any) -> Inventory:
        """The snapshot's ``inventory`` (``counts``) or the wire's (``items``)."""
        fields = _map(raw)
        counts = _map(fields.get("counts", fields.get("items")))
        items = {
            name: number
            for name, value in counts.items()
            if isinstance(name, str) and (number := _int(value)) is not None and number > 0
        }
        return cls(items=MappingProxyType(items), empty_slots=_int(fields.get("emptySlots")))


def _entities(raw: Any) -> tuple[Entity, ...]:
    parsed = (Entity.parse(e) for e in (raw if isinstance(raw, list) else []))
    return tuple(sorted((e for e in parsed if e is not None), key=lambda e: e.distance))


@dataclass(frozen=True, slots=True, kw_only=True)
class WorldView:
    """One moment of the world as the bot sees it. Built once per snapshot; never changed."""

    connected: bool = False
    """Whether the bot is in a world right now."""
    alive: bool | None = None
    hp: float | None = None
    """Health, 0 to 20."""
    food: int | None = None
    """Food, 0 to 20."""
    saturation: float | None = None
    position: Vec3 | None = None
    dimension: str | None = None
    time_of_day: int | None = None
    """Ticks of the day, 0 to 23999."""
    is_day: bool | None = None
    moving: bool = False
    """Whether the pathfinder is moving the bot."""
    held_item: str | None = None
    sleeping: bool = False
    air: int | None = None
    """Air left, 0 to 20 (each point 0.75 s under water); None before the server said."""
    head_in_water: bool = False
    """Whether the block at eye height is water (the air runs down)."""
    enclosure: Enclosure | None = None
    contact: Contact | None = None
    """The blocks under the bot, inside its body and at its sides (None: not known)."""
    beds: tuple[Bed, ...] = ()
    """Beds within 16 blocks (listed at night), nearest first."""
    entities: tuple[Entity, ...] = ()
    """Everything within the snapshot's radius, nearest first."""
    inventory: Inventory = field(default_factory=Inventory)
    """What the bot holds; its counts include what it wears (:attr:`worn`)."""
    worn: tuple[str, ...] = ()
    """Armour worn and the off-hand item (head, torso, legs, feet, off-hand order, empty ones left
    out)."""
    deaths: int = 0
    """Deaths perception counted since the worker started."""
    version: str | None = None
    """The server's game version (``1.20.4``), once connected."""
    _threats: tuple[Entity, ...] = field(init=False, repr=False, compare=False)
    """:attr:`threats`, worked out once: the chain asks for them several times a decision, and
    the reflex actor asks the chain 13 times an arming (in a crowd of bots, 40 entities each)."""

    def __post_init__(self) -> None:
        near = tuple(e for e in self.entities if e.hostile and e.distance <= THREAT_RADIUS)
        object.__setattr__(self, "_threats", near)

    @classmethod
    def parse(cls, raw: Any, *, deaths: int = 0, version: str | None = None) -> WorldView:
        """The view of one JS snapshot; a field of the wrong type counts as absent."""
        fields = _map(raw)
        food = _int(fields.get("food"))
        raw_beds = fields.get("beds")
        beds = (Bed.parse(b) for b in (raw_beds if isinstance(raw_beds, list) else []))
        return cls(
            connected=fields.get("connected") is True,
            alive=_bool(fields.get("alive")),
            hp=_num(fields.get("hp")),
            food=food,
            saturation=_num(fields.get("saturation")),
            position=Vec3.parse(fields.get("position")),
            dimension=_str(fields.get("dimension")),
            time_of_day=_int(fields.get("timeOfDay")),
            is_day=_bool(fields.get("isDay")),
            moving=fields.get("moving") is True,
            held_item=_str(fields.get("heldItem")),
            sleeping=fields.get("sleeping") is True,
            air=_int(fields.get("air")),
            head_in_water=fields.get("headInWater") is True,
            enclosure=Enclosure.parse(fields.get("enclosure")),
            contact=Contact.parse(fields.get("contact")),
            beds=tuple(sorted((b for b in beds if b is not None), key=lambda b: b.distance)),
            entities=_entities(fields.get("entities")),
            inventory=Inventory.parse(fields.get("inventory")),
            worn=tuple(w for w in _list(fields.get("worn")) if isinstance(w, str)),
            deaths=deaths,
            version=version or _str(fields.get("version")),
        )

    @classmethod
    def from_wire(cls, wire: Any) -> WorldView:
        """The view back from its :meth:`to_wire` form (tests, tools reading a status)."""
        fields = _map(wire)

        def tagged(key: str, tags: dict[str, str]) -> list[dict[str, Any]]:
            entries = fields.get(key)
            return [
                {**e, **tags, "username": e.get("name") if key == "players" else None}
                for e in (entries if isinstance(entries, list) else [])
                if isinstance(e, Mapping)
            ]

        raw = {
            **fields,
            "entities": [
                *tagged("threats", {"type": "hostile"}),
                *tagged("players", {"type": "player"}),
                *tagged("animals", {"type": "animal"}),
            ],
        }
        players = [e for e in raw["entities"] if e["type"] == "player" and "id" not in e]
        for number, player in enumerate(players):
            player["id"] = -1 - number  # the wire leaves players' ids out
        return cls.parse(raw, deaths=_int(fields.get("deaths")) or 0)

    # -- derived views ---------------------------------------------------------------

    @property
    def threats(self) -> tuple[Entity, ...]:
        """Hostiles within :data:`THREAT_RADIUS`, nearest first."""
        return self._threats

    @property
    def players(self) -> tuple[Entity, ...]:
        """Players in sight, nearest first."""
        return tuple(e for e in self.entities if e.player)

    @property
    def animals(self) -> tuple[Entity, ...]:
        """Mobs that are not hostile, nearest first."""
        return tuple(e for e in self.entities if e.animal)

    @property
    def in_world(self) -> bool:
        """Connected, alive and with health left: able to act."""
        return self.connected and self.alive is not False and (self.hp is None or self.hp > 0)

    def player(self, name: str) -> Entity | None:
        """Player ``name``, if the bot can see them."""
        return next((e for e in self.entities if e.player and e.username == name), None)

    # -- updates between snapshots -----------------------------------------------------

    def with_threat(self, *, entity_id: int, name: str, distance: float) -> WorldView:
        """This view plus a hostile spotted before the next snapshot (replacing its old entry)."""
        kept = tuple(e for e in self.entities if e.id != entity_id)
        spotted = Entity(id=entity_id, name=name, distance=distance, type="hostile")
        return replace(self, entities=tuple(sorted((*kept, spotted), key=lambda e: e.distance)))

    def without(self, entity_id: int) -> WorldView:
        """This view less one entity (gone before the next snapshot)."""
        kept = tuple(e for e in self.entities if e.id != entity_id)
        return self if len(kept) == len(self.entities) else replace(self, entities=kept)

    def with_health(self, *, hp: float, food: int) -> WorldView:
        """This view with new health and food (a ``health`` event before the next snapshot)."""
        return replace(self, hp=hp, food=food)

    # -- the wire ---------------------------------------------------------------------

    def to_wire(self) -> dict[str, Any]:
        """The plain-JSON ``world`` fields of the status snapshot (``docs/ipc.md``)."""
        return {
            "connected": self.connected,
            "alive": self.alive,
            "hp": self.hp,
            "food": self.food,
            "saturation": self.saturation,
            "position": self.position.as_dict() if self.position else None,
            "dimension": self.dimension,
            "timeOfDay": self.time_of_day,
            "isDay": self.is_day,
            "moving": self.moving,
            "heldItem": self.held_item,
            "sleeping": self.sleeping,
            "air": self.air,
            "headInWater": self.head_in_water,
            "enclosure": (
                {"openSides": self.enclosure.open_sides, "ceiling": self.enclosure.ceiling}
                if self.enclosure
                else None
            ),
            "contact": self.contact.as_dict() if self.contact else None,
            "beds": [{"x": b.x, "y": b.y, "z": b.z, "distance": b.distance} for b in self.beds],
            "threats": [
                {
                    "name": e.name,
                    "distance": e.distance,
                    "id": e.id,
                    "position": e.position.as_dict() if e.position else None,
                    **({} if e.swelling is None else {"swelling": e.swelling}),  # creepers
                    **({} if e.sight is None else {"sight": e.sight}),
                }
                for e in self.threats
            ],
            "players": [{"name": e.username, "distance": e.distance} for e in self.players],
            "animals": [{"name": e.name, "distance": e.distance, "id": e.id} for e in self.animals],
            "inventory": {
                "items": dict(self.inventory.items),
                "emptySlots": self.inventory.empty_slots,
            },
            "worn": list(self.worn),
            "deaths": self.deaths,
            "version": self.version,
        }
