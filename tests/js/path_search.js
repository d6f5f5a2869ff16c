'use strict'
// Whole path searches of mineflayer-pathfinder, with and without pathcache.js, on the survival
// sandbox's own terrain (its generator), then again after blocks change under them.
//   node path_search.js SEEDS SEARCHES ROUNDS [RADIUS]
// For each seed: a world of 8 x 8 chunks (those beyond are not loaded); SEARCHES goals from
// the surface near the origin; ROUNDS times: each search with the plain reads and with the
// cached ones (one Movements each, kept across rounds: the cache outlives the changes; each
// search bounded to RADIUS past its start's estimate, the pathfinder's searchRadius), the
// results compared field by field, then some blocks changed (on the paths found, and at random).
// Prints JSON: searches, mismatches (the first few), how many searches found another result
// than the round before (the changes mattered), the time each side took (in all, and per search:
// pairs of plain and cached ms), the cache's counts.
const path = require('path')
const { performance } = require('perf_hooks')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const JS = path.resolve(__dirname, '..', '..', 'pepa', 'world', 'js')
const { Vec3 } = require(path.join(NM, 'vec3'))
const registry = require(path.join(NM, 'prismarine-registry'))('1.16.5')
const { Movements, goals } = require(path.join(NM, 'mineflayer-pathfinder'))
const AStar = require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'astar'))
const Move = require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'move'))
const { sandboxWorld, surface } = require('./terrain')
const { cachedBlocks } = require(path.join(JS, 'pathcache.js'))
const { seeded } = require(path.join(JS, 'sandbox', 'life', 'state.js')) // mulberry32: the same changes every run

const [seeds, searches, rounds, radius = 24] = process.argv.slice(2).map(Number)
const plainRead = Movements.prototype.getBlock
const stats = cachedBlocks(Movements, Vec3)

// what mineflayer's bot gives Movements: its registry, world and blockAt, and a bot with
// nothing in hand (bestHarvestTool as mineflayer-pathfinder's own, over an empty inventory)
function fakeBot (world) {
  return {
    registry,
    world,
    game: { minY: 0 },
    entities: {},
    entity: { effects: {} },
    inventory: { items: () => [] },
    blockAt: (p) => world.getBlock(p),
    pathfinder: { bestHarvestTool: () => null }
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

const out = { searches: 0, mismatches: [], changed: 0, plain_ms: 0, cached_ms: 0, statuses: {}, pairs: [] }
const stone = registry.blocksByName.stone.defaultState
const air = registry.blocksByName.air.defaultState
const water = registry.blocksByName.water.defaultState
const gravel = registry.blocksByName.gravel.defaultState
const changes = [stone, air, water, gravel]
for (let seed = 1; seed <= seeds; seed++) {
  const world = sandboxWorld(registry, seed)
  const random = seeded(seed)
  const plain = new Movements(fakeBot(world))
  plain.getBlock = plainRead
  const cached = new Movements(fakeBot(world))
  const trips = []
  for (let i = 0; i < searches; i++) {
    const sx = Math.floor(random() * 24) - 12
    const sz = Math.floor(random() * 24) - 12
    const gx = Math.floor(random() * 80) - 40
    const gz = Math.floor(random() * 80) - 40
    trips.push({ start: new Vec3(sx, surface(world, sx, sz), sz), goal: new goals.GoalNear(gx, surface(world, gx, gz), gz, 1) })
  }
  for (let round = 0; round < rounds; round++) {
    const touched = []
    for (const trip of trips) {
      const { start, goal } = trip
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
process.stdout.write(JSON.stringify(out))
