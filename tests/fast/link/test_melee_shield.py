"""Critical hits and the shield, decided in pure JS (``pepa/link/js/melee.js``: ``critPlan``,
``guardWanted``, ``rechargeMs``), checked through node with no server."""

from __future__ import annotations

import json
from typing import Any

from pepa.link.minecraft import BOT_JS
from tests.js import run_node

MELEE = BOT_JS / "melee.js"

DECIDE = r"""
const m = require(process.argv[1])
const cases = JSON.parse(process.argv[2])
const out = cases.map(([fn, arg]) => fn === 'rechargeMs' ? m.rechargeMs(arg) : m[fn](arg))
process.stdout.write(JSON.stringify(out))
"""


def decide(*cases: tuple[str, Any]) -> list[Any]:
    """Each (function, argument) of melee.js's pure decisions, in one node run."""
    return list(run_node(DECIDE, str(MELEE), json.dumps(cases)))


READY: dict[str, Any] = {
    "first": False, "onGround": True, "inWater": False, "inLava": False, "climbing": False,
    "sprinting": False, "distance": 2.5, "othersNear": 0,
}  # fmt: skip
"""A later swing at a target in reach, standing on open ground, alone with it: a crit jump."""


def test_a_crit_jump_only_for_a_later_swing_on_the_ground_in_reach_and_alone() -> None:
    costly: list[dict[str, Any]] = [
        {"first": True},  # the hot path: the first swing is never delayed
        {"onGround": False},
        {"inWater": True},
        {"inLava": True},
        {"climbing": True},
        {"sprinting": True},  # vanilla: no crit while sprinting
        {"distance": 4.5},  # out of reach
        {"othersNear": 1},  # another hostile next to the bot: no time in the air
    ]
    plans = decide(("critPlan", READY), *(("critPlan", {**READY, **c}) for c in costly))
    assert plans == ["jump"] + ["swing"] * len(costly)


GUARD: dict[str, Any] = {
    "hasShield": True, "busy": False, "digging": False, "sprinting": False, "moving": False,
    "meleeInReach": True, "sinceSwingMs": 200, "archerSees": False, "archerDrawing": False,
}  # fmt: skip
"""A zombie in reach, the sword recharging from a swing 0.2 s ago: shield up."""

ARCHER: dict[str, Any] = {**GUARD, "meleeInReach": False, "sinceSwingMs": 5000, "archerSees": True}
"""A skeleton in range sees the bot, which stands: shield up."""


def test_the_shield_is_up_between_swings_and_before_arrows_never_in_flight_or_at_a_meal() -> None:
    cases = [
        (GUARD, True),
        ({**GUARD, "sinceSwingMs": 5000}, False),  # a zombie near, but no fight under way
        ({**GUARD, "hasShield": False}, False),
        ({**GUARD, "sprinting": True}, False),  # blocking slows the player to a fifth
        ({**GUARD, "busy": True}, False),  # a flight or a meal
        ({**GUARD, "digging": True}, False),
        (ARCHER, True),
        ({**ARCHER, "moving": True}, False),  # walking up to it: the shield would slow it
        ({**ARCHER, "moving": True, "sprinting": True, "archerDrawing": True}, True),  # stop
        ({**ARCHER, "busy": True, "archerDrawing": True}, False),  # never in a flight
    ]
    wanted = decide(*(("guardWanted", c) for c, _ in cases))
    assert wanted == [w for _, w in cases]


def test_any_movement_key_held_counts_as_moving_and_keeps_the_shield_down() -> None:
    """centre() and a flight steer by hand, with no path: a held key is a walk all the same."""
    keys = ["forward", "back", "left", "right", "jump", "sprint", "sneak"]
    held = decide(*(("moving", {k: True}) for k in keys))
    assert held == [True] * len(keys)
    assert decide(("moving", {}), ("moving", {k: False for k in keys})) == [False, False]
    assert decide(("guardWanted", {**ARCHER, "moving": True})) == [False]


GUARD_TICKS = r"""
const EventEmitter = require('events')
const { Vec3 } = require('vec3')
const { createMelee } = require(process.argv[1])
const bot = new EventEmitter()
const controls = {}
bot.entity = { position: new Vec3(0.5, 64, 0.5), onGround: true }
const skeleton = {
  id: 2, name: 'skeleton', height: 1.99, position: new Vec3(8.5, 64, 0.5), metadata: {}
}
bot.entities = { 1: bot.entity, 2: skeleton }
bot.inventory = { slots: { 45: { name: 'shield' } } }
bot.getControlState = (c) => !!controls[c]
bot.setControlState = (c, v) => { controls[c] = v }
bot.pathfinder = { isMoving: () => false }
const log = []
bot.activateItem = () => log.push('raise')
bot.deactivateItem = () => log.push('lower')
bot.lookAt = () => { log.push('look'); return Promise.resolve() }
bot.blockAt = () => null
const melee = createMelee(bot, {
  hostile: (e) => e.name === 'skeleton', sees: () => true, bestWeapon: () => null
})
const tick = () => { log.length = 0; bot.emit('physicsTick'); return [...log] }
const flush = () => new Promise((resolve) => setImmediate(resolve))
;(async () => {
  const out = {}
  controls.forward = true; controls.sneak = true // centre(): a walk by hand
  out.byHand = tick()
  controls.forward = false; controls.sneak = false
  let endA, endB
  melee.suspend(new Promise((resolve) => { endA = resolve }))
  // overlapping: a craft's placement in a shelter
  melee.suspend(new Promise((resolve) => { endB = resolve }))
  skeleton.metadata[7] = 1 // it draws its bow
  controls.forward = true
  out.suspended = tick()
  out.walkKept = controls.forward // an action's walk is not halted for the arrow
  controls.forward = false
  endA(); await flush()
  out.oneLeft = tick()
  endB(); await flush()
  out.free = tick()
  process.stdout.write(JSON.stringify(out))
})()
"""


def test_while_an_action_is_suspended_the_guard_neither_raises_nor_turns_the_bot() -> None:
    """An archer sees the bot and draws: while any of two overlapping actions runs the guard
    leaves the shield down, the bot's head and its keys alone; after both it guards."""
    out = run_node(GUARD_TICKS, str(MELEE))
    assert out["byHand"] == []
    assert out["suspended"] == [] and out["walkKept"] is True
    assert out["oneLeft"] == []
    assert out["free"] == ["raise", "look"]


def test_a_crit_waits_for_the_weapon_to_recharge_past_nine_tenths() -> None:
    # vanilla: strength (ticks + 0.5) / (20 / speed) > 0.9, plus one tick of margin
    sword, axe, fist = decide(
        ("rechargeMs", "stone_sword"), ("rechargeMs", "stone_axe"), ("rechargeMs", None)
    )
    assert (sword, axe, fist) == (12 * 50, 24 * 50, 6 * 50)
