'use strict'
// Synchronous block queries for the sandbox's mobs. flying-squid's World API is
// async, but prismarine-world keeps loaded columns in memory and its `sync`
// view reads them at once; a mob tick must not await 20 block reads.
//
// Simplifications (named in docs/sandbox-life.md):
//  - every block with a collision box counts as a full cube (slabs, stairs,
//    fences, beds, closed doors): mobs walk on them and never through them;
//  - an open door has no collision at all (vanilla's is a 3/16 panel along
//    one side of its cell).
// Light (skyLight, blockLight, canSeeSky) comes from the light model of
// light.js, one per world, kept true by the world's block and column events.
const { Vec3 } = require('vec3')
const lightModel = require('./light')
const { isDoor, isOpen } = require('../../../game/js/halves')

const EMPTY_SECTION = [0] // a missing chunk section holds only air
// world -> its light model: one per world, whichever plugin's view asks (a model keeps caches
// and listens to the world's block and column events)
const lights = new WeakMap()

module.exports = function blockView (registry) {
  const byState = registry.blocksByStateId
  const air = registry.blocksByName.air
  const at = new Vec3(0, 0, 0)
  const openDoors = new Set() // the states of open doors: walked through
  for (const b of registry.blocksArray) {
    if (!isDoor(b.name)) continue
    for (let s = b.minStateId; s <= b.maxStateId; s++) if (isOpen(b, s)) openDoors.add(s)
  }

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
  function solid (world, x, y, z) {
    if (y < 0) return true
    const s = stateAt(world, Math.floor(x), Math.floor(y), Math.floor(z))
    return s < 0 || (!openDoors.has(s) && collidable(byState[s] || air))
  }
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
  function collides (world, x, y, z, hw, h) {
    const x0 = Math.floor(x - hw); const x1 = Math.floor(x + hw - 1e-7)
    const y0 = Math.floor(y); const y1 = Math.floor(y + h - 1e-7)
    const z0 = Math.floor(z - hw); const z1 = Math.floor(z + hw - 1e-7)
    for (let bx = x0; bx <= x1; bx++) {
      for (let by = y0; by <= y1; by++) {
        for (let bz = z0; bz <= z1; bz++) if (solid(world, bx, by, bz)) return true
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
    block, solid, liquid, opaque, isLoaded, canSeeSky, skyLight, blockLight, lineOfSight, collides, standingSpots
  }
}
