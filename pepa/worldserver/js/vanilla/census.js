'use strict'
// A census of the vanilla terrain over many chunks of one seed: what the
// faithfulness tests (tests/fast/worldserver/test_vanilla_census.py) and
// bench/vanilla_world.py check against vanilla's figures.
//
//   node census.js --seed N [--chunks 64] [--off caves,ravines,...]
//
// prints one JSON object: per-chunk means of ore blocks (and the highest y
// each was found at), cave air by height band, lava below y 11, lakes,
// springs, dungeons and mineshafts' cave spider spawners and cobwebs per
// chunk, the biomes' shares over a square of
// 8192 x 8192 blocks, the share of mountain columns beside a drop of 23 or
// more (a fall that kills from full health), and the time blocksOf took.
const { performance } = require('perf_hooks')
const { hash } = require('../terrain/rand')
const { vanillaTerrain } = require('./index')
const { MOUNTAINOUS } = require('./land')

const BAND = 8 // cave air is counted in bands of this many layers
const ORES = ['coal_ore', 'iron_ore', 'gold_ore', 'redstone_ore', 'diamond_ore', 'lapis_ore', 'emerald_ore']

function census ({ seed, chunks = 64, off = [], registry } = {}) {
  const reg = registry || require('minecraft-data')('1.16.5')
  const world = vanillaTerrain(seed, { registry: reg, off })
  const { ids } = world
  const oreIds = new Map(ORES.map(n => [world.ids.ore[n], n]))
  const ores = Object.fromEntries(ORES.map(n => [n, { perChunk: 0, highest: -1, chunksWith: 0 }]))
  const caveAir = new Array(256 / BAND).fill(0)
  let lavaLow = 0
  const lakes = { water: 0, lava: 0, waterUnderground: 0, lavaUnderground: 0 }
  const springs = { water: 0, lava: 0 }
  const dungeons = { count: 0, mobs: {} }
  let caveSpiderSpawners = 0
  let cobwebs = 0
  const times = []
  let mountainChunks = 0
  for (let n = 0; n < chunks; n++) { // chunks spread over 6400 x 6400 blocks
    const cx = (hash(world.seed, n, 0, 0, 61) % 400) - 200
    const cz = (hash(world.seed, n, 1, 0, 61) % 400) - 200
    const t0 = performance.now()
    const made = world.blocksOf(cx, cz)
    times.push(performance.now() - t0)
    const { blocks } = made
    const seen = new Set()
    for (let i = 0; i < blocks.length; i++) {
      const id = blocks[i]
      if (id === 0 || id === ids.stone) continue
      const y = i >> 8
      if (id === ids.cobweb) cobwebs++
      if (id === ids.caveAir) caveAir[Math.floor(y / BAND)]++
      else if (id === ids.lava && y < 11) lavaLow++
      else if (oreIds.has(id)) {
        const o = ores[oreIds.get(id)]
        o.perChunk++
        o.highest = Math.max(o.highest, y)
        seen.add(oreIds.get(id))
      }
    }
    for (const name of seen) ores[name].chunksWith++
    if (MOUNTAINOUS.has(world.biome(cx * 16 + 8, cz * 16 + 8))) mountainChunks++
    for (const l of made.lakes) {
      lakes[l.fluid]++
      if (l.y < world.height(l.x, l.z) - 4) lakes[l.fluid + 'Underground']++
    }
    for (const s of made.springs) springs[s.fluid]++
    for (const d of made.dungeons) { dungeons.count++; dungeons.mobs[d.mob] = (dungeons.mobs[d.mob] || 0) + 1 }
    caveSpiderSpawners += made.spawners.filter(s => s.mob === 'cave_spider').length
  }
  for (const o of Object.values(ores)) o.perChunk /= chunks
  const shares = {}
  let cells = 0
  for (let i = -1024; i < 1024; i += 4) {
    for (let j = -1024; j < 1024; j += 4) { const b = world.cellBiome(i, j); shares[b] = (shares[b] || 0) + 1; cells++ }
  }
  for (const b of Object.keys(shares)) shares[b] /= cells
  let mountainColumns = 0
  let deadlyDrops = 0
  for (let x = -2000; x < 2000; x += 5) {
    for (let z = -2000; z < 2000; z += 5) {
      if (!MOUNTAINOUS.has(world.biome(x, z))) continue
      mountainColumns++
      const h = world.height(x, z)
      let drop = 0
      for (const [dx, dz] of [[1, 0], [0, 1], [-1, 0], [0, -1], [2, 0], [0, 2], [-2, 0], [0, -2]]) drop = Math.max(drop, h - world.height(x + dx, z + dz))
      if (drop >= 23) deadlyDrops++
    }
  }
  times.sort((a, b) => a - b)
  const layers = 16 * 16 * BAND * chunks
  return {
    seed: world.seed,
    chunks,
    off,
    ores,
    caveAir: caveAir.map((c, k) => ({ from: k * BAND, share: c / layers })),
    lavaBelow11PerChunk: lavaLow / chunks,
    lakesPerChunk: Object.fromEntries(Object.entries(lakes).map(([k, v]) => [k, v / chunks])),
    springsPerChunk: Object.fromEntries(Object.entries(springs).map(([k, v]) => [k, v / chunks])),
    dungeonsPerChunk: dungeons.count / chunks,
    dungeonMobs: dungeons.mobs,
    caveSpiderSpawnersPerChunk: caveSpiderSpawners / chunks,
    cobwebsPerChunk: cobwebs / chunks,
    mountainChunks,
    biomeShares: shares,
    deadlyDropShare: mountainColumns ? deadlyDrops / mountainColumns : 0,
    spawn: world.spawn(),
    ms: { median: times[times.length >> 1], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] }
  }
}

if (require.main === module) {
  const args = process.argv.slice(2)
  const opt = (name, fallback) => { const i = args.indexOf('--' + name); return i >= 0 ? args[i + 1] : fallback }
  const off = (opt('off', '') || '').split(',').filter(Boolean)
  console.log(JSON.stringify(census({ seed: Number(opt('seed', 12345)), chunks: Number(opt('chunks', 64)), off })))
}

module.exports = { census }
