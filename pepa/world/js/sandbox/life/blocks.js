'use strict'
// Synchronous block queries for the sandbox's mobs. flying-squid's World API is
// async, but prismarine-world keeps loaded columns in memory and its `sync`
// view reads them at once; a mob tick must not await 20 block reads.
//
// Simplifications (named in docs/sandbox-life.md):
//  - every block with a collision box counts as a full cube (slabs, stairs,
//    fences, beds): mobs walk on them and never through them;
//  - there is no light engine: sky light is 15 in a column open to the sky and
//    drops by one per block of horizontal distance to the nearest open column
//    (no occlusion by walls); block light is the brightest emitter within 8
//    blocks minus its Manhattan distance.
const { Vec3 } = require('vec3')

const COLUMN_TTL_TICKS = 100 // column heights are re-read after 5 s (blocks change)

module.exports = function blockView (registry) {
  const byState = registry.blocksByStateId
  const air = registry.blocksByName.air
  const worlds = new WeakMap() // world -> Map "x,z" -> { tick, skyTop, lightTop }
  const at = new Vec3(0, 0, 0)
  let now = 0

  function block (world, x, y, z) {
    if (y < 0 || y > 255) return air
    at.set(x, y, z)
    if (!world.sync.getColumnAt(at)) return null
    return byState[world.sync.getBlockStateId(at)] || air
  }
  const isLoaded = (world, x, z) => !!world.sync.getColumnAt(at.set(x, 64, z))
  const collidable = (b) => !b || b.boundingBox === 'block' // unloaded counts as a wall
  const solid = (world, x, y, z) => y < 0 || collidable(block(world, Math.floor(x), Math.floor(y), Math.floor(z)))
  const opaque = (b) => !!b && b.boundingBox === 'block' && !b.transparent
  const liquid = (b) => !!b && (b.name === 'water' || b.name === 'lava')
  // blocks that keep a column from "seeing the sky" (vanilla: sky light < 15 below them)
  const shades = (b) => opaque(b) || liquid(b) || (!!b && b.name.endsWith('_leaves'))

  function column (world, x, z) {
    let columns = worlds.get(world)
    if (!columns) worlds.set(world, (columns = new Map()))
    const key = `${x},${z}`
    let c = columns.get(key)
    if (c && now - c.tick < COLUMN_TTL_TICKS) return c
    c = { tick: now, skyTop: -1, lightTop: -1 }
    for (let y = 255; y >= 0; y--) {
      const b = block(world, x, y, z)
      if (!b) { c.skyTop = c.lightTop = 256; break } // not loaded: treat as covered
      if (c.skyTop < 0 && shades(b)) c.skyTop = y
      if (opaque(b)) { c.lightTop = y; break }
    }
    if (columns.size > 20000) columns.clear()
    columns.set(key, c)
    return c
  }

  const canSeeSky = (world, x, y, z) => column(world, Math.floor(x), Math.floor(z)).skyTop < Math.floor(y)

  // approximate sky light at a block (see the header): 15 - distance to open sky, 0 beyond 8
  function skyLight (world, x, y, z) {
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    for (let d = 0; d <= 8; d++) {
      for (let dx = -d; dx <= d; dx++) {
        const rest = d - Math.abs(dx)
        for (const dz of rest === 0 ? [0] : [-rest, rest]) {
          if (column(world, x + dx, z + dz).lightTop < y) return 15 - d
        }
      }
    }
    return 0
  }

  function blockLight (world, x, y, z) {
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    let best = 0
    for (let dx = -8; dx <= 8; dx++) {
      for (let dy = -8; dy <= 8; dy++) {
        for (let dz = -8; dz <= 8; dz++) {
          const d = Math.abs(dx) + Math.abs(dy) + Math.abs(dz)
          if (d > 14) continue
          const b = block(world, x + dx, y + dy, z + dz)
          if (b && b.emitLight > d) best = Math.max(best, b.emitLight - d)
        }
      }
    }
    return best
  }

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
    setTick: (tick) => { now = tick },
    block, solid, liquid, opaque, isLoaded, canSeeSky, skyLight, blockLight, lineOfSight, collides, standingSpots
  }
}
