'use strict'
// firstblow.js — the first blow at a hostile, struck in the bridge the moment it comes in
// reach (required by bot_helper.js).
//
// Python's reflex chain decides every swing; the first one at a hostile it decides ahead of
// time. It arms the bridge with the kinds it would strike at once were one to appear in
// reach now (pepa/policy/reflex/firstblow.py: the chain asked about a hostile that is not there,
// again whenever the bot's state changes), and the bridge strikes on the spawn or the move
// that brings one in: the same call the reflex would make (attack with stop first: what
// ran stops, the swing goes out at once), without the five hand-offs to Python and back.
// It tells Python at once ('firstBlow'), and the reflex goes on with the fight as if it had
// swung. One first blow per hostile; none while the bot is in a melee (it swung within
// ENGAGED_MS at a target still there, or a crit is under way: the reflex's own cadence rules
// there; a fight that ended with its target gone is no melee); none once dead.

const { ENGAGED_MS } = require('./melee')

// Pure: whether to strike now. s: { reach (the armed reach for its kind, or undefined),
// distance (feet to feet, or null), struck (this one had its first blow), sinceSwingMs,
// lastTargetHere (the last swing's target is still in the bot's world), striking (a crit
// under way), alive, asArmed (the bot's health and food are those the arming was decided
// on: the bridge hears of a blow or a meal before the reflex does, and a bot at 6 hp armed
// at 20 must leave the choice to the chain, which flees) }
function strikeNow (s) {
  if (s.reach === undefined || s.reach === null || s.distance === null || s.distance === undefined) return false
  if (s.struck || !s.alive || !s.asArmed || s.striking) return false
  if (s.sinceSwingMs < ENGAGED_MS && s.lastTargetHere) return false
  return s.distance <= s.reach
}

// bot: the mineflayer bot; hostile(e): the bridge's own test; melee: melee.js's (its state);
// strike(id): the swing with stop first (bot_helper's api.attack); emit: to Python
function createFirstBlow (bot, { hostile, melee, strike, emit }) {
  let reach = new Map() // hostile name -> reach in blocks, as the reflex armed it
  let armedAt = { hp: null, food: null } // the health and food the arming was decided on
  const struck = new Set() // ids that had their first blow (forgotten when they go)

  // arm([[name, reach], ...], hp, food): the kinds to strike first from now on, while the
  // bot's health and food are these ([] disarms)
  function arm (pairs, hp, food) {
    const next = new Map()
    for (const p of pairs || []) {
      const r = Number(p && p[1])
      if (p && typeof p[0] === 'string' && Number.isFinite(r) && r > 0) next.set(p[0], r)
    }
    reach = next
    armedAt = { hp: Number(hp), food: Number(food) }
    return true // taken (a disarm too: Python reads the answer as the call's success)
  }
  const asArmed = () => Math.abs(bot.health - armedAt.hp) < 1e-6 && bot.food === armedAt.food

  // consider(e): strike it if it is armed for and in reach; true when it struck
  function consider (e) {
    if (reach.size === 0 || !e || e === bot.entity || !e.position || !bot.entity || !bot.entity.position) return false
    const r = reach.get(e.name)
    if (r === undefined || !hostile(e)) return false
    const m = melee.state()
    const distance = e.position.distanceTo(bot.entity.position)
    const go = strikeNow({
      reach: r,
      distance,
      struck: struck.has(e.id),
      sinceSwingMs: Date.now() - m.lastSwing,
      lastTargetHere: m.lastTarget !== null && !!bot.entities[m.lastTarget],
      striking: m.striking,
      alive: bot.health > 0,
      asArmed: asArmed()
    })
    if (!go) return false
    struck.add(e.id)
    if (!strike(e.id)) return false
    emit({ type: 'firstBlow', id: e.id, name: e.name, distance: Math.round(distance * 10) / 10 })
    return true
  }

  bot.on('entitySpawn', consider)
  bot.on('entityMoved', (e) => { if (reach.size) consider(e) })
  bot.on('entityGone', (e) => struck.delete(e.id))
  bot.on('death', () => { reach = new Map() }) // a new life is armed by the reflex anew

  return { arm, consider, armed: () => [...reach.entries()] }
}

module.exports = { createFirstBlow, strikeNow }
