'use strict'
// The vanilla profile's land: biomes and the height of the ground, pure
// functions of the seed (no chunk is read).
//
// Vanilla 1.16.5 picks a biome per 4x4 cell by its layer stack and shapes the
// ground from 3D noise whose base height and relief come from each biome's
// `depth` and `scale`, blended over the 5x5 cells round a column with weights
// 10 / sqrt(dx^2 + dz^2 + 0.2), a higher neighbour counting half
// (NoiseChunkGenerator.sampleNoiseColumn). Here the biomes come from
// smooth climate noises (continentalness, temperature, humidity, a mountain
// noise, a river noise) and the height from 2D noise shaped by the same
// blended depth and scale: base 64 + 16 x depth (plains 66, swamp 61, a river
// 56, an ocean 48, a deep ocean 35, mountains 80) and relief 3 + 60 x scale.
// Mountains add ridged noise up to MOUNTAIN_RISE more, terraced into steps of
// CLIFF_STEP whose risers take a tenth of the step's width: cliffs of up to
// CLIFF_STEP blocks, and more where the ridges are steep (drops that kill), which
// vanilla's 3D noise makes as overhangs and sheer faces. Differences from
// vanilla (docs/world-vanilla.md): no overhangs, no floating islands of
// terrain, the biome set below.
const { valueNoise } = require('../terrain/rand')

const SEA_LEVEL = 63 // vanilla overworld: water fills every column up to y 62
// vanilla 1.16.5 biome depth and scale (Biome.Builder .depth() .scale())
const BIOMES = {
  ocean: { depth: -1.0, scale: 0.1 },
  deep_ocean: { depth: -1.8, scale: 0.1 },
  river: { depth: -0.5, scale: 0.0 },
  beach: { depth: 0.0, scale: 0.025 },
  plains: { depth: 0.125, scale: 0.05 },
  forest: { depth: 0.1, scale: 0.2 },
  birch_forest: { depth: 0.1, scale: 0.2 },
  desert: { depth: 0.125, scale: 0.05 },
  swamp: { depth: -0.2, scale: 0.1 },
  mountains: { depth: 1.0, scale: 0.5 },
  wooded_mountains: { depth: 1.0, scale: 0.5 }
}
const MOUNTAINOUS = new Set(['mountains', 'wooded_mountains'])
const WATERY = new Set(['ocean', 'deep_ocean', 'river'])
const SALT = { continent: 21, river: 22, mountain: 23, temperature: 24, humidity: 25, relief: 26, ridge: 27, detail: 28 }
const OCEAN_BELOW = -0.2 // continentalness under which a cell is ocean ...
const DEEP_BELOW = -0.42 // ... and deep ocean
const BEACH_BELOW = -0.16 // a land cell this close to the ocean is beach
const RIVER_WIDTH = 0.03 // |river noise| under which a land cell is river
const MOUNTAIN_ABOVE = 0.28
const ORIGIN_LAND = 1024 // blocks from the origin over which land is favoured
const MOUNTAIN_RISE = 64
const CLIFF_STEP = 22
const BLEND = (() => { // the 5x5 weights of NoiseChunkGenerator
  const w = []
  for (let dx = -2; dx <= 2; dx++) for (let dz = -2; dz <= 2; dz++) w.push([dx, dz, 10 / Math.sqrt(dx * dx + dz * dz + 0.2)])
  return w
})()

function land (seed, { cliffs = true } = {}) {
  const { noise, octaves } = valueNoise(seed)
  const cells = new Map() // biome of each 4x4 cell, bounded

  // the biome of the 4x4 cell (i, j)
  function cellBiome (i, j) {
    const key = i * 65536 + j
    const known = cells.get(key)
    if (known !== undefined) return known
    const x = i * 4 + 2
    const z = j * 4 + 2
    // vanilla's IslandLayer makes the cell at the origin land: here, land grows likelier near it
    const c = octaves(x, z, 1024, SALT.continent, 3) + Math.max(0, 0.6 * (1 - Math.hypot(x, z) / ORIGIN_LAND))
    let b
    if (c < DEEP_BELOW) b = 'deep_ocean'
    else if (c < OCEAN_BELOW) b = 'ocean'
    else if (Math.abs(octaves(x, z, 384, SALT.river, 2)) < RIVER_WIDTH) b = 'river'
    else if (c < BEACH_BELOW) b = 'beach'
    else {
      const t = octaves(x, z, 768, SALT.temperature, 2)
      const w = octaves(x, z, 512, SALT.humidity, 2)
      if (octaves(x, z, 512, SALT.mountain, 3) > MOUNTAIN_ABOVE) b = w > 0.1 ? 'wooded_mountains' : 'mountains'
      else if (t > 0.22 && w < 0.05) b = 'desert'
      else if (w > 0.28 && t > -0.15) b = 'swamp'
      else if (w > -0.02) b = t < -0.2 ? 'birch_forest' : 'forest'
      else b = 'plains'
    }
    if (cells.size > 65536) cells.clear()
    cells.set(key, b)
    return b
  }
  const biome = (x, z) => cellBiome(Math.floor(x / 4), Math.floor(z / 4))

  // depth, scale and the share of mountains round cell (i, j), blended as vanilla
  function blended (i, j) {
    const here = BIOMES[cellBiome(i, j)].depth
    let depth = 0
    let scale = 0
    let mountain = 0
    let total = 0
    for (const [dx, dz, weight] of BLEND) {
      const name = cellBiome(i + dx, j + dz)
      const b = BIOMES[name]
      const w = b.depth > here ? weight / 2 : weight
      depth += b.depth * w
      scale += b.scale * w
      if (MOUNTAINOUS.has(name)) mountain += w
      total += w
    }
    return { depth: depth / total, scale: scale / total, mountain: mountain / total }
  }
  const corners = new Map()
  function corner (i, j) {
    const key = i * 65536 + j
    let v = corners.get(key)
    if (v === undefined) {
      if (corners.size > 65536) corners.clear()
      v = blended(i, j)
      corners.set(key, v)
    }
    return v
  }

  // the ground's top block at (x, z): the blend interpolated between cell
  // corners (as vanilla interpolates its noise between 4-block cells)
  function height (x, z) {
    const fx = (x - 2) / 4
    const fz = (z - 2) / 4
    const i = Math.floor(fx)
    const j = Math.floor(fz)
    const tx = fx - i
    const tz = fz - j
    const a = corner(i, j)
    const b = corner(i + 1, j)
    const c = corner(i, j + 1)
    const d = corner(i + 1, j + 1)
    const mix = (k) => (a[k] * (1 - tx) + b[k] * tx) * (1 - tz) + (c[k] * (1 - tx) + d[k] * tx) * tz
    const depth = mix('depth')
    const scale = mix('scale')
    const mountain = mix('mountain')
    let h = 64 + 16 * depth + (3 + 60 * scale) * octaves(x, z, 96, SALT.relief, 3)
    h += 0.6 * octaves(x, z, 8, SALT.detail, 1)
    if (mountain > 0) {
      const ridge = 1 - Math.abs(octaves(x, z, 160, SALT.ridge, 3)) // 1 on the ridge lines
      const rise = MOUNTAIN_RISE * mountain * ridge * ridge
      const f = rise / CLIFF_STEP
      const k = Math.floor(f)
      const riser = Math.min(1, Math.max(0, (f - k - 0.9) / 0.1)) // flat for 9/10 of a step
      const terraced = (k + riser * riser * (3 - 2 * riser)) * CLIFF_STEP
      h += cliffs ? rise + (terraced - rise) * Math.min(1, mountain * 1.5) : rise
    }
    return Math.max(8, Math.min(200, Math.round(h)))
  }

  return { seed, biome, cellBiome, height, noise, octaves }
}

module.exports = { land, BIOMES, SEA_LEVEL, MOUNTAINOUS, WATERY }
