'use strict'
// The bucket's rules, shared by the sandbox (plugins/buckets.js: what a use does) and the bot
// (actions/buckets.js: where to look so that a use does what it wants), so the two agree on
// every ray. Vanilla 1.16.5 BucketItem.use, with the sandbox's simplifications (docs/sandbox.md,
// "Buckets").
//
// A use casts a ray from the player's eyes along its look, REACH blocks long. An empty bucket's
// ray stops at the first fluid source (level 0) or the first solid block: a source is taken. A
// full bucket's passes through fluids and stops at the first solid block: its fluid goes into
// the cell in front of the face it hit, when that cell takes a fluid. "Solid" is a block with a
// collision box (minecraft-data's boundingBox 'block'), taken as a whole cube.
//
// Pure: positions are plain {x, y, z}; the world is read through a function the caller gives,
// kindAt(x, y, z) → one of KINDS (kindOf turns a block's name, box and fluid level into one).

const REACH = 5 // vanilla Item.getPlayerPOVHitResult: 5 blocks from the eyes, in every game mode
const EYE = 1.62 // a standing player's eyes above its feet
const KINDS = ['source', 'flowing', 'solid', 'open', 'unknown']
const FILLED = { water: 'water_bucket', lava: 'lava_bucket' }
const FLUID_OF = { water_bucket: 'water', lava_bucket: 'lava' }
const TAKES = new Set(['air', 'cave_air', 'void_air', 'water', 'lava', 'fire', 'soul_fire'])

// what a block is to a bucket's ray: name, boundingBox ('block' | 'empty'), level (a fluid's
// state offset: 0 a source, 1-7 flowing, 8+ falling); null for a cell not loaded
function kindOf (name, boundingBox, level) {
  if (name === null || name === undefined) return 'unknown'
  if (name === 'water' || name === 'lava') return level === 0 ? 'source' : 'flowing'
  return boundingBox === 'block' ? 'solid' : 'open'
}

// the unit vector of a look, in a client's degrees (vanilla Entity.calculateViewVector: yaw 0
// looks south, +z; 90 west, -x; pitch 90 straight down)
function lookVector (yaw, pitch) {
  const y = yaw * Math.PI / 180
  const p = pitch * Math.PI / 180
  return { x: -Math.sin(y) * Math.cos(p), y: -Math.sin(p), z: Math.cos(y) * Math.cos(p) }
}

// the look (in a client's degrees) from `from` toward `to`, as lookVector reads it
function lookAt (from, to) {
  const dx = to.x - from.x
  const dy = to.y - from.y
  const dz = to.z - from.z
  return { yaw: Math.atan2(-dx, dz) * 180 / Math.PI, pitch: -Math.atan2(dy, Math.hypot(dx, dz)) * 180 / Math.PI }
}

// Walk the cells a ray from `origin` along `dir` passes through, in order, up to `reach` blocks
// (a voxel walk: Amanatides and Woo). The first cell for which stop(x, y, z) is true ends it:
// { x, y, z, face, distance }, face the normal [dx, dy, dz] of the side the ray came in by (null
// for the cell the ray starts in). null when no cell within reach stops it.
function cast (origin, dir, reach, stop) {
  const length = Math.hypot(dir.x, dir.y, dir.z)
  if (!(length > 0)) return null
  const d = [dir.x / length, dir.y / length, dir.z / length]
  const o = [origin.x, origin.y, origin.z]
  const cell = o.map(Math.floor)
  const step = d.map(Math.sign)
  const next = [0, 1, 2].map(i => step[i] > 0 ? (cell[i] + 1 - o[i]) / d[i] : step[i] < 0 ? (o[i] - cell[i]) / -d[i] : Infinity)
  const delta = d.map(v => (v !== 0 ? 1 / Math.abs(v) : Infinity))
  if (stop(cell[0], cell[1], cell[2])) return { x: cell[0], y: cell[1], z: cell[2], face: null, distance: 0 }
  for (;;) {
    let axis = 0
    if (next[1] < next[axis]) axis = 1
    if (next[2] < next[axis]) axis = 2
    const t = next[axis]
    if (t > reach) return null
    cell[axis] += step[axis]
    next[axis] += delta[axis]
    if (stop(cell[0], cell[1], cell[2])) {
      const face = [0, 0, 0]
      face[axis] = -step[axis]
      return { x: cell[0], y: cell[1], z: cell[2], face, distance: t }
    }
  }
}

// An empty bucket: the source the ray takes ({x, y, z}), or null (a solid block first, a cell
// not loaded, or nothing within reach)
function scoopAt (origin, dir, kindAt, reach = REACH) {
  let kind = null
  const hit = cast(origin, dir, reach, (x, y, z) => {
    kind = kindAt(x, y, z)
    return kind === 'source' || kind === 'solid' || kind === 'unknown'
  })
  return hit && kind === 'source' ? { x: hit.x, y: hit.y, z: hit.z } : null
}

// A full bucket: the cell its fluid goes into ({x, y, z}, in front of the face of the first
// solid block), or null (nothing solid within reach, a cell not loaded, the eyes in a block)
function pourAt (origin, dir, kindAt, reach = REACH) {
  let kind = null
  const hit = cast(origin, dir, reach, (x, y, z) => {
    kind = kindAt(x, y, z)
    return kind === 'solid' || kind === 'unknown'
  })
  if (!hit || kind !== 'solid' || !hit.face) return null
  return { x: hit.x + hit.face[0], y: hit.y + hit.face[1], z: hit.z + hit.face[2] }
}

// Whether a cell takes a poured fluid: air, a fluid, fire, or a plant with no collision box
// (grass, flowers, saplings, crops: minecraft-data's material 'plant')
function takesFluid (name, boundingBox, material) {
  return TAKES.has(name) || (material === 'plant' && boundingBox === 'empty')
}

// The block a cell becomes when `fluid` is poured into it (a name): water where a lava source
// was hardens it to obsidian, where flowing lava was to cobblestone (the sandbox's shortcut for
// vanilla's lava hardening beside water); anything else becomes the fluid's source
function pourResult (fluid, name, level) {
  if (fluid === 'water' && name === 'lava') return level === 0 ? 'obsidian' : 'cobblestone'
  return fluid
}

module.exports = { REACH, EYE, KINDS, FILLED, FLUID_OF, kindOf, lookVector, lookAt, cast, scoopAt, pourAt, takesFluid, pourResult }
