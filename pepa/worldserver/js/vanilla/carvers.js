'use strict'
// Caves and ravines, ported from vanilla 1.16.5's CaveWorldCarver and
// CanyonWorldCarver (net.minecraft.world.gen.carver), which run in every
// chunk for the carver starts of the chunks within RANGE of it and carve only
// the part that falls inside it. The numbers are vanilla's:
//   - a cave starts in a chunk with probability 1/7 (0.14285715); it has
//     random(random(random(15) + 1) + 1) systems, each at y
//     random(random(120) + 8), a quarter of them with a room of radius
//     1.5 + 1..7 and 1..4 tunnels, others one tunnel; a tunnel runs up to 112
//     steps (112 - random(28)), 1.5 + sin(pi step/length) x thickness wide
//     (thickness random(2) + random(1), one in ten up to 4x that), turning by
//     the smoothed random walk of genTunnel, and forks once, at a random step
//     of its middle half, into two thinner tunnels at right angles; a sixth of
//     tunnels keep their pitch longer (0.92 instead of 0.7);
//   - a cave's floor is flat (no block carved below -0.7 of its radius);
//   - a ravine starts in a chunk with probability 1/50 (0.02) at y
//     random(random(40) + 8) + 20, 3 times as tall as wide, its width
//     varying by layer (the `rs` table), up to 112 steps long;
//   - a carved block at y < 11 becomes lava (the lava seas of old caves);
//   - a sphere is skipped where it would open into water (hasWater).
// Randomness is this project's (terrain/rand.js), not java.util.Random: the
// distributions match, not vanilla's worlds for a seed.
const { hash, random } = require('../terrain/rand')

const RANGE = 8 // vanilla ChunkGenerator.applyCarvers: the chunks within 8 of this one
const CAVE_CHANCE = 0.14285715
const RAVINE_CHANCE = 0.02
const LAVA_BELOW = 11
const STEPS = (4 * 2 - 1) * 16 // WorldCarver range 4: 112
const SALT = { cave: 31, ravine: 32 }
const TAU = Math.PI * 2

// Carves the chunk (chunkX, chunkZ) of `blocks` (Uint16Array, index
// (y * 16 + z) * 16 + x): `carvable` (Uint8Array by state id) says what may be
// carved; `ids` = { caveAir, lava, water, dirt, grass }. Returns the number of
// blocks carved. `which`: { caves, ravines } (both by default).
function carveChunk (seed, chunkX, chunkZ, blocks, carvable, ids, which = {}) {
  const caves = which.caves !== false
  const ravines = which.ravines !== false
  const ctx = { chunkX, chunkZ, blocks, carvable, ids, carved: 0 }
  for (let ox = chunkX - RANGE; ox <= chunkX + RANGE; ox++) {
    for (let oz = chunkZ - RANGE; oz <= chunkZ + RANGE; oz++) {
      if (caves) {
        const rng = random(hash(seed, ox, oz, 0, SALT.cave))
        if (rng.next() <= CAVE_CHANCE) cave(ctx, rng, ox, oz)
      }
      if (ravines) {
        const rng = random(hash(seed, ox, oz, 0, SALT.ravine))
        if (rng.next() <= RAVINE_CHANCE) ravine(ctx, rng, ox, oz)
      }
    }
  }
  return ctx.carved
}

function cave (ctx, rng, ox, oz) {
  const systems = rng.int(rng.int(rng.int(15) + 1) + 1)
  for (let k = 0; k < systems; k++) {
    const x = ox * 16 + rng.int(16)
    const y = rng.int(rng.int(120) + 8)
    const z = oz * 16 + rng.int(16)
    let tunnels = 1
    if (rng.int(4) === 0) {
      const radius = 1 + rng.next() * 6
      const r = 1.5 + radius // sin(pi / 2) = 1
      sphere(ctx, x + 1, y, z, r, r * 0.5, caveSkip)
      tunnels += rng.int(4)
    }
    for (let t = 0; t < tunnels; t++) {
      const yaw = rng.next() * TAU
      const pitch = (rng.next() - 0.5) / 4
      let thickness = rng.next() * 2 + rng.next()
      if (rng.int(10) === 0) thickness *= rng.next() * rng.next() * 3 + 1
      const length = STEPS - rng.int(STEPS / 4)
      tunnel(ctx, rng.seed(), x, y, z, thickness, yaw, pitch, 0, length, 1)
    }
  }
}

function tunnel (ctx, seed, x, y, z, thickness, yaw, pitch, from, length, yScale) {
  const rng = random(seed)
  const fork = rng.int(length / 2) + length / 4 | 0
  const steep = rng.int(6) === 0
  let dYaw = 0
  let dPitch = 0
  for (let j = from; j < length; j++) {
    const h = 1.5 + Math.sin(Math.PI * j / length) * thickness
    const v = h * yScale
    const c = Math.cos(pitch)
    x += Math.cos(yaw) * c
    y += Math.sin(pitch)
    z += Math.sin(yaw) * c
    pitch *= steep ? 0.92 : 0.7
    pitch += dPitch * 0.1
    yaw += dYaw * 0.1
    dPitch *= 0.9
    dYaw *= 0.75
    dPitch += (rng.next() - rng.next()) * rng.next() * 2
    dYaw += (rng.next() - rng.next()) * rng.next() * 4
    if (j === fork && thickness > 1) {
      tunnel(ctx, rng.seed(), x, y, z, rng.next() * 0.5 + 0.5, yaw - Math.PI / 2, pitch / 3, j, length, 1)
      tunnel(ctx, rng.seed(), x, y, z, rng.next() * 0.5 + 0.5, yaw + Math.PI / 2, pitch / 3, j, length, 1)
      return
    }
    if (rng.int(4) !== 0) {
      if (!canReach(ctx, x, z, j, length, thickness)) return
      sphere(ctx, x, y, z, h, v, caveSkip)
    }
  }
}

function ravine (ctx, rng, ox, oz) {
  const x = ox * 16 + rng.int(16)
  const y = rng.int(rng.int(40) + 8) + 20
  const z = oz * 16 + rng.int(16)
  const yaw = rng.next() * TAU
  const pitch = (rng.next() - 0.5) * 2 / 8
  const thickness = (rng.next() * 2 + rng.next()) * 2
  const length = STEPS - rng.int(STEPS / 4)
  canyon(ctx, rng.seed(), x, y, z, thickness, yaw, pitch, length, 3)
}

function canyon (ctx, seed, x, y, z, thickness, yaw, pitch, length, yScale) {
  const rng = random(seed)
  const rs = new Float32Array(256) // the width of each layer
  let f = 1
  for (let i = 0; i < 256; i++) {
    if (i === 0 || rng.int(3) === 0) f = 1 + rng.next() * rng.next()
    rs[i] = f * f
  }
  let dYaw = 0
  let dPitch = 0
  for (let j = 0; j < length; j++) {
    let h = 1.5 + Math.sin(j * Math.PI / length) * thickness
    let v = h * yScale
    h *= rng.next() * 0.25 + 0.75
    v *= rng.next() * 0.25 + 0.75
    const c = Math.cos(pitch)
    x += Math.cos(yaw) * c
    y += Math.sin(pitch)
    z += Math.sin(yaw) * c
    pitch *= 0.7
    pitch += dPitch * 0.05
    yaw += dYaw * 0.05
    dPitch *= 0.8
    dYaw *= 0.5
    dPitch += (rng.next() - rng.next()) * rng.next() * 2
    dYaw += (rng.next() - rng.next()) * rng.next() * 4
    if (rng.int(4) !== 0) {
      if (!canReach(ctx, x, z, j, length, thickness)) return
      sphere(ctx, x, y, z, h, v, (dx, dy, dz, by) => (dx * dx + dz * dz) * rs[Math.max(0, by - 1)] + dy * dy / 6 >= 1)
    }
  }
}

// vanilla WorldCarver.canReach: the tunnel's remaining steps can still bring it into this chunk
function canReach (ctx, x, z, j, length, thickness) {
  const dx = x - (ctx.chunkX * 16 + 8)
  const dz = z - (ctx.chunkZ * 16 + 8)
  const left = length - j
  const reach = thickness + 2 + 16
  return dx * dx + dz * dz - left * left <= reach * reach
}

const caveSkip = (dx, dy, dz) => dy <= -0.7 || dx * dx + dy * dy + dz * dz >= 1

// vanilla WorldCarver.carveSphere: carve the part of an ellipsoid inside this chunk
function sphere (ctx, x, y, z, h, v, skip) {
  const cx = ctx.chunkX * 16
  const cz = ctx.chunkZ * 16
  if (x < cx + 8 - 16 - h * 2 || z < cz + 8 - 16 - h * 2 || x > cx + 8 + 16 + h * 2 || z > cz + 8 + 16 + h * 2) return
  const x0 = Math.max(Math.floor(x - h) - cx - 1, 0)
  const x1 = Math.min(Math.floor(x + h) - cx, 15)
  const y0 = Math.max(Math.floor(y - v) - 1, 1)
  const y1 = Math.min(Math.floor(y + v) + 1, 248)
  const z0 = Math.max(Math.floor(z - h) - cz - 1, 0)
  const z1 = Math.min(Math.floor(z + h) - cz, 15)
  if (x0 > x1 || z0 > z1) return
  const { blocks, carvable, ids } = ctx
  // vanilla hasWater: no carving where the box's shell holds water
  for (let bx = x0; bx <= x1; bx++) {
    for (let bz = z0; bz <= z1; bz++) {
      for (let by = y0 - 1; by <= y1 + 1; by++) {
        if (by < 0 || by > 255) continue
        if (blocks[(by * 16 + bz) * 16 + bx] === ids.water) return
        if (by !== y1 + 1 && bx !== x0 && bx !== x1 && bz !== z0 && bz !== z1) by = y1
      }
    }
  }
  for (let bx = x0; bx <= x1; bx++) {
    const dx = (bx + cx + 0.5 - x) / h
    for (let bz = z0; bz <= z1; bz++) {
      const dz = (bz + cz + 0.5 - z) / h
      if (dx * dx + dz * dz >= 1) continue
      let grassAbove = false
      for (let by = y1; by > y0; by--) {
        const dy = (by - 0.5 - y) / v
        if (skip(dx, dy, dz, by)) continue
        const i = (by * 16 + bz) * 16 + bx
        const id = blocks[i]
        if (id === ids.grass) grassAbove = true
        if (!carvable[id]) continue
        blocks[i] = by < LAVA_BELOW ? ids.lava : ids.caveAir
        ctx.carved++
        // vanilla: the dirt under carved grass turns to grass
        if (grassAbove && by > 0 && blocks[i - 256] === ids.dirt) blocks[i - 256] = ids.grass
      }
    }
  }
}

module.exports = { carveChunk, CAVE_CHANCE, RAVINE_CHANCE, LAVA_BELOW, RANGE }
