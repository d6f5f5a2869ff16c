'use strict'
// Monster spawners (a dungeon's), as vanilla 1.16.5's BaseSpawner with its
// defaults: while a player (not a spectator) is within 16 blocks, a spawner
// counts down its delay (20 ticks at first, then 200..799 after each spawn);
// at zero it tries 4 times to place its mob at a random spot within 4 blocks
// across and 1 up or down, where the mob fits and is allowed by its spawn
// rules (a monster: darkness, plugins/mobs.js's light test); it stops when 6
// of its kind are within 4 blocks of it. Its mob is the one the generator
// drew (a dungeon's, vanilla/features.js: zombie 2 in 4, skeleton or spider;
// a mineshaft's, vanilla/mineshafts.js: cave spiders); spawned mobs are
// natural (they despawn as vanilla's do).
//
// A spawner is known from its chunk: generated (vanilla/index.js's list) or
// loaded from the world's files (the chunk's palette has a spawner: its
// sections are searched, and the mob is the generator's for that place). A
// spawner block that is broken stops.
//
// Control op: spawners → {spawners: [{x, y, z, mob, delay}]}
const { Vec3 } = require('vec3')
const { lifeOf } = require('../life/state')
const blockView = require('../life/blocks')

const RANGE = 16 // requiredPlayerRange
const SPAWN_RANGE = 4
const COUNT = 4
const MAX_NEARBY = 6
const MIN_DELAY = 200
const MAX_DELAY = 800

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const registry = serv.registry
  const SPAWNER = registry.blocksByName.spawner.defaultState
  const view = blockView(registry)
  const spawners = new Map() // "x,y,z" -> { x, y, z, mob, delay }
  let world = null
  let terrain = null // the vanilla terrain of this seed, for spawners loaded from disk

  function add (x, y, z, mob) {
    const key = `${x},${y},${z}`
    if (!spawners.has(key)) spawners.set(key, { x, y, z, mob, delay: 20 })
  }
  // a column loaded from the world's files: its spawners, with the generator's mob for each
  function columnLoaded (corner) {
    const column = world.sync.getColumnAt(new Vec3(corner.x, 0, corner.z))
    if (!column || !column.sections) return
    const has = column.sections.some(s => s && (s.palette === null || s.palette === undefined || s.palette.includes(SPAWNER)))
    if (!has) return
    const cx = Math.floor(corner.x / 16)
    const cz = Math.floor(corner.z / 16)
    if (!terrain) terrain = require('../vanilla/index.js').vanillaTerrain(seed, { registry })
    for (const d of terrain.blocksOf(cx, cz).spawners) add(d.x, d.y, d.z, d.mob)
  }
  function attach () {
    world = serv.overworld
    if (life.terrain !== 'vanilla') return
    world.on('chunkColumnLoad', (corner) => { try { columnLoaded(corner) } catch (err) { serv.err && serv.err(`[life] spawners: ${err && err.stack}`) } })
  }
  serv.once('pluginsReady', () => { if (!world && serv.overworld) attach() })
  let seed = this.settings.seed // world.js tells the seed level.dat keeps (an existing world's own)
  serv.on('seed', (s) => { seed = s })

  // room for the mob on a floor, out of liquid (life/blocks.js standingSpots)
  const fits = (x, y, z) => view.standingSpots(world, x, z, y, y).length > 0

  function tickSpawner (s) {
    const centre = new Vec3(s.x + 0.5, s.y + 0.5, s.z + 0.5)
    if (!serv.players.some(p => p.world === world && p.gameMode !== 3 && p.health > 0 && p.position.distanceTo(centre) <= RANGE)) return
    if (s.delay > 0) { s.delay--; return }
    let spawned = false
    for (let i = 0; i < COUNT; i++) {
      const nearby = Object.values(serv.entities).filter(e => e.type === 'mob' && e.name === s.mob && e.world === world &&
        Math.abs(e.position.x - centre.x) <= SPAWN_RANGE + 0.5 && Math.abs(e.position.y - centre.y) <= SPAWN_RANGE + 0.5 && Math.abs(e.position.z - centre.z) <= SPAWN_RANGE + 0.5).length
      if (nearby >= MAX_NEARBY) break
      const x = Math.floor(s.x + (life.random() - life.random()) * SPAWN_RANGE + 0.5)
      const y = s.y + life.int(3) - 1
      const z = Math.floor(s.z + (life.random() - life.random()) * SPAWN_RANGE + 0.5)
      if (!fits(x, y, z) || (life.darkEnough && !life.darkEnough(world, x, y, z))) continue
      try {
        const e = serv.spawnMob(registry.entitiesByName[s.mob].id, world, new Vec3(x + 0.5, y, z + 0.5), { yaw: life.int(256) - 128 })
        e._lifeNatural = true
        spawned = true
      } catch (err) { break } // flying-squid's max-entities
    }
    if (spawned) s.delay = MIN_DELAY + life.int(MAX_DELAY - MIN_DELAY)
  }

  serv.on('tick', () => {
    if (!world) { if (!serv.overworld) return; attach() }
    if (life.terrain !== 'vanilla') return
    const pending = require('../vanilla/index.js').pendingSpawners
    while (pending.length) { const d = pending.pop(); add(d.x, d.y, d.z, d.mob) }
    for (const [key, s] of spawners) {
      const at = new Vec3(s.x, s.y, s.z)
      if (!world.sync.getColumnAt(at)) continue
      if (world.sync.getBlockStateId(at) !== SPAWNER) { spawners.delete(key); continue } // broken
      tickSpawner(s)
    }
  })

  life.ops.spawners = () => ({ spawners: [...spawners.values()].map(s => ({ ...s })) })
}
