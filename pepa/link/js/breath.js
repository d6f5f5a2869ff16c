'use strict'
// Air: whether the bot's head is under water, how much air it has left, and coming up for it.
//
// mineflayer keeps the air supply the server sends (entity metadata 1) as
// bot.oxygenLevel, 0 to 20 (each point 15 of vanilla's 300 ticks: 0.75 s); the
// head counts as under water when the block at eye height is water or a water plant.
const { Vec3 } = require('vec3')

const WATERY = new Set(['water', 'bubble_column', 'kelp', 'kelp_plant', 'seagrass', 'tall_seagrass'])
const EYE = 1.62 // a standing player's eye height
const FULL = 20
const GIVE_UP_MS = 12000 // a swim up that long is not going to end (a roof over the water)
const LOOK = 6 // blocks round the bot searched for a column with air over its water

function headInWater (bot) {
  const me = bot.entity
  if (!me || !me.position) return false
  const head = bot.blockAt(me.position.offset(0, EYE, 0))
  return !!(head && WATERY.has(head.name))
}

function airOf (bot) {
  return typeof bot.oxygenLevel === 'number' ? bot.oxygenLevel : null
}

// The nearest column within LOOK blocks whose water reaches up to air from the bot's height,
// { dx, dz, distance }; the bot's own column first. null when none is found (a roof overall).
function openColumn (bot) {
  const here = bot.entity.position.floored()
  let best = null
  for (let dx = -LOOK; dx <= LOOK; dx++) {
    for (let dz = -LOOK; dz <= LOOK; dz++) {
      const d = Math.hypot(dx, dz)
      if (d > LOOK || (best && d >= best.distance)) continue
      for (let y = here.y + 1; y <= here.y + 48; y++) {
        const b = bot.blockAt(new Vec3(here.x + dx, y, here.z + dz))
        if (!b) break
        if (b.name === 'air' || b.name === 'cave_air') { best = { dx, dz, distance: d }; break }
        if (!WATERY.has(b.name)) break
      }
    }
  }
  return best
}

// Swim up until the head is out of the water and the air is full again, holding jump
// (and walking to the nearest column open to the sky when a block is over the head).
// Resolves with { air, position }; rejects when `stopped()` throws or after GIVE_UP_MS.
function surface (bot, stopped) {
  const column = openColumn(bot)
  const from = bot.entity.position.floored()
  // the open column's centre, fixed from where the swim began (not moved along with the bot)
  const target = column && (column.dx !== 0 || column.dz !== 0)
    ? { x: from.x + column.dx + 0.5, z: from.z + column.dz + 0.5 }
    : null
  const start = Date.now()
  return new Promise((resolve, reject) => {
    const end = (err, value, keepControls) => {
      bot.removeListener('physicsTick', tick)
      if (!keepControls) { // stopped: the next action may already hold its own keys
        bot.setControlState('jump', false)
        bot.setControlState('forward', false)
      }
      if (err) reject(err); else resolve(value)
    }
    const tick = () => {
      try { stopped() } catch (e) { return end(e, null, true) }
      if (!bot.entity || bot.health <= 0) return end(new Error('died under water'))
      const under = headInWater(bot)
      const air = airOf(bot)
      if (!under && (air === null || air >= FULL)) return end(null, { air, position: bot.entity.position })
      if (Date.now() - start > GIVE_UP_MS) return end(new Error(column ? 'still under water' : 'no open water over the bot'))
      bot.setControlState('jump', true)
      if (target) { // under a roof: to the open column, until the head is out
        const p = bot.entity.position
        const far = under && Math.hypot(target.x - p.x, target.z - p.z) > 0.3
        if (far) bot.lookAt(new Vec3(target.x, p.y + EYE, target.z), true).catch(() => {})
        bot.setControlState('forward', far)
      }
    }
    bot.on('physicsTick', tick)
  })
}

module.exports = { WATERY, EYE, headInWater, airOf, surface }
