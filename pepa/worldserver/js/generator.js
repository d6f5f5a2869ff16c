'use strict'
// The survival sandbox's terrain: a flying-squid generation module (1.16.5).
//
// flying-squid's world plugin does require(<this file>)({ seed, worldHeight,
// version, registry }) and calls the returned function (chunkX, chunkZ) for
// every chunk column it has neither in memory nor on disk. Everything below is
// a pure function of the seed and the block coordinates: a chunk never looks at
// its neighbours' data, so the same seed gives the same world whichever chunks
// are generated first (trees and ponds that cross a chunk border are drawn by
// both chunks from the same description).
//
// What a chunk holds (vanilla numbers where vanilla has them, 1.16.5):
//   - plains: gentle hills of value noise, 60..72, never more than one block
//     between neighbouring columns (walkable without digging);
//   - grass on 3-4 dirt over stone; bedrock at y 0 and, thinning out, up to
//     y 4 (vanilla: bedrock where y <= random(5));
//   - ores in stone, vanilla vein sizes, tries per chunk and height ranges
//     (OreFeature ported): coal 17 x 20 below 128, iron 9 x 20 below 64,
//     gold 9 x 2 below 32, redstone 8 x 8 below 16, diamond 8 x 1 below 16,
//     lapis 7 x 1 below 32 (vanilla: spread around 16);
//   - a small pond of still water in about one chunk in ten;
//   - oak trees as vanilla's small oak (trunk 4-6 logs, a 5x5/3x3 blob of
//     leaves with random corners), about one per chunk on a jittered grid;
//   - sky light 15 above the ground, 0 below it; biome plains everywhere;
//   - with the option `hazards` (the hard profile, life/profiles.js), three
//     dangers near the spawn point: a lava pocket 16-25 blocks away, a ravine
//     12+ deep, 3 wide and 21 long 25-35 away, and a lake 5 deep in the
//     middle 20-40 away; trees and ponds keep 3 blocks clear of them.
//
// module.exports.terrain(seed, { hazards }) gives the same description without
// building chunks (heights, ponds, trees, hazards, the spawn point) to plugins
// and tests.

const BASE_HEIGHT = 66
const HILLS = [[40, 4], [14, 2]] // [scale in blocks, amplitude]: slope < 1 block per block
const DIRT_DEPTH = 3 // + 0 or 1 per column: 3-4 layers of dirt under the grass
const POND_CHANCE = 10 // one chunk in POND_CHANCE has a pond
const TREE_CELL = 8 // one candidate tree per 8x8 cell ...
const TREE_CHANCE = 30 // ... that grows one with this chance in percent
const LEAF_RADIUS = 2
// vanilla 1.16.5 ConfiguredFeatures: [block, vein size, tries per chunk, lowest y, y range]
const ORES = [
  ['coal_ore', 17, 20, 0, 128],
  ['iron_ore', 9, 20, 0, 64],
  ['gold_ore', 9, 2, 0, 32],
  ['redstone_ore', 8, 8, 0, 16],
  ['diamond_ore', 8, 1, 0, 16],
  ['lapis_ore', 7, 1, 0, 32] // vanilla: depth average 16 +- 16
]
const SALT = { hills: 2, dirt: 3, bedrock: 4, pond: 5, tree: 6, leaf: 7, ore: 8, hazard: 9 }
const HAZARD_CLEAR = 3 // no tree trunk or pond within this many blocks of a hazard

const { hash, random, normSeed, valueNoise } = require('./terrain/rand')

// --- the terrain as pure functions ------------------------------------------

function terrain (rawSeed, { hazards = false } = {}) {
  const seed = normSeed(rawSeed)
  // the same world without hazards: its spawn point is where they are put around
  const plain = hazards ? terrain(rawSeed) : null
  let danger = null // the hazards (hazardsAround), once height() exists

  const { noise } = valueNoise(seed)

  // the natural ground height (top block) before ponds are dug
  function height (x, z) {
    let h = BASE_HEIGHT
    HILLS.forEach(([scale, amp], i) => { h += amp * noise(x, z, scale, SALT.hills + 16 * i) })
    return Math.round(h)
  }

  const ponds = new Map()
  // the pond of chunk (cx, cz) or null: an ellipse well inside the chunk, its
  // water level the lowest ground of the ellipse and its rim, so it never spills
  function pond (cx, cz) {
    const key = cx + ',' + cz
    if (ponds.has(key)) return ponds.get(key)
    let result = null
    const rng = random(hash(seed, cx, cz, 0, SALT.pond))
    if (rng.int(POND_CHANCE) === 0) {
      const x0 = cx * 16 + 5 + rng.int(6)
      const z0 = cz * 16 + 5 + rng.int(6)
      const rx = 2 + rng.next() * 1.5
      const rz = 2 + rng.next() * 1.5
      const cells = new Map() // "x,z" -> depth
      let level = Infinity
      for (let x = x0 - 4; x <= x0 + 4; x++) {
        for (let z = z0 - 4; z <= z0 + 4; z++) {
          const e = ((x - x0) / rx) ** 2 + ((z - z0) / rz) ** 2
          if (e <= 1) cells.set(x + ',' + z, e < 0.35 ? 2 : 1)
        }
      }
      for (const k of cells.keys()) {
        const [x, z] = k.split(',').map(Number)
        for (let dx = -1; dx <= 1; dx++) {
          for (let dz = -1; dz <= 1; dz++) level = Math.min(level, height(x + dx, z + dz))
        }
      }
      result = { x: x0, z: z0, level, cells }
      if (danger && [...cells.keys()].some(k => danger.near.has(k))) result = null
    }
    if (ponds.size > 4096) ponds.clear()
    ponds.set(key, result)
    return result
  }
  const chunkOf = (v) => Math.floor(v / 16)
  // water depth at (x, z), 0 when dry
  const pondDepth = (x, z) => {
    const p = pond(chunkOf(x), chunkOf(z))
    return (p && p.cells.get(x + ',' + z)) || 0
  }
  // a pond's water or its rim (no tree grows there, nobody spawns there)
  function wet (x, z) {
    const p = pond(chunkOf(x), chunkOf(z))
    if (!p) return false
    for (let dx = -1; dx <= 1; dx++) {
      for (let dz = -1; dz <= 1; dz++) if (p.cells.has((x + dx) + ',' + (z + dz))) return true
    }
    return false
  }

  // the tree of grid cell (i, j) or null
  function tree (i, j) {
    const h = hash(seed, i, j, 0, SALT.tree)
    if (h % 100 >= TREE_CHANCE) return null
    const x = i * TREE_CELL + 2 + ((h >>> 8) & 3)
    const z = j * TREE_CELL + 2 + ((h >>> 10) & 3)
    if (wet(x, z) || wet(x + 1, z) || wet(x - 1, z) || wet(x, z + 1) || wet(x, z - 1)) return null
    if (danger && danger.near.has(x + ',' + z)) return null
    const base = height(x, z) + 1
    return { x, z, base, logs: 4 + ((h >>> 12) % 3) } // vanilla oak: 4 + random(3) logs
  }
  // every tree whose trunk or leaves may reach into [x0, x1] x [z0, z1]
  function treesNear (x0, z0, x1, z1) {
    const out = []
    const r = LEAF_RADIUS
    for (let i = Math.floor((x0 - r) / TREE_CELL); i <= Math.floor((x1 + r) / TREE_CELL); i++) {
      for (let j = Math.floor((z0 - r) / TREE_CELL); j <= Math.floor((z1 + r) / TREE_CELL); j++) {
        const t = tree(i, j)
        if (t && t.x + r >= x0 && t.x - r <= x1 && t.z + r >= z0 && t.z - r <= z1) out.push(t)
      }
    }
    return out
  }
  // vanilla small oak leaves: layers from 3 below the top log to 1 above it,
  // radius 2, 2, 1, 1; a corner of a layer is left out at random (always on top)
  function leafAt (t, dx, y, dz) {
    const top = t.base + t.logs // the layer above the last log
    const dy = y - top
    if (dy < -3 || dy > 0) return false
    const r = dy >= -1 ? 1 : 2
    if (Math.abs(dx) > r || Math.abs(dz) > r) return false
    if (dx === 0 && dz === 0 && dy < 0) return false // the trunk
    if (Math.abs(dx) === r && Math.abs(dz) === r) {
      if (dy === 0) return false
      return (hash(seed, t.x + dx, y, t.z + dz, SALT.leaf) & 1) === 0
    }
    return true
  }

  // Where players appear: the corner shared by four dry, tree-free columns of
  // one height, nearest to the origin. flying-squid puts a player exactly at
  // the spawn point (a block corner), so all four must be solid ground.
  function spawn () {
    const ok = (x, z, h) => height(x, z) === h && !wet(x, z) &&
      treesNear(x, z, x, z).every(t => Math.max(Math.abs(t.x - x), Math.abs(t.z - z)) > LEAF_RADIUS)
    for (let r = 0; r <= 128; r++) {
      for (let x = -r; x <= r; x++) {
        for (let z = -r; z <= r; z++) {
          if (Math.max(Math.abs(x), Math.abs(z)) !== r) continue
          const h = height(x, z)
          if (ok(x, z, h) && ok(x - 1, z, h) && ok(x, z - 1, h) && ok(x - 1, z - 1, h)) {
            return { x: x + 0, y: h + 1, z: z + 0 } // + 0: no -0 in JSON or Vec3
          }
        }
      }
    }
    return { x: 0, y: height(0, 0) + 1, z: 0 }
  }

  // The hazards around the spawn point s, each in its own third of the circle
  // (the first at a random angle): every column of each, and `near`, the
  // columns within HAZARD_CLEAR of one. Levels are taken from the ground like
  // a pond's, so each is fixed by the seed whichever chunk draws it.
  function hazardsAround (s) {
    const rng = random(hash(seed, s.x, s.z, 0, SALT.hazard))
    const turn = rng.next() * 2 * Math.PI
    const at = (third, distance) => {
      const a = turn + third * 2 * Math.PI / 3
      return { a, x: s.x + Math.round(Math.cos(a) * distance), z: s.z + Math.round(Math.sin(a) * distance) }
    }
    const ellipse = (c, rx, rz, depthOf) => { // "x,z" -> depth over an oval around c
      const cells = new Map()
      for (let x = c.x - Math.ceil(rx); x <= c.x + Math.ceil(rx); x++) {
        for (let z = c.z - Math.ceil(rz); z <= c.z + Math.ceil(rz); z++) {
          const e = ((x - c.x) / rx) ** 2 + ((z - c.z) / rz) ** 2
          if (e <= 1) cells.set(x + ',' + z, depthOf(e))
        }
      }
      return cells
    }
    const around = (cells, r) => { // the columns within r (a square) of any of cells
      const out = new Set()
      for (const k of cells.keys()) {
        const [x, z] = k.split(',').map(Number)
        for (let dx = -r; dx <= r; dx++) for (let dz = -r; dz <= r; dz++) out.add((x + dx) + ',' + (z + dz))
      }
      return out
    }
    const lowest = (keys) => Math.min(...[...keys].map(k => { const [x, z] = k.split(',').map(Number); return height(x, z) }))
    const columns = new Map() // "x,z" -> { top, level, fluid, stone }
    const list = []

    // a lava pocket: its surface one block below the lowest ground of its rim;
    // the rim turns to stone, as vanilla's LakeFeature does round lava
    const lavaAt = at(0, 19 + rng.int(3))
    const lava = ellipse(lavaAt, 2 + rng.next(), 2 + rng.next(), (e) => e < 0.4 ? 2 : 1)
    const lavaRim = around(lava, 1)
    const lavaLevel = lowest(lavaRim) - 1
    for (const k of lavaRim) {
      const [x, z] = k.split(',').map(Number)
      columns.set(k, lava.has(k)
        ? { top: lavaLevel - lava.get(k), level: lavaLevel, fluid: 'lava', stone: true }
        : { top: height(x, z), stone: true })
    }
    list.push({ kind: 'lava', x: lavaAt.x, z: lavaAt.z, level: lavaLevel, cells: [...lava.keys()] })

    // a ravine: a trench across the way out, 3 wide (1 at its last 2 blocks
    // each end) and 21 long, its stone floor 12 below the lowest ground it cuts
    const ravineAt = at(1, 28 + rng.int(4))
    const ux = -Math.sin(ravineAt.a)
    const uz = Math.cos(ravineAt.a)
    const ravine = new Map()
    for (let x = ravineAt.x - 11; x <= ravineAt.x + 11; x++) {
      for (let z = ravineAt.z - 11; z <= ravineAt.z + 11; z++) {
        const along = (x - ravineAt.x) * ux + (z - ravineAt.z) * uz
        const across = -(x - ravineAt.x) * uz + (z - ravineAt.z) * ux
        if (Math.abs(along) <= 10.5 && Math.abs(across) <= (Math.abs(along) <= 8.5 ? 1.5 : 0.5)) ravine.set(x + ',' + z, 0)
      }
    }
    const floor = lowest(ravine.keys()) - 12
    for (const k of ravine.keys()) columns.set(k, { top: floor, stone: true })
    list.push({ kind: 'ravine', x: ravineAt.x, z: ravineAt.z, floor, cells: [...ravine.keys()] })

    // a lake: an oval of still water 6-8 blocks across each way, 5 deep in
    // the middle (deep enough to drown in), its surface at its rim's lowest ground
    const lakeAt = at(2, 28 + rng.int(4))
    const lake = ellipse(lakeAt, 6 + rng.next() * 2, 6 + rng.next() * 2, (e) => Math.max(1, Math.min(5, Math.ceil(6 * (1 - e)))))
    const lakeLevel = lowest(around(lake, 1))
    for (const [k, depth] of lake) columns.set(k, { top: lakeLevel - depth, level: lakeLevel, fluid: 'water', stone: false })
    list.push({ kind: 'lake', x: lakeAt.x, z: lakeAt.z, level: lakeLevel, cells: [...lake.keys()] })

    return { columns, list, near: around(columns, HAZARD_CLEAR) }
  }
  if (plain) danger = hazardsAround(plain.spawn())
  // the hazard column at (x, z) or null: { top, level?, fluid?, stone }
  const hazard = (x, z) => (danger && danger.columns.get(x + ',' + z)) || null

  return {
    seed,
    height,
    pond,
    pondDepth,
    wet,
    tree,
    treesNear,
    leafAt,
    // the hazards lie 16+ blocks from the plain world's spawn point: they never move it
    spawn: plain ? plain.spawn : spawn,
    hazard,
    hazards: danger ? danger.list : []
  }
}

// --- chunks -----------------------------------------------------------------

function generation ({ seed, registry, hazards = false }) {
  const Chunk = require('prismarine-chunk')(registry)
  const world = terrain(seed, { hazards })
  const state = (name) => registry.blocksByName[name].defaultState
  const AIR = 0
  const BEDROCK = state('bedrock')
  const STONE = state('stone')
  const DIRT = state('dirt')
  const GRASS = state('grass_block') // snowy=false
  const WATER = state('water') // level 0: a still source
  const FLUID = { water: WATER, lava: state('lava') }
  const LOG = state('oak_log') // axis=y
  const leavesBlock = registry.blocksByName.oak_leaves
  // states: distance 1..7, then persistent (true first): not persistent = +1
  const LEAVES = (distance) => leavesBlock.minStateId + (Math.min(7, Math.max(1, distance)) - 1) * 2 + 1
  const ORE_STATES = ORES.map(([name, ...rest]) => [state(name), ...rest])
  const PLAINS = registry.biomesByName.plains.id

  return function generateChunk (chunkX, chunkZ) {
    const chunk = new Chunk()
    const x0 = chunkX * 16
    const z0 = chunkZ * 16
    const p = { x: 0, y: 0, z: 0 }
    const set = (x, y, z, id) => { p.x = x; p.y = y; p.z = z; chunk.setBlockStateId(p, id) }
    const get = (x, y, z) => { p.x = x; p.y = y; p.z = z; return chunk.getBlockStateId(p) }
    const ground = new Int32Array(256) // highest solid terrain block of each column
    const pond = world.pond(chunkX, chunkZ)

    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const wx = x0 + x
        const wz = z0 + z
        let top = world.height(wx, wz)
        const depth = pond ? (pond.cells.get(wx + ',' + wz) || 0) : 0
        if (depth) top = pond.level - depth
        const hz = world.hazard(wx, wz) // null unless the hazards are on and cross here
        if (hz) top = hz.top
        const dirt = DIRT_DEPTH + (hash(world.seed, wx, wz, 0, SALT.dirt) & 1)
        set(x, 0, z, BEDROCK)
        for (let y = 1; y <= top; y++) {
          let id
          if (y <= 4 && hash(world.seed, wx, y, wz, SALT.bedrock) % 5 >= y) id = BEDROCK
          else if (y < top - dirt || (hz && hz.stone)) id = STONE
          else if (y < top || depth || hz) id = DIRT
          else id = GRASS
          set(x, y, z, id)
        }
        if (depth) for (let y = top + 1; y <= pond.level; y++) set(x, y, z, WATER)
        if (hz && hz.fluid) for (let y = top + 1; y <= hz.level; y++) set(x, y, z, FLUID[hz.fluid])
        ground[x * 16 + z] = top
      }
    }

    // ores: vanilla's OreFeature, its veins kept inside this chunk
    const rng = random(hash(world.seed, chunkX, chunkZ, 0, SALT.ore))
    for (const [ore, size, tries, low, range] of ORE_STATES) {
      for (let i = 0; i < tries; i++) {
        const cx = 3 + rng.int(10)
        const cz = 3 + rng.int(10)
        const cy = low + rng.int(range)
        vein(rng, size, cx, cy, cz, (x, y, z) => {
          if (x >= 0 && x < 16 && z >= 0 && z < 16 && y > 0 && y < 256 && get(x, y, z) === STONE) set(x, y, z, ore)
        })
      }
    }

    // trees, including the parts of neighbouring chunks' trees that reach in here
    for (const t of world.treesNear(x0, z0, x0 + 15, z0 + 15)) {
      const top = t.base + t.logs
      for (let y = top - 3; y <= top; y++) {
        for (let dx = -LEAF_RADIUS; dx <= LEAF_RADIUS; dx++) {
          for (let dz = -LEAF_RADIUS; dz <= LEAF_RADIUS; dz++) {
            const x = t.x + dx - x0
            const z = t.z + dz - z0
            if (x < 0 || x > 15 || z < 0 || z > 15 || !world.leafAt(t, dx, y, dz)) continue
            if (get(x, y, z) !== AIR) continue // leaves never replace logs
            const toLog = Math.abs(dx) + Math.abs(dz) + Math.max(0, y - (top - 1))
            set(x, y, z, LEAVES(toLog))
          }
        }
      }
      const x = t.x - x0
      const z = t.z - z0
      if (x >= 0 && x < 16 && z >= 0 && z < 16) {
        set(x, t.base - 1, z, DIRT) // vanilla: the soil under a tree turns to dirt
        for (let y = t.base; y < top; y++) set(x, y, z, LOG)
      }
    }

    skyLight(chunk, ground, p)
    for (let bx = 0; bx < 16; bx += 4) {
      for (let bz = 0; bz < 16; bz += 4) {
        for (let by = 0; by < 256; by += 4) { p.x = bx; p.y = by; p.z = bz; chunk.setBiome(p, PLAINS) }
      }
    }
    return chunk
  }
}

// vanilla 1.16.5 OreFeature: spheres of growing then shrinking radius along a
// short random line through the vein's position
function vein (rng, size, x, y, z, place) {
  const angle = rng.next() * Math.PI
  const len = size / 8
  const xa = x + Math.sin(angle) * len
  const xb = x - Math.sin(angle) * len
  const za = z + Math.cos(angle) * len
  const zb = z - Math.cos(angle) * len
  const ya = y + rng.int(3) - 2
  const yb = y + rng.int(3) - 2
  for (let k = 0; k < size; k++) {
    const f = k / size
    const cx = xa + (xb - xa) * f
    const cy = ya + (yb - ya) * f
    const cz = za + (zb - za) * f
    const r = ((Math.sin(Math.PI * f) + 1) * rng.next() * size / 16 + 1) / 2
    for (let bx = Math.floor(cx - r); bx <= Math.floor(cx + r); bx++) {
      const dx = (bx + 0.5 - cx) / r
      if (dx * dx >= 1) continue
      for (let by = Math.floor(cy - r); by <= Math.floor(cy + r); by++) {
        const dy = (by + 0.5 - cy) / r
        if (dx * dx + dy * dy >= 1) continue
        for (let bz = Math.floor(cz - r); bz <= Math.floor(cz + r); bz++) {
          const dz = (bz + 0.5 - cz) / r
          if (dx * dx + dy * dy + dz * dz >= 1) continue
          place(bx, by, bz) // a cell met twice is placed twice: every caller's place is idempotent
        }
      }
    }
  }
}

// Sky light: 15 in every block above the ground (air, leaves, water: vanilla
// dims it by 1 per block of leaves or water, which is left out), 0 below.
// The sections wholly above the highest ground are filled in one go.
function skyLight (chunk, ground, p) {
  let low = 255
  let high = 0
  for (const g of ground) { low = Math.min(low, g); high = Math.max(high, g) }
  const firstFull = (high >> 4) + 1 // the lowest section with no ground in it
  for (let s = firstFull; s < 16; s++) {
    p.x = 0; p.y = s * 16; p.z = 0
    chunk.setSkyLight(p, 15)
    const section = chunk.skyLightSections && chunk.skyLightSections[s + 1]
    if (section && section.data && section.bitsPerValue === 4) {
      section.data.fill(0xffffffff)
    } else {
      for (let y = s * 16; y < s * 16 + 16; y++) {
        for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) { p.x = x; p.y = y; p.z = z; chunk.setSkyLight(p, 15) }
      }
    }
  }
  for (let x = 0; x < 16; x++) {
    for (let z = 0; z < 16; z++) {
      p.x = x; p.z = z
      for (let y = ground[x * 16 + z] + 1; y < firstFull * 16; y++) { p.y = y; chunk.setSkyLight(p, 15) }
    }
  }
}

module.exports = generation
module.exports.terrain = terrain
module.exports.vein = vein
module.exports.ORES = ORES
module.exports.skyLight = skyLight
