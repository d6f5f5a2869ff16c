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

// The memo of one reader (a Movements instance, a pathfinder Physics): its world, the column
// of the last read and the cells read. recall() answers a cell from it, or undefined with the
// cell's state noted for keep() (one read at a time: JS runs one thing at a time).
function memoOf (owner, world, Vec3) {
  let memo = owner.pepaMemo
  if (memo === undefined || memo.world !== world) {
    memo = owner.pepaMemo = {
      world, generation: generationOf(world), seen: -1, cx: 0, cz: 0, column: null, cells: new Map(),
      at: new Vec3(0, 0, 0), inChunk: new Vec3(0, 0, 0), x: 0, y: 0, z: 0, state: 0, key: 0
    }
  }
  return memo
}

// the Block remembered for cell x, y, z (integers) while its state is the same; undefined: read
// it and keep() it; null: its chunk is not loaded (read it, never keep it)
function recall (memo, x, y, z) {
  const cx = Math.floor(x / 16)
  const cz = Math.floor(z / 16)
  if (memo.seen !== memo.generation.value || memo.cx !== cx || memo.cz !== cz) {
    memo.column = memo.world.getColumnAt(memo.at.set(x, y, z)) || null
    memo.seen = memo.generation.value
    memo.cx = cx
    memo.cz = cz
  }
  const column = memo.column
  if (column === null) return null
  const state = column.getBlockStateId(memo.inChunk.set(x & 15, y, z & 15))
  if (memo.cells.size >= LIMIT) {
    stats.cleared++
    memo.cells = new Map()
  }
  // a number for a key (cells 4096 blocks apart share it: the entry says which one it is)
  const key = ((x & 4095) * 4096 + (z & 4095)) * 1024 + (y & 1023)
  const known = memo.cells.get(key)
  if (known !== undefined && known.state === state && known.x === x && known.y === y && known.z === z) {
    stats.hits++
    return known.block
  }
  stats.misses++
  memo.x = x
  memo.y = y
  memo.z = z
  memo.state = state
  memo.key = key
  return undefined
}

function keep (memo, block) {
  memo.cells.set(memo.key, { x: memo.x, y: memo.y, z: memo.z, state: memo.state, block })
  return block
}

// Vec3: the caller's (bot_helper.js loads it from the node_modules it was given)
function cachedBlocks (Movements, Vec3) {
  const read = Movements.prototype.getBlock
  if (read.pepaCached) return stats
  function getBlock (pos, dx, dy, dz) {
    if (!pos) return read.call(this, pos, dx, dy, dz)
    const x = pos.x + dx
    const y = pos.y + dy
    const z = pos.z + dz
    const world = this.bot.world
    if (!world || !Number.isInteger(x) || !Number.isInteger(y) || !Number.isInteger(z)) {
      return read.call(this, pos, dx, dy, dz)
    }
    const memo = memoOf(this, world, Vec3)
    const known = recall(memo, x, y, z)
    if (known === null) return read.call(this, pos, dx, dy, dz) // not loaded: a stand-in, not kept
    return known !== undefined ? known : keep(memo, read.call(this, pos, dx, dy, dz))
  }
  getBlock.pepaCached = true
  Movements.prototype.getBlock = getBlock
  return stats
}

// The pathfinder's movement checks (lib/physics.js: canStraightLine, canSprintJump, ...) simulate
// the player up to 340 ticks each, several per physics tick of a walking bot, and every simulated
// tick reads the blocks around the player through bot.blockAt: a new Block each. Profiled on fleet
// bridges, a bot whose next node could not be reached in a straight line held its Node process
// for over a second in them. cachedPhysicsReads(Physics, Vec3) gives each Physics instance a
// world whose reads are remembered as Movements' are. Physics only reads the Blocks (their
// shape, type, state, position); the position read is floored, as the world's own read does.
function cachedPhysicsReads (Physics, Vec3) {
  const simulate = Physics.prototype.simulateUntil
  if (simulate.pepaCached) return stats
  function simulateUntil (...args) {
    if (!this.world.pepaCached) {
      const plain = this.world
      const owner = this
      this.world = {
        pepaCached: true,
        getBlock (pos) {
          const world = owner.bot.world
          if (!world) return plain.getBlock(pos)
          const memo = memoOf(owner, world, Vec3)
          const known = recall(memo, Math.floor(pos.x), Math.floor(pos.y), Math.floor(pos.z))
          if (known === null) return plain.getBlock(pos)
          return known !== undefined ? known : keep(memo, plain.getBlock(pos))
        }
      }
    }
    return simulate.apply(this, args)
  }
  simulateUntil.pepaCached = true
  Physics.prototype.simulateUntil = simulateUntil
  return stats
}

module.exports = { cachedBlocks, cachedPhysicsReads }
