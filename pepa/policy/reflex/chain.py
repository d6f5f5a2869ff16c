"""The reflex chain: one decision from (world, now, memory). Pure: no clock, no I/O.

Priority, highest first: breathe > defend > escape > eat > operator order >
sleep > task > idle (an order never stops breathe, defend, escape or eat). The reflex actor
calls :func:`decide` on every world change and every tick, and pre-empts a
running action when a higher reflex wins.

- **breathe**: the head under water and the air at or below 8 of 20 (6 s left;
  the ``air_below`` knob) → swim up until the head is out and the air full
  (nothing below pre-empts it meanwhile: a fight under water drowns the bot).
- **defend**: the combat policy (:func:`pepa.policy.reflex.combat.assess`): fight
  the nearest, flee, back off from a creeper, close in on an archer; a
  flight, once begun, goes on while a hostile is within 20 blocks and for 3 s
  after (:data:`SAFE_DISTANCE`, :data:`SAFE_FOR`), eating on the way when low;
  cover from an archer, once taken, is kept while an archer is within its
  range and for :data:`SAFE_FOR` after (:data:`COVER_RETRY` after a search
  that found none).
- **escape**: no side to walk out of for 3 s (a pit, walls) → get out
  (pillar up on blocks, or dig).
- **eat**: food < 16 and something edible → the best food by
  :data:`FOOD_PRIORITY`, at most one attempt every 5 s.
- **sleep / night** (:mod:`pepa.policy.reflex.night`): from dusk, eat to a full
  bar, then a bed within 16 (once it can be used, no hostile within 8; a
  refusal is retried after 30 s, a shelter meanwhile), else a shelter walled
  in round the bot, waited in until full day with no hostile near and dug
  out of then (a failed way out is retried after 30 s).
- **stock**: only with a ``night_food`` lesson: short of food before the night plan begins
  → hunt (:func:`_stock_up`).
- **task**: the task slot (curriculum, or a skill an LLM suggested when idle).
- **idle**: nothing to do: look around now and then.

Lessons turn the knobs each link reads (:mod:`pepa.policy.reflex.knobs`): defend the fight knobs
and ``fight_food`` (a meal before a foreseen fight, as the eat reflex), breathe
``air_below``, eat ``eat_below``, the night ``dusk_lead``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pepa.policy.reflex import combat, night
from pepa.policy.reflex.advice import ADVICE_ALTERNATIVES, Lessons
from pepa.policy.reflex.food import FOOD_PRIORITY, KEPT_FOOD, best_food, food_held
from pepa.policy.reflex.knobs import KNOBS, Tuning
from pepa.policy.reflex.night import DUSK
from pepa.policy.reflex.taskslot import TaskSlot
from pepa.world.view import Entity, Vec3, WorldView

__all__ = ["ADVICE_ALTERNATIVES", "FOOD_PRIORITY", "PRIORITY", "ChainState", "Decision", "decide"]

PRIORITY = {
    "breathe": 55,
    "defend": 50,
    "escape": 45,
    "eat": 40,
    "operator": 35,
    "sleep": 30,
    "night": 30,
    "stock": 25,
    "task": 20,
    "idle": 0,
}
"""Higher pre-empts lower."""

SAFE_DISTANCE = 20.0
"""A flight goes on while a hostile is this close (a zombie's follow range is 35, but one
out of sight for 3 s gives up: vanilla NearestAttackableTargetGoal's 60 unseen ticks)."""
SAFE_FOR = 3.0
"""Seconds with no hostile within :data:`SAFE_DISTANCE` before a flight ends and tasks resume."""
FLEE_EAT_HP = 12.0
"""Below this health a bot in flight eats when nothing is within :data:`FLEE_EAT_CLEAR`."""
FLEE_EAT_CLEAR = 6.0
"""Eating takes 1.6 s (32 ticks), in which a zombie closes 3.7 blocks (2.28 blocks/s)."""
BACK_OFF = 8.0
"""Blocks a back-off from a creeper runs (a lit fuse goes out beyond 7)."""
AIR_BELOW = 8
"""Air (of 20; 0.75 s a point) at or below which the bot swims up: 6 s, 12 blocks of swimming up
at about 2 blocks a second (prismarine-physics: jump in water +0.04 a tick, drag 0.8)."""
HUNGRY_BELOW = 16
EAT_COOLDOWN = 5.0
TRAPPED_AFTER = 3.0
TRAPPED_MOVED = 1.0
"""Blocks moved while enclosed that start the trapped clock again."""
MINING = ("gather.", "craft.")
"""Task skills that dig their way (into stone, through a tree's leaves): standing
enclosed in their own hole or canopy is not being trapped."""
MINING_GRACE = 20.0
"""Seconds enclosed before escaping while such a task runs (the watchdog covers worse)."""
STOCK_LEAD = 3000
"""Ticks before the night plan begins in which a bot short of the food a lesson wants for the
night hunts (knob ``night_food``): two and a half minutes of a 20-minute day."""
FLEE_DISTANCE = 16.0
COVER_RADIUS = 6.0
"""Blocks from the bot a cell hidden from the archers may be (a second or two of walking)."""
COVER_HOLD = 15.0
"""Seconds in cover with no archer seeing the bot after which cover ends though an archer is
still in range: one that cannot see the bot (behind a wall, in a cave below) must not hold
back eating, the night's shelter and the task for good; once it sees the bot again, cover is
taken again."""
COVER_RETRY = 5.0
"""Seconds after a cover search that ended in sight of an archer before another is made
(a search that ended hidden may be made again at once: the archer came round)."""


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
    advice: tuple[str, str, str, str] | None = None
    """(skill, hostile, verdict, situation signature) of the lesson that changed this decision,
    if one did."""

    @property
    def priority(self) -> int:
        """Rank in the chain."""
        return PRIORITY[self.reflex]


@dataclass(slots=True, kw_only=True)
class ChainState:
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
    struck_creeper_at: float = -math.inf
    """When the bot last swung at a creeper (it backs off after each strike)."""
    flight_since: float | None = None
    """Since when the bot has been fleeing; None when it is not."""
    clear_since: float | None = None
    """Since when, in a flight, no hostile has been within :data:`SAFE_DISTANCE`."""
    cover_since: float | None = None
    """Since when the bot has kept to cover from archers; None when it does not."""
    cover_tried_at: float = -math.inf
    """When the bot last set out for cover."""
    hidden_at: float = -math.inf
    """When, in cover, no archer within range last saw the bot."""
    archers_gone_since: float | None = None
    """Since when, in cover, no archer has been within range."""
    unseen_since: float | None = None
    """Since when, in cover, no archer in range has seen the bot."""
    shelter: Vec3 | None = None
    """Where the bot walled itself in for the night (:func:`night.shelter_spot`); None when out."""
    night_retry_at: float = -math.inf
    """No shelter attempt before this time (after one failed)."""
    stock_retry_at: float = -math.inf
    """No hunt for the night before this time (after one failed: knob ``night_food``)."""
    morning_retry_at: float = -math.inf
    """No way out of the shelter tried before this time (after one failed)."""
    ways_out_failed: int = 0
    """Ways out of the shelter that failed in a row (the reflex actor gives up at WAYS_OUT)."""
    lessons: Lessons = field(default_factory=Lessons)
    """The lessons in force, by skill and situation (:mod:`pepa.policy.reflex.advice`)."""

    def learn(
        self, skill: str, hostile: str, verdict: str, alternative: str, confidence: float,
        signature: str = "",
    ) -> None:  # fmt: skip
        """Take a lesson into account from now on (:meth:`Lessons.learn`)."""
        self.lessons.learn(skill, hostile, verdict, alternative, confidence, signature)

    def tuning(
        self, world: WorldView, mob: str | None = None, names: Iterable[str] = KNOBS
    ) -> Tuning:
        """The policy's knobs for the present (:meth:`Lessons.tuning`)."""
        return self.lessons.tuning(world, mob, names)

    def started(self, decision: Decision, now: float) -> None:
        """Remember what the chain needs of a skill the reflex actor has just started."""
        if decision.skill == "survive.eat":
            self.last_eat = now
        elif decision.skill == "combat.attack-nearest" and decision.args.get("name") == "creeper":
            self.struck_creeper_at = now
        elif decision.skill == "survive.flee" and decision.args.get("flight"):
            self.clear_since = None
            if self.flight_since is None:
                self.flight_since = now
        elif decision.skill == "survive.cover":
            self.cover_tried_at, self.archers_gone_since = now, None
            if self.cover_since is None:
                self.cover_since = now

    def may_cover(self, now: float) -> bool:
        """Whether a search for cover may be made now (not just after one that found none)."""
        return now - self.cover_tried_at >= COVER_RETRY or self.hidden_at >= self.cover_tried_at

    def in_cover(self) -> bool:
        """Whether the bot keeps to cover (an archer in range, or gone for under SAFE_FOR)."""
        return self.cover_since is not None

    def observe(self, world: WorldView, now: float) -> None:
        """Update the time-based parts from a new world view."""
        self._follow_flight(world, now)
        self._follow_cover(world, now)
        enclosure = world.enclosure
        lead = self.tuning(world, names=("dusk_lead",)).dusk_lead
        self.shelter = night.shelter_spot(world, self.shelter, lead)
        trapped = (
            world.connected
            and enclosure is not None
            and enclosure.open_sides == 0
            and not night.resting(world, self.shelter, lead)  # by night walls are a shelter
        )
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

    def _follow_flight(self, world: WorldView, now: float) -> None:
        """A flight ends once no hostile has been within SAFE_DISTANCE for SAFE_FOR seconds."""
        if self.flight_since is None:
            return
        if not world.in_world:
            self.flight_since = self.clear_since = None
        elif _pursuers(world):
            self.clear_since = None
        elif self.clear_since is None:
            self.clear_since = now
        elif now - self.clear_since >= SAFE_FOR:
            self.flight_since = self.clear_since = None

    def _follow_cover(self, world: WorldView, now: float) -> None:
        """Cover ends once no archer has been within its range for SAFE_FOR seconds."""
        if self.cover_since is None:
            return
        archers = _archers(world)
        if not world.in_world:
            self.cover_since = self.archers_gone_since = self.unseen_since = None
        elif archers:
            self.archers_gone_since = None
            if all(a.sight is False for a in archers):
                self.hidden_at = now
                self.unseen_since = self.unseen_since if self.unseen_since is not None else now
                if now - self.unseen_since >= COVER_HOLD:
                    self.cover_since = self.unseen_since = None
            else:
                self.unseen_since = None
        elif self.archers_gone_since is None:
            self.archers_gone_since = now
        elif now - self.archers_gone_since >= SAFE_FOR:
            self.cover_since = self.archers_gone_since = None


def _archers(world: WorldView) -> tuple[Entity, ...]:
    """Archers within their range, seen or not."""
    return tuple(
        e
        for e in world.entities
        if e.hostile and combat.is_archer(e) and e.distance <= combat.ARCHER_RANGE
    )


def _pursuers(world: WorldView) -> tuple[Entity, ...]:
    """Hostiles within SAFE_DISTANCE (the view's threats stop at 16: these go on to 20)."""
    return tuple(e for e in world.entities if e.hostile and e.distance <= SAFE_DISTANCE)


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


def _defend(world: WorldView, now: float, memory: ChainState) -> Decision | None:
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
    if plan is None:
        meal = _eat_first(world, now, memory, tuned, counted)
        if meal is not None:
            return meal
        if memory.in_cover():  # an archer in range that does not see the bot: stay put
            archers = _archers(world)
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


def _breathe(world: WorldView, memory: ChainState) -> Decision | None:
    """The breathe link: the head under water and the air at or below the ``air_below`` knob
    (default :data:`AIR_BELOW`) → swim up."""
    air = world.air
    if not world.head_in_water or air is None or air >= 20:
        return None
    taught = None
    if air > AIR_BELOW:  # a lesson may have the bot come up sooner
        tuned = memory.tuning(world, names=("air_below",))
        taught = tuned.lesson("air_below") if air <= tuned.air_below else None
        if taught is None:
            return None
    why = f"air {air} of 20 under water"
    if taught is not None:
        why += f" (a lesson: up at {tuned.air_below:g})"
    return Decision(reflex="breathe", skill="survive.surface", reason=why, advice=taught)


def _cover(world: WorldView, archers: Sequence[Entity], reason: str) -> Decision:
    """Walk to a cell hidden from ``archers`` and the other archers in range, seen or not
    (the JS side searches the blocks), never next to the other hostiles in view."""
    every = {a.id: a for a in (*archers, *_archers(world))}
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
    pursuers = _pursuers(world)
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


def _stock_up(world: WorldView, tuned: Tuning) -> Decision | None:
    """Hunt for the night: in the :data:`STOCK_LEAD` ticks before the night plan begins, with
    fewer pieces of food held than a lesson wants (knob ``night_food``) and no bed near (a
    night slept through costs no food; a hunt would lead the bot away from the bed). Its
    own reflex, ``stock``: above the task, below the night, which stops it at dusk."""
    want = tuned.night_food
    time = world.time_of_day
    if want <= 0 or time is None or any(b.distance <= night.BED_RADIUS for b in world.beds):
        return None
    begins = DUSK - tuned.dusk_lead
    if not begins - STOCK_LEAD <= time % 24000 < begins:
        return None
    held = food_held(world.inventory.items)
    if held >= want:
        return None
    why = f"{held} food for the night (a lesson: {want:g} before dusk)"
    taught = tuned.lesson("night_food")
    return Decision(reflex="stock", skill="food.hunt", reason=why, advice=taught)


def decide(world: WorldView, now: float, memory: ChainState) -> Decision:
    """The single decision of the reflex chain for this moment."""
    if not world.in_world:
        return Decision(reflex="idle", reason="not in the world")
    breath = _breathe(world, memory)
    if breath is not None:
        return breath
    defence = _defend(world, now, memory)
    if defence is not None:
        return defence
    task = memory.slot.task
    mining = task is not None and str(task.get("skill", "")).startswith(MINING)
    trapped_after = MINING_GRACE if mining else TRAPPED_AFTER
    if memory.trapped_since is not None and now - memory.trapped_since >= trapped_after:
        return Decision(reflex="escape", skill="survive.escape", reason="no way out on foot")
    food = 20 if world.food is None else world.food
    fed = now - memory.last_eat >= EAT_COOLDOWN
    if HUNGRY_BELOW <= food < 20 and fed:  # a lesson may have the bot eat sooner
        tuned = memory.tuning(world, names=("eat_below",))
        taught = tuned.lesson("eat_below") if food < tuned.eat_below else None
    else:
        taught = None
    if (food < HUNGRY_BELOW or taught is not None) and fed:
        best = best_food(world.inventory.items, food)
        if best is not None:
            why = f"food {food}" + (f" (a lesson: eat below {tuned.eat_below:g})" if taught else "")
            return Decision(
                reflex="eat", skill="survive.eat", args={"item": best}, reason=why, advice=taught
            )
    order = memory.slot.order
    if order is not None:  # below defend, escape and eat: an order never stops them
        skill = "nav.goto" if order.get("kind") == "come" else "nav.follow"
        return Decision(
            reflex="operator", skill=skill, args=dict(order), reason=f"{order.get('kind')} order"
        )
    supper = best_food(world.inventory.items, food) if fed else None
    dusk = memory.tuning(world, names=("dusk_lead", "night_food"))
    lead = dusk.dusk_lead
    step = night.plan(
        world,
        shelter=memory.shelter,
        food=None if supper in (None, *KEPT_FOOD) else supper,
        may_sleep=now >= memory.sleep_retry_at,
        may_shelter=now >= memory.night_retry_at,
        task=task,
        may_leave=now >= memory.morning_retry_at,
        lead=lead,
    )
    if step is not None:  # a task mined under cover stays the task (the slot drops it when done)
        reflex = {"sleep": "sleep", "eat": "eat", "mine": "task"}.get(step.kind, "night")
        time = world.time_of_day
        early = time is not None and DUSK - lead <= time % 24000 < DUSK  # (empty with no lead)
        taught = dusk.lesson("dusk_lead") if early else None
        why = step.reason + (f" (a lesson: {lead:g} ticks before dusk)" if taught else "")
        return Decision(reflex=reflex, skill=step.skill, args=step.args, reason=why, advice=taught)
    stock = _stock_up(world, dusk) if now >= memory.stock_retry_at else None
    if stock is not None:
        return stock
    if task is not None:
        return Decision(
            reflex="task",
            skill=str(task["skill"]),
            args=dict(task.get("args") or {}),
            reason=str(task.get("reason") or "task"),
        )
    return Decision(reflex="idle", reason="nothing to do")
