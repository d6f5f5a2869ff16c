'use strict'
// Building from a blueprint's cells (pepa/game/blueprints.py lists them, in build order) and
// choosing where to build.
//
// A cell is [dx, dy, dz, names, facing, keep] from the origin: `names` the blocks that do
// there (any held one, in that order; empty: air), `facing` where a door's front or a bed's
// head looks, `keep` that a solid block already there stands (a floor on natural ground).
//
// build: first the site is cleared, top down: every cell that must be air, and every cell
// holding something it must not, is dug (a plant or a flower is air already). Then the cells
// are placed in their order, each against a solid neighbour (a torch, a door, a bed: on the
// block below), again and again while one more can be: a roof's middle waits for its edge.
// For each the bot walks (gently: no digging, no towers, so it never opens a wall it built)
// to a cell from which its eyes reach the cell's middle, never the cell itself or the one
// above it; a door or a bed is placed from the cell behind it, looking the way it must face
// (the server turns it the way the player looks, as vanilla). The door comes last: a house's
// builder ends inside, the door shut.
//
// chooseSite: the flattest open ground near a point for a footprint, on the surface (the
// highest block of each column that is not leaves or wood: never in a cave), with no water
// or lava in it, near water (for a farm) and trees.
const { REACH, EYE } = require('./reach') // eyes to a cell's middle: a survival player's reach
const { OFFSET: FACE_STEP } = require('../../game/js/halves') // a facing's [dx, dz]
const WALK_MS = 30000
const SIDES6 = [[0, -1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, 1, 0]]
const ON_FLOOR = /torch$|_door$|_bed$|^(?:chest|furnace|crafting_table)$/ // placed on the block below
const WOOD = /_log$|_wood$|_stem$|_hyphae$|leaves$/
const TRIES = 3

// what stands at a cell now: 'air' (nothing a block cannot go into: air, plants), 'liquid',
// or the block's name
function readCell (bot, at) {
  const b = bot.blockAt(at)
  if (!b) return null
  if (b.name === 'water' || b.name === 'lava') return 'liquid'
  if (b.boundingBox === 'empty' && !ON_FLOOR.test(b.name)) return 'air'
  return b.name
}

// Whether the block now at a cell is what the cell asks for
function matches (bot, cell) {
  const now = readCell(bot, cell.at)
  if (now === null) return false
  if (!cell.names.length) return now === 'air'
  if (cell.names.includes(now) || (now === 'wall_torch' && cell.names.includes('torch'))) return true
  return cell.keep && bot.blockAt(cell.at).boundingBox === 'block'
}

function createBuilder (ctx) {
  const { bot, Vec3, goals, waitFor, bestTool, solid, gotoGently } = ctx

  const held = (names) => {
    for (const name of names) {
      const it = bot.inventory.items().find(i => i.name === name)
      if (it) return it
    }
    return null
  }

  // the block the cell is placed against and the face of it that is clicked
  function reference (cell) {
    const floorOnly = cell.names.some(n => ON_FLOOR.test(n))
    for (const [dx, dy, dz] of (floorOnly ? [[0, -1, 0]] : SIDES6)) {
      const at = cell.at.offset(dx, dy, dz)
      if (solid(at)) return { block: bot.blockAt(at), face: new Vec3(-dx, -dy, -dz) }
    }
    return null
  }

  // cells the bot may stand in to place `cell`: feet and head free, solid below, eyes in reach,
  // never the cell or the one above it; for a facing, only the cell right behind it
  function stands (cell, busy) {
    const out = []
    if (cell.facing) {
      const [fx, fz] = FACE_STEP[cell.facing]
      out.push(cell.at.offset(-fx, 0, -fz))
    } else {
      for (let dx = -4; dx <= 4; dx++) {
        for (let dz = -4; dz <= 4; dz++) {
          for (let dy = -3; dy <= 2; dy++) out.push(cell.at.offset(dx, dy, dz))
        }
      }
    }
    const me = bot.entity.position.floored()
    return out.filter((s) => {
      if (s.equals(cell.at) || s.offset(0, 1, 0).equals(cell.at) || busy.has(key(s)) || busy.has(key(s.offset(0, 1, 0)))) return false
      const dy = s.y + EYE - (cell.at.y + 0.5)
      const d2 = (s.x - cell.at.x) ** 2 + dy * dy + (s.z - cell.at.z) ** 2
      if (d2 > REACH * REACH) return false
      return readCell(bot, s) === 'air' && readCell(bot, s.offset(0, 1, 0)) === 'air' && solid(s.offset(0, -1, 0))
    }).sort((a, b) => a.distanceTo(me) - b.distanceTo(me))
  }

  async function standFor (cell, busy, stopped) {
    const spots = stands(cell, busy)
    if (!spots.length) throw new Error(`nowhere to stand to place ${cell.names[0]} at ${cell.at}`)
    const here = bot.entity.position.floored()
    if (spots.some(s => s.equals(here))) return
    const goal = new goals.GoalCompositeAny(spots.slice(0, 12).map(s => new goals.GoalBlock(s.x, s.y, s.z)))
    await gotoGently(goal, WALK_MS)
    stopped()
    await waitFor(() => bot.entity.onGround, 2000)
  }

  async function dig (at, stopped) {
    const block = bot.blockAt(at)
    if (!block || !block.diggable) throw new Error(`cannot clear ${block ? block.name : 'an unloaded block'} at ${at}`)
    if (bot.entity.position.distanceTo(at.offset(0.5, 0.5, 0.5)) > REACH) await ctx.reachBlock(at, new Set([block.name]))
    stopped()
    const tool = bestTool(block)
    if (tool) await bot.equip(tool, 'hand')
    await bot.dig(block, true)
  }

  async function place (cell, busy, stopped) {
    const item = held(cell.names)
    if (!item) throw new Error(`no ${cell.names.slice(0, 3).join(' or ')}${cell.names.length > 3 ? ' …' : ''} left to place at ${cell.at}`)
    await standFor(cell, busy, stopped)
    const ref = reference(cell)
    if (!ref) throw new Error(`nothing to place ${item.name} against at ${cell.at}`)
    if (!bot.heldItem || bot.heldItem.type !== item.type) await bot.equip(item, 'hand')
    if (cell.facing) { // look the way it must face, at the floor where it goes; the server
      // turns a door or a bed by the look it last had: the look's packet goes out first
      await bot.lookAt(cell.at.offset(0.5, 0, 0.5), true)
      await bot.waitForTicks(2)
    }
    await bot.placeBlock(ref.block, ref.face).catch((e) => {
      if (!matches(bot, cell)) throw e // a late block update: the block may be there anyway
    })
    return matches(bot, cell) || waitFor(() => matches(bot, cell), 1500)
  }

  // build(origin, raw cells, stopped) → { placed, dug, kept, missing: [..] }
  async function build (origin, rawCells, stopped) {
    const cells = rawCells.map(([dx, dy, dz, names, facing, keep]) => ({ at: origin.offset(dx, dy, dz), names, facing, keep }))
    // the cells the bot must not stand in: any that will hold a block (a torch does not get in
    // the way: it is walked through), and a door's and a bed's other half
    const busy = new Set()
    for (const c of cells) {
      if (!c.names.length || c.names.every(n => /torch$/.test(n))) continue
      busy.add(key(c.at))
      if (c.names.some(n => n.endsWith('_door'))) busy.add(key(c.at.offset(0, 1, 0)))
      if (c.facing && c.names.some(n => n.endsWith('_bed'))) { const [fx, fz] = FACE_STEP[c.facing]; busy.add(key(c.at.offset(fx, 0, fz))) }
    }
    let dug = 0
    let placed = 0
    const kept = cells.filter(c => c.names.length && matches(bot, c)).length
    for (const cell of [...cells].sort((a, b) => b.at.y - a.at.y)) { // clear, top down
      stopped()
      const now = readCell(bot, cell.at)
      if (now === null) throw new Error(`the site is not loaded at ${cell.at}`)
      if (now === 'air' || now === 'liquid' || matches(bot, cell)) continue
      await dig(cell.at, stopped)
      dug++
    }
    const pending = cells.filter(c => c.names.length && !matches(bot, c))
    const tries = new Map()
    while (pending.length) {
      let progress = false
      for (let i = 0; i < pending.length; i++) {
        stopped()
        const cell = pending[i]
        if (matches(bot, cell)) { pending.splice(i--, 1); continue }
        if (!reference(cell)) continue
        const ok = await place(cell, busy, stopped)
        stopped()
        if (ok) { placed++; progress = true; pending.splice(i--, 1); continue }
        const n = (tries.get(cell) || 0) + 1
        tries.set(cell, n)
        if (n >= TRIES) throw new Error(`${cell.names[0]} would not go in at ${cell.at}`)
        progress = true
      }
      if (!progress) break
    }
    return { placed, dug, kept, missing: pending.map(c => ({ x: c.at.x, y: c.at.y, z: c.at.z, name: c.names[0] })) }
  }

  // The surface of a column: the y of its highest block that is not air, leaves or wood,
  // searched down from `top`; whether liquid lies on it; how many leaves and logs are above
  function column (x, z, top, bottom) {
    let wood = 0
    for (let y = top; y >= bottom; y--) {
      const b = bot.blockAt(new Vec3(x, y, z))
      if (!b) return null
      if (b.name === 'water' || b.name === 'lava') return { y, liquid: true, wood }
      if (WOOD.test(b.name)) { wood++; continue }
      if (b.boundingBox === 'block') return { y, liquid: false, wood }
    }
    return null
  }

  // chooseSite(centre, width, depth, radius, waters) → the best origin or null (waters: the
  // water sources known near by)
  function chooseSite (centre, width, depth, radius, waters) {
    const top = Math.floor(centre.y) + 24
    const bottom = Math.floor(centre.y) - 24
    const cols = new Map()
    const col = (x, z) => {
      const k = `${x},${z}`
      if (!cols.has(k)) cols.set(k, column(x, z, top, bottom))
      return cols.get(k)
    }
    let best = null
    const cx = Math.floor(centre.x)
    const cz = Math.floor(centre.z)
    for (let ox = cx - radius; ox <= cx + radius; ox += 2) {
      for (let oz = cz - radius; oz <= cz + radius; oz += 2) {
        const heights = []
        let wood = 0
        let bad = false
        for (let dx = 0; dx < width && !bad; dx++) {
          for (let dz = 0; dz < depth; dz++) {
            const c = col(ox + dx, oz + dz)
            if (!c || c.liquid) { bad = true; break }
            heights.push(c.y)
            wood += c.wood
          }
        }
        if (bad) continue
        const sorted = [...heights].sort((a, b) => a - b)
        const floor = sorted[Math.floor(sorted.length / 2)]
        const spread = sorted[sorted.length - 1] - sorted[0]
        if (spread > 3) continue
        const earth = heights.reduce((n, h) => n + Math.abs(h - floor), 0)
        const mid = new Vec3(ox + width / 2, floor, oz + depth / 2)
        const water = waters.length ? Math.min(...waters.map(w => Math.hypot(w.x - mid.x, w.z - mid.z))) : Infinity
        if (water < Math.max(width, depth) / 2 + 1) continue // the farm's water, not the house's floor
        const cost = earth * 2 + wood * 3 + Math.min(water, 48) * 0.3 + Math.hypot(mid.x - centre.x, mid.z - centre.z) * 0.2
        if (!best || cost < best.cost) best = { x: ox, y: floor + 1, z: oz, cost, spread, earth, wood, water: water === Infinity ? null : Math.round(water) }
      }
    }
    return best
  }

  return { build, chooseSite, matches: (cell) => matches(bot, cell) }
}

function key (p) { return `${p.x},${p.y},${p.z}` }

module.exports = { createBuilder, readCell }
