'use strict'
// Synchronous block queries for the sandbox's mobs. flying-squid's World API is
// async, but prismarine-world keeps loaded columns in memory and its `sync`
// view reads them at once; a mob tick must not await 20 block reads.
//
// Simplifications (named in docs/sandbox-life.md):
//  - every block with a collision box counts as a full cube (slabs, stairs,
//    beds): mobs walk on them and never through them. Fences, walls and closed
//    fence gates are 1.5 blocks high, as vanilla's collision shapes (FenceBlock,
//    WallBlock, FenceGateBlock): a mob's 0.42 jump (1.25 blocks) never gets onto
//    or over one; an open fence gate has no collision box; a closed door is a
//    full cube, an open one has no collision at all (vanilla's is a 3/16 panel
//    along one side of its cell).
// Light (skyLight, blockLight, canSeeSky) comes from the light model of
// light.js, one per world, kept true by the world's block and column events.
const { Vec3 } = require('vec3')
const lightModel = require('./light')
const { isDoor, isOpen } = require('../../../game/js/halves')

const TALL = 1.5 // fences, walls, closed fence gates

// a fence gate state's `open` (minecraft-data's encoding: the last property varies fastest; bool index 0 is true)
function gateOpen (b, state) {
  let rest = state - b.minStateId
  for (let i = b.states.length - 1; i >= 0; i--) {
    const s = b.states[i]
    const v = rest % s.num_values
    rest = Math.floor(rest / s.num_values)
    if (s.name === 'open') return v === 0
  }
  return false
}

const EMPTY_SECTION = [0] // a missing chunk section holds only air
// world -> its light model: one per world, whichever plugin's view asks (a model keeps caches
// and listens to the world's block and column events)
const lights = new WeakMap()

module.exports = function blockView (registry) {
  const byState = registry.blocksByStateId
  const air = registry.blocksByName.air
  const at = new Vec3(0, 0, 0)
  // the height of each state's collision box for a mob's body (see the header), worked out on first use
  let top = 0
  for (const b of registry.blocksArray) top = Math.max(top, b.maxStateId)
  const heights = new Float32Array(top + 1).fill(-1)
  function heightOf (state) {
    let h = heights[state]
    if (h >= 0) return h
    const b = byState[state]
    if (!b) h = 0
    else if (b.name.endsWith('_fence_gate')) h = gateOpen(b, state) ? 0 : TALL
    else if (b.name.endsWith('_fence') || b.name.endsWith('_wall')) h = TALL
    else if (isDoor(b.name)) h = isOpen(b, state) ? 0 : 1
    else h = b.boundingBox === 'block' ? 1 : 0
    heights[state] = h
    return h
  }
  // the collision height of the block at a cell: 1 below the world and where no column is loaded (a wall)
  function cellHeight (world, x, y, z) {
    if (y < 0) return 1
    if (y > 255) return 0
    at.set(x, y, z)
    if (!world.sync.getColumnAt(at)) return 1
    return heightOf(world.sync.getBlockStateId(at))
  }
  // whether the fence gate (or any block) at a state is an open gate
  const openGate = (state) => { const b = byState[state]; return !!b && b.name.endsWith('_fence_gate') && gateOpen(b, state) }

  // the state id at a cell: -1 when its chunk is not loaded, air above and below the world
  function stateAt (world, x, y, z) {
    if (y < 0 || y > 255) return 0
    at.set(x, y, z)
    if (!world.sync.getColumnAt(at)) return -1
    return world.sync.getBlockStateId(at)
  }
  function block (world, x, y, z) {
    const s = stateAt(world, x, y, z)
    return s < 0 ? null : byState[s] || air
  }
  const isLoaded = (world, x, z) => !!world.sync.getColumnAt(at.set(x, 64, z))
  const collidable = (b) => !b || b.boundingBox === 'block' // unloaded counts as a wall
  const solid = (world, x, y, z) => cellHeight(world, Math.floor(x), Math.floor(y), Math.floor(z)) > 0
  const opaque = (b) => !!b && b.boundingBox === 'block' && !b.transparent
  const liquid = (b) => !!b && (b.name === 'water' || b.name === 'lava')

  // the light model of a world, reading its loaded chunk columns directly (a mob tick reads thousands of blocks)
  function light (world) {
    let model = lights.get(world)
    if (model) return model
    let cx0 = null; let cz0 = null; let col = null
    const local = { x: 0, y: 0, z: 0 }
    const columnOf = (x, z) => {
      if ((x >> 4) !== cx0 || (z >> 4) !== cz0) { cx0 = x >> 4; cz0 = z >> 4; col = world.sync.getColumn(cx0, cz0) }
      return col
    }
    model = lightModel(registry, {
      state (x, y, z) {
        const c = columnOf(x, z)
        if (!c) return -1
        local.x = x & 15; local.y = y; local.z = z & 15
        return c.getBlockStateId(local)
      },
      palette (x, y, z) {
        const c = columnOf(x, z)
        const section = c && c.sections && c.sections[y >> 4]
        if (!c || section === undefined) return null
        return section === null ? EMPTY_SECTION : section.palette
      }
    })
    const columnChanged = (corner) => { cx0 = null; model.columnChanged(corner.x >> 4, corner.z >> 4) }
    world.on('chunkColumnLoad', columnChanged)
    world.on('chunkColumnUnload', columnChanged)
    const blockChanged = (before, after) => {
      const p = after.position
      model.changed(p.x, p.y, p.z, before.stateId, after.stateId)
    }
    world.on('blockUpdate', blockChanged) // flying-squid's serv.setBlock, digging, placing, explosions
    world.sync.on('blockUpdate', blockChanged) // writes through the sync view
    lights.set(world, model)
    return model
  }

  const canSeeSky = (world, x, y, z) => light(world).canSeeSky(x, y, z)
  const skyLight = (world, x, y, z) => light(world).skyLight(x, y, z)
  const blockLight = (world, x, y, z) => light(world).blockLight(x, y, z)

  // vanilla canSee: nothing with a collision box between two points
  function lineOfSight (world, from, to) {
    const d = to.minus(from)
    const len = d.norm()
    const steps = Math.ceil(len / 0.25)
    for (let i = 1; i < steps; i++) {
      const t = i / steps
      if (solid(world, from.x + d.x * t, from.y + d.y * t, from.z + d.z * t)) return false
    }
    return true
  }

  // a box of half-width hw and height h with its feet at (x, y, z) overlaps a collidable block
  // (from the cell below the feet: a fence there reaches half a block into the feet's cell)
  function collides (world, x, y, z, hw, h) {
    const x0 = Math.floor(x - hw); const x1 = Math.floor(x + hw - 1e-7)
    const y0 = Math.floor(y - (TALL - 1)); const y1 = Math.floor(y + h - 1e-7)
    const z0 = Math.floor(z - hw); const z1 = Math.floor(z + hw - 1e-7)
    for (let bx = x0; bx <= x1; bx++) {
      for (let by = y0; by <= y1; by++) {
        for (let bz = z0; bz <= z1; bz++) {
          const top = cellHeight(world, bx, by, bz)
          if (top > 0 && y < by + top && y + h > by) return true
        }
      }
    }
    return false
  }

  // where a mob could stand in column (x, z) between yMin and yMax: an opaque
  // floor (not leaves, glass, slabs or fences: vanilla isValidSpawn) and two
  // blocks of air-like space (no liquid) above it. Highest first.
  function standingSpots (world, x, z, yMin, yMax) {
    const spots = []
    for (let y = Math.min(yMax, 254); y >= Math.max(yMin, 1); y--) {
      const feet = block(world, x, y, z)
      if (!feet) return spots
      if (collidable(feet) || liquid(feet)) continue
      const head = block(world, x, y + 1, z)
      if (collidable(head) || liquid(head)) continue
      const floor = block(world, x, y - 1, z)
      if (opaque(floor) && floor.name !== 'bedrock') spots.push({ y, floor: floor.name })
    }
    return spots
  }

  return {
    block, solid, liquid, opaque, isLoaded, canSeeSky, skyLight, blockLight, lineOfSight, collides, standingSpots, openGate
  }
}
