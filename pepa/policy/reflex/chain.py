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
  after (:mod:`pepa.policy.reflex.defend`), eating on the way when low;
  cover from an archer, once taken, is kept while an archer is within its
  range and for the same after (a while after a search
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

from pepa.policy.reflex import night
from pepa.policy.reflex.advice import ADVICE_ALTERNATIVES
from pepa.policy.reflex.decision import EAT_COOLDOWN, PRIORITY, ChainState, Decision
from pepa.policy.reflex.defend import defend
from pepa.policy.reflex.food import FOOD_PRIORITY, KEPT_FOOD, best_food, food_held
from pepa.policy.reflex.knobs import Tuning
from pepa.policy.reflex.night import DUSK
from pepa.world.view import WorldView

__all__ = ["ADVICE_ALTERNATIVES", "FOOD_PRIORITY", "PRIORITY", "ChainState", "Decision", "decide"]


AIR_BELOW = 8
"""Air (of 20; 0.75 s a point) at or below which the bot swims up: 6 s, 12 blocks of swimming up
at about 2 blocks a second (prismarine-physics: jump in water +0.04 a tick, drag 0.8)."""
HUNGRY_BELOW = 16
TRAPPED_AFTER = 3.0
MINING = ("gather.", "craft.", "base.build-home", "farm.")
"""Task skills that dig their way (into stone, through a tree's leaves; a home's stone and
wood, a field's seeds and hoe): standing enclosed in their own hole or canopy is not being
trapped."""
MINING_GRACE = 20.0
"""Seconds enclosed before escaping while such a task runs (the watchdog covers worse)."""
STOCK_LEAD = 3000
"""Ticks before the night plan begins in which a bot short of the food a lesson wants for the
night hunts (knob ``night_food``): two and a half minutes of a 20-minute day."""


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
    defence = defend(world, now, memory)
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
        home=memory.home if now >= memory.home_retry_at else None,
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
