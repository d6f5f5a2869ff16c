'use strict'
// mineflayer-pathfinder's movement simulations (lib/physics.js), with the plain block reads and
// with the remembered ones (pathcache.js cachedPhysicsReads), on the survival sandbox's terrain.
//   node physics_reads.js SEEDS RUNS ROUNDS
// For each seed: a world of 8 x 8 chunks; RUNS runs from the surface toward a point 2-12 blocks
// away, walking or sprinting, jumping or not (getController, as the pathfinder's checks), 120
// ticks each; every tick's player state compared between the two sides. ROUNDS times, with
// blocks changed between rounds (on the tracks just run, and around): the remembered reads must
// follow them. Prints JSON: runs, ticks, mismatches (the first few), changed (runs whose track
// differed from the round before), plain_ms, cached_ms, the cache's counts.
const path = require('path')
const { performance } = require('perf_hooks')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const JS = path.resolve(__dirname, '..', '..', 'pepa', 'link', 'js') // the bot's
const SERVER_JS = path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js') // the world server's
const { Vec3 } = require(path.join(NM, 'vec3'))
const version = '1.16.5'
const registry = require(path.join(NM, 'prismarine-registry'))(version)
const { Physics: Engine } = require(path.join(NM, 'prismarine-physics'))
const Physics = require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'physics'))
const { sandboxWorld, surface } = require('./terrain')
const { cachedPhysicsReads } = require(path.join(JS, 'pathcache.js'))
const { seeded } = require(path.join(SERVER_JS, 'life', 'state.js'))

const [seeds, runs, rounds] = process.argv.slice(2).map(Number)
const plainSimulate = Physics.prototype.simulateUntil
const stats = cachedPhysicsReads(Physics, Vec3)
const FIELDS = ['onGround', 'isInWater', 'isInLava', 'isInWeb', 'isCollidedHorizontally', 'isCollidedVertically', 'jumpTicks']

// what the pathfinder's Physics reads of a bot: its registry's physics, world, blockAt, the
// player (standing at `at`) and its controls
function fakeBot (world, at) {
  return {
    version,
    world,
    physics: Engine(registry, world),
    blockAt: (p) => world.getBlock(p),
    controlState: { forward: false, back: false, left: false, right: false, jump: false, sprint: false, sneak: false },
    entity: {
      position: at.clone(),
      velocity: new Vec3(0, 0, 0),
      onGround: true,
      isInWater: false,
      isInLava: false,
      isInWeb: false,
      isCollidedHorizontally: false,
      isCollidedVertically: false,
      elytraFlying: false,
      yaw: 0,
      pitch: 0,
      effects: {},
      attributes: {}
    },
    jumpTicks: 0,
    jumpQueued: false,
    fireworkRocketDuration: 0,
    inventory: { slots: [] },
    game: { gameMode: 'survival' }
  }
}

// a run's track: every tick's state, rounded (the same arithmetic gives the same doubles)
function track (physics, run) {
  const ticks = []
  const steer = physics.getController(run.to, run.jump, run.sprint, run.jumpAfter)
  const t = performance.now()
  physics.simulateUntil(() => false, (state, tick) => {
    steer(state, tick)
    ticks.push([state.pos.x, state.pos.y, state.pos.z, state.vel.x, state.vel.y, state.vel.z, ...FIELDS.map(f => state[f])])
  }, 120)
  return { ms: performance.now() - t, ticks }
}

const out = { runs: 0, ticks: 0, mismatches: [], changed: 0, plain_ms: 0, cached_ms: 0 }
const stone = registry.blocksByName.stone.defaultState
const air = registry.blocksByName.air.defaultState
const water = registry.blocksByName.water.defaultState
const changes = [stone, air, water]
for (let seed = 1; seed <= seeds; seed++) {
  const world = sandboxWorld(registry, seed)
  const random = seeded(seed)
  const list = []
  for (let i = 0; i < runs; i++) {
    const x = Math.floor(random() * 48) - 24
    const z = Math.floor(random() * 48) - 24
    const from = new Vec3(x + 0.5, surface(world, x, z), z + 0.5)
    const angle = random() * 2 * Math.PI
    const d = 2 + random() * 10
    const to = from.offset(Math.cos(angle) * d, 0, Math.sin(angle) * d)
    list.push({ from, to, jump: random() < 0.5, sprint: random() < 0.5, jumpAfter: Math.floor(random() * 4) })
  }
  // one Physics each side, kept across the rounds (the cache outlives the changes); each run
  // starts from its own bot state
  for (let round = 0; round < rounds; round++) {
    const touched = []
    for (const run of list) {
      const plain = new Physics(fakeBot(world, run.from))
      plain.simulateUntil = plainSimulate
      const cached = run.cached || (run.cached = new Physics(fakeBot(world, run.from)))
      const a = track(plain, run)
      const b = track(cached, run)
      out.runs++
      out.ticks += a.ticks.length
      out.plain_ms += a.ms
      out.cached_ms += b.ms
      const left = JSON.stringify(a.ticks)
      if (run.last !== undefined && run.last !== left) out.changed++
      run.last = left
      if (left !== JSON.stringify(b.ticks) && out.mismatches.length < 3) {
        out.mismatches.push({ seed, round, plain: left.slice(0, 300), cached: JSON.stringify(b.ticks).slice(0, 300) })
      }
      for (const t of a.ticks) touched.push([Math.floor(t[0]), Math.floor(t[1]), Math.floor(t[2])])
    }
    // blocks change: in the way of the tracks just run (walls, holes, water) and around
    for (let k = 0; k < 80; k++) {
      const [x, y, z] = touched[Math.floor(random() * touched.length)]
      const dy = Math.floor(random() * 3) - 1
      world.setBlockStateId(new Vec3(x + Math.floor(random() * 3) - 1, y + dy, z + Math.floor(random() * 3) - 1), changes[Math.floor(random() * changes.length)])
    }
  }
}
out.plain_ms = Math.round(out.plain_ms)
out.cached_ms = Math.round(out.cached_ms)
out.hits = stats.hits
out.misses = stats.misses
process.stdout.write(JSON.stringify(out))
