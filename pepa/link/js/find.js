'use strict'
// bot.findBlocks without a Block per cell. Profiled on fleet bridges of 8 working bots, a gather's
// bot.findBlock({ matching, maxDistance: 48, useExtraInfo: (b) => ... }) held the Node process
// for 250-400 ms at a time: with a function as useExtraInfo, mineflayer builds a full Block
// (biome, light, block entity) for every cell of every section whose palette holds a match
// (4096 per section, dozens of sections), and every bot of the process waits meanwhile: their
// packets, their physics, the calls from Python (a reflex's swing among them).
//
// createFinder(bot, { prismarineBlock, OctahedronIterator }) gives findBlocks and findBlock with
// mineflayer's options and results (the same sections in the same order, the same cells, the
// same sort), but:
// - `matching` (a function or block ids, as mineflayer's) is asked once per block state, with
//   the Block of that state (Block.fromStateId, as mineflayer's palette check does): it must not
//   depend on where the block is (no matcher of ours does);
// - what depends on the place goes in `where(position)`, asked only for a cell whose state
//   matches (mineflayer's `useExtraInfo` function, given the position instead of a Block; the
//   position object is reused for the next cell: copy it to keep it);
// - a cell is read as its state id (column.getBlockStateId), not as a Block;
// - a section's states are read from its container as it is now: a section of one state (all
//   stone, all air) is one check, where mineflayer reads its 4096 cells.
// tests/fast/link/test_find_blocks.py compares the two on the survival sandbox's terrain.

// the modules come from the caller (bot_helper.js loads them from the node_modules it is given)
function createFinder (bot, { prismarineBlock, OctahedronIterator }) {
  let Block = null // for the bot's registry, known from its login
  let registry = null
  function matcherOf (matching) {
    if (typeof matching === 'function') return matching
    const ids = Array.isArray(matching) ? matching : [matching]
    return (block) => block !== null && ids.indexOf(block.type) >= 0
  }

  // the block states a section may hold, or null when it may hold any (a direct palette)
  function statesOf (section) {
    const data = section.data
    if (data && Array.isArray(data.palette)) return data.palette // 1.18+: the container's own
    if (data && 'value' in data) return [data.value] // 1.18+: a section of one state
    return Array.isArray(section.palette) ? section.palette : null // 1.9-1.17 (null: global)
  }

  function findBlocks (options) {
    const match = matcherOf(options.matching)
    const where = options.where || null
    const point = (options.point || bot.entity.position).floored()
    const maxDistance = options.maxDistance || 16
    const count = options.count || 1
    if (registry !== bot.registry) {
      registry = bot.registry
      Block = prismarineBlock(registry)
    }
    const known = new Map() // state id -> matches
    const matches = (state) => {
      let yes = known.get(state)
      if (yes === undefined) {
        yes = Boolean(match(Block.fromStateId(state, 0)))
        known.set(state, yes)
      }
      return yes
    }
    const minY = bot.game.minY || 0
    const totalSections = bot.game.height >> 4
    const start = point.clone().set(Math.floor(point.x / 16), Math.floor(point.y / 16), Math.floor(point.z / 16))
    const it = new OctahedronIterator(start, Math.ceil((maxDistance + 8) / 16))
    const visited = new Set()
    let blocks = []
    let startedLayer = 0
    let next = start
    const cell = point.clone()
    while (next) {
      const column = bot.world.getColumn(next.x, next.z)
      const sectionY = next.y + Math.abs(minY >> 4)
      const key = next.toString()
      if (sectionY >= 0 && sectionY < totalSections && column && !visited.has(key)) {
        const section = column.sections[sectionY]
        const states = section ? statesOf(section) : null
        if (section && (states === null || states.some(matches))) {
          const x0 = next.x * 16
          const y0 = sectionY * 16 + minY
          const z0 = next.z * 16
          for (let x = x0; x < x0 + 16; x++) {
            for (let y = y0; y < y0 + 16; y++) {
              for (let z = z0; z < z0 + 16; z++) {
                cell.set(x & 15, y, z & 15)
                if (!matches(column.getBlockStateId(cell))) continue
                cell.set(x, y, z)
                if (cell.distanceTo(point) <= maxDistance && (where === null || where(cell))) blocks.push(cell.clone())
              }
            }
          }
        }
        visited.add(key)
      }
      // a layer begun is finished: a closer block may be in it
      if (startedLayer !== it.apothem && blocks.length >= count) break
      startedLayer = it.apothem
      next = it.next()
    }
    blocks.sort((a, b) => a.distanceTo(point) - b.distanceTo(point))
    if (blocks.length > count) blocks = blocks.slice(0, count)
    return blocks
  }

  function findBlock (options) {
    const blocks = findBlocks(options)
    return blocks.length === 0 ? null : bot.blockAt(blocks[0])
  }

  return { findBlocks, findBlock }
}

module.exports = { createFinder }
