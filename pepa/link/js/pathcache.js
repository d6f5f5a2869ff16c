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
// Two things this rests on, both true of mineflayer-pathfinder 2.4.5 (tests/fast/link/test_pathcache.py
// compares whole searches with and without the cache):
// - only Movements.getBlock writes to the Blocks it returns (the fields it derives from the
//   block and the instance's sets), and nothing else keeps or changes them;
// - the instance's block sets (blocksToAvoid, liquids, ...) are set up in its constructor and
//   not changed afterwards: a change to them after the first read would not reach the
//   remembered cells (make a new Movements instead, as bot_helper.js does).

const LIMIT = 50000
const stats = { hits: 0, misses: 0, cleared: 0, laborHits: 0, laborMisses: 0 }

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

// A search's costs, each computed once (cachedCosts). Profiled on the bridges of 32 working bots,
// after the reads above: a tenth of the Node processes' busy time was two costs
// that Movements computes again for every node.
// - The labour of a block in the way: safeOrBreak asks bestHarvestTool, which works out the dig
//   time of the block with every item of the inventory (and reads each one's NBT), then the
//   block's dig time again with the tool found: 2.6 + 2.2 % of the busy time and most of
//   safeOrBreak's own 4.5 %. It depends on nothing but the block's state, the inventory and the
//   bot's effects, so each Movements instance keeps it per block state while the inventory
//   (its updateSlot events: every item put, taken, changed) and the effects (their ids and
//   levels) are the same.
// - The entities in a cell: getNumEntitiesAt builds a string key ("x,y,z") for each read of the
//   collision index, 3.6 % with 31 other bots near. The index is a Map keyed by a number here
//   (exact for whole cells within a million blocks of the origin, a string beyond, as before),
//   and an empty index answers 0 without a key.
// tests/fast/link/test_pathcache.py compares whole searches with and without these (entities about, an
// inventory of tools that changes between rounds).
const SPAN = 1048576
function cellKey (x, y, z) {
  if (Number.isInteger(x) && Number.isInteger(y) && Number.isInteger(z) &&
      x > -SPAN && x < SPAN && z > -SPAN && z < SPAN && y >= -512 && y < 512) {
    return ((x + SPAN) * 2097152 + (z + SPAN)) * 1024 + (y + 512) // under 2^53: exact
  }
  return `${x},${y},${z}`
}

// an inventory's generation: bumped at each of its updateSlot events
const inventories = new WeakMap()
function generationOfInventory (inventory) {
  let counter = inventories.get(inventory)
  if (counter === undefined) {
    if (!inventory || typeof inventory.on !== 'function') return null // cannot tell: not kept
    counter = { value: 0 }
    inventories.set(inventory, counter)
    inventory.on('updateSlot', () => { counter.value++ })
  }
  return counter
}

// what of the effects a dig time reads: each effect's id and level
function effectsKey (effects) {
  let key = ''
  for (const id in effects) key += `${id}:${effects[id] && effects[id].amplifier};`
  return key
}

function cachedCosts (Movements, nbt) {
  if (Movements.prototype.safeOrBreak.pepaCached) return stats

  // the labour of digging `block` out of the way, as mineflayer-pathfinder 2.4.5's safeOrBreak
  // works it out
  function digLabor (movements, block, effects) {
    stats.laborMisses++
    const tool = movements.bot.pathfinder.bestHarvestTool(block)
    const enchants = (tool && tool.nbt) ? nbt.simplify(tool.nbt).Enchantments : []
    const digTime = block.digTime(tool ? tool.type : null, false, false, false, enchants, effects)
    return (1 + 3 * digTime / 1000) * movements.digCost
  }

  // the same, remembered per block state while the inventory, the effects and digCost are the same
  function labor (movements, block) {
    const inventory = movements.bot.inventory
    const effects = movements.bot.entity.effects
    const generation = generationOfInventory(inventory)
    if (generation === null) return digLabor(movements, block, effects) // cannot tell its changes
    const fx = effectsKey(effects)
    let memo = movements.pepaLabor
    if (memo === undefined || memo.inventory !== inventory || memo.generation !== generation.value ||
        memo.effects !== fx || memo.digCost !== movements.digCost) {
      memo = movements.pepaLabor = {
        inventory, generation: generation.value, effects: fx, digCost: movements.digCost, costs: new Map()
      }
    }
    const key = block.stateId ?? block.type
    const known = memo.costs.get(key)
    if (known !== undefined) {
      stats.laborHits++
      return known
    }
    const cost = digLabor(movements, block, effects)
    memo.costs.set(key, cost)
    return cost
  }

  // mineflayer-pathfinder 2.4.5's safeOrBreak, its labour remembered
  function safeOrBreak (block, toBreak) {
    let cost = 0
    cost += this.exclusionStep(block) // Is excluded so can't move or break
    cost += this.getNumEntitiesAt(block.position, 0, 0, 0) * this.entityCost
    if (block.safe) return cost
    if (!this.safeToBreak(block)) return 100 // Can't break, so can't move
    toBreak.push(block.position)
    if (block.physical) cost += this.getNumEntitiesAt(block.position, 0, 1, 0) * this.entityCost
    cost += labor(this, block)
    return cost
  }
  safeOrBreak.pepaCached = true
  Movements.prototype.safeOrBreak = safeOrBreak

  Movements.prototype.clearCollisionIndex = function clearCollisionIndex () {
    this.entityIntersections = {}
    this.pepaCells = new Map()
  }
  // as 2.4.5's updateCollisionIndex, into the Map
  Movements.prototype.updateCollisionIndex = function updateCollisionIndex () {
    if (this.pepaCells === undefined) this.pepaCells = new Map()
    const cells = this.pepaCells
    for (const ent of Object.values(this.bot.entities)) {
      if (ent === this.bot.entity) continue
      const avoidedEnt = this.entitiesToAvoid.has(ent.name)
      if (avoidedEnt || !this.passableEntities.has(ent.name)) {
        const entSquareRadius = ent.width / 2.0
        const minY = Math.floor(ent.position.y)
        const maxY = Math.ceil(ent.position.y + ent.height)
        const minX = Math.floor(ent.position.x - entSquareRadius)
        const maxX = Math.ceil(ent.position.x + entSquareRadius)
        const minZ = Math.floor(ent.position.z - entSquareRadius)
        const maxZ = Math.ceil(ent.position.z + entSquareRadius)
        const cost = avoidedEnt ? 100 : 1
        for (let y = minY; y < maxY; y++) {
          for (let x = minX; x < maxX; x++) {
            for (let z = minZ; z < maxZ; z++) {
              const key = cellKey(x, y, z)
              cells.set(key, (cells.get(key) ?? 0) + cost) // More ents = more weight
            }
          }
        }
      }
    }
  }
  Movements.prototype.getNumEntitiesAt = function getNumEntitiesAt (pos, dx, dy, dz) {
    if (this.allowEntityDetection === false) return 0
    if (!pos) return 0
    const cells = this.pepaCells
    if (cells === undefined || cells.size === 0) return 0
    return cells.get(cellKey(pos.x + dx, pos.y + dy, pos.z + dz)) ?? 0
  }
  return stats
}

module.exports = { cachedBlocks, cachedCosts, cachedPhysicsReads }
