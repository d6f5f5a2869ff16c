'use strict'
// The vanilla profile's features, placed after the carvers as vanilla 1.16.5
// decorates a chunk (numbers from its ConfiguredFeatures and Features):
//   - lakes (LakeFeature): a blob of 4..7 ellipsoids in a 16x8x16 box, fluid
//     in its lower half and air above, refused where its shell would let the
//     fluid out; water lakes in one chunk in 4 at a uniform y (on the ground,
//     or a pocket underground), lava lakes in one chunk in 8 at y
//     random(random(248) + 8), kept above sea level one time in 10; a lava
//     lake's shell turns to stone (half of it above the lava);
//   - springs (SpringFeature): 50 water tries a chunk at y
//     random(random(248) + 8) and 20 lava tries at
//     random(random(random(240) + 8) + 8), a source block where stone is
//     above, below and on three sides and the fourth side is open: the
//     springs in cave walls;
//   - dungeons (MonsterRoomFeature): 8 tries a chunk at a uniform y, a room
//     of 5..7 by 5..7 inside, 4 high, built where its floor and ceiling are
//     solid and 1..5 openings of two blocks meet its walls: cobblestone walls
//     and ceiling, a floor three quarters mossy, a spawner in the middle
//     (zombie 2 in 4, skeleton 1 in 4, spider 1 in 4);
//   - ore blobs (OreFeature), as the gentle world's, with vanilla's other
//     blobs: dirt 33 x 10 and gravel 33 x 8 over all heights, granite,
//     diorite and andesite 33 x 10 below 80, and emerald ore in mountains
//     (3..8 single blocks at y 4..31).
// A lake is decided by its origin chunk from the seed and the noise ground
// (land.js), so that every chunk it reaches draws the same lake; vanilla
// checks the world as carved. Springs and dungeons stay inside their chunk.
const { hash, random } = require('../terrain/rand')
const { vein, ORES } = require('../generator')
const { SEA_LEVEL, MOUNTAINOUS } = require('./land')

const SALT = { lake: 41, lava: 42, spring: 43, dungeon: 44, ore: 45, emerald: 46 }
const WATER_LAKE_CHANCE = 4
const LAVA_LAKE_CHANCE = 80
const BLOBS = [ // vanilla 1.16.5: [block, vein size, tries per chunk, lowest y, y range]
  ['dirt', 33, 10, 0, 256],
  ['gravel', 33, 8, 0, 256],
  ['granite', 33, 10, 0, 80],
  ['diorite', 33, 10, 0, 80],
  ['andesite', 33, 10, 0, 80],
  ...ORES // the ores, as the gentle world's
]
const SPAWNER_MOBS = ['zombie', 'zombie', 'skeleton', 'spider'] // MonsterRoomFeature.MOBS

const at = (x, y, z) => (y * 16 + z) * 16 + x

// The lake whose origin is chunk (ox, oz), or null: { x, y, z, fluid, cells }
// with cells a Uint8Array(16 * 16 * 8) marking the blob, (x, y, z) its corner.
function lakeOf (seed, ground, ox, oz) {
  for (const [fluid, salt] of [['lava', SALT.lava], ['water', SALT.lake]]) {
    const rng = random(hash(seed, ox, oz, 0, salt))
    let y
    if (fluid === 'water') {
      if (rng.int(WATER_LAKE_CHANCE) !== 0) continue
      y = rng.int(256)
    } else {
      if (rng.int(LAVA_LAKE_CHANCE / 10) !== 0) continue
      y = rng.int(rng.int(256 - 8) + 8)
      if (!(y < SEA_LEVEL || rng.int(LAVA_LAKE_CHANCE / 8) === 0)) continue
    }
    const x = ox * 16 + rng.int(16)
    const z = oz * 16 + rng.int(16)
    // down through the empty blocks (air, or the sea) to the ground
    const top = ground.height(x, z)
    if (y > top) y = Math.max(top, SEA_LEVEL - 1) // the first block that is not air: ground or sea
    if (y <= 4) continue
    y -= 4
    const cells = new Uint8Array(16 * 16 * 8)
    const blobs = rng.int(4) + 4
    for (let j = 0; j < blobs; j++) {
      const sx = rng.next() * 6 + 3
      const sy = rng.next() * 4 + 2
      const sz = rng.next() * 6 + 3
      const cx = rng.next() * (16 - sx - 2) + 1 + sx / 2
      const cy = rng.next() * (8 - sy - 4) + 2 + sy / 2
      const cz = rng.next() * (16 - sz - 2) + 1 + sz / 2
      for (let bx = 1; bx < 15; bx++) {
        for (let bz = 1; bz < 15; bz++) {
          for (let by = 1; by < 7; by++) {
            const dx = (bx - cx) / (sx / 2)
            const dy = (by - cy) / (sy / 2)
            const dz = (bz - cz) / (sz / 2)
            if (dx * dx + dy * dy + dz * dz < 1) cells[(bx * 16 + bz) * 8 + by] = 1
          }
        }
      }
    }
    // the shell: refused if, above the fluid, it touches fluid, or below it, not solid
    const inside = (bx, by, bz) => bx >= 0 && bx < 16 && bz >= 0 && bz < 16 && by >= 0 && by < 8 && cells[(bx * 16 + bz) * 8 + by] === 1
    let ok = true
    for (let bx = 0; bx < 16 && ok; bx++) {
      for (let bz = 0; bz < 16 && ok; bz++) {
        for (let by = 0; by < 8 && ok; by++) {
          if (inside(bx, by, bz)) continue
          if (!(inside(bx - 1, by, bz) || inside(bx + 1, by, bz) || inside(bx, by - 1, bz) || inside(bx, by + 1, bz) || inside(bx, by, bz - 1) || inside(bx, by, bz + 1))) continue
          const wx = x + bx
          const wy = y + by
          const wz = z + bz
          const h = ground.height(wx, wz)
          const liquid = wy > h && wy < SEA_LEVEL
          const solid = wy <= h
          if (by >= 4 && liquid) ok = false
          if (by < 4 && !solid && !(liquid && fluid === 'water')) ok = false
        }
      }
    }
    if (!ok) continue
    const shellRng = random(hash(seed, ox, oz, 1, salt))
    return { x, y, z, fluid, cells, shellSeed: shellRng.seed() }
  }
  return null
}

// Places the parts of the lakes of chunk (cx, cz) and its west and north neighbours in `blocks`.
function placeLakes (seed, ground, cx, cz, blocks, ids, solid, lakes) {
  for (let ox = cx - 1; ox <= cx; ox++) {
    for (let oz = cz - 1; oz <= cz; oz++) {
      const lake = lakeOf(seed, ground, ox, oz)
      if (!lake) continue
      if (ox === cx && oz === cz) lakes.push({ fluid: lake.fluid, x: lake.x + 8, y: lake.y + 4, z: lake.z + 8 })
      const fluid = lake.fluid === 'lava' ? ids.lava : ids.water
      const shell = random(lake.shellSeed)
      for (let bx = 0; bx < 16; bx++) {
        for (let bz = 0; bz < 16; bz++) {
          const x = lake.x + bx - cx * 16
          const z = lake.z + bz - cz * 16
          const here = x >= 0 && x < 16 && z >= 0 && z < 16
          for (let by = 0; by < 8; by++) {
            const y = lake.y + by
            const inLake = lake.cells[(bx * 16 + bz) * 8 + by] === 1
            const coin = shell.int(2) // drawn for every cell: the same draws in every chunk
            if (!here || y < 1 || y > 255) continue
            const i = at(x, y, z)
            if (inLake) {
              blocks[i] = by >= 4 ? ids.caveAir : fluid
              continue
            }
            if (lake.fluid !== 'lava') continue
            const near = (dx, dy, dz) => {
              const nx = bx + dx
              const ny = by + dy
              const nz = bz + dz
              return nx >= 0 && nx < 16 && nz >= 0 && nz < 16 && ny >= 0 && ny < 8 && lake.cells[(nx * 16 + nz) * 8 + ny] === 1
            }
            const isShell = near(-1, 0, 0) || near(1, 0, 0) || near(0, -1, 0) || near(0, 1, 0) || near(0, 0, -1) || near(0, 0, 1)
            if (isShell && (by < 4 || coin !== 0) && solid[blocks[i]]) blocks[i] = ids.stone
          }
        }
      }
      // vanilla: dirt under open sky at the air's floor turns to grass
      if (lake.fluid === 'water') {
        for (let bx = 0; bx < 16; bx++) {
          for (let bz = 0; bz < 16; bz++) {
            const x = lake.x + bx - cx * 16
            const z = lake.z + bz - cz * 16
            if (x < 0 || x > 15 || z < 0 || z > 15) continue
            for (let by = 4; by < 8; by++) {
              if (lake.cells[(bx * 16 + bz) * 8 + by] !== 1) continue
              const y = lake.y + by - 1
              if (y >= 1 && blocks[at(x, y, z)] === ids.dirt && y + 1 > ground.height(lake.x + bx, lake.z + bz) - 1) blocks[at(x, y, z)] = ids.grass
            }
          }
        }
      }
    }
  }
}

// ore blobs, kept inside this chunk (as the gentle world's)
function placeOres (seed, cx, cz, blocks, ids, stoneLike, biomeAt) {
  const rng = random(hash(seed, cx, cz, 0, SALT.ore))
  for (const [name, size, tries, low, range] of BLOBS) {
    const id = ids.ore[name]
    for (let i = 0; i < tries; i++) {
      const x = 3 + rng.int(10)
      const z = 3 + rng.int(10)
      const y = low + rng.int(range)
      vein(rng, size, x, y, z, (bx, by, bz) => {
        if (bx >= 0 && bx < 16 && bz >= 0 && bz < 16 && by > 0 && by < 256 && stoneLike[blocks[at(bx, by, bz)]]) blocks[at(bx, by, bz)] = id
      })
    }
  }
  if (MOUNTAINOUS.has(biomeAt(cx * 16 + 8, cz * 16 + 8))) { // vanilla EmeraldOreFeature: 3 + random(6) single blocks
    const em = random(hash(seed, cx, cz, 0, SALT.emerald))
    const count = 3 + em.int(6)
    for (let i = 0; i < count; i++) {
      const x = em.int(16)
      const y = 4 + em.int(28)
      const z = em.int(16)
      if (blocks[at(x, y, z)] === ids.stone) blocks[at(x, y, z)] = ids.ore.emerald_ore
    }
  }
}

// springs: a source in a wall of stone, open on exactly one side
function placeSprings (seed, cx, cz, blocks, ids, stoneLike, outside, springs) {
  const rng = random(hash(seed, cx, cz, 0, SALT.spring))
  const get = (x, y, z) => (x >= 0 && x < 16 && z >= 0 && z < 16) ? blocks[at(x, y, z)] : outside(cx * 16 + x, y, cz * 16 + z)
  const empty = (id) => id === ids.air || id === ids.caveAir
  const tries = [[ids.water, 50, () => rng.int(rng.int(248) + 8)], [ids.lava, 20, () => rng.int(rng.int(rng.int(240) + 8) + 8)]]
  for (const [fluid, count, height] of tries) {
    for (let n = 0; n < count; n++) {
      const x = rng.int(16)
      const z = rng.int(16)
      const y = height()
      if (y < 1 || y > 254) continue
      if (!stoneLike[get(x, y + 1, z)] || !stoneLike[get(x, y - 1, z)]) continue
      const here = blocks[at(x, y, z)]
      if (!empty(here) && !stoneLike[here]) continue
      let rock = 1 // below
      let holes = 0
      for (const [dx, dz] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
        const id = get(x + dx, y, z + dz)
        if (stoneLike[id]) rock++
        else if (empty(id)) holes++
      }
      if (rock === 4 && holes === 1) {
        blocks[at(x, y, z)] = fluid
        springs.push({ fluid: fluid === ids.lava ? 'lava' : 'water', x: cx * 16 + x, y, z: cz * 16 + z })
      }
    }
  }
}

// dungeons: wholly inside the chunk (vanilla's may cross into the next)
function placeDungeons (seed, cx, cz, blocks, ids, solid, dungeons) {
  const rng = random(hash(seed, cx, cz, 0, SALT.dungeon))
  const empty = (id) => id === ids.air || id === ids.caveAir
  for (let n = 0; n < 8; n++) {
    const px = 4 + rng.int(8)
    const pz = 4 + rng.int(8)
    const py = rng.int(256)
    const rx = rng.int(2) + 2
    const rz = rng.int(2) + 2
    const mob = SPAWNER_MOBS[rng.int(4)]
    if (py < 2 || py > 250) continue
    const x0 = px - rx - 1
    const x1 = px + rx + 1
    const z0 = pz - rz - 1
    const z1 = pz + rz + 1
    let openings = 0
    let ok = true
    for (let x = x0; x <= x1 && ok; x++) {
      for (let z = z0; z <= z1 && ok; z++) {
        for (let dy = -1; dy <= 4; dy++) {
          const id = blocks[at(x, py + dy, z)]
          if ((dy === -1 || dy === 4) && !solid[id]) { ok = false; break }
          if ((x === x0 || x === x1 || z === z0 || z === z1) && dy === 0 && empty(id) && empty(blocks[at(x, py + 1, z)])) openings++
        }
      }
    }
    if (!ok || openings < 1 || openings > 5) continue
    for (let x = x0; x <= x1; x++) {
      for (let z = z0; z <= z1; z++) {
        for (let dy = 3; dy >= -1; dy--) {
          const i = at(x, py + dy, z)
          const wall = x === x0 || x === x1 || z === z0 || z === z1 || dy === -1 || dy === 4
          if (!wall) blocks[i] = ids.caveAir
          else if (dy >= 0 && !solid[blocks[at(x, py + dy - 1, z)]]) blocks[i] = ids.caveAir
          else if (solid[blocks[i]]) blocks[i] = dy === -1 && rng.int(4) !== 0 ? ids.mossy : ids.cobblestone
        }
      }
    }
    blocks[at(px, py, pz)] = ids.spawner
    dungeons.push({ x: cx * 16 + px, y: py, z: cz * 16 + pz, mob })
  }
}

module.exports = { placeLakes, placeOres, placeSprings, placeDungeons, lakeOf, BLOBS, WATER_LAKE_CHANCE, LAVA_LAKE_CHANCE }
