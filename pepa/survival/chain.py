"""The reflex chain: one decision from (world, now, memory). Pure: no clock, no I/O.

Priority, highest first: operator goal > defend > escape > eat > sleep >
task > idle. The reflex actor calls :func:`decide` on every world change and
every tick, and pre-empts a running action when a higher reflex wins.

- **defend**: low health (≤ 8) with a hostile within 12 blocks, or 3+
  hostiles within 12 → flee along the away vector; else the closest hostile
  within 4 blocks → attack it.
- **escape**: no side to walk out of for 3 s (a pit, walls) → get out
  (pillar up on blocks, or dig).
- **eat**: food < 16 and something edible → the best food by
  :data:`FOOD_PRIORITY`, at most one attempt every 5 s.
- **sleep**: night, no hostile within 8, a bed within 16 → sleep; a refusal
  is retried after 30 s.
- **task**: the task slot (curriculum, or a skill an LLM suggested when idle).
- **idle**: nothing to do: look around now and then.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pepa.survival.taskslot import TaskSlot
from pepa.world.view import Entity, Vec3, WorldView

__all__ = ["ADVICE_ALTERNATIVES", "FOOD_PRIORITY", "PRIORITY", "Decision", "Memory", "decide"]

PRIORITY = {
    "operator": 60,
    "defend": 50,
    "escape": 45,
    "eat": 40,
    "sleep": 30,
    "task": 20,
    "idle": 0,
}
"""Higher pre-empts lower."""

LOW_HP = 8.0
FLEE_RADIUS = 12.0
ATTACK_RADIUS = 4.0
CROWD = 3
HUNGRY_BELOW = 16
EAT_COOLDOWN = 5.0
SLEEP_SAFE_RADIUS = 8.0
BED_RADIUS = 16.0
SLEEP_RETRY = 30.0
TRAPPED_AFTER = 3.0
TRAPPED_MOVED = 1.0
"""Blocks moved while enclosed that start the trapped clock again."""
MINING = ("gather.", "craft.")
"""Task skills that dig their way (into stone, through a tree's leaves): standing
enclosed in their own hole or canopy is not being trapped."""
MINING_GRACE = 20.0
"""Seconds enclosed before escaping while such a task runs (the watchdog covers worse)."""
FLEE_DISTANCE = 16.0
ADVICE_CONFIDENCE = 0.6
"""Lessons at or above this confidence change what the chain does."""
ADVICE_ALTERNATIVES: dict[str, tuple[str, ...]] = {
    "combat.attack-nearest": ("survive.flee", "survive.pillar-up"),
}
"""The only skills advice may run instead of a skill (a whitelist), safest first."""
NIGHT = (12541, 23458)
"""Ticks of the day when a bed can be used (mineflayer's and vanilla's window)."""

FOOD_PRIORITY = (
    "golden_carrot", "cooked_porkchop", "cooked_beef", "cooked_mutton", "cooked_salmon",
    "baked_potato", "cooked_chicken", "cooked_rabbit", "cooked_cod", "bread", "pumpkin_pie",
    "mushroom_stew", "rabbit_stew", "beetroot_soup", "apple", "carrot", "melon_slice",
    "sweet_berries", "cookie", "dried_kelp", "beetroot", "potato", "porkchop", "beef",
    "mutton", "rabbit", "salmon", "cod", "chicken", "tropical_fish", "golden_apple",
    "enchanted_golden_apple",
)  # fmt: skip
"""Best first: food points and saturation, raw meat after cooked, golden apples kept for last."""
STARVING_ONLY = ("rotten_flesh", "spider_eye", "poisonous_potato", "pufferfish")
"""Eaten only when food is at 6 or below and nothing else is left."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """What the bot should be doing now."""

    reflex: str
    """Which link of the chain won (``defend``, ``eat`` …)."""
    skill: str | None = None
    """The skill to run (``combat.attack-nearest`` …); None to do nothing."""
    args: Mapping[str, Any] = field(default_factory=dict)
    """The skill's arguments."""
    reason: str = ""
    """Why, in a few words (for logs and the dashboard)."""
    advice: tuple[str, str, str] | None = None
    """(skill, hostile, verdict) of the lesson that changed this decision, if one did."""

    @property
    def priority(self) -> int:
        """Rank in the chain."""
        return PRIORITY[self.reflex]


@dataclass(slots=True, kw_only=True)
class Memory:
    """What the chain remembers between decisions (owned by the reflex actor)."""

    slot: TaskSlot = field(default_factory=TaskSlot)
    """The operator's come/follow order and the task (curriculum or suggestion)."""
    last_eat: float = -math.inf
    """When the bot last tried to eat."""
    sleep_retry_at: float = -math.inf
    """No sleep attempt before this time (after a refusal)."""
    trapped_since: float | None = None
    """Since when no side has been open at the spot where the bot stands."""
    trapped_at: Vec3 | None = None
    """Where the bot stood when it was first seen enclosed."""
    sleeping: bool = False
    """Whether the bot lies in a bed."""
    advice: dict[tuple[str, str], dict[str, tuple[str, float]]] = field(default_factory=dict)
    """Lessons: (skill, hostile) → verdict → (alternative, confidence)."""

    def learn(
        self, skill: str, hostile: str, verdict: str, alternative: str, confidence: float
    ) -> None:
        """Take a lesson into account from now on."""
        self.advice.setdefault((skill, hostile), {})[verdict] = (alternative, confidence)

    def observe(self, world: WorldView, now: float) -> None:
        """Update the time-based parts from a new world view."""
        enclosure = world.enclosure
        trapped = world.connected and enclosure is not None and enclosure.open_sides == 0
        self.sleeping = world.sleeping
        here = world.position
        moved = (
            here is not None
            and self.trapped_at is not None
            and here.distance_to(self.trapped_at) >= TRAPPED_MOVED
        )
        if trapped and (self.trapped_since is None or moved):
            # a bot that works its way on through tight spaces is not stuck: the
            # clock starts again at each new spot
            self.trapped_since, self.trapped_at = now, here
        elif not trapped:
            self.trapped_since, self.trapped_at = None, None


def _best_food(items: Mapping[str, int], food: int) -> str | None:
    for name in FOOD_PRIORITY:
        if items.get(name, 0) > 0:
            return name
    if food <= 6:
        for name in STARVING_ONLY:
            if items.get(name, 0) > 0:
                return name
    return None


def _away(origin: Vec3, threats: Sequence[Entity]) -> dict[str, float]:
    """A point FLEE_DISTANCE blocks from ``origin``, directly away from the threats' centre."""
    placed = [t.position for t in threats if t.position is not None]
    if not placed:
        return {"x": origin.x + FLEE_DISTANCE, "y": origin.y, "z": origin.z}
    cx = sum(p.x for p in placed) / len(placed)
    cz = sum(p.z for p in placed) / len(placed)
    dx, dz = origin.x - cx, origin.z - cz
    norm = math.hypot(dx, dz)
    if norm < 1e-6:  # threats all around the same spot as the bot: pick a direction
        dx, dz, norm = 1.0, 0.0, 1.0
    return {
        "x": round(origin.x + dx / norm * FLEE_DISTANCE, 1),
        "y": origin.y,
        "z": round(origin.z + dz / norm * FLEE_DISTANCE, 1),
    }


def _advised(skill: str, hostile: str, memory: Memory) -> tuple[str, str] | None:
    """(verdict, skill to run instead) when a confident lesson changes ``skill``, else None.

    ``avoid`` backs the skill off: its whitelisted alternative runs, or the
    first one of the whitelist when the lesson names none; ``prefer`` runs the
    lesson's alternative, and only when the whitelist allows it.
    """
    allowed = ADVICE_ALTERNATIVES.get(skill, ())
    lessons = memory.advice.get((skill, hostile), {})
    for verdict, (alternative, confidence) in sorted(lessons.items(), key=lambda v: -v[1][1]):
        if confidence < ADVICE_CONFIDENCE or verdict not in ("avoid", "prefer"):
            continue
        if alternative in allowed:
            return verdict, alternative
        if verdict == "avoid" and allowed:
            return verdict, allowed[0]
    return None


def _is_night(time_of_day: int | None) -> bool:
    return time_of_day is not None and NIGHT[0] <= time_of_day <= NIGHT[1]


def decide(world: WorldView, now: float, memory: Memory) -> Decision:
    """The single decision of the reflex chain for this moment."""
    if not world.in_world:
        return Decision(reflex="idle", reason="not in the world")
    order = memory.slot.order
    if order is not None:
        skill = "nav.goto" if order.get("kind") == "come" else "nav.follow"
        return Decision(
            reflex="operator", skill=skill, args=dict(order), reason=f"{order.get('kind')} order"
        )
    threats = world.threats  # nearest first
    near = [t for t in threats if t.distance <= FLEE_RADIUS]
    hp = world.hp or 0.0
    position = world.position
    if near and position and (hp <= LOW_HP or len(near) >= CROWD):
        why = f"{len(near)} hostiles within {FLEE_RADIUS:g}" if len(near) >= CROWD else f"hp {hp:g}"
        return Decision(
            reflex="defend", skill="survive.flee", args={"to": _away(position, near)}, reason=why
        )
    if threats and threats[0].distance <= ATTACK_RADIUS:
        target = threats[0]
        advised = _advised("combat.attack-nearest", target.name, memory)
        if advised is not None and position:
            verdict, instead = advised
            return Decision(
                reflex="defend",
                skill=instead,
                args={"to": _away(position, near or threats[:1])}
                if instead == "survive.flee"
                else {},
                reason=f"lesson: {verdict} fighting {target.name}",
                advice=("combat.attack-nearest", target.name, verdict),
            )
        return Decision(
            reflex="defend",
            skill="combat.attack-nearest",
            args={"entity_id": target.id, "name": target.name},
            reason=f"{target.name} at {target.distance}",
        )
    task = memory.slot.task
    mining = task is not None and str(task.get("skill", "")).startswith(MINING)
    trapped_after = MINING_GRACE if mining else TRAPPED_AFTER
    if memory.trapped_since is not None and now - memory.trapped_since >= trapped_after:
        return Decision(reflex="escape", skill="survive.escape", reason="no way out on foot")
    food = 20 if world.food is None else world.food
    if food < HUNGRY_BELOW and now - memory.last_eat >= EAT_COOLDOWN:
        best = _best_food(world.inventory.items, food)
        if best is not None:
            return Decision(
                reflex="eat", skill="survive.eat", args={"item": best}, reason=f"food {food}"
            )
    if (
        _is_night(world.time_of_day)
        and not memory.sleeping
        and now >= memory.sleep_retry_at
        and not any(t.distance <= SLEEP_SAFE_RADIUS for t in threats)
    ):
        beds = [b for b in world.beds if b.distance <= BED_RADIUS]
        if beds:
            bed = min(beds, key=lambda b: b.distance)
            return Decision(
                reflex="sleep",
                skill="survive.sleep",
                args={"bed": {"x": bed.x, "y": bed.y, "z": bed.z}},
                reason="night",
            )
    if task is not None:
        return Decision(
            reflex="task",
            skill=str(task["skill"]),
            args=dict(task.get("args") or {}),
            reason=str(task.get("reason") or "task"),
        )
    return Decision(reflex="idle", reason="nothing to do")
