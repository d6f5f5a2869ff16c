'use strict'
// mineflayer-pathfinder's block reads, remembered. Profiled on a fleet bridge of 8 working bots,
// path searches were two thirds of the Node process's busy time, and most of that was
// Movements.getBlock: every read builds a new prismarine Block (the column, the palette, a
// Biome, a block entity lookup, some 30 fields) and adds 8 more fields to it, and A* reads the
// same cells over and over (each node's moves read the cells around it, and neighbouring nodes
// share most of them; each re-planning reads them all again).
//
// cachedBlocks(Movements, Vec3) makes each Movements instance remember the Block it built for a cell
// with the block state it was built from. A read finds the cell's state id first (a palette
// read, no Block) and returns the remembered Block while the state is the same; a changed
// state (a block dug, placed, flowing, grown) builds it anew, so the answer is always the one
// the original read would give now. What the cache does not cover goes to the original read:
// a cell whose chunk is not loaded (a stand-in that is never remembered) and a position that
// is not a whole block. Each instance keeps at most LIMIT cells and forgets them all past it.
//
// Two things this rests on, both true of mineflayer-pathfinder 2.4.5 (tests/test_pathcache.py
// compares whole searches with and without the cache):
// - only Movements.getBlock writes to the Blocks it returns (the fields it derives from the
//   block and the instance's sets), and nothing else keeps or changes them;
// - the instance's block sets (blocksToAvoid, liquids, ...) are set up in its constructor and
//   not changed afterwards: a change to them after the first read would not reach the
//   remembered cells (make a new Movements instead, as bot_helper.js does).

const LIMIT = 50000
const stats = { hits: 0, misses: 0, cleared: 0 }

// the loaded columns' generation, per world: bumped at each column loaded or unloaded, so
// that a column found for one read serves the next reads in it without a lookup
const generations = new WeakMap()
function generationOf (world) {
  const source = world.async || world
  let counter = generations.get(source)
  if (counter === undefined) {
    counter = { value: 0 }
    generations.set(source, counter)
    const bump = () => { counter.value++ }
    source.on('chunkColumnLoad', bump)
    source.on('chunkColumnUnload', bump)
  }
  return counter
}

// Vec3: the caller's (bot_helper.js loads it from the node_modules it was given)
function cachedBlocks (Movements, Vec3) {
  const read = Movements.prototype.getBlock
  if (read.pepaCached) return stats
  const at = new Vec3(0, 0, 0)
  const inChunk = new Vec3(0, 0, 0)
  function getBlock (pos, dx, dy, dz) {
    if (!pos) return read.call(this, pos, dx, dy, dz)
    const x = pos.x + dx
    const y = pos.y + dy
    const z = pos.z + dz
    const world = this.bot.world
    if (!world || !Number.isInteger(x) || !Number.isInteger(y) || !Number.isInteger(z)) {
      return read.call(this, pos, dx, dy, dz)
    }
    let memo = this.pepaMemo
    if (memo === undefined || memo.world !== world) {
      memo = this.pepaMemo = { world, generation: generationOf(world), seen: -1, cx: 0, cz: 0, column: null, cells: new Map() }
    }
    const cx = Math.floor(x / 16)
    const cz = Math.floor(z / 16)
    if (memo.seen !== memo.generation.value || memo.cx !== cx || memo.cz !== cz) {
      memo.column = world.getColumnAt(at.set(x, y, z)) || null
      memo.seen = memo.generation.value
      memo.cx = cx
      memo.cz = cz
    }
    const column = memo.column
    if (column === null) return read.call(this, pos, dx, dy, dz) // not loaded: a stand-in, not kept
    const state = column.getBlockStateId(inChunk.set(x & 15, y, z & 15))
    let cells = memo.cells
    if (cells.size >= LIMIT) {
      stats.cleared++
      cells = memo.cells = new Map()
    }
    // a number for a key (cells 4096 blocks apart share it: the entry says which one it is)
    const key = ((x & 4095) * 4096 + (z & 4095)) * 1024 + (y & 1023)
    const known = cells.get(key)
    if (known !== undefined && known.state === state && known.x === x && known.y === y && known.z === z) {
      stats.hits++
      return known.block
    }
    stats.misses++
    const block = read.call(this, pos, dx, dy, dz)
    cells.set(key, { x, y, z, state, block })
    return block
  }
  getBlock.pepaCached = true
  Movements.prototype.getBlock = getBlock
  return stats
}

module.exports = { cachedBlocks }
