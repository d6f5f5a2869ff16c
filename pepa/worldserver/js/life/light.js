'use strict'
// The sandbox's light model: sky light and block light at a block, after
// vanilla 1.16's light engines (SkyLightEngine, BlockLightEngine), computed
// on demand around the queried block and cached until a block changes.
//
// Pure: it reads blocks through a `source` —
//   state(x, y, z)   the block state id at a block (0 <= y <= 255), -1 when
//                    its column is not loaded (counted as an opaque block);
//   palette(x, y, z) optional: the state ids the 16^3 section holding the
//                    block may contain, or null when unknown.
// The owner calls changed(x, y, z, oldState, newState) after every block
// change and columnChanged(cx, cz) when a chunk column loads or unloads.
//
// Vanilla's rules, with a light level 0..15:
//  - a block's opacity (BlockBehaviour.getLightBlock): 15 for a full opaque
//    block, 1 for leaves (LeavesBlock), water, lava, cobweb, ice and slime
//    (full shapes that do not occlude, and any block holding a fluid), 0 for
//    everything else (air, glass, torches, flowers, fences, doors, slabs);
//  - light spreads to a neighbour losing max(1, the neighbour's opacity);
//    blocks of opacity 15 stop it. Every block here is 0, 1 or 15, so light
//    loses exactly 1 a block through whatever it can cross;
//  - sky light is 15 in every block above the highest block of its column
//    with an opacity (the sky light passes straight down through air without
//    loss); it spreads from there: under one leaf layer 14, in a cave 3
//    blocks from its mouth 12, in a closed room 0. canSeeSky is "sky light
//    15" (vanilla BlockAndTintGetter.canSeeSky);
//  - block light starts at each emitter's light level (vanilla
//    Block.lightEmission: minecraft-data's emitLight and EMIT_EXTRA, and
//    nothing from a block with a `lit` property that is not lit) and spreads
//    the same way: a torch (14) gives 13 next to it, 8 six blocks away,
//    nothing through a wall.
// A level is found by a breadth-first search from the queried block out to
// 15 blocks (the farthest light can come from); block light first looks up
// the emitters near it (an index per 16^3 section, built from the section's
// palette) and is 0 at once when there are none.

// 1.16 emitters minecraft-data lacks (vanilla Blocks.java lightLevel).
const EMIT_EXTRA = {
  lantern: 15, soul_lantern: 10, soul_torch: 10, soul_wall_torch: 10, soul_fire: 10,
  campfire: 15, soul_campfire: 10, shroomlight: 15, crying_obsidian: 10, magma_block: 3,
  conduit: 15, blast_furnace: 13, smoker: 13, ender_chest: 7
}
// minecraft-data's `transparent` is wrong for these: full opaque blocks in vanilla ...
const OPAQUE = new Set(['pumpkin', 'carved_pumpkin', 'jack_o_lantern', 'melon', 'glowstone', 'sea_lantern',
  'furnace', 'blast_furnace', 'smoker', 'redstone_ore', 'redstone_lamp', 'tnt', 'barrel', 'observer', 'target', 'redstone_block'])
// ... and not opaque in vanilla though minecraft-data says so
const CLEAR = new Set(['campfire', 'soul_campfire', 'sea_pickle', 'conduit'])
// opacity 1: vanilla LeavesBlock, fluids, and full shapes that do not occlude
const DIM = new Set(['water', 'lava', 'bubble_column', 'cobweb', 'ice', 'frosted_ice', 'slime_block'])

const R = 15 // how far light reaches
const SIDE = 32 // the search box, local coordinates 0..31 per axis (R either side)
const UNKNOWN = -32768
const MAX_BUCKETS = 2048 // cached 16^3 light buckets (8 KB each) before the cache starts over

// a state's value of property `name` (minecraft-data's encoding: the last property varies fastest; bool index 0 is true)
function property (b, id, name) {
  let rest = id - b.minStateId
  for (let i = b.states.length - 1; i >= 0; i--) {
    const s = b.states[i]
    const v = rest % s.num_values
    rest = Math.floor(rest / s.num_values)
    if (s.name === name) return s.type === 'bool' ? v === 0 : (s.values ? s.values[v] : v)
  }
  return undefined
}

// opacity and emission of every state id, per the rules above
function tables (registry) {
  let top = 0
  for (const b of registry.blocksArray) top = Math.max(top, b.maxStateId)
  const opacity = new Uint8Array(top + 1)
  const emit = new Uint8Array(top + 1)
  for (const b of registry.blocksArray) {
    const names = new Set((b.states || []).map(s => s.name))
    for (let id = b.minStateId; id <= b.maxStateId; id++) {
      let o = 0
      if (OPAQUE.has(b.name) || (b.boundingBox === 'block' && !b.transparent && !CLEAR.has(b.name))) o = 15
      else if (names.has('type') && b.name.endsWith('_slab') && property(b, id, 'type') === 'double') o = 15
      else if (DIM.has(b.name) || b.name.endsWith('_leaves') || (names.has('waterlogged') && property(b, id, 'waterlogged'))) o = 1
      opacity[id] = o
      const e = EMIT_EXTRA[b.name] || b.emitLight || 0
      emit[id] = names.has('lit') && !property(b, id, 'lit') ? 0 : e
    }
  }
  return { opacity, emit }
}

module.exports = function lightModel (registry, source) {
  const { opacity: OPACITY, emit: EMIT } = tables(registry)
  const heights = new Map() // chunk key -> Int16Array(256): the highest block with an opacity, -1 none
  const emitters = new Map() // section key -> [x, y, z, level, ...]
  const buckets = new Map() // 16^3 bucket key -> Int8Array(8192): sky levels, then block levels; -1 unknown
  const stamp = new Int32Array(SIDE * SIDE * SIDE)
  const queue = new Int32Array(SIDE * SIDE * SIDE)
  let generation = 0
  const stats = { skySearches: 0, blockSearches: 0, visited: 0 }

  const chunkKey = (cx, cz) => (cx + 32768) * 65536 + (cz + 32768)
  const sectionKey = (cx, sy, cz) => chunkKey(cx, cz) * 16 + sy
  const opacityAt = (x, y, z) => {
    if (y > 255) return 0
    if (y < 0) return 15
    const s = source.state(x, y, z)
    return s < 0 ? 15 : OPACITY[s]
  }
  const clear = (pal) => pal && pal.every(id => OPACITY[id] === 0)

  // the highest block of column (x, z) with an opacity; 256 when not loaded (not cached)
  function height (x, z) {
    const key = chunkKey(x >> 4, z >> 4)
    let hs = heights.get(key)
    const i = ((x & 15) << 4) | (z & 15)
    if (hs && hs[i] !== UNKNOWN) return hs[i]
    if (source.state(x, 0, z) < 0) return 256
    if (!hs) {
      if (heights.size > 4096) { heights.clear(); buckets.clear() } // cached levels rest on the heights
      heights.set(key, (hs = new Int16Array(256).fill(UNKNOWN)))
    }
    hs[i] = scanDown(x, 255, z)
    return hs[i]
  }

  function scanDown (x, from, z) {
    for (let y = from; y >= 0; y--) {
      if ((y & 15) === 15 && source.palette && clear(source.palette(x, y, z))) { y -= 15; continue }
      if (OPACITY[source.state(x, y, z)] > 0) return y
    }
    return -1
  }

  const canSeeSky = (x, y, z) => y > height(x, z)

  // light emitters of the 16^3 section at (cx, sy, cz), flat [x, y, z, level, ...]
  function sectionEmitters (cx, sy, cz) {
    const key = sectionKey(cx, sy, cz)
    let list = emitters.get(key)
    if (list) return list
    list = []
    const x0 = cx << 4; const y0 = sy << 4; const z0 = cz << 4
    if (source.state(x0, y0, z0) < 0) return list // not loaded: not cached
    const pal = source.palette ? source.palette(x0, y0, z0) : null
    if (!pal || pal.some(id => EMIT[id] > 0)) {
      for (let y = y0; y < y0 + 16; y++) {
        for (let z = z0; z < z0 + 16; z++) {
          for (let x = x0; x < x0 + 16; x++) {
            const e = EMIT[source.state(x, y, z)]
            if (e > 0) list.push(x, y, z, e)
          }
        }
      }
    }
    if (emitters.size > 20000) emitters.clear()
    emitters.set(key, list)
    return list
  }

  // --- the cache of computed levels, per 16^3 bucket -----------------------------------
  function cached (x, y, z, kind) {
    const b = buckets.get(sectionKey(x >> 4, y >> 4, z >> 4))
    return b ? b[kind * 4096 + (((y & 15) << 8) | ((z & 15) << 4) | (x & 15))] : -1
  }
  function remember (x, y, z, kind, level) {
    const key = sectionKey(x >> 4, y >> 4, z >> 4)
    let b = buckets.get(key)
    if (!b) {
      if (buckets.size >= MAX_BUCKETS) buckets.clear()
      buckets.set(key, (b = new Int8Array(8192).fill(-1)))
    }
    b[kind * 4096 + (((y & 15) << 8) | ((z & 15) << 4) | (x & 15))] = level
    return level
  }
  function forget (x0, x1, y0, y1, z0, z1) {
    for (let bx = x0 >> 4; bx <= x1 >> 4; bx++) {
      for (let bz = z0 >> 4; bz <= z1 >> 4; bz++) {
        for (let by = Math.max(0, y0 >> 4); by <= Math.min(15, y1 >> 4); by++) buckets.delete(sectionKey(bx, by, bz))
      }
    }
  }

  // --- breadth-first search from (x, y, z) through blocks light crosses ----------------
  // visit(wx, wy, wz, depth, local) returns true to stop; touch(...) sees each opaque neighbour
  const pack = (dx, dy, dz) => ((dx + R) << 10) | ((dy + R) << 5) | (dz + R)
  const STEPS = [1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1] // the six neighbours, flat
  function search (x, y, z, maxDepth, visit, touch) {
    generation++
    let head = 0; let tail = 0
    queue[tail++] = pack(0, 0, 0)
    stamp[pack(0, 0, 0)] = generation
    let depth = 0
    while (head < tail && depth <= maxDepth) {
      const levelEnd = tail
      if (visit(null, 0, 0, depth)) return // a new level: the visitor may stop
      for (; head < levelEnd; head++) {
        const l = queue[head]
        const dx = (l >> 10) - R; const dy = ((l >> 5) & 31) - R; const dz = (l & 31) - R
        stats.visited++
        if (visit(x + dx, y + dy, z + dz, depth, l)) return
        if (depth === maxDepth) continue
        for (let i = 0; i < 18; i += 3) {
          const sx = STEPS[i]; const sy = STEPS[i + 1]; const sz = STEPS[i + 2]
          const n = pack(dx + sx, dy + sy, dz + sz)
          if (stamp[n] === generation) continue
          stamp[n] = generation
          const wx = x + dx + sx; const wy = y + dy + sy; const wz = z + dz + sz
          if (opacityAt(wx, wy, wz) >= 15) { if (touch) touch(wx, wy, wz, depth + 1, n); continue }
          queue[tail++] = n
        }
      }
      depth++
    }
  }

  function skyLight (x, y, z) {
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    if (y > 255) return 15
    if (y < 0) return 0
    if (y > height(x, z)) return 15
    const known = cached(x, y, z, 0)
    if (known >= 0) return known
    if (opacityAt(x, y, z) >= 15) return remember(x, y, z, 0, 0)
    stats.skySearches++
    let level = 0
    search(x, y, z, R - 1, (wx, wy, wz, depth) => {
      if (wx === null) return false
      if (wy > height(wx, wz)) { level = R - depth; return true }
      return false
    })
    return remember(x, y, z, 0, level)
  }

  function blockLight (x, y, z) {
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    if (y < 0 || y > 255) return 0
    const known = cached(x, y, z, 1)
    if (known >= 0) return known
    // emitters that could reach: level above the Manhattan distance
    const near = new Map() // local index -> level
    let bound = 0 // the most any of them could give
    for (let cx = (x - R + 1) >> 4; cx <= (x + R - 1) >> 4; cx++) {
      for (let cz = (z - R + 1) >> 4; cz <= (z + R - 1) >> 4; cz++) {
        for (let sy = Math.max(0, (y - R + 1) >> 4); sy <= Math.min(15, (y + R - 1) >> 4); sy++) {
          const list = sectionEmitters(cx, sy, cz)
          for (let i = 0; i < list.length; i += 4) {
            const dx = list[i] - x; const dy = list[i + 1] - y; const dz = list[i + 2] - z
            const reach = list[i + 3] - Math.abs(dx) - Math.abs(dy) - Math.abs(dz)
            if (reach <= 0) continue
            const l = pack(dx, dy, dz)
            near.set(l, Math.max(near.get(l) || 0, list[i + 3]))
            bound = Math.max(bound, reach)
          }
        }
      }
    }
    if (!near.size) return remember(x, y, z, 1, 0)
    if (opacityAt(x, y, z) >= 15) return remember(x, y, z, 1, near.get(pack(0, 0, 0)) || 0)
    stats.blockSearches++
    let top = 0
    for (const e of near.values()) top = Math.max(top, e)
    let level = 0
    const reached = (wx, wy, wz, depth, l) => {
      if (wx === null) return level >= bound || level >= top - depth // nothing farther can beat it
      const e = near.get(l)
      if (e) level = Math.max(level, e - depth)
      return level >= bound
    }
    search(x, y, z, top - 1, reached, reached)
    return remember(x, y, z, 1, level)
  }

  // --- keeping the caches true ----------------------------------------------------------
  function changed (x, y, z, oldState, newState) {
    const oldOpacity = OPACITY[oldState] || 0; const newOpacity = OPACITY[newState] || 0
    const oldEmit = EMIT[oldState] || 0; const newEmit = EMIT[newState] || 0
    if (oldOpacity === newOpacity && oldEmit === newEmit) return
    if (oldEmit !== newEmit) emitters.delete(sectionKey(x >> 4, y >> 4, z >> 4))
    let y0 = y; let y1 = y
    const hs = heights.get(chunkKey(x >> 4, z >> 4))
    const i = ((x & 15) << 4) | (z & 15)
    if (hs && hs[i] !== UNKNOWN && oldOpacity !== newOpacity) {
      const before = hs[i]
      if (newOpacity > 0 && y > before) hs[i] = y
      else if (newOpacity === 0 && y === before) hs[i] = scanDown(x, y - 1, z)
      y0 = Math.min(y0, before, hs[i]); y1 = Math.max(y1, before, hs[i])
    }
    forget(x - R, x + R, y0 - R, y1 + R, z - R, z + R)
  }

  function columnChanged (cx, cz) {
    heights.delete(chunkKey(cx, cz))
    for (let sy = 0; sy < 16; sy++) emitters.delete(sectionKey(cx, sy, cz))
    forget((cx << 4) - R, (cx << 4) + 15 + R, 0, 255, (cz << 4) - R, (cz << 4) + 15 + R)
  }

  return { skyLight, blockLight, canSeeSky: (x, y, z) => canSeeSky(Math.floor(x), Math.floor(y), Math.floor(z)), changed, columnChanged, stats, opacity: OPACITY, emit: EMIT }
}
