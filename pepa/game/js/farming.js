'use strict'
// Farming's rules, vanilla 1.16.5's, shared by the sandbox's server (plugins/crops.js: what a hoe,
// a seed, a random tick and a fall do) and the bot (actions/farming.js: what it can till and
// plant, and when a crop is ripe), so the two agree on every block.
//
//   HoeItem.TILLABLES          grass_block, grass_path and dirt become farmland, coarse_dirt dirt
//   BlockNamedItem             wheat_seeds, carrot, potato, beetroot_seeds plant their crop
//   CropsBlock.getGrowthChance growthChance: 1, plus 3 for moist farmland under the crop (1 dry),
//                              plus a quarter of that for each of the 8 farmland blocks round it;
//                              halved when the same crop grows on both a row and a column
//                              beside it, or, failing that, on a diagonal
//   CropsBlock.randomTick      with light >= 9, age + 1 with probability 1 / (floor(25 / f) + 1)
//   FarmlandBlock              hydrated by water within 4 blocks across, at its level or one above
//   FarmlandBlock.fallOn       trampled when rand < fallDistance - 0.5, by a player or (mob
//                              griefing on) a mob of width² × height > 0.512
//   loot tables                a ripe crop's harvest: 1 + binomial(3, 0.5714286) more seeds (or
//                              carrots, potatoes), the fortune-free apply_bonus
//
// Pure: the world is read through functions the caller gives; random() is a float in [0, 1).

const TILLS = Object.freeze({ grass_block: 'farmland', grass_path: 'farmland', dirt: 'farmland', coarse_dirt: 'dirt' })
const HOE = /_hoe$/
const AIR = new Set(['air', 'cave_air', 'void_air'])
// crop block -> its seed item, its ripe age, the produce a ripe one drops besides more seeds
const CROPS = Object.freeze({
  wheat: Object.freeze({ seed: 'wheat_seeds', ripe: 7, produce: 'wheat' }),
  carrots: Object.freeze({ seed: 'carrot', ripe: 7, produce: null }),
  potatoes: Object.freeze({ seed: 'potato', ripe: 7, produce: null }),
  beetroots: Object.freeze({ seed: 'beetroot_seeds', ripe: 3, produce: 'beetroot' })
})
// seed item -> the crop it plants
const PLANTS = Object.freeze(Object.fromEntries(Object.entries(CROPS).map(([crop, c]) => [c.seed, crop])))
// what keeps a dry farmland from turning to dirt (vanilla FarmlandBlock.isUnderCrops)
const UNDER_CROPS = new Set([...Object.keys(CROPS), 'melon_stem', 'pumpkin_stem', 'attached_melon_stem', 'attached_pumpkin_stem'])
const MAX_MOISTURE = 7
const HYDRATE_REACH = 4 // blocks across (FarmlandBlock.isNearWater: the 9 x 9 square, y 0..+1)
const GROW_LIGHT = 9 // CropsBlock.randomTick: raw brightness at the crop
const PLANT_LIGHT = 8 // CropsBlock.canSurvive: raw brightness, or the sky in sight
const RANDOM_TICK = 3 / 4096 // a block's chance of a random tick in a game tick (randomTickSpeed 3)
const BONUS = { extra: 3, probability: 0.5714286 } // apply_bonus binomial_with_bonus_count
const POISONOUS = 0.02 // potatoes: a poisonous potato from a ripe one
const TRAMPLE_SIZE = 0.512 // FarmlandBlock.fallOn: width * width * height above this

// The chance factor f of the crop `name` at (x, y, z); read(x, y, z) → {name, moisture} (moisture
// of a farmland) or null for a cell not loaded
function growthChance (name, x, y, z, read) {
  const nameAt = (bx, by, bz) => { const b = read(bx, by, bz); return b ? b.name : null }
  let f = 1
  for (let dx = -1; dx <= 1; dx++) {
    for (let dz = -1; dz <= 1; dz++) {
      const b = read(x + dx, y - 1, z + dz)
      let g = 0
      if (b && b.name === 'farmland') g = b.moisture > 0 ? 3 : 1
      if (dx !== 0 || dz !== 0) g /= 4
      f += g
    }
  }
  const row = nameAt(x - 1, y, z) === name || nameAt(x + 1, y, z) === name
  const column = nameAt(x, y, z - 1) === name || nameAt(x, y, z + 1) === name
  if (row && column) return f / 2
  const diagonal = [[-1, -1], [1, -1], [1, 1], [-1, 1]].some(([dx, dz]) => nameAt(x + dx, y, z + dz) === name)
  return diagonal ? f / 2 : f
}

// the bound n of a random tick's draw: the crop grows when nextInt(n) is 0
const growthBound = (f) => Math.floor(25 / f) + 1

// Whether water (isWater(x, y, z)) is within 4 blocks across of the farmland at (x, y, z), at its
// level or one above
function hydrated (x, y, z, isWater) {
  for (let dy = 0; dy <= 1; dy++) {
    for (let dx = -HYDRATE_REACH; dx <= HYDRATE_REACH; dx++) {
      for (let dz = -HYDRATE_REACH; dz <= HYDRATE_REACH; dz++) if (isWater(x + dx, y + dy, z + dz)) return true
    }
  }
  return false
}

// vanilla binomial_with_bonus_count without fortune: one draw per extra
function binomial (n, p, random) {
  let k = 0
  for (let i = 0; i < n; i++) if (random() < p) k++
  return k
}

// What breaking the crop `name` at `age` drops, without fortune: [[item, count], ...]
function cropLoot (name, age, random) {
  const crop = CROPS[name]
  if (!crop) return []
  const more = () => 1 + binomial(BONUS.extra, BONUS.probability, random)
  if (age < crop.ripe) return [[crop.seed, 1]]
  if (name === 'wheat' || name === 'beetroots') return [[crop.produce, 1], [crop.seed, more()]]
  const out = [[crop.seed, 1 + more()]]
  if (name === 'potatoes' && random() < POISONOUS) out.push(['poisonous_potato', 1])
  return out
}

// Game ticks to a block's next random tick: geometric, with RANDOM_TICK a game tick (at least 1)
function ticksToRandomTick (random) {
  return Math.max(1, Math.ceil(Math.log(1 - random()) / Math.log1p(-RANDOM_TICK)))
}

// Whether a landing after a fall of `distance` blocks tramples farmland: roll a float in [0, 1)
function tramples (distance, roll, { player, mobGriefing, width, height }) {
  return roll < distance - 0.5 && (player || mobGriefing) && width * width * height > TRAMPLE_SIZE
}

module.exports = {
  TILLS, HOE, AIR, CROPS, PLANTS, UNDER_CROPS, MAX_MOISTURE, HYDRATE_REACH, GROW_LIGHT, PLANT_LIGHT,
  RANDOM_TICK, BONUS, growthChance, growthBound, hydrated, binomial, cropLoot, ticksToRandomTick, tramples
}
