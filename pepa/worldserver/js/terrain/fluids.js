'use strict'
// Water and lava as vanilla 1.16.5's FlowingFluid, WaterFluid, LavaFluid and
// LiquidBlock move them, as pure rules over a block reader: the world
// plugin (plugins/fluids.js) runs them on scheduled ticks.
//
// A fluid block's `level` is 0 for a source, 1..7 for flowing fluid (its
// amount is 8 - level) and 8..15 for falling fluid (amount 8). Vanilla's
// numbers:
//   - water spreads to amount - 1 each block (7 blocks from a source), lava
//     in the overworld to amount - 2 (3 blocks);
//   - a flow goes down first; sideways it goes only toward the nearest place
//     it can fall within 4 blocks for water, 2 for lava (getSlopeDistance),
//     or every way when none is near;
//   - a fluid block under fluid of its type falls (amount 8); a flowing
//     block recomputes its amount from its neighbours on each tick and dries
//     up when none feeds it;
//   - water between two sources over solid ground or a source becomes a
//     source (the infinite water source);
//   - lava beside water (not below it) becomes obsidian if it is a source,
//     cobblestone if flowing; lava flowing down into water makes stone;
//   - water ticks every 5 game ticks, lava every 30.
// Differences: a flow destroys the plant it enters without dropping it; a
// fluid does not pass waterloggable blocks.

const HORIZONTAL = [[1, 0], [-1, 0], [0, 1], [0, -1]]
const DELAY = { water: 5, lava: 30 }
const DROP_OFF = { water: 1, lava: 2 }
const SLOPE = { water: 4, lava: 2 }
const NO_FLUID = Object.freeze({ type: null, amount: 0, source: false, falling: false })
const HOLDS_NOT = /ladder|sugar_cane|portal|bubble_column|_door$|_sign$|kelp|seagrass|scaffolding/

function fluidRules (registry) {
  const water = registry.blocksByName.water
  const lava = registry.blocksByName.lava
  const ids = {
    air: registry.blocksByName.air.defaultState,
    stone: registry.blocksByName.stone.defaultState,
    cobblestone: registry.blocksByName.cobblestone.defaultState,
    obsidian: registry.blocksByName.obsidian.defaultState
  }
  let top = 0
  for (const b of Object.values(registry.blocksByName)) top = Math.max(top, b.maxStateId)
  const states = new Array(top + 1) // state id -> its fluid
  const holds = new Uint8Array(top + 1) // 1: a fluid may flow into this block (replacing it)
  const solid = new Uint8Array(top + 1)
  for (const b of Object.values(registry.blocksByName)) {
    for (let s = b.minStateId; s <= b.maxStateId; s++) {
      if (b.name === 'water' || b.name === 'lava') {
        const level = s - b.minStateId
        states[s] = Object.freeze({ type: b.name, amount: level === 0 || level >= 8 ? 8 : 8 - level, source: level === 0, falling: level >= 8 })
      } else {
        states[s] = NO_FLUID
        if (b.boundingBox === 'empty' && !HOLDS_NOT.test(b.name)) holds[s] = 1
        if (b.boundingBox === 'block') solid[s] = 1
      }
    }
  }
  const fluidOf = (id) => (id === null || id === undefined) ? NO_FLUID : states[id]
  const stateFor = (type, fs) => {
    if (fs.type === null) return ids.air
    const base = (type === 'lava' ? lava : water).minStateId
    if (fs.source) return base
    return base + (8 - Math.min(fs.amount, 8)) + (fs.falling ? 8 : 0)
  }
  const source = (type) => ({ type, amount: 8, source: true, falling: false })
  const flowing = (type, amount, falling) => ({ type, amount, source: false, falling })
  const same = (a, b) => a.type === b.type && a.amount === b.amount && a.source === b.source && a.falling === b.falling

  // get(x, y, z): a block state id, or null where no chunk is loaded (a wall)
  function rules (get) {
    // what may pass into (x, y, z): not a source of this type, and a block that holds fluid or this type's flow
    const passable = (type, x, y, z) => {
      const id = get(x, y, z)
      if (id === null) return false
      const f = fluidOf(id)
      if (f.type === type) return !f.source
      return f.type === null && holds[id] === 1
    }
    // vanilla isWaterHole: from (x, y, z) the fluid could go down
    const hole = (type, x, y, z) => {
      const id = get(x, y - 1, z)
      if (id === null) return false
      const f = fluidOf(id)
      return f.type === type || (f.type === null && holds[id] === 1)
    }
    // vanilla getNewLiquid: what (x, y, z) holds, fed by its neighbours
    function newLiquid (type, x, y, z) {
      let most = 0
      let sources = 0
      for (const [dx, dz] of HORIZONTAL) {
        const f = fluidOf(get(x + dx, y, z + dz))
        if (f.type !== type) continue
        if (f.source) sources++
        most = Math.max(most, f.amount)
      }
      if (type === 'water' && sources >= 2) {
        const below = get(x, y - 1, z)
        if (below !== null && (solid[below] || (fluidOf(below).type === 'water' && fluidOf(below).source))) return source(type)
      }
      if (fluidOf(get(x, y + 1, z)).type === type) return flowing(type, 8, true)
      const k = most - DROP_OFF[type]
      return k <= 0 ? NO_FLUID : flowing(type, k, false)
    }
    function slopeDistance (type, x, y, z, depth, fromX, fromZ) {
      let best = 1000
      for (const [dx, dz] of HORIZONTAL) {
        if (dx === fromX && dz === fromZ) continue
        const nx = x + dx
        const nz = z + dz
        if (!passable(type, nx, y, nz)) continue
        if (hole(type, nx, y, nz)) return depth
        if (depth < SLOPE[type]) best = Math.min(best, slopeDistance(type, nx, y, nz, depth + 1, -dx, -dz))
      }
      return best
    }
    // One fluid tick at (x, y, z): the changes [[x, y, z, stateId], ...], in order
    function tick (x, y, z) {
      const changes = []
      const here = get(x, y, z)
      let fs = fluidOf(here)
      if (fs.type === null) return changes
      const type = fs.type
      if (type === 'lava') { // vanilla LiquidBlock.shouldSpreadLiquid: lava touching water hardens
        for (const [dx, dy, dz] of [[1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, 1, 0]]) {
          if (fluidOf(get(x + dx, y + dy, z + dz)).type === 'water') {
            changes.push([x, y, z, fs.source ? ids.obsidian : ids.cobblestone])
            return changes
          }
        }
      }
      if (!fs.source) {
        const next = newLiquid(type, x, y, z)
        if (next.type === null) { changes.push([x, y, z, ids.air]); return changes }
        if (!same(next, fs)) { changes.push([x, y, z, stateFor(type, next)]); fs = next }
      }
      const view = (cx, cy, cz) => { // the reads of this tick see its own change
        for (let i = changes.length - 1; i >= 0; i--) { const c = changes[i]; if (c[0] === cx && c[1] === cy && c[2] === cz) return c[3] }
        return get(cx, cy, cz)
      }
      const below = view(x, y - 1, z)
      const belowFluid = fluidOf(below)
      let down = false
      if (below !== null) {
        if (type === 'lava' && belowFluid.type === 'water') { changes.push([x, y - 1, z, ids.stone]); down = true } else if (belowFluid.type === null && holds[below] === 1) {
          changes.push([x, y - 1, z, stateFor(type, flowing(type, 8, true))])
          down = true
        }
      }
      const sideways = !down
        ? (fs.source || !(belowFluid.type === type || (belowFluid.type === null && below !== null && holds[below] === 1)))
        : countSources(type, x, y, z) >= 3
      if (sideways) spreadToSides(type, fs, x, y, z, changes)
      return changes
    }
    function countSources (type, x, y, z) {
      let n = 0
      for (const [dx, dz] of HORIZONTAL) { const f = fluidOf(get(x + dx, y, z + dz)); if (f.type === type && f.source) n++ }
      return n
    }
    function spreadToSides (type, fs, x, y, z, changes) {
      const amount = fs.falling ? 7 : fs.amount - DROP_OFF[type]
      if (amount <= 0) return
      let best = 1000
      let ways = []
      for (const [dx, dz] of HORIZONTAL) {
        const nx = x + dx
        const nz = z + dz
        if (!passable(type, nx, y, nz)) continue
        const d = hole(type, nx, y, nz) ? 0 : slopeDistance(type, nx, y, nz, 1, -dx, -dz)
        if (d < best) { ways = []; best = d }
        if (d <= best) ways.push([nx, nz])
      }
      for (const [nx, nz] of ways) {
        const id = get(nx, y, nz)
        const f = fluidOf(id)
        if (f.type !== null) continue // its own tick recomputes a flow of this type
        changes.push([nx, y, nz, stateFor(type, flowing(type, amount, false))])
      }
    }
    return { tick, newLiquid }
  }

  return { rules, fluidOf, stateFor, ids, DELAY, holds }
}

module.exports = { fluidRules, DELAY, DROP_OFF, SLOPE }
