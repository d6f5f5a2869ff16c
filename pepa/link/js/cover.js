'use strict'
// Line of sight and cover from archers, for bot_helper.js.
//
// sees(from, to): the sandbox's (and vanilla's) canSee: no block with a collision
// box on the segment, sampled every 0.25 block; an unloaded column counts as a wall
// (sandbox/life/blocks.js lineOfSight). A skeleton shoots only at a player it sees
// eye to eye, so a cell whose eyes no archer sees is one it does not shoot at.
//
// findCover(archers, radius, avoid): the nearest cell within `radius` blocks
// (across, 2 up or down) where the bot can stand (feet and head free, no liquid,
// solid ground) and no archer's eyes see the bot's eyes, at the cell's centre and
// at the four corners of its 0.6-wide hitbox; never within AVOID_GAP of another
// hostile (a zombie beside the cover would make it a trap).
const { eyeHeight, SKELETON_EYE } = require('../../game/js/eyes') // the world server's mobs see with the same
const BOT_EYE = 1.62
const STEP = 0.25
const AVOID_GAP = 4
const { rangedWith } = require('../../game/js/mobs')
const ARCHERS = rangedWith() // every hostile that attacks from afar (pepa/game/js/mobs.js)
const CORNERS = [[0, 0], [0.3, 0.3], [-0.3, 0.3], [0.3, -0.3], [-0.3, -0.3]]

module.exports = function coverModule (bot, Vec3) {
  const local = new Vec3(0, 0, 0) // reused; a Vec3: 1.8's chunks call its methods
  let cx = null
  let cz = null
  let col = null
  const boxes = new Map() // stateId -> has a collision box
  // whether the cell of column `column` at x, y, z has a collision box (read as its state id)
  function boxed (column, x, y, z) {
    local.x = x & 15; local.y = y; local.z = z & 15
    const state = column.getBlockStateId(local)
    let box = boxes.get(state)
    if (box === undefined) {
      const b = bot.registry.blocksByStateId[state]
      box = !!b && b.boundingBox === 'block'
      boxes.set(state, box)
    }
    return box
  }
  function collidable (x, y, z) {
    const low = bot.game.minY ?? 0 // from 1.18 the world reaches from -64 to 319
    if (y < low) return true
    if (y >= low + (bot.game.height ?? 256)) return false
    const kx = x >> 4
    const kz = z >> 4
    if (kx !== cx || kz !== cz) { cx = kx; cz = kz; col = bot.world.getColumn(kx, kz) }
    if (!col) return true // unloaded: a wall, as the server counts it
    return boxed(col, x, y, z)
  }
  // open(x, y, z): whether a body fits in the cell (no collision box), as `!bot.blockAt(p) ||
  // bot.blockAt(p).boundingBox === 'empty'` answers it but without a Block made: a cell outside
  // the world or of a column not loaded counts as open (blockAt gives null there)
  function open (x, y, z) {
    const low = bot.game.minY ?? 0
    if (y < low || y >= low + (bot.game.height ?? 256)) return true
    const column = bot.world.getColumn(x >> 4, z >> 4)
    return !column || !boxed(column, x, y, z)
  }
  function sees (from, to) {
    cx = null // a block may have changed since the last call
    const dx = to.x - from.x
    const dy = to.y - from.y
    const dz = to.z - from.z
    const steps = Math.ceil(Math.sqrt(dx * dx + dy * dy + dz * dz) / STEP)
    for (let i = 1; i < steps; i++) {
      const t = i / steps
      if (collidable(Math.floor(from.x + dx * t), Math.floor(from.y + dy * t), Math.floor(from.z + dz * t))) return false
    }
    return true
  }
  const eyeOf = (e) => e.position.offset(0, eyeHeight(e.name, e.height), 0)
  // whether mob `e` sees the bot's eyes now
  const seesBot = (e) => sees(eyeOf(e), bot.entity.position.offset(0, BOT_EYE, 0))

  const free = (x, y, z) => {
    const b = bot.blockAt(new Vec3(x, y, z))
    return !!b && b.boundingBox === 'empty' && b.name !== 'water' && b.name !== 'lava'
  }
  const standable = (x, y, z) => {
    const g = bot.blockAt(new Vec3(x, y - 1, z))
    return !!g && g.boundingBox === 'block' && free(x, y, z) && free(x, y + 1, z)
  }
  const hiddenAt = (x, y, z, eyes) => eyes.every(eye => CORNERS.every(([ox, oz]) =>
    !sees(eye, { x: x + 0.5 + ox, y: y + BOT_EYE, z: z + 0.5 + oz })))

  // archers: [{x, y, z, eye?}] feet (eye: its eye height, a skeleton's when not given);
  // avoid: [{x, z}]; -> {cell, tried} (cell null when none)
  function findCover (archers, radius, avoid) {
    const feet = bot.entity.position.floored()
    const eyes = archers.map(a => ({ x: a.x, y: a.y + (a.eye || SKELETON_EYE), z: a.z }))
    const r = Math.max(1, Math.min(8, Math.floor(radius)))
    const cells = []
    for (let dx = -r; dx <= r; dx++) {
      for (let dz = -r; dz <= r; dz++) {
        const across = Math.hypot(dx, dz)
        if (across > radius) continue
        for (let dy = -2; dy <= 2; dy++) cells.push({ x: feet.x + dx, y: feet.y + dy, z: feet.z + dz, cost: across + Math.abs(dy) })
      }
    }
    cells.sort((a, b) => a.cost - b.cost)
    let tried = 0
    for (const c of cells) {
      if (avoid.some(m => Math.hypot(m.x - (c.x + 0.5), m.z - (c.z + 0.5)) < AVOID_GAP)) continue
      if (!standable(c.x, c.y, c.z)) continue
      tried++
      if (hiddenAt(c.x, c.y, c.z, eyes)) return { cell: c, tried }
    }
    return { cell: null, tried }
  }

  // the hostiles within `radius` now: archers' feet {x, y, z}, the others' {x, z}
  function liveHostiles (radius) {
    const archers = []
    const others = []
    const me = bot.entity.position
    for (const e of Object.values(bot.entities)) {
      if (e === bot.entity || !e.position || !(e.type === 'hostile' || e.kind === 'Hostile mobs')) continue
      if (e.position.distanceTo(me) > radius) continue
      if (ARCHERS.has(e.name)) archers.push({ x: e.position.x, y: e.position.y, z: e.position.z, eye: eyeHeight(e.name, e.height) })
      else others.push({ x: e.position.x, z: e.position.z })
    }
    return { archers, others }
  }

  // the live archers within `radius` that see the bot now (from their positions this tick)
  function seenBy (radius) {
    const me = bot.entity.position
    return Object.values(bot.entities).filter(e => e !== bot.entity && e.position && ARCHERS.has(e.name) &&
      (e.type === 'hostile' || e.kind === 'Hostile mobs') && e.position.distanceTo(me) <= radius && seesBot(e))
  }

  return { sees, seesBot, seenBy, findCover, hiddenAt, liveHostiles, open, BOT_EYE, eyeHeight }
}
