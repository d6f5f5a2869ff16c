"""The defend link of the reflex chain: fight, flee, back off from a creeper, close in on an
archer or take cover from one, and eat on the way when low. Pure.

The combat policy (:func:`pepa.policy.reflex.combat.assess`) chooses; a flight, once begun,
goes on while a hostile is within :data:`SAFE_DISTANCE` and for :data:`SAFE_FOR` after;
cover, once taken, is kept while an archer is within its range and for :data:`SAFE_FOR`
after (:data:`COVER_RETRY` after a search that found none).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from pepa.policy.reflex import combat
from pepa.policy.reflex.decision import (
    EAT_COOLDOWN,
    SAFE_FOR,
    ChainState,
    Decision,
    archers_in_range,
    pursuing,
)
from pepa.policy.reflex.food import KEPT_FOOD, best_food
from pepa.policy.reflex.knobs import Tuning
from pepa.world.view import Entity, Vec3, WorldView

__all__ = [
    "BACK_OFF",
    "COVER_RADIUS",
    "FLEE_DISTANCE",
    "FLEE_EAT_CLEAR",
    "FLEE_EAT_HP",
    "KEEP_RADIUS",
    "defend",
]


FLEE_EAT_HP = 12.0
"""Below this health a bot in flight eats when nothing is within :data:`FLEE_EAT_CLEAR`."""

FLEE_EAT_CLEAR = 6.0
"""Eating takes 1.6 s (32 ticks), in which a zombie closes 3.7 blocks (2.28 blocks/s)."""

BACK_OFF = 8.0
"""Blocks a back-off from a creeper runs (a lit fuse goes out beyond 7)."""

FLEE_DISTANCE = 16.0

KEEP_RADIUS = 12.0
"""A hostile of a type a lesson keeps the bot from (``hazard.mob``) this near starts a flight:
the range at which the policy counts hostiles for a fight."""

COVER_RADIUS = 6.0
"""Blocks from the bot a cell hidden from the archers may be (a second or two of walking)."""


def _away(
    origin: Vec3, threats: Sequence[Entity], distance: float = FLEE_DISTANCE
) -> dict[str, float]:
    """A point ``distance`` blocks from ``origin``, directly away from the threats' centre."""
    placed = [t.position for t in threats if t.position is not None]
    if not placed:
        return {"x": origin.x + distance, "y": origin.y, "z": origin.z}
    cx = sum(p.x for p in placed) / len(placed)
    cz = sum(p.z for p in placed) / len(placed)
    dx, dz = origin.x - cx, origin.z - cz
    norm = math.hypot(dx, dz)
    if norm < 1e-6:  # threats all around the same spot as the bot: pick a direction
        dx, dz, norm = 1.0, 0.0, 1.0
    return {
        "x": round(origin.x + dx / norm * distance, 1),
        "y": origin.y,
        "z": round(origin.z + dz / norm * distance, 1),
    }


def _flee(
    world: WorldView, away: Sequence[Entity], reason: str, *, flight: bool = True
) -> Decision | None:
    """Run from ``away``: a flight (hysteresis: :data:`SAFE_DISTANCE`), or a back-off of a
    few blocks. The JS side picks the direction by open ground (``from``); ``to`` is the
    straight-away point."""
    position = world.position
    if position is None:
        return None
    distance = FLEE_DISTANCE if flight else BACK_OFF
    sources = [
        [round(t.position.x, 1), round(t.position.z, 1)] for t in away if t.position is not None
    ]
    args = {
        "to": _away(position, away, distance),
        "from": sources,
        "distance": distance,
        "flight": flight,
    }
    return Decision(reflex="defend", skill="survive.flee", args=args, reason=reason)


def _fight(target: Entity, reason: str) -> Decision:
    return Decision(
        reflex="defend",
        skill="combat.attack-nearest",
        args={"entity_id": target.id, "name": target.name},
        reason=reason,
    )


def defend(world: WorldView, now: float, memory: ChainState) -> Decision | None:
    """The defend link: the combat policy (:mod:`pepa.policy.reflex.combat`), lessons, flight.

    A flight, once begun, goes on while any hostile is within :data:`SAFE_DISTANCE`
    and for :data:`SAFE_FOR` seconds after the last one is (nothing below defend
    runs meanwhile: a task would walk back to the mobs); in it the bot eats when
    low and clear, and fights only what is already in reach.
    """
    struck = now - memory.struck_creeper_at < combat.CREEPER_STRIKE_GAP
    counted = combat.threats_that_count(world)  # the knobs are about the mob it would fight
    knobs = (*combat.KNOBS, "fight_food")
    tuned = memory.tuning(world, counted[0].name, knobs) if counted else Tuning()
    may_cover = memory.may_cover(now)
    plan = combat.assess(world, struck_creeper=struck, may_cover=may_cover, tuning=tuned)
    taught = tuned.lesson(plan.knob) if plan is not None and plan.knob else None
    in_flight = memory.flight_since is not None and (
        memory.clear_since is None or now - memory.clear_since < SAFE_FOR
    )
    cornered = plan is not None and plan.stance == "fight"  # in reach and worth a swing
    if in_flight and not cornered:
        return _in_flight(world, now, memory)
    kept = memory.lessons.kept_from(counted, KEEP_RADIUS) if counted else None
    if kept is not None and (plan is None or plan.stance != "back-off"):
        mob, lesson = kept  # a mob type that hurt the bot too hard before: away from it
        why = f"keeping from the {mob.name} at {mob.distance:g} (a lesson)"
        fled = _flee(world, world.threats[:3] or (mob,), why)
        return None if fled is None else replace(fled, advice=lesson)
    if plan is None:
        meal = _eat_first(world, now, memory, tuned, counted)
        if meal is not None:
            return meal
        if memory.in_cover():  # an archer in range that does not see the bot: stay put
            archers = archers_in_range(world)
            what = f"the {archers[0].name} at {archers[0].distance:g}" if archers else "archers"
            return Decision(reflex="defend", reason=f"in cover from {what}")
        return None
    target = plan.target
    if plan.stance == "fight" and target is not None:
        advised = memory.lessons.advised("combat.attack-nearest", target.name, world)
        if advised is not None:
            verdict, instead, signature = advised
            why = f"lesson: {verdict} fighting {target.name}"
            lesson = ("combat.attack-nearest", target.name, verdict, signature)
            if instead == "survive.flee":
                fled = _flee(world, world.threats[:3] or (target,), why)
                return None if fled is None else replace(fled, advice=lesson)
            return Decision(reflex="defend", skill=instead, reason=why, advice=lesson)
        return _fight(target, plan.reason)
    if plan.stance == "approach" and (target is None or target.position is None):
        return Decision(reflex="defend", reason=f"{plan.reason}: where it is comes next")
    if plan.stance == "approach" and target is not None and target.position is not None:
        return Decision(
            reflex="defend",
            skill="combat.approach",
            args={"entity_id": target.id, "name": target.name, "to": target.position.as_dict()},
            reason=plan.reason,
        )
    if plan.stance == "cover":
        return _cover(world, plan.away_from, plan.reason)
    fled = _flee(world, plan.away_from, plan.reason, flight=plan.stance == "flee")
    return fled if fled is None or taught is None else replace(fled, advice=taught)


def _eat_first(
    world: WorldView, now: float, memory: ChainState, tuned: Tuning, counted: Sequence[Entity]
) -> Decision | None:
    """Eat before the fight a lesson foresees (knob ``fight_food``): food below it, the
    nearest hostile that counts over :data:`FLEE_EAT_CLEAR` blocks away, food held."""
    food = world.food
    if not counted or food is None or food >= tuned.fight_food:
        return None
    if counted[0].distance <= FLEE_EAT_CLEAR or now - memory.last_eat < EAT_COOLDOWN:
        return None
    best = best_food(world.inventory.items, food)
    if best is None or best in KEPT_FOOD:
        return None
    mob = counted[0]
    why = (
        f"food {food} with a {mob.name} at {mob.distance:g} "
        f"(a lesson: eat below {tuned.fight_food:g} before a fight)"
    )
    return Decision(  # the eat reflex: any defence decided meanwhile pre-empts the meal
        reflex="eat", skill="survive.eat", args={"item": best}, reason=why,
        advice=tuned.lesson("fight_food"),
    )  # fmt: skip


def _cover(world: WorldView, archers: Sequence[Entity], reason: str) -> Decision:
    """Walk to a cell hidden from ``archers`` and the other archers in range, seen or not
    (the JS side searches the blocks), never next to the other hostiles in view."""
    every = {a.id: a for a in (*archers, *archers_in_range(world))}
    placed = [a.position for a in every.values() if a.position is not None]
    # none placed (spotted before any snapshot): the JS side hides from the archers it sees
    sources = [] if len(placed) < len(every) else [
        [round(p.x, 1), round(p.y, 1), round(p.z, 1)] for p in placed
    ]  # fmt: skip
    shooters = set(every)
    avoid = [
        [round(t.position.x, 1), round(t.position.z, 1)]
        for t in world.threats
        if t.id not in shooters and t.position is not None
    ]
    args = {"from": sources, "avoid": avoid, "radius": COVER_RADIUS}
    return Decision(reflex="defend", skill="survive.cover", args=args, reason=reason)


def _in_flight(world: WorldView, now: float, memory: ChainState) -> Decision:
    """Go on fleeing, eat on the way, or lie low until the flight is over."""
    pursuers = pursuing(world)
    hp = world.hp if world.hp is not None else 20.0
    food = 20 if world.food is None else world.food
    clear = all(e.distance > FLEE_EAT_CLEAR for e in pursuers)
    if hp < FLEE_EAT_HP and food < 20 and clear and now - memory.last_eat >= EAT_COOLDOWN:
        best = best_food(world.inventory.items, food)
        if best is not None:
            return Decision(
                reflex="defend", skill="survive.eat", args={"item": best},
                reason=f"eat in flight: hp {hp:g}, food {food}",
            )  # fmt: skip
    if pursuers:
        fled = _flee(world, pursuers, f"fleeing: {pursuers[0].name} at {pursuers[0].distance:g}")
        if fled is not None:
            return fled
    return Decision(reflex="defend", reason=f"lying low after a flight (safe at {SAFE_FOR:g} s)")
