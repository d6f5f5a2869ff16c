"""The fight-or-flee policy: what the bot does about the hostiles near it. Pure: no clock, no I/O.

:func:`assess` reads the world view — health, food, the best weapon carried,
the armour worn, each hostile's kind, distance and (for a creeper) its fuse —
and returns a :class:`Plan`: fight the nearest, flee, back off a step, close
in on an archer, or None (nothing to do yet: a zombie at 8 blocks is left to
come). Rules, first match wins (each plan says which one in ``reason``):

1. a creeper with its fuse lit within :data:`CREEPER_CLEAR` → back off;
2. health at or below :data:`LOW_HP` → flee;
3. outnumbered (:func:`crowd_limit` hostiles or more within :data:`ENGAGE_RADIUS`) → flee;
4. the nearest hostile's row of :data:`MOBS`: too little health for that
   mob with this gear → flee; else a melee mob in reach → fight; a creeper in
   reach → strike once, then back off for :data:`CREEPER_STRIKE_GAP`; an
   archer within :data:`ARCHER_RUSH` → close in (fight once in reach), an
   archer farther → take cover (when the caller may look for it), else close
   in behind a shield or armour with health enough (:func:`charge_ready`),
   else flee out of its range.

An archer that does not see the bot (``Entity.sight`` False) and is out of
reach counts for no rule: it cannot shoot, and the bot goes on (or stays in
cover). One whose sight is not known yet (spotted from the spawn event, before
the snapshot that tells, at most 0.2 s later) counts as seeing within
:data:`ARCHER_RUSH` and is left for that snapshot farther off (it aims for a
second before its first arrow).

Numbers are vanilla 1.16.5 (the class each comes from is named where it is set).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pepa.game import items
from pepa.game.mobs import EXPLODING, attacks_from_afar
from pepa.policy.reflex.knobs import Tuning
from pepa.world.view import Entity, WorldView

__all__ = [
    "MOBS",
    "Mob",
    "Plan",
    "armour_points",
    "assess",
    "charge_ready",
    "crowd_limit",
    "is_archer",
    "threats_that_count",
    "weapon_damage",
]

Stance = Literal["fight", "flee", "back-off", "approach", "cover"]

LOW_HP = 8.0
"""At or below this health the bot flees whatever it faces (two zombie hits on hard)."""
ENGAGE_RADIUS = 12.0
"""Hostiles within this many blocks count toward being outnumbered."""
ATTACK_RADIUS = 4.0
"""A hostile this close is in reach (vanilla's player reach is 3 from the eyes; the server
accepts 6)."""
CROWD = 3
"""Hostiles within :data:`ENGAGE_RADIUS` that make a bare-handed, unarmoured bot flee."""
KNOBS = ("creeper_keep", "crowd", "fight_margin")
"""The knobs :func:`assess` reads (pepa.policy.reflex.knobs)."""
MAX_NEED = 18.0
"""A lesson may raise the health wanted for a fight to this, no higher: at 18 or more the bot
still takes on what the policy's own rows let it (a margin must not forbid a fight for good)."""
MIN_CROWD = 2
"""A lesson may lower the crowd that makes the bot flee to this, no lower (one hostile alone
is a fight, which the ``fight_margin`` knob governs)."""
CREEPER_CLEAR = 7.0
"""A lit creeper stops swelling beyond 7 blocks (vanilla SwellGoal: distance² > 49)."""
CREEPER_STRIKE_GAP = 1.5
"""Seconds to back off after striking a creeper, before striking it again."""
CREEPER_KEEP = 5.0
"""Backing off from a creeper ends this far from it (its fuse lights within 3)."""
ARCHER_RUSH = 8.0
"""An archer this close is reached in about 1.5 s of sprinting (5.6 blocks/s): close in."""
ARCHER_RANGE = 15.0
"""A skeleton shoots at a target it sees within 15 blocks (vanilla RangedBowAttackGoal radius)."""
CHARGE_HP = 12.0
"""Health to close in on an archer from afar behind a shield or armour: ~2.7 s of sprinting from
15 blocks is one arrow (2 to 5, one every 3 s), and the bot arrives above :data:`LOW_HP`."""
CHARGE_ARMOUR = 10
"""Armour points that make a charge at an archer worth it without a shield (iron: 15)."""
SPRINT_FOOD = 6
"""At or below this food the bot cannot sprint (vanilla ClientPlayerEntity: food > 6)."""


@dataclass(frozen=True, slots=True)
class Mob:
    """How the bot deals with one kind of hostile."""

    style: Literal["melee", "creeper", "archer"]
    """Closes in and hits, explodes (:data:`pepa.game.mobs.EXPLODING`), or attacks from afar
    (:data:`pepa.game.mobs.RANGED`)."""
    fight_hp: float
    """Health the bot needs to take it on bare-handed and unarmoured."""


def _style(name: str) -> Literal["melee", "creeper", "archer"]:
    return "creeper" if name in EXPLODING else "archer" if attacks_from_afar(name) else "melee"


FIGHT_HP: Mapping[str, float] = {
    "zombie": 10, "husk": 10, "drowned": 10, "zombie_villager": 10, "spider": 10,
    "cave_spider": 12, "silverfish": 9, "slime": 10, "creeper": 10, "skeleton": 12, "stray": 12,
    "witch": 16, "pillager": 14, "vindicator": 18,
}  # fmt: skip
"""Health the bot needs to take each on bare-handed and unarmoured. A zombie hits 3 (vanilla
ZombieEntity attack damage, normal difficulty) once a second; a spider 2; a skeleton's arrow 2
to 5 every 3 s; a vindicator 13 with its axe."""
MOBS: Mapping[str, Mob] = {name: Mob(_style(name), hp) for name, hp in FIGHT_HP.items()}
"""How the bot deals with each hostile it knows."""
OTHER = Mob("melee", 14)
"""Any hostile not in :data:`MOBS`."""
SWORD_BONUS = 4.0
"""Health a weapon of stone-sword damage (5) or more spares the bot before a fight."""
ARMOUR_BONUS = 2.0
"""Health 10+ armour points (a full leather set is 7, iron 15) spare the bot before a fight."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What to do about the hostiles."""

    stance: Stance
    target: Entity | None = None
    """The hostile to hit or close in on (``fight``, ``approach``)."""
    away_from: tuple[Entity, ...] = ()
    """The hostiles to get away from (``flee``, ``back-off``) or hide from (``cover``)."""
    reason: str = ""
    knob: str = ""
    """The knob (:mod:`pepa.policy.reflex.knobs`) whose lesson made this the plan, "" for the
    policy's own."""


def weapon_damage(world: WorldView) -> float:
    """The attack damage of the best weapon the bot carries (1: the fist)."""
    return items.weapon_damage(world.inventory)


def armour_points(world: WorldView) -> int:
    """Armour points of what the bot wears (a full iron set: 15)."""
    return items.armour_points(world.worn)


def crowd_limit(world: WorldView) -> int:
    """How many hostiles within :data:`ENGAGE_RADIUS` make the bot flee.

    One more with a stone sword or better and 10+ armour points; one fewer when
    too hungry to sprint away later (it fights what it could not outrun).
    """
    limit = CROWD
    if weapon_damage(world) >= 5 and armour_points(world) >= 10:
        limit += 1
    if world.food is not None and world.food <= SPRINT_FOOD:
        limit += 1
    return limit


def is_archer(entity: Entity) -> bool:
    """Whether it attacks from afar (skeleton, stray, witch, pillager:
    :data:`pepa.game.mobs.RANGED`)."""
    return attacks_from_afar(entity.name)


def _unseen_archer(entity: Entity) -> bool:
    """An archer out of reach that does not see the bot (it cannot shoot: no reason to act), or
    beyond :data:`ARCHER_RUSH` with its sight not known yet (the next snapshot tells)."""
    if not is_archer(entity) or entity.distance <= ATTACK_RADIUS:
        return False
    return entity.sight is False or (entity.sight is None and entity.distance > ARCHER_RUSH)


def threats_that_count(world: WorldView) -> tuple[Entity, ...]:
    """The threats :func:`assess` acts on, nearest first: those within 16, less the archers that
    cannot see the bot (:func:`_unseen_archer`)."""
    return tuple(t for t in world.threats if not _unseen_archer(t))


def charge_ready(world: WorldView) -> bool:
    """A shield in the off-hand or :data:`CHARGE_ARMOUR` points, and :data:`CHARGE_HP` health."""
    hp = world.hp if world.hp is not None else 20.0
    guarded = "shield" in world.worn or armour_points(world) >= CHARGE_ARMOUR
    return guarded and hp >= CHARGE_HP


def _needed_hp(mob: Mob, world: WorldView) -> float:
    need = mob.fight_hp
    if weapon_damage(world) >= 5:
        need -= SWORD_BONUS
    if armour_points(world) >= 10:
        need -= ARMOUR_BONUS
    return max(need, LOW_HP)


def assess(
    world: WorldView, *, struck_creeper: bool = False, may_cover: bool = True,
    tuning: Tuning | None = None,
) -> Plan | None:  # fmt: skip
    """What to do about the hostiles in view; None when none needs anything yet.

    ``struck_creeper``: the bot struck a creeper less than :data:`CREEPER_STRIKE_GAP`
    seconds ago (the caller keeps the time). ``may_cover``: False when a search for
    cover found none lately (the caller keeps that too). ``tuning``: the knobs lessons
    turned (pepa.policy.reflex.knobs; None: the default policy), and a plan they changed
    names its knob (``Plan.knob``):

    - ``creeper_keep``: a distance to keep from creepers: nearer, the bot flees (a
      flight, not a back-off of a few steps, which the creeper walks after) instead
      of striking;
    - ``crowd``: added to :func:`crowd_limit` (never below two);
    - ``fight_margin``: health wanted beyond the mob's row before taking it on.
    """
    knobs = tuning or Tuning()
    creeper_keep = knobs.creeper_keep
    # nearest first, within 16; archers that cannot see the bot are no reason to act
    threats = threats_that_count(world)
    if not threats:
        return None
    hp = world.hp if world.hp is not None else 20.0
    near = tuple(t for t in threats if t.distance <= ENGAGE_RADIUS)
    lit = [t for t in threats if t.swelling and t.distance <= CREEPER_CLEAR]
    if lit:
        return Plan(
            stance="back-off", away_from=tuple(lit),
            reason=f"creeper hissing at {lit[0].distance:g}",
        )  # fmt: skip
    if near and hp <= LOW_HP:
        return Plan(stance="flee", away_from=near, reason=f"hp {hp:g} with {_count(near)} near")
    limit = crowd_limit(world)
    taught = max(min(limit, MIN_CROWD), limit + round(knobs.crowd))
    if len(near) >= taught:
        by = "crowd" if len(near) < limit else ""
        return Plan(
            stance="flee", away_from=near, knob=by,
            reason=f"outnumbered: {len(near)} hostiles within {ENGAGE_RADIUS:g}{_taught(by)}",
        )  # fmt: skip
    nearest = threats[0]
    mob = MOBS.get(nearest.name, OTHER)
    need = _needed_hp(mob, world)
    taught_need = max(need, min(need + knobs.fight_margin, MAX_NEED))
    if nearest.distance <= ENGAGE_RADIUS and hp < taught_need:
        by = "fight_margin" if hp >= need else ""
        return Plan(
            stance="flee", away_from=near or (nearest,), knob=by,
            reason=f"hp {hp:g} < {taught_need:g} to fight a {nearest.name}{_taught(by)}",
        )  # fmt: skip
    in_reach = nearest.distance <= ATTACK_RADIUS
    if mob.style == "creeper":
        if nearest.distance < creeper_keep:  # a flight: a few steps back, it walks after
            why = f"keeping {creeper_keep:g} from the creeper at {_d(nearest)} (a lesson)"
            return Plan(stance="flee", away_from=(nearest,), reason=why, knob="creeper_keep")
        if struck_creeper and nearest.distance < CREEPER_KEEP:
            return Plan(stance="back-off", away_from=(nearest,), reason="struck the creeper")
        if in_reach:
            why = f"strike the creeper at {_d(nearest)}"
            return Plan(stance="fight", target=nearest, reason=why)
        return None
    if mob.style == "archer":
        if in_reach:
            return Plan(stance="fight", target=nearest, reason=f"{nearest.name} at {_d(nearest)}")
        if nearest.distance <= ARCHER_RUSH:
            return Plan(stance="approach", target=nearest, reason=f"close in on the {nearest.name}")
        if may_cover:
            shooting = tuple(t for t in threats if is_archer(t))
            why = f"take cover from the {nearest.name} at {_d(nearest)}"
            return Plan(stance="cover", target=nearest, away_from=shooting, reason=why)
        if charge_ready(world):
            guard = "shield" if "shield" in world.worn else f"{armour_points(world)} armour"
            why = f"close in on the {nearest.name} at {_d(nearest)}: no cover, {guard}"
            return Plan(stance="approach", target=nearest, reason=why)
        return Plan(
            stance="flee", away_from=(nearest,),
            reason=f"out of the {nearest.name}'s range ({_d(nearest)})",
        )  # fmt: skip
    if in_reach:
        return Plan(stance="fight", target=nearest, reason=f"{nearest.name} at {_d(nearest)}")
    return None


def _taught(knob: str) -> str:
    return " (a lesson)" if knob else ""


def _d(entity: Entity) -> str:
    return f"{entity.distance:g}"


def _count(near: tuple[Entity, ...]) -> str:
    return f"{len(near)} hostile{'s' if len(near) != 1 else ''}"
