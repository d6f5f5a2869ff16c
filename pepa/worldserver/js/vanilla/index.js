'use strict'
// The vanilla profile's terrain: a flying-squid generation module (1.16.5),
// as generator.js is the gentle and hard profiles' (docs/world-vanilla.md).
//
// A chunk is made in a flat array of block states, in vanilla's order: the
// ground of each column by its biome (land.js), the sea up to y 62, the
// carvers (carvers.js), then the features (features.js: lakes; mineshafts.js;
// ore blobs, springs, dungeons) and the plants (trees and desert plants); then
// the array is written into a prismarine chunk with its biomes and sky light.
// Everything is a pure function of the seed: a chunk draws the parts of its
// neighbours' lakes, trees and carvers that reach into it, so the same seed
// gives the same world in any order of generation.
//
// module.exports.vanillaTerrain(seed, { off }) gives the description without
// a prismarine chunk (blocksOf, the spawn point, the biome and ground height
// functions) to plugins, the census (census.js) and tests; `off` lists
// mechanics to leave out (caves, ravines, lakes, mineshafts, springs,
// dungeons, ores, trees, cliffs), for the census tests that show each one matters.
const { hash, random, normSeed } = require('../terrain/rand')
const { land, SEA_LEVEL, MOUNTAINOUS } = require('./land')
const { carveChunk } = require('./carvers')
const { placeLakes, placeOres, placeSprings, placeDungeons } = require('./features')
const { placeMineshafts } = require('./mineshafts')

const SALT = { dirt: 51, bedrock: 52, tree: 53, cactus: 54, bush: 55, surface: 56 }
// vanilla 1.16.5 tree decorators per chunk: [count, extra chance, extra count]
const TREES = {
  forest: [10, 0.1, 1],
  birch_forest: [10, 0.1, 1],
  swamp: [2, 0.1, 1],
  wooded_mountains: [1, 0.1, 1],
  mountains: [0, 0.1, 1],
  plains: [0, 0.05, 1]
}
const LEAF_RADIUS = 2
const at = (x, y, z) => (y * 16 + z) * 16 + x

function stateIds (registry) {
  const state = (name) => {
    const b = registry.blocksByName[name]
    if (!b) throw new Error(`minecraft-data has no block ${name}`)
    return b.defaultState
  }
  const leaves = (name) => {
    const b = registry.blocksByName[name] // distance 1..7, then persistent (true first): not persistent = +1
    return (d) => b.minStateId + (Math.min(7, Math.max(1, d)) - 1) * 2 + 1
  }
  const ids = {
    air: 0,
    caveAir: state('cave_air'),
    stone: state('stone'),
    bedrock: state('bedrock'),
    dirt: state('dirt'),
    grass: state('grass_block'),
    sand: state('sand'),
    sandstone: state('sandstone'),
    gravel: state('gravel'),
    water: state('water'),
    lava: state('lava'),
    cobblestone: state('cobblestone'),
    mossy: state('mossy_cobblestone'),
    spawner: state('spawner'),
    planks: state('oak_planks'),
    fence: state('oak_fence'),
    cobweb: state('cobweb'),
    railZ: registry.blocksByName.rail.minStateId, // shape north_south
    railX: registry.blocksByName.rail.minStateId + 1, // shape east_west
    cactus: state('cactus'),
    deadBush: state('dead_bush'),
    oakLog: state('oak_log'),
    birchLog: state('birch_log'),
    oakLeaves: leaves('oak_leaves'),
    birchLeaves: leaves('birch_leaves'),
    ore: {}
  }
  for (const name of ['coal_ore', 'iron_ore', 'gold_ore', 'redstone_ore', 'diamond_ore', 'lapis_ore', 'emerald_ore', 'dirt', 'gravel', 'granite', 'diorite', 'andesite']) ids.ore[name] = state(name)
  const top = Object.values(registry.blocksByStateId).reduce((m, b) => Math.max(m, b.maxStateId || 0), 0)
  const table = (names) => {
    const t = new Uint8Array(top + 1)
    for (const name of names) { const b = registry.blocksByName[name]; for (let s = b.minStateId; s <= b.maxStateId; s++) t[s] = 1 }
    return t
  }
  const stoneNames = ['stone', 'granite', 'diorite', 'andesite']
  const ores = ['coal_ore', 'iron_ore', 'gold_ore', 'redstone_ore', 'diamond_ore', 'lapis_ore', 'emerald_ore']
  // vanilla WorldCarver's carvable blocks (sand and gravel only under no fluid: not checked here)
  const carvable = table([...stoneNames, 'dirt', 'coarse_dirt', 'podzol', 'grass_block', 'sand', 'sandstone', 'gravel', ...ores])
  const stoneLike = table(stoneNames) // springs' walls; ore blobs replace these (OreFeature's NATURAL_STONE)
  const solid = new Uint8Array(top + 1)
  for (const b of Object.values(registry.blocksByName)) {
    if (b.boundingBox !== 'block' || /leaves|spawner/.test(b.name)) continue
    for (let s = b.minStateId; s <= b.maxStateId; s++) solid[s] = 1
  }
  const clear = table(['air', 'cave_air', 'water', 'lava', 'oak_leaves', 'birch_leaves', 'dead_bush'])
  return { ids, carvable, stoneLike, solid, clear }
}

function vanillaTerrain (rawSeed, { registry, off = [] } = {}) {
  const seed = normSeed(rawSeed)
  const skip = new Set(off)
  const ground = land(seed, { cliffs: !skip.has('cliffs') })
  const reg = registry || require('minecraft-data')('1.16.5')
  const { ids, carvable, stoneLike, solid, clear } = stateIds(reg)

  const mineshaftCache = new Map() // chunk -> the pieces of the mineshaft starting there, or null
  // the trees of chunk (ox, oz): { x, z, base, logs, birch }
  const treeCache = new Map()
  function treesOf (ox, oz) {
    const key = ox * 65536 + oz
    if (treeCache.has(key)) return treeCache.get(key)
    const out = []
    const b = ground.biome(ox * 16 + 8, oz * 16 + 8)
    const plan = TREES[b]
    if (plan && !skip.has('trees')) {
      const rng = random(hash(seed, ox, oz, 0, SALT.tree))
      const count = plan[0] + (rng.next() < plan[1] ? plan[2] : 0)
      for (let n = 0; n < count; n++) {
        const x = ox * 16 + rng.int(16)
        const z = oz * 16 + rng.int(16)
        const top = ground.height(x, z)
        const birch = ground.biome(x, z) === 'birch_forest' || (b === 'forest' && rng.int(5) === 0)
        const logs = birch ? 5 + rng.int(3) : 4 + rng.int(3) // vanilla: birch 5..7, oak 4..6
        const biome = ground.biome(x, z)
        if (top < SEA_LEVEL - 1 || biome === 'desert' || biome === 'beach' || biome === 'river') continue
        if (out.some(t => Math.abs(t.x - x) <= 1 && Math.abs(t.z - z) <= 1)) continue
        out.push({ x, z, base: top + 1, logs, birch })
      }
    }
    if (treeCache.size > 4096) treeCache.clear()
    treeCache.set(key, out)
    return out
  }

  // vanilla small oak / birch leaves: layers from 3 below the top log to 1
  // above it, radius 2, 2, 1, 1; a corner left out at random (always on top)
  function leafAt (t, dx, y, dz) {
    const top = t.base + t.logs
    const dy = y - top
    if (dy < -3 || dy > 0) return false
    const r = dy >= -1 ? 1 : 2
    if (Math.abs(dx) > r || Math.abs(dz) > r) return false
    if (dx === 0 && dz === 0 && dy < 0) return false
    if (Math.abs(dx) === r && Math.abs(dz) === r) {
      if (dy === 0) return false
      return (hash(seed, t.x + dx, y, t.z + dz, SALT.tree + 1) & 1) === 0
    }
    return true
  }

  // the block (before carving and features) at a position outside a chunk, for springs at its edge
  const outside = (x, y, z) => y <= ground.height(x, z) ? ids.stone : (y < SEA_LEVEL ? ids.water : ids.air)

  // the chunk (chunkX, chunkZ) as { blocks, lakes, springs, dungeons }
  function blocksOf (chunkX, chunkZ) {
    const blocks = new Uint16Array(65536)
    const x0 = chunkX * 16
    const z0 = chunkZ * 16
    const heights = new Int32Array(256)
    for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) heights[x * 16 + z] = ground.height(x0 + x, z0 + z)
    const heightAt = (x, z) => (x >= 0 && x < 16 && z >= 0 && z < 16) ? heights[x * 16 + z] : ground.height(x0 + x, z0 + z)
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        const wx = x0 + x
        const wz = z0 + z
        const top = heights[x * 16 + z]
        const biome = ground.biome(wx, wz)
        const depth = 3 + (hash(seed, wx, wz, 0, SALT.dirt) & 1)
        const wet = top < SEA_LEVEL - 1
        let topBlock = ids.grass
        let filler = ids.dirt
        let under = ids.stone
        if (biome === 'desert' || biome === 'beach') { topBlock = ids.sand; filler = ids.sand; under = ids.sandstone } else if (MOUNTAINOUS.has(biome)) {
          const steep = Math.max(Math.abs(top - heightAt(x + 1, z)), Math.abs(top - heightAt(x - 1, z)), Math.abs(top - heightAt(x, z + 1)), Math.abs(top - heightAt(x, z - 1)))
          if (steep >= 3 || ground.noise(wx, wz, 12, SALT.surface) > 0.45) { topBlock = ids.stone; filler = ids.stone } // vanilla MountainSurfaceBuilder: stone where its noise is high
        }
        if (wet) {
          if (biome === 'swamp') { topBlock = ids.dirt; filler = ids.dirt } else if (top >= SEA_LEVEL - 5) { topBlock = ids.sand; filler = ids.sand } else { topBlock = ids.gravel; filler = ids.gravel }
        }
        blocks[at(x, 0, z)] = ids.bedrock
        for (let y = 1; y <= top; y++) {
          let id
          if (y <= 4 && hash(seed, wx, y, wz, SALT.bedrock) % 5 >= y) id = ids.bedrock
          else if (y === top) id = topBlock
          else if (y > top - depth) id = filler
          else if (y > top - depth - 3 && under !== ids.stone) id = under
          else id = ids.stone
          blocks[at(x, y, z)] = id
        }
        for (let y = top + 1; y < SEA_LEVEL; y++) blocks[at(x, y, z)] = ids.water
      }
    }
    const lakes = []
    const springs = []
    const dungeons = []
    const spawners = [] // every spawner made here: the dungeons' and the mineshafts'
    carveChunk(seed, chunkX, chunkZ, blocks, carvable, ids, { caves: !skip.has('caves'), ravines: !skip.has('ravines') })
    if (!skip.has('lakes')) placeLakes(seed, ground, chunkX, chunkZ, blocks, ids, solid, lakes)
    if (!skip.has('mineshafts')) placeMineshafts(seed, chunkX, chunkZ, blocks, ids, SEA_LEVEL, spawners, mineshaftCache)
    if (!skip.has('ores')) placeOres(seed, chunkX, chunkZ, blocks, ids, stoneLike, ground.biome)
    if (!skip.has('springs')) placeSprings(seed, chunkX, chunkZ, blocks, ids, stoneLike, outside, springs)
    if (!skip.has('dungeons')) placeDungeons(seed, chunkX, chunkZ, blocks, ids, solid, dungeons)
    plants(chunkX, chunkZ, blocks)
    for (const d of dungeons) spawners.push(d)
    return { blocks, lakes, springs, dungeons, spawners }
  }

  function plants (chunkX, chunkZ, blocks) {
    const x0 = chunkX * 16
    const z0 = chunkZ * 16
    const standsOn = (x, y, z, ok) => y > 0 && y < 250 && ok(blocks[at(x, y - 1, z)]) && blocks[at(x, y, z)] === ids.air
    for (let ox = chunkX - 1; ox <= chunkX + 1; ox++) {
      for (let oz = chunkZ - 1; oz <= chunkZ + 1; oz++) {
        for (const t of treesOf(ox, oz)) {
          const tx = t.x - x0
          const tz = t.z - z0
          if (tx < -LEAF_RADIUS || tx > 15 + LEAF_RADIUS || tz < -LEAF_RADIUS || tz > 15 + LEAF_RADIUS) continue
          const top = t.base + t.logs
          const leaf = t.birch ? ids.birchLeaves : ids.oakLeaves
          for (let y = top - 3; y <= top; y++) {
            for (let dx = -LEAF_RADIUS; dx <= LEAF_RADIUS; dx++) {
              for (let dz = -LEAF_RADIUS; dz <= LEAF_RADIUS; dz++) {
                const x = tx + dx
                const z = tz + dz
                if (x < 0 || x > 15 || z < 0 || z > 15 || !leafAt(t, dx, y, dz)) continue
                const i = at(x, y, z)
                if (blocks[i] !== ids.air) continue
                blocks[i] = leaf(Math.abs(dx) + Math.abs(dz) + Math.max(0, y - (top - 1)))
              }
            }
          }
          if (tx >= 0 && tx < 16 && tz >= 0 && tz < 16) {
            const below = blocks[at(tx, t.base - 1, tz)]
            if (below !== ids.grass && below !== ids.dirt) continue // carved away or flooded: no trunk
            blocks[at(tx, t.base - 1, tz)] = ids.dirt
            for (let y = t.base; y < top; y++) blocks[at(tx, y, tz)] = t.birch ? ids.birchLog : ids.oakLog
          }
        }
      }
    }
    if (ground.biome(x0 + 8, z0 + 8) !== 'desert' || skip.has('trees')) return
    // vanilla desert: cactus patches (10 a chunk, heights 1..3) and 2 dead bushes
    const rng = random(hash(seed, chunkX, chunkZ, 0, SALT.cactus))
    const sand = (id) => id === ids.sand
    for (let n = 0; n < 12; n++) {
      const x = 1 + rng.int(14)
      const z = 1 + rng.int(14)
      const y = ground.height(x0 + x, z0 + z) + 1
      const cactus = n < 10
      const tall = cactus ? 1 + rng.int(rng.int(3) + 1) : 1
      if (!standsOn(x, y, z, sand)) continue
      if (cactus) {
        const free = (dx, dz) => blocks[at(x + dx, y, z + dz)] === ids.air
        if (!free(1, 0) || !free(-1, 0) || !free(0, 1) || !free(0, -1)) continue // vanilla CactusBlock.canSurvive
        for (let k = 0; k < tall; k++) blocks[at(x, y + k, z)] = ids.cactus
      } else {
        blocks[at(x, y, z)] = ids.deadBush
      }
    }
  }

  // the highest block that stops sky light in each column (Int32Array(256), x * 16 + z)
  function opaqueTops (blocks) {
    const out = new Int32Array(256)
    for (let x = 0; x < 16; x++) {
      for (let z = 0; z < 16; z++) {
        let y = 255
        while (y > 0 && clear[blocks[at(x, y, z)]]) y--
        out[x * 16 + z] = y
      }
    }
    return out
  }

  // Where players appear (vanilla: a grass block in a spawn biome near the
  // origin): the corner shared by four columns of one height, of grass open
  // to the sky, in plains or a forest, nearest the origin.
  let spawnPoint = null
  function spawn () {
    if (spawnPoint) return spawnPoint
    const chunks = new Map()
    const column = (x, z) => {
      const key = Math.floor(x / 16) * 65536 + Math.floor(z / 16)
      let c = chunks.get(key)
      if (!c) { c = blocksOf(Math.floor(x / 16), Math.floor(z / 16)).blocks; chunks.set(key, c) }
      const bx = x - Math.floor(x / 16) * 16
      const bz = z - Math.floor(z / 16) * 16
      let y = 255
      while (y > 0 && c[at(bx, y, bz)] === ids.air) y--
      return { y, id: c[at(bx, y, bz)] }
    }
    const good = (x, z, h) => {
      const b = ground.biome(x, z)
      if (!(b === 'plains' || b === 'forest' || b === 'birch_forest')) return false
      const c = column(x, z)
      return c.y === h && c.id === ids.grass
    }
    for (let r = 0; r <= 256 && !spawnPoint; r += 1) {
      for (let x = -r; x <= r && !spawnPoint; x++) {
        for (let z = -r; z <= r && !spawnPoint; z++) {
          if (Math.max(Math.abs(x), Math.abs(z)) !== r) continue
          const h = ground.height(x, z)
          if (h < SEA_LEVEL) continue
          if (good(x, z, h) && good(x - 1, z, h) && good(x, z - 1, h) && good(x - 1, z - 1, h)) spawnPoint = { x: x + 0, y: h + 1, z: z + 0 }
        }
      }
      if (chunks.size > 256) chunks.clear()
    }
    if (!spawnPoint) spawnPoint = { x: 0, y: ground.height(0, 0) + 1, z: 0 }
    return spawnPoint
  }

  return { seed, ids, blocksOf, opaqueTops, spawn, biome: ground.biome, height: ground.height, cellBiome: ground.cellBiome, treesOf }
}

// The springs of the chunks made so far, for plugins/fluids.js to run out
// (vanilla schedules a spring's fluid tick as it places it); bounded.
const pendingFluids = []
const pendingSpawners = [] // and their dungeons' spawners, for plugins/spawners.js
const PENDING_MAX = 20000

function generation ({ seed, registry, off = [] }) {
  const Chunk = require('prismarine-chunk')(registry)
  const { skyLight } = require('../generator')
  const world = vanillaTerrain(seed, { registry, off })
  const biomeIds = {}
  for (const b of Object.values(registry.biomesByName)) biomeIds[b.name] = b.id
  return function generateChunk (chunkX, chunkZ) {
    const chunk = new Chunk()
    const { blocks, springs, spawners } = world.blocksOf(chunkX, chunkZ)
    for (const s of springs) if (pendingFluids.length < PENDING_MAX) pendingFluids.push(s)
    for (const d of spawners) if (pendingSpawners.length < PENDING_MAX) pendingSpawners.push(d)
    const p = { x: 0, y: 0, z: 0 }
    let high = 0
    for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i] !== 0) { high = i >> 8; break }
    for (let y = 0; y <= high; y++) {
      for (let z = 0; z < 16; z++) {
        for (let x = 0; x < 16; x++) {
          const id = blocks[at(x, y, z)]
          if (id !== 0) { p.x = x; p.y = y; p.z = z; chunk.setBlockStateId(p, id) }
        }
      }
    }
    skyLight(chunk, world.opaqueTops(blocks), p)
    for (let bx = 0; bx < 16; bx += 4) {
      for (let bz = 0; bz < 16; bz += 4) {
        const id = biomeIds[world.cellBiome(chunkX * 4 + bx / 4, chunkZ * 4 + bz / 4)]
        for (let by = 0; by < 256; by += 4) { p.x = bx; p.y = by; p.z = bz; chunk.setBiome(p, id) }
      }
    }
    return chunk
  }
}

module.exports = generation
module.exports.vanillaTerrain = vanillaTerrain
module.exports.pendingFluids = pendingFluids
module.exports.pendingSpawners = pendingSpawners
