"""The situation a lesson is about, and recall of the lessons nearest to the present. Pure.

A lesson learned from one death should change what the bot does in the same
situation, not in every situation with the same mob: a zombie that killed a
bot with no sword at night on 3 hp says little about one zombie met at noon
with an iron sword. :class:`Situation` is the coarse signature of a moment:
the cause of death (for lessons from deaths), the nearest hostile and how
many are near, day or night, health and food, weapon and armour tiers, where
(underground, high up, on the surface) and a 64-block cell of the map. Each
field is a small bucket, so similar moments share a signature.

:class:`LessonIndex` recalls by backing off: it looks for lessons about the
same skill in the very same situation, then with the cell and terrain left
out, then only the fight (mob, crowd, health and gear), then only the mob
and the crowd, then only the mob (:data:`LEVELS`). Each step is one
dictionary lookup and reads at most a few lessons, so recall costs about the
same at ten lessons and at a hundred thousand (``bench/lesson_recall.py``).
A lesson counts at the most specific level it matched, and for less at a
coarser one (:data:`LEVEL_WEIGHT`): the level says how alike the present is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from pepa.game.items import armour_points, weapon_damage
from pepa.world.view import WorldView

__all__ = [
    "CELL",
    "FIELDS",
    "FIGHT",
    "LEVELS",
    "LEVEL_WEIGHT",
    "TOP",
    "LessonIndex",
    "Recalled",
    "Situation",
    "fight_signature",
    "first_met",
    "situation_of",
]

CELL = 64
"""Blocks per side of a map cell in a signature."""
_WEAPONS = (("fist", 1.0), ("wood", 4.0), ("stone", 5.0), ("iron", 6.0))
"""Weapon tiers by the best attack damage carried (a wooden sword 4, stone 5, iron 6, more:
``diamond``)."""
_ARMOUR = (("none", 0), ("light", 7), ("iron", 15))
"""Armour tiers by points worn (full leather 7, full iron 15, more: ``heavy``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Situation:
    """A moment in a few buckets; an empty field is unknown (it matches only itself)."""

    cause: str = ""
    """The kind of death the lesson came from (pepa.world.death.KINDS), "" for other lessons."""
    mob: str = ""
    """The nearest hostile's type, "" with none near."""
    crowd: str = ""
    """Hostiles within 16 blocks: ``0``, ``1``, ``2``, ``3+``."""
    time: str = ""
    """``day`` or ``night``."""
    hp: str = ""
    """``low`` (6 or less), ``mid`` (12 or less), ``high``."""
    food: str = ""
    """``low`` (6 or less), ``mid`` (14 or less), ``high``."""
    weapon: str = ""
    """``fist``, ``wood``, ``stone``, ``iron``, ``diamond`` (the best carried)."""
    armour: str = ""
    """``none``, ``light`` (to 7 points), ``iron`` (to 15), ``heavy``."""
    terrain: str = ""
    """``underground`` (below y 56), ``high`` (above y 100), ``surface``."""
    cell: str = ""
    """``x,z`` of the 64-block map cell, "" unknown."""

    def signature(self) -> str:
        """The canonical text (``cause=mob;mob=zombie;crowd=2;…``): stored, logged, parsed."""
        return ";".join(f"{f}={getattr(self, f)}" for f in FIELDS if getattr(self, f))

    @classmethod
    def parse(cls, text: Any) -> Situation:
        """A :meth:`signature` back; unknown fields and malformed parts are left out."""
        if not isinstance(text, str):
            return cls()
        found: dict[str, str] = {}
        for part in text.split(";"):
            name, sep, value = part.partition("=")
            if sep and name in FIELDS and value and len(value) <= 40 and value.isprintable():
                found[name] = value
        return cls(**found)

    def at(self, level: int) -> tuple[str, ...]:
        """The key of this situation at a backoff level (0: everything, last: the mob)."""
        return tuple(getattr(self, f) for f in LEVELS[level])

    def describe(self) -> str:
        """For people: ``zombie x2, night, hp low, fist, no armour, surface``."""
        parts = [f"{self.mob} x{self.crowd}" if self.mob else "no hostile near"]
        parts += [self.time] if self.time else []
        parts += [f"hp {self.hp}"] if self.hp else []
        parts += [f"food {self.food}"] if self.food else []
        parts += [self.weapon] if self.weapon else []
        parts += [f"{'no' if self.armour == 'none' else self.armour} armour"] if self.armour else []
        parts += [self.terrain] if self.terrain else []
        return (f"{self.cause}: " if self.cause else "") + ", ".join(parts)


FIELDS = tuple(f.name for f in fields(Situation))
LEVELS: tuple[tuple[str, ...], ...] = (
    ("mob", "crowd", "time", "hp", "food", "weapon", "armour", "terrain", "cell"),
    ("mob", "crowd", "time", "hp", "food", "weapon", "armour"),
    ("mob", "crowd", "hp", "weapon", "armour"),
    ("mob", "crowd"),
    ("mob",),
)
"""Backoff levels of recall, most specific first: each leaves out what matters least. The
cause is not matched: the present has none yet; it stays in the signature for the record."""
LEVEL_WEIGHT = (1.0, 1.0, 0.9, 0.8, 0.7)
"""What a lesson recalled at each level counts for (times its confidence): a lesson learned
once (0.7) acts down to the fight's level (health and gear alike); learned again and
confirmed, it reaches further (0.8 with the same crowd, 0.9 against the mob anywhere)."""


def situation_of(view: WorldView | Mapping[str, Any], cause: str = "") -> Situation:
    """The situation of a world view (or its wire form, as a death's bundle keeps it)."""
    world = view if isinstance(view, WorldView) else WorldView.from_wire(view)
    threats = world.threats  # within THREAT_RADIUS (16), nearest first
    count = len(threats)
    pos = world.position
    terrain = cell = ""
    if pos is not None:
        terrain = "underground" if pos.y < 56 else "high" if pos.y > 100 else "surface"
        cell = f"{math.floor(pos.x / CELL)},{math.floor(pos.z / CELL)}"
    return Situation(
        cause=cause,
        mob=threats[0].name if threats else "",
        crowd="3+" if count >= 3 else str(count),
        time="" if world.is_day is None else "day" if world.is_day else "night",
        hp=_bucket(world.hp, ((6, "low"), (12, "mid")), "high"),
        food=_bucket(world.food, ((6, "low"), (14, "mid")), "high"),
        weapon=_tier(weapon_damage(world.inventory.items)),
        armour=_armour(armour_points(world.worn)),
        terrain=terrain,
        cell=cell,
    )


FIGHT = ("cause", "mob", "crowd", "hp", "weapon", "armour")
"""What a lesson about a fight keeps of its situation: the fight's own level of recall (with
the cause for the record), so deaths in like fights anywhere, by day or night, confirm one
lesson instead of each writing its own."""


def first_met(snapshots: Iterable[Mapping[str, Any]], mob: str) -> WorldView | None:
    """The first of a death's snapshots (oldest first) with ``mob`` among the threats: where
    the bot chose what to do about it; None when no snapshot shows it."""
    for snapshot in snapshots:  # the wire form is read first: a view is built for one only
        near = snapshot.get("threats") if isinstance(snapshot, Mapping) else None
        if not isinstance(near, list) or not any(
            isinstance(t, Mapping) and t.get("name") == mob for t in near
        ):
            continue
        view = WorldView.from_wire(snapshot)
        if any(t.name == mob for t in view.threats):
            return view
    return None


def fight_signature(snapshots: Iterable[Mapping[str, Any]], mob: str, cause: str) -> str:
    """The signature of a fight with ``mob`` from a death's snapshots (oldest first): as it was
    when the mob was first near (:func:`first_met`: its health then, not at the death); ""
    when no snapshot shows it."""
    view = first_met(snapshots, mob)
    if view is None:
        return ""
    met = situation_of(view, cause=cause)
    kept = {f: getattr(met, f) for f in FIGHT}
    return Situation(**{**kept, "mob": mob}).signature()


def _bucket(value: float | None, steps: tuple[tuple[float, str], ...], top: str) -> str:
    if value is None:
        return ""
    return next((name for limit, name in steps if value <= limit), top)


def _tier(damage: float) -> str:
    return next((name for name, top in _WEAPONS if damage <= top), "diamond")


def _armour(points: int) -> str:
    return next((name for name, top in _ARMOUR if points <= top), "heavy")


@dataclass(frozen=True, slots=True, kw_only=True)
class Recalled:
    """A lesson recalled for the present, with how specifically it matched."""

    key: Any
    """The caller's handle of the lesson (its id, or the lesson itself)."""
    verdict: str
    confidence: float
    level: int
    """The most specific backoff level that matched (0: the very same situation)."""
    general: bool = False
    """A lesson about no situation in particular: it counts in full at any level."""

    @property
    def weight(self) -> float:
        """Confidence, discounted for a coarse match (:data:`LEVEL_WEIGHT`)."""
        return self.confidence if self.general else self.confidence * LEVEL_WEIGHT[self.level]


TOP = 4
"""Lessons of each verdict a backoff level gives to a recall at most (the most confident)."""


class _Bucket:
    """The lessons of one (skill, level key), with the most confident of each verdict cached."""

    __slots__ = ("entries", "top")

    def __init__(self) -> None:
        self.entries: dict[Any, tuple[str, float, bool]] = {}
        self.top: dict[str, list[tuple[Any, float, bool]]] | None = None

    def best(self) -> dict[str, list[tuple[Any, float, bool]]]:
        """The :data:`TOP` most confident lessons of each verdict, and every general one (they
        are few: one per mob and verdict at most, and count in full); sorted again only
        after a change."""
        if self.top is None:
            by_verdict: dict[str, list[tuple[Any, float, bool]]] = {}
            general: dict[str, list[tuple[Any, float, bool]]] = {}
            for key, (verdict, confidence, wide) in self.entries.items():
                into = general if wide else by_verdict
                into.setdefault(verdict, []).append((key, confidence, wide))
            self.top = {
                verdict: sorted(found, key=lambda e: -e[1])[:TOP] + general.get(verdict, [])
                for verdict, found in by_verdict.items()
            }
            for verdict, found in general.items():
                self.top.setdefault(verdict, found)
        return self.top


class LessonIndex:
    """Lessons by skill and situation at every backoff level; recall is a few dict lookups and
    reads at most :data:`TOP` lessons of each verdict per level, however many are stored."""

    def __init__(self) -> None:
        self._at: list[dict[tuple[str, tuple[str, ...]], _Bucket]] = [{} for _ in LEVELS]
        self._where: dict[Any, tuple[str, Situation, bool]] = {}

    def __len__(self) -> int:
        return len(self._where)

    def about(self, skill: str, mob: str) -> bool:
        """Whether any lesson about ``skill`` is about ``mob``: every lesson is filed at the
        mob's own level, and every level's key starts with the mob, so a recall for ``mob``
        finds nothing without one (the reflex asks this 13 times an arming)."""
        return (skill, (mob,)) in self._at[-1]

    def put(
        self, key: Any, skill: str, situation: Situation, verdict: str, confidence: float,
        *, general: bool = False,
    ) -> None:  # fmt: skip
        """Add a lesson, or change its verdict and confidence (``key`` names it).

        ``general``: the lesson names only its mob (no situation); it is found
        at the mob's level and counts in full there.
        """
        self.drop(key)
        self._where[key] = (skill, situation, general)
        for level in self._levels(general):
            bucket = self._at[level].setdefault((skill, situation.at(level)), _Bucket())
            bucket.entries[key] = (verdict, confidence, general)
            bucket.top = None

    def drop(self, key: Any) -> None:
        """Forget a lesson (no error when it is not there)."""
        known = self._where.pop(key, None)
        if known is None:
            return
        skill, situation, general = known
        for level in self._levels(general):
            slot = (skill, situation.at(level))
            bucket = self._at[level].get(slot)
            if bucket is not None:
                bucket.entries.pop(key, None)
                bucket.top = None
                if not bucket.entries:
                    del self._at[level][slot]

    def recall(self, skill: str, situation: Situation) -> list[Recalled]:
        """The lessons about ``skill`` in situations like ``situation``, each at the most
        specific level it matched, heaviest first (at most :data:`TOP` of each verdict from
        each level)."""
        found: dict[Any, Recalled] = {}
        for level, table in enumerate(self._at):
            bucket = table.get((skill, situation.at(level)))
            if bucket is None:
                continue
            for verdict, best in bucket.best().items():
                for key, confidence, general in best:
                    if key not in found:
                        found[key] = Recalled(
                            key=key, verdict=verdict, confidence=confidence, level=level,
                            general=general,
                        )  # fmt: skip
        return sorted(found.values(), key=lambda r: -r.weight)

    @staticmethod
    def _levels(general: bool) -> range:
        return range(len(LEVELS) - 1, len(LEVELS)) if general else range(len(LEVELS))
