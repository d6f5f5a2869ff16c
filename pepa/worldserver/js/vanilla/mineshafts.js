'use strict'
// Mineshafts, after vanilla 1.16.5's MineshaftFeature and MineshaftPieces,
// simplified: a mineshaft starts in a chunk with probability 0.004 (its
// MineshaftConfiguration), as a room (7..12 across, 4..9 high) from whose
// sides corridors branch; a corridor is 3 wide and 3 high, 5 blocks a
// section, 2..4 sections (one in 5 of them long: 4..6), with a support of
// oak fences under an oak plank beam at every section; rails along one in 3
// corridors; a corridor with no rails becomes a cave spider corridor one time
// in 23, with a spawner of cave spiders in its middle and cobwebs about it;
// elsewhere a corridor cell holds a cobweb one time in 40 (vanilla: 0.6 of
// the cells near a spider's, a few elsewhere). At a corridor's end the next
// piece is a corridor (4 in 5) or a crossing (1 in 5), up to depth 8 and
// within 80 blocks of the room, as vanilla's. The whole mineshaft lies below
// sea level - 10 (vanilla moveBelowSeaLevel). Corridors cut through
// whatever they meet, caves included; a floor over air gets planks.
// Differences: no stairs pieces, no chests in minecarts, no crossings of two
// floors; corridors do not bend up or down.
const { hash, random } = require('../terrain/rand')

const CHANCE = 0.004
const RANGE = 8 // chunks: a mineshaft reaches at most 80 blocks from its room
const MAX_DEPTH = 8
const MAX_REACH = 80
const SALT = { start: 71, piece: 72 }
const DIRS = [[1, 0], [0, 1], [-1, 0], [0, -1]]

// The pieces of the mineshaft starting in chunk (ox, oz), or null:
// [{ kind: 'room'|'corridor'|'crossing', x0, y0, z0, x1, y1, z1, dir?, rails?, spider? }]
function mineshaftOf (seed, ox, oz, seaLevel) {
  const rng = random(hash(seed, ox, oz, 0, SALT.start))
  if (rng.next() >= CHANCE) return null
  const x = ox * 16 + rng.int(16)
  const z = oz * 16 + rng.int(16)
  const w = 7 + rng.int(6)
  const h = 4 + rng.int(6)
  const d = 7 + rng.int(6)
  const top = seaLevel - 10 - rng.int(20)
  const y0 = Math.max(6, top - h)
  const pieces = [{ kind: 'room', x0: x, y0, z0: z, x1: x + w - 1, y1: y0 + h - 1, z1: z + d - 1 }]
  const boxes = [pieces[0]]
  const overlaps = (b) => boxes.some(o => b.x0 <= o.x1 && b.x1 >= o.x0 && b.y0 <= o.y1 && b.y1 >= o.y0 && b.z0 <= o.z1 && b.z1 >= o.z0)
  const queue = []
  // corridors leave the room from its floor, along each side
  for (const [dx, dz] of DIRS) {
    const along = dx !== 0 ? d : w
    for (let at = 0; at + 3 <= along; at += 4 + rng.int(along)) {
      const sx = dx > 0 ? x + w : dx < 0 ? x - 1 : x + at
      const sz = dz > 0 ? z + d : dz < 0 ? z - 1 : z + at
      queue.push({ sx, sy: y0, sz, dx, dz, depth: 1 })
    }
  }
  while (queue.length) {
    const q = queue.shift()
    if (q.depth > MAX_DEPTH || Math.abs(q.sx - x) > MAX_REACH || Math.abs(q.sz - z) > MAX_REACH) continue
    const crossing = q.depth > 1 && rng.int(5) === 0
    if (crossing) { // a 3 x 3 (inside) crossing, corridors on its three other sides
      const b = box(q, 3, 3, 3)
      if (overlaps(b)) continue
      boxes.push(b)
      pieces.push({ kind: 'crossing', ...b })
      for (const [dx, dz] of DIRS) {
        if (dx === -q.dx && dz === -q.dz) continue
        const cx = dx > 0 ? b.x1 + 1 : dx < 0 ? b.x0 - 1 : b.x0 + 1
        const cz = dz > 0 ? b.z1 + 1 : dz < 0 ? b.z0 - 1 : b.z0 + 1
        queue.push({ sx: cx - (dx === 0 ? 1 : 0), sy: q.sy, sz: cz - (dz === 0 ? 1 : 0), dx, dz, depth: q.depth + 1 })
      }
      continue
    }
    const sections = rng.int(5) === 0 ? 4 + rng.int(3) : 2 + rng.int(3)
    const length = sections * 5
    const b = box(q, length, 3, 3)
    if (overlaps(b)) continue
    boxes.push(b)
    const rails = rng.int(3) === 0
    const spider = !rails && rng.int(23) === 0
    pieces.push({ kind: 'corridor', ...b, dx: q.dx, dz: q.dz, rails, spider, sections, seed: rng.seed() })
    const ex = q.dx > 0 ? b.x1 + 1 : q.dx < 0 ? b.x0 - 1 : b.x0
    const ez = q.dz > 0 ? b.z1 + 1 : q.dz < 0 ? b.z0 - 1 : b.z0
    queue.push({ sx: ex, sy: q.sy, sz: ez, dx: q.dx, dz: q.dz, depth: q.depth + 1 })
  }
  return pieces
}

// the box of a piece `length` long in the heading of q, `width` wide, `height` high, from q's start
function box (q, length, width, height) {
  const { sx, sy, sz, dx, dz } = q
  if (dx !== 0) {
    const x0 = dx > 0 ? sx : sx - length + 1
    return { x0, y0: sy, z0: sz, x1: x0 + length - 1, y1: sy + height - 1, z1: sz + width - 1 }
  }
  const z0 = dz > 0 ? sz : sz - length + 1
  return { x0: sx, y0: sy, z0, x1: sx + width - 1, y1: sy + height - 1, z1: z0 + length - 1 }
}

// Builds into chunk (cx, cz) of `blocks` the parts of the mineshafts that reach it; the
// cave spider spawners inside it go to `spawners` ({x, y, z, mob}).
function placeMineshafts (seed, cx, cz, blocks, ids, seaLevel, spawners, cache) {
  const X0 = cx * 16
  const Z0 = cz * 16
  const at = (x, y, z) => ((y * 16 + (z - Z0)) * 16 + (x - X0))
  const inside = (x, z) => x >= X0 && x < X0 + 16 && z >= Z0 && z < Z0 + 16
  for (let ox = cx - RANGE; ox <= cx + RANGE; ox++) {
    for (let oz = cz - RANGE; oz <= cz + RANGE; oz++) {
      const key = ox * 65536 + oz
      let pieces = cache.get(key)
      if (pieces === undefined) {
        pieces = mineshaftOf(seed, ox, oz, seaLevel)
        if (cache.size > 4096) cache.clear()
        cache.set(key, pieces)
      }
      if (!pieces) continue
      for (const p of pieces) {
        if (p.x1 < X0 || p.x0 >= X0 + 16 || p.z1 < Z0 || p.z0 >= Z0 + 16) continue
        for (let x = Math.max(p.x0, X0); x <= Math.min(p.x1, X0 + 15); x++) {
          for (let z = Math.max(p.z0, Z0); z <= Math.min(p.z1, Z0 + 15); z++) {
            if (blocks[at(x, p.y0 - 1, z)] === ids.air || blocks[at(x, p.y0 - 1, z)] === ids.caveAir) blocks[at(x, p.y0 - 1, z)] = ids.planks
            for (let y = p.y0; y <= p.y1; y++) blocks[at(x, y, z)] = ids.caveAir
          }
        }
        if (p.kind !== 'corridor') continue
        const rng = random(p.seed)
        const along = p.dx !== 0 ? 'x' : 'z'
        const start = along === 'x' ? p.x0 : p.z0
        const mid = start + Math.floor((along === 'x' ? p.x1 - p.x0 : p.z1 - p.z0) / 2)
        for (let s = 0; s < p.sections; s++) { // a support at the middle of each section
          const a = start + s * 5 + 2
          const cells = along === 'x'
            ? [[a, p.z0], [a, p.z1]]
            : [[p.x0, a], [p.x1, a]]
          for (const [x, z] of cells) {
            if (!inside(x, z)) continue
            blocks[at(x, p.y0, z)] = ids.fence
            blocks[at(x, p.y0 + 1, z)] = ids.fence
          }
          for (let k = 0; k < 3; k++) {
            const [x, z] = along === 'x' ? [a, p.z0 + k] : [p.x0 + k, a]
            if (inside(x, z)) blocks[at(x, p.y0 + 2, z)] = ids.planks
          }
        }
        for (let x = p.x0; x <= p.x1; x++) {
          for (let z = p.z0; z <= p.z1; z++) {
            for (let y = p.y0; y <= p.y1; y++) {
              const web = rng.next() < (p.spider ? 0.3 : 0.025)
              if (!inside(x, z) || blocks[at(x, y, z)] !== ids.caveAir) continue
              if (web) blocks[at(x, y, z)] = ids.cobweb
            }
          }
        }
        const cxm = along === 'x' ? mid : p.x0 + 1
        const czm = along === 'x' ? p.z0 + 1 : mid
        if (p.rails) {
          for (let x = p.x0; x <= p.x1; x++) {
            for (let z = p.z0; z <= p.z1; z++) {
              const centre = along === 'x' ? z === p.z0 + 1 : x === p.x0 + 1
              if (centre && inside(x, z) && blocks[at(x, p.y0, z)] === ids.caveAir) blocks[at(x, p.y0, z)] = along === 'x' ? ids.railX : ids.railZ
            }
          }
        }
        if (p.spider && inside(cxm, czm)) {
          blocks[at(cxm, p.y0, czm)] = ids.spawner
          spawners.push({ x: cxm, y: p.y0, z: czm, mob: 'cave_spider' })
        }
      }
    }
  }
}

module.exports = { placeMineshafts, mineshaftOf, CHANCE }
