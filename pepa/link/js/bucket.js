'use strict'
// Using a bucket (required by actions/buckets.js and actions/mining.js): where to look and how
// to use it, as a vanilla client does. The bot looks, then sends use_item (bot.activateItem),
// and the server casts a ray from its eyes along that look. Where to look comes from the same
// rules the sandbox's server follows (game/js/buckets.js): the bot casts the ray itself through
// the blocks it knows, and looks only where it takes the source it wants, or puts the water
// into the cell it wants.
const rules = require('../../game/js/buckets')
const { REACH } = require('./reach') // from the eyes to the cell's centre, as a dig's
const AROUND = 4 // blocks round a source a dry spot to stand on is looked for
const USE_MS = 2000 // the server's answer to a use (the block change, the filled bucket) by then
const TICK_WAIT_MS = 1000
// the neighbours of a cell a pour is aimed at, floor first: [dx, dy, dz] from the cell
const BESIDE = [[0, -1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, 1, 0]]

const key = (p) => `${p.x},${p.y},${p.z}`
const same = (a, b) => !!a && !!b && a.x === b.x && a.y === b.y && a.z === b.z

function reader (ctx) {
  const { bot, Vec3 } = ctx
  const at = (x, y, z) => bot.blockAt(new Vec3(x, y, z))
  const kindAt = (x, y, z) => { const b = at(x, y, z); return b ? rules.kindOf(b.name, b.boundingBox, b.metadata) : 'unknown' }
  return { at, kindAt }
}
const eyesAt = (feet) => ({ x: feet.x, y: feet.y + rules.EYE, z: feet.z })
const toward = (from, to) => ({ x: to.x - from.x, y: to.y - from.y, z: to.z - from.z })
const far = (eyes, cell) => Math.hypot(cell.x + 0.5 - eyes.x, cell.y + 0.5 - eyes.y, cell.z + 0.5 - eyes.z)

// Points to look at to take the source at `s`: its centre, then nearer each of its faces
function scoopPoints (s) {
  const c = { x: s.x + 0.5, y: s.y + 0.5, z: s.z + 0.5 }
  return [c, ...BESIDE.map(([dx, dy, dz]) => ({ x: c.x - dx * 0.4, y: c.y - dy * 0.4, z: c.z - dz * 0.4 }))]
}
// Points to look at to pour into `cell`: on the face toward it of each solid block beside it,
// its middle, then toward its corners
function pourPoints (cell, kindAt) {
  const points = []
  for (const [dx, dy, dz] of BESIDE) {
    if (kindAt(cell.x + dx, cell.y + dy, cell.z + dz) !== 'solid') continue
    const face = { x: cell.x + 0.5 + dx * 0.5, y: cell.y + 0.5 + dy * 0.5, z: cell.z + 0.5 + dz * 0.5 }
    points.push(face)
    for (const [a, b] of [[0.3, 0.3], [-0.3, 0.3], [0.3, -0.3], [-0.3, -0.3]]) {
      points.push(dx ? { x: face.x, y: face.y + a, z: face.z + b } : dy ? { x: face.x + a, y: face.y, z: face.z + b } : { x: face.x + a, y: face.y + b, z: face.z })
    }
  }
  return points
}
// The first point from `eyes` whose ray takes the water source at `s` (null: none)
function scoopAim (eyes, s, kindAt) {
  return scoopPoints(s).find(p => same(rules.scoopAt(eyes, toward(eyes, p), kindAt), s)) || null
}
function pourAim (eyes, cell, kindAt) {
  return pourPoints(cell, kindAt).find(p => same(rules.pourAt(eyes, toward(eyes, p), kindAt), cell)) || null
}

// Look at `point`, wait until the look has gone out (mineflayer sends it with its next physics
// tick), then use the held item: use_item, with that look
async function useToward (bot, Vec3, point) {
  await bot.lookAt(new Vec3(point.x, point.y, point.z), true)
  await new Promise((resolve) => {
    let left = 2 // a physics tick emits physicsTick before it sends the look: the second follows it
    const tick = () => { if (--left <= 0) end() }
    const timer = setTimeout(() => end(), TICK_WAIT_MS)
    function end () { clearTimeout(timer); bot.off('physicsTick', tick); resolve() }
    bot.on('physicsTick', tick)
  })
  bot.activateItem()
  bot.usingHeldItem = false // a bucket is used at once, not held in use (melee.js reads the flag)
}

// Dry cells round the source `s` where the bot can stand and take it: feet and head open and
// not fluid, solid ground under them, the eyes within reach and the ray from them taking `s`
function drySpots (s, kindAt) {
  const spots = []
  for (let dx = -AROUND; dx <= AROUND; dx++) {
    for (let dz = -AROUND; dz <= AROUND; dz++) {
      for (let dy = -1; dy <= 2; dy++) {
        const p = { x: s.x + dx, y: s.y + dy, z: s.z + dz }
        if (kindAt(p.x, p.y, p.z) !== 'open' || kindAt(p.x, p.y + 1, p.z) !== 'open' || kindAt(p.x, p.y - 1, p.z) !== 'solid') continue
        const eyes = eyesAt({ x: p.x + 0.5, y: p.y, z: p.z + 0.5 })
        if (far(eyes, s) > REACH - 0.5 || !scoopAim(eyes, s, kindAt)) continue // some room for where it stops in the cell
        spots.push(p)
      }
    }
  }
  return spots
}


// Pour the held water bucket into `cell` from where the bot stands: null when the cell became
// what the water makes of it (water; on a lava source obsidian, on flowing lava cobblestone),
// else why not. `check` only: the reasons it cannot, without pouring.
async function pourInto (ctx, cell) {
  const { bot, Vec3, waitFor } = ctx
  const { at, kindAt } = reader(ctx)
  const { x, y, z } = cell
  const full = bot.inventory.items().find(i => i.name === 'water_bucket')
  if (!full) return 'no water bucket held'
  const eyes = eyesAt(bot.entity.position)
  const distance = far(eyes, cell)
  if (distance > REACH) return `out of reach: ${key(cell)} is ${distance.toFixed(1)} blocks from the eyes (${REACH} at most)`
  const before = at(x, y, z)
  if (!before) return `${key(cell)} is not loaded`
  if (before.name === 'water' && before.metadata === 0) return `${key(cell)} is a water source already`
  if (!rules.takesFluid(before.name, before.boundingBox, before.material)) return `${key(cell)} holds ${before.name}, which takes no water`
  const aim = pourAim(eyes, cell, kindAt)
  if (!aim) return `nothing solid beside ${key(cell)} to pour against in sight`
  const becomes = rules.pourResult('water', before.name, before.metadata)
  await bot.equip(full, 'hand')
  await useToward(bot, Vec3, aim)
  if (!await waitFor(() => { const b = at(x, y, z); return !!b && b.stateId !== before.stateId }, USE_MS)) return `${key(cell)} stayed ${before.name}`
  const now = at(x, y, z)
  return now.name === becomes ? null : `${key(cell)} became ${now.name}, not ${becomes}`
}

// Fill an empty bucket from the water source at `source`, in reach from where the bot stands:
// null when one more water bucket is held, else why not
async function scoopFrom (ctx, source) {
  const { bot, Vec3, waitFor, countOf } = ctx
  const { kindAt } = reader(ctx)
  const aim = scoopAim(eyesAt(bot.entity.position), source, kindAt)
  if (!aim) return `not reached: the water at ${key(source)} is not in reach from ${key(bot.entity.position.floored())}`
  const before = countOf('water_bucket')
  const empty = bot.inventory.items().find(i => i.name === 'bucket')
  if (!empty) return 'no bucket held'
  await bot.equip(empty, 'hand')
  await useToward(bot, Vec3, aim)
  if (!await waitFor(() => countOf('water_bucket') > before, USE_MS)) return 'the bucket stayed empty'
  return null
}

module.exports = { REACH, key, reader, eyesAt, far, scoopAim, pourAim, drySpots, pourInto, scoopFrom }
