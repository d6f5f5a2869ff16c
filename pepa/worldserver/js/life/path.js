'use strict'
// A* over the sandbox's blocks for one mob: where it can walk, after vanilla
// 1.16 WalkNodeEvaluator and PathFinder, simplified. Pure: it reads the world
// only through kindAt(x, y, z), which returns one of KIND (see classify).
//
// A node is the block the mob's feet are in; a mob takes floor(width + 1) x
// floor(height + 1) x floor(width + 1) blocks from it (vanilla
// WalkNodeEvaluator.prepare: zombie 1x2x1, spider 2x1x2) and walks to the
// node's centre, node + floor(width + 1) / 2 (vanilla Path.getEntityPosAtNode).
// A node is valid when those blocks are free and the floor under them holds at
// least one solid block and nothing dangerous or tall. Moves:
//  - to the 4 neighbours on the same level, and the 4 diagonals when both
//    orthogonal neighbours are free too (no corner cutting);
//  - up one block (a jump) when the block ahead is solid and there is
//    headroom above the mob;
//  - off an edge, down at most maxFall blocks (vanilla Mob.getMaxFallDistance:
//    3, more for a healthy chasing mob; the caller says how many);
//  - climbers (spiders) may also move straight up a node whose blocks touch a
//    solid block beside them, and stand on such nodes (vanilla Spider climbs
//    whatever it is pushed against; its WallClimberNavigation, simpler still,
//    heads straight for the target's block).
// Never entered, never stood on: lava, fire, magma, cactus, campfires, berry
// bushes (vanilla DAMAGE_* node types), closed doors, closed fence gates, fences
// and walls (vanilla DOOR_WOOD_CLOSED, DOOR_IRON_CLOSED / FENCE: 1.5 high, a
// closed door is a wall: no mob here breaks or opens one), unloaded blocks. An
// open door is walked through (vanilla DOOR_OPEN), an open fence gate is open
// ground (vanilla: no collision shape). Water is avoided (vanilla gives it a malus of 8; here a land mob
// never enters it) unless the mob is already in water (swim), then it costs
// 8 more a block, so the way out is the shortest.
// The search expands at most `budget` nodes (vanilla: follow range x 16) and
// no node farther than maxDistance from the start (vanilla: follow range);
// when the goal is not reached, the path leads to the node closest to it
// (vanilla's partial path).

const { isDoor, isOpen } = require('../../../game/js/halves')

const KIND = { OPEN: 0, SOLID: 1, WATER: 2, DANGER: 3, TALL: 4 }
const WATER_MALUS = 8 // vanilla PathNodeType.WATER

const DANGERS = new Set(['lava', 'fire', 'soul_fire', 'magma_block', 'cactus', 'campfire', 'soul_campfire', 'sweet_berry_bush', 'wither_rose'])
const WATERY = new Set(['water', 'bubble_column', 'kelp', 'kelp_plant', 'seagrass', 'tall_seagrass'])
const kinds = new Map() // block name -> kind

// the kinds of the blocks read during one search, and what each node's blocks
// make of it (see cell), in grids around its start that are reused (a generation
// stamp instead of clearing); outside them everything is worked out each time
const HALF = 40
const SIDE = 2 * HALF
const cached = new Int8Array(SIDE * SIDE * SIDE)
const stamps = new Int32Array(SIDE * SIDE * SIDE)
const cells = new Int8Array(SIDE * SIDE * SIDE)
const cellStamps = new Int32Array(SIDE * SIDE * SIDE)
let generation = 0
const nextGeneration = () => (generation = (generation % 2e9) + 1)
const dist = (x, y, z) => Math.sqrt(x * x + y * y + z * z) // Math.hypot is slow

// a block's minecraft-data info (or null when its chunk is not loaded) and its state id -> KIND;
// without a state, a door is taken as closed (its default state); open: the state is an open
// fence gate (blocks.js openGate)
function classify (block, state, open = false) {
  if (!block) return KIND.TALL
  if (open) return KIND.OPEN
  if (state !== undefined && isDoor(block.name) && isOpen(block, state)) return KIND.OPEN
  let k = kinds.get(block.name)
  if (k !== undefined) return k
  const n = block.name
  if (WATERY.has(n)) k = KIND.WATER
  else if (DANGERS.has(n)) k = KIND.DANGER
  else if (n.endsWith('_door') || n.endsWith('_fence') || n.endsWith('_fence_gate') || n.endsWith('_wall')) k = KIND.TALL
  else k = block.boundingBox === 'block' ? KIND.SOLID : KIND.OPEN
  kinds.set(n, k)
  return k
}

// the node of a mob whose feet are at pos, for a mob of that width
function nodeOf (pos, width) {
  const s = Math.floor(width + 1)
  return { x: Math.floor(pos.x - (s - 1) / 2), y: Math.floor(pos.y + 1e-3), z: Math.floor(pos.z - (s - 1) / 2) }
}

// where the mob's feet go to stand on node n
function centreOf (n, width) {
  const half = Math.floor(width + 1) / 2
  return { x: n.x + half, y: n.y, z: n.z + half }
}

const SIDE_X = [1, -1, 0, 0]; const SIDE_Z = [0, 0, 1, -1]
const CORNER_X = [1, 1, -1, -1]; const CORNER_Z = [1, -1, 1, -1]

// --- a binary heap on f ------------------------------------------------------------
function push (heap, n) {
  heap.push(n)
  let i = heap.length - 1
  while (i > 0) {
    const p = (i - 1) >> 1
    if (heap[p].f <= n.f) break
    heap[i] = heap[p]
    i = p
  }
  heap[i] = n
}

function pop (heap) {
  const top = heap[0]
  const last = heap.pop()
  if (heap.length) {
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= heap.length) break
      const c = l + 1 < heap.length && heap[l + 1].f < heap[l].f ? l + 1 : l
      if (heap[c].f >= last.f) break
      heap[i] = heap[c]
      i = c
    }
    heap[i] = last
  }
  return top
}

// findPath(kindAt, from, to, opts) -> { nodes: [{x, y, z}] from the start node,
// complete: the goal was reached, visited: nodes expanded }.
// from/to are nodes (nodeOf). opts: width, height, maxFall = 3, climber, swim,
// budget = 400, maxDistance = 32, near = 0 (Manhattan distance to `to` that counts as there).
function findPath (kindAt, from, to, opts = {}) {
  const { width = 0.6, height = 1.8, maxFall = 3, climber = false, swim = false, budget = 400, maxDistance = 32, near = 0 } = opts
  const sw = Math.floor(width + 1)
  const sh = Math.floor(height + 1)
  const gen = nextGeneration()
  const ox = from.x - HALF; const oy = from.y - HALF; const oz = from.z - HALF
  // the index of (x, y, z) in the grids, or -1 outside them
  function index (x, y, z) {
    const gx = x - ox; const gy = y - oy; const gz = z - oz
    if (gx < 0 || gy < 0 || gz < 0 || gx >= SIDE || gy >= SIDE || gz >= SIDE) return -1
    return (gx * SIDE + gz) * SIDE + gy
  }
  function kind (x, y, z) {
    if (y < 0) return KIND.TALL
    if (y > 255) return KIND.OPEN
    const i = index(x, y, z)
    if (i < 0) return kindAt(x, y, z)
    if (stamps[i] !== gen) { stamps[i] = gen; cached[i] = kindAt(x, y, z) }
    return cached[i]
  }
  const key = (x, y, z) => ((x - from.x + 512) * 1024 + z - from.z + 512) * 512 + y + 128 // small integers: fast Map keys

  // the mob's blocks at node (x, y, z): 0 free, 1 water, -1 blocked or dangerous
  function room (x, y, z) {
    let water = false
    for (let dx = 0; dx < sw; dx++) {
      for (let dz = 0; dz < sw; dz++) {
        for (let dy = 0; dy < sh; dy++) {
          const k = kind(x + dx, y + dy, z + dz)
          if (k === KIND.WATER) water = true
          else if (k !== KIND.OPEN) return -1
        }
      }
    }
    return water ? 1 : 0
  }
  // the floor under node (x, y, z): at least one solid block, none dangerous or tall
  function floored (x, y, z) {
    let solid = false
    for (let dx = 0; dx < sw; dx++) {
      for (let dz = 0; dz < sw; dz++) {
        const k = kind(x + dx, y - 1, z + dz)
        if (k === KIND.SOLID) solid = true
        else if (k === KIND.DANGER || k === KIND.TALL) return false
      }
    }
    return solid
  }
  // a solid block touching the side of the mob's blocks at node (x, y, z) (climbers)
  function wallBeside (x, y, z) {
    for (let dy = 0; dy < sh; dy++) {
      for (let i = 0; i < sw; i++) {
        if (kind(x - 1, y + dy, z + i) === KIND.SOLID || kind(x + sw, y + dy, z + i) === KIND.SOLID ||
          kind(x + i, y + dy, z - 1) === KIND.SOLID || kind(x + i, y + dy, z + sw) === KIND.SOLID) return true
      }
    }
    return false
  }
  // node (x, y, z) in one number: -1 blocked, else room * 2 + 1 when the mob can stand there
  function cell (x, y, z) {
    const i = index(x, y, z)
    if (i >= 0 && cellStamps[i] === gen) return cells[i]
    const r = room(x, y, z)
    const c = r < 0 ? -1 : r * 2 + (floored(x, y, z) || (climber && wallBeside(x, y, z)) ? 1 : 0)
    if (i >= 0) { cellStamps[i] = gen; cells[i] = c }
    return c
  }
  const roomAt = (x, y, z) => { const c = cell(x, y, z); return c < 0 ? -1 : c >> 1 }
  // the extra cost of being at a node, or -1 when the mob cannot be there
  function malus (x, y, z) {
    const c = cell(x, y, z)
    if (c < 0) return -1
    if (c >= 2) return swim ? WATER_MALUS : -1
    return c === 1 ? 0 : -1
  }

  const nodes = new Map()
  const heap = []
  const h = (x, y, z) => dist(x - to.x, y - to.y, z - to.z)
  const start = { x: from.x, y: from.y, z: from.z, g: 0, h: h(from.x, from.y, from.z), f: 0, parent: null, closed: false }
  start.f = start.h
  nodes.set(key(from.x, from.y, from.z), start)
  push(heap, start)
  let best = start
  let visited = 0
  let done = null

  function offer (parent, x, y, z, extra) {
    if (dist(x - from.x, y - from.y, z - from.z) > maxDistance) return
    const g = parent.g + dist(x - parent.x, y - parent.y, z - parent.z) + extra
    const k = key(x, y, z)
    let n = nodes.get(k)
    if (n && (n.closed || n.g <= g)) return
    if (!n) nodes.set(k, (n = { x, y, z, g, h: h(x, y, z), f: 0, parent, closed: false }))
    n.g = g
    n.parent = parent
    n.f = g + n.h
    push(heap, n)
  }

  while (heap.length && visited < budget) {
    const n = pop(heap)
    if (n.closed) continue
    n.closed = true
    visited++
    if (n.h < best.h) best = n
    if (Math.abs(n.x - to.x) + Math.abs(n.y - to.y) + Math.abs(n.z - to.z) <= near) { done = n; break }
    const { x, y, z } = n
    for (let s = 0; s < 4; s++) {
      const nx = x + SIDE_X[s]; const nz = z + SIDE_Z[s]
      const m = malus(nx, y, nz)
      if (m >= 0) { offer(n, nx, y, nz, m); continue }
      const r = roomAt(nx, y, nz)
      if (r < 0) { // a wall: jump up one block if there is room above the mob
        if (roomAt(x, y + 1, z) >= 0) {
          const up = malus(nx, y + 1, nz)
          if (up >= 0) offer(n, nx, y + 1, nz, up)
        }
        continue
      }
      if (r === 1) continue // water the mob may not enter
      for (let d = 1; d <= maxFall; d++) { // off an edge
        const m2 = malus(nx, y - d, nz)
        if (m2 >= 0) { offer(n, nx, y - d, nz, m2); break }
        if (roomAt(nx, y - d, nz) !== 0) break
      }
    }
    for (let c = 0; c < 4; c++) {
      const dx = CORNER_X[c]; const dz = CORNER_Z[c]
      if (roomAt(x + dx, y, z) < 0 || roomAt(x, y, z + dz) < 0) continue
      const m = malus(x + dx, y, z + dz)
      if (m >= 0) offer(n, x + dx, y, z + dz, m)
    }
    if (climber && wallBeside(x, y, z)) {
      const m = malus(x, y + 1, z)
      if (m >= 0) offer(n, x, y + 1, z, m)
    }
  }

  const end = done || best
  const path = []
  for (let n = end; n; n = n.parent) path.push({ x: n.x, y: n.y, z: n.z })
  path.reverse()
  return { nodes: path, complete: !!done, visited }
}

module.exports = { KIND, classify, nodeOf, centreOf, findPath }
