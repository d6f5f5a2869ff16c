'use strict'
// Whole path searches of mineflayer-pathfinder, with and without pathcache.js, on the survival
// sandbox's own terrain (its generator), then again after blocks change under them.
//   node path_search.js SEEDS SEARCHES ROUNDS [RADIUS]
// For each seed: a world of 8 x 8 chunks (those beyond are not loaded); SEARCHES goals from
// the surface near the origin; ROUNDS times: each search with the plain reads and costs and with
// the cached ones (one Movements each, kept across rounds: the caches outlive the changes; each
// search bounded to RADIUS past its start's estimate, the pathfinder's searchRadius; the
// entities' collision index made anew before each, as the pathfinder does), the results
// compared field by field, then some blocks changed (on the paths found, and at random), the
// entities moved, and from the second round on the inventory and the bot's effects changed
// (round 1: a stone pickaxe, an enchanted shovel and dirt; round 2: Haste II).
// Prints JSON: searches, mismatches (the first few), how many searches found another result
// than the round before (the changes mattered), the time each side took (in all, and per search:
// pairs of plain and cached ms), the caches' counts, the blocks the paths dig out.
const path = require('path')
const { EventEmitter } = require('events')
const { performance } = require('perf_hooks')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const JS = path.resolve(__dirname, '..', '..', 'pepa', 'link', 'js') // the bot's
const SERVER_JS = path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js') // the world server's
const { Vec3 } = require(path.join(NM, 'vec3'))
const registry = require(path.join(NM, 'prismarine-registry'))('1.16.5')
const Item = require(path.join(NM, 'prismarine-item'))(registry)
const nbt = require(path.join(NM, 'prismarine-nbt'))
const { Movements, goals } = require(path.join(NM, 'mineflayer-pathfinder'))
const AStar = require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'astar'))
const Move = require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'move'))
const { sandboxWorld, surface } = require('./terrain')
const { cachedBlocks, cachedCosts } = require(path.join(JS, 'pathcache.js'))
const { seeded } = require(path.join(SERVER_JS, 'life', 'state.js')) // mulberry32: the same changes every run

const [seeds, searches, rounds, radius = 24] = process.argv.slice(2).map(Number)
const PLAIN = ['getBlock', 'safeOrBreak', 'getNumEntitiesAt', 'clearCollisionIndex', 'updateCollisionIndex']
const plainMethods = Object.fromEntries(PLAIN.map(name => [name, Movements.prototype[name]]))
const stats = cachedBlocks(Movements, Vec3)
cachedCosts(Movements, nbt)

// what the two bots share: the entities about, an inventory that tells its changes (as
// mineflayer's window does, updateSlot), the bot's own entity with its effects
function scene () {
  const inventory = new EventEmitter()
  inventory.slots = []
  inventory.items = () => inventory.slots.filter(Boolean)
  inventory.put = (slot, item) => {
    const old = inventory.slots[slot] || null
    inventory.slots[slot] = item
    inventory.emit('updateSlot', slot, old, item)
  }
  return { inventory, entities: {}, self: { effects: {} } }
}

// what mineflayer's bot gives Movements: its registry, world and blockAt, its entities and
// inventory, and mineflayer-pathfinder 2.4.5's own bestHarvestTool (index.js) over them
function fakeBot (world, shared) {
  const bot = {
    registry,
    world,
    game: { minY: 0 },
    entities: shared.entities,
    entity: shared.self,
    inventory: shared.inventory,
    blockAt: (p) => world.getBlock(p)
  }
  bot.pathfinder = {
    bestHarvestTool: (block) => {
      const availableTools = bot.inventory.items()
      const effects = bot.entity.effects
      let fastest = Number.MAX_VALUE
      let bestTool = null
      for (const tool of availableTools) {
        const enchants = (tool && tool.nbt) ? nbt.simplify(tool.nbt).Enchantments : []
        const digTime = block.digTime(tool ? tool.type : null, false, false, false, enchants, effects)
        if (digTime < fastest) {
          fastest = digTime
          bestTool = tool
        }
      }
      return bestTool
    }
  }
  return bot
}

const efficiency = nbt.comp({ Enchantments: nbt.list(nbt.comp([{ id: nbt.string('minecraft:efficiency'), lvl: nbt.short(3) }])) })
function kit (round, shared) {
  const item = (name, count, tag) => new Item(registry.itemsByName[name].id, count, 0, tag)
  if (round === 1) {
    shared.inventory.put(36, item('stone_pickaxe', 1))
    shared.inventory.put(37, item('dirt', 32))
    shared.inventory.put(38, item('iron_shovel', 1, efficiency))
  } else if (round === 2) {
    shared.self.effects[registry.effectsByName.Haste.id] = { id: registry.effectsByName.Haste.id, amplifier: 1, duration: 600 }
  }
}

// entities about the trips' starts: zombies and players (the index counts them), items (it does not)
function crowd (shared, random) {
  for (const id of Object.keys(shared.entities)) delete shared.entities[id]
  const names = ['zombie', 'player', 'item', 'skeleton']
  for (let id = 1; id <= 12; id++) {
    const x = random() * 28 - 14
    const z = random() * 28 - 14
    shared.entities[id] = {
      id, name: names[id % names.length], width: 0.6, height: 1.95,
      position: new Vec3(x, surface(shared.world, Math.floor(x), Math.floor(z)) + random() * 2, z)
    }
  }
}

function search (movements, start, goal) {
  const astar = new AStar(new Move(start.x, start.y, start.z, 0, 0), movements, goal, 1e9, 1e9, radius)
  const t = performance.now()
  const r = astar.compute()
  return {
    ms: performance.now() - t,
    result: {
      status: r.status,
      cost: r.cost,
      visited: r.visitedNodes,
      generated: r.generatedNodes,
      path: r.path.map(m => [m.hash, m.cost, m.remainingBlocks, m.parkour,
        m.toBreak.map(String), m.toPlace.map(p => [p.x, p.y, p.z, p.dx, p.dy, p.dz, !!p.jump, !!p.returnPos])])
    }
  }
}

const out = { searches: 0, mismatches: [], changed: 0, plain_ms: 0, cached_ms: 0, statuses: {}, pairs: [], dug: 0 }
const stone = registry.blocksByName.stone.defaultState
const air = registry.blocksByName.air.defaultState
const water = registry.blocksByName.water.defaultState
const gravel = registry.blocksByName.gravel.defaultState
const changes = [stone, air, water, gravel]
for (let seed = 1; seed <= seeds; seed++) {
  const world = sandboxWorld(registry, seed)
  const random = seeded(seed)
  const shared = Object.assign(scene(), { world })
  const plain = new Movements(fakeBot(world, shared))
  Object.assign(plain, plainMethods)
  const cached = new Movements(fakeBot(world, shared))
  const trips = []
  for (let i = 0; i < searches; i++) {
    const sx = Math.floor(random() * 24) - 12
    const sz = Math.floor(random() * 24) - 12
    const gx = Math.floor(random() * 80) - 40
    const gz = Math.floor(random() * 80) - 40
    const depth = i % 3 === 2 ? 3 : 0 // every third goal underground: a path that digs
    trips.push({ start: new Vec3(sx, surface(world, sx, sz), sz), goal: new goals.GoalNear(gx, surface(world, gx, gz) - depth, gz, 1) })
  }
  for (let round = 0; round < rounds; round++) {
    const touched = []
    kit(round, shared)
    crowd(shared, random)
    for (const trip of trips) {
      const { start, goal } = trip
      for (const m of [plain, cached]) {
        m.clearCollisionIndex()
        m.updateCollisionIndex()
      }
      const a = search(plain, start, goal)
      const b = search(cached, start, goal)
      out.searches++
      out.plain_ms += a.ms
      out.cached_ms += b.ms
      out.pairs.push([Math.round(a.ms * 100) / 100, Math.round(b.ms * 100) / 100])
      out.statuses[a.result.status] = (out.statuses[a.result.status] || 0) + 1
      const left = JSON.stringify(a.result)
      if (trip.last !== undefined && trip.last !== left) out.changed++ // the changes told
      trip.last = left
      if (left !== JSON.stringify(b.result) && out.mismatches.length < 3) {
        out.mismatches.push({ seed, round, plain: left.slice(0, 300), cached: JSON.stringify(b.result).slice(0, 300) })
      }
      touched.push(...a.result.path.map(p => p[0].split(',').map(Number)))
      out.dug += a.result.path.reduce((n, p) => n + p[4].length, 0)
    }
    // blocks change: on the paths just found (walls, holes, water), and anywhere near
    for (let k = 0; k < 60; k++) {
      const [x, y, z] = touched.length && random() < 0.7
        ? touched[Math.floor(random() * touched.length)]
        : [Math.floor(random() * 96) - 48, 50 + Math.floor(random() * 30), Math.floor(random() * 96) - 48]
      const dy = Math.floor(random() * 3) - 1
      world.setBlockStateId(new Vec3(x, y + dy, z), changes[Math.floor(random() * changes.length)])
    }
    world.setBlockStateId(new Vec3(0, 70, 0), air) // a cell both read, changed back and forth
  }
}
out.plain_ms = Math.round(out.plain_ms)
out.cached_ms = Math.round(out.cached_ms)
out.hits = stats.hits
out.misses = stats.misses
out.labor_hits = stats.laborHits
out.labor_misses = stats.laborMisses
process.stdout.write(JSON.stringify(out))
