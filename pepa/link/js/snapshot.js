'use strict'
// The snapshot: the whole world as the bot sees it, built in JS and handed to Python as one
// JSON string (bot_helper.js's rule: a read is one call, not a round trip per field).
const { performance } = require('perf_hooks')
const breath = require('./breath')
const { contactOf } = require('./contact')
const { WORN_SLOTS } = require('./context')
const { r1, r2, vxyz, hostile, creature, entityInfo } = require('./plain')

const SIGHT_RADIUS = 24 // hostiles this close are marked with whether they see the bot (cover.js)

function snapshot (ctx, entityRadius) {
  const { bot } = ctx
  const me = bot.entity
  const pos = me && me.position
  const ents = []
  if (pos) {
    for (const id in bot.entities) {
      const e = bot.entities[id]
      if (e === me || !e.position || !creature(e)) continue
      const d = pos.distanceTo(e.position)
      if (d > entityRadius) continue
      const info = entityInfo(e, pos)
      // sight: whether it sees the bot's eyes (a skeleton shoots only then); 6-19 us a mob
      if (d <= SIGHT_RADIUS && hostile(e)) info.sight = ctx.cover.seesBot(e)
      ents.push(info)
    }
    ents.sort((a, b) => a.distance - b.distance)
  }
  const counts = {}
  const items = []
  const worn = []
  let empty = 0
  const inv = bot.inventory
  if (inv) {
    for (let s = inv.inventoryStart; s < inv.inventoryEnd; s++) {
      const it = inv.slots[s]
      if (!it) { empty++; continue }
      counts[it.name] = (counts[it.name] || 0) + it.count
      items.push({ slot: s, name: it.name, count: it.count })
    }
    // worn armour and the off-hand count as held too (a milestone's chestplate is worn)
    for (const s of WORN_SLOTS) {
      const it = inv.slots[s]
      if (it) { counts[it.name] = (counts[it.name] || 0) + it.count; worn.push(it.name) }
    }
  }
  return {
    t: Date.now(),
    enclosure: pos ? ctx.enclosure(pos) : null,
    contact: pos ? contactOf(bot, pos) : null, // the blocks under, in and beside the bot (contact.js)
    beds: pos && bot.time && !bot.time.isDay ? nearbyBeds(ctx, pos, 16) : [],
    connected: !!(bot._client && bot._client.socket && !bot._client.socket.destroyed && bot.entity),
    username: bot.username,
    alive: bot.isAlive,
    hp: bot.health,
    food: bot.food,
    saturation: bot.foodSaturation,
    position: vxyz(pos),
    yaw: me ? r2(me.yaw) : null,
    dimension: bot.game ? bot.game.dimension : null,
    gameMode: bot.game ? bot.game.gameMode : null,
    timeOfDay: bot.time ? bot.time.timeOfDay : null,
    isDay: bot.time ? bot.time.isDay : null,
    moving: bot.pathfinder ? bot.pathfinder.isMoving() : false,
    sleeping: !!bot.isSleeping,
    air: breath.airOf(bot),
    headInWater: breath.headInWater(bot),
    heldItem: bot.heldItem ? bot.heldItem.name : null,
    entities: ents,
    inventory: { counts, items, emptySlots: empty },
    worn
  }
}

// the beds within `radius` blocks (at most 8), the nearest first
function nearbyBeds (ctx, pos, radius) {
  const { bot } = ctx
  const ids = bot.registry.blocksArray.filter(b => b.name.endsWith('_bed')).map(b => b.id)
  return ctx.finder.findBlocks({ matching: ids, maxDistance: radius, count: 8 })
    .map(p => ({ x: p.x, y: p.y, z: p.z, distance: r1(pos.distanceTo(p)) }))
}

// sightCost(n): milliseconds n sight checks of every hostile in SIGHT_RADIUS take (benchmark)
function sightCost (ctx, n) {
  const { bot } = ctx
  const mobs = Object.values(bot.entities).filter(e => e !== bot.entity && e.position && hostile(e) &&
    e.position.distanceTo(bot.entity.position) <= SIGHT_RADIUS)
  const t0 = performance.now()
  for (let i = 0; i < n; i++) for (const e of mobs) ctx.cover.seesBot(e)
  return JSON.stringify({ mobs: mobs.length, ms: performance.now() - t0 })
}

module.exports = { snapshot, sightCost }
