'use strict'
// The scenario's mobs: spawn_mob and its kin, the reaction benchmark's clock, and the clean-up
// of the mobs it spawned. A mob spawned here moves by flying-squid's physics in steps of a
// game tick; with {ai: true} in a flat world it chases by zombie_ai.js.
//
//   entities {name?}                      → [{id, name, health, position}]; an item on the
//                                            ground also {item, count}
//   spawn_mob {player, name='zombie', dx=2, dy=0, dz=0, count=1, spacing=1, ai?, damage?, baby?, size?}
//                                         → {ids, name}
//   remove_mobs {name?}, remove_mob {mob}  → {removed}
//   set_ai {mob, ai=true}                 → {}
//   reaction {mob}                        → {hit, ms?}: ms from the mob's spawn to the first
//                                            attack packet on it
const { performance } = require('perf_hooks')
const { Vec3 } = require('vec3')
const { num, pos, LIVING } = require('./context')
const zombieAi = require('./zombie_ai')

const DEAD_LIES_MS = 1000 // a dead mob of ours is removed this long after its death
// flying-squid moves a mob by velocity × the tick's delta and tests only the block at the
// end: on a loaded machine a tick of 0.5 s lets a falling zombie pass through the floor
// into the void. Its physics in steps of at most a game tick stays on the ground.
const PHYSICS_STEP = 0.05 // s

function steppedPhysics (mob) {
  const whole = mob.calculatePhysics
  mob.calculatePhysics = async (delta) => {
    const from = mob.position
    let result = { position: from, onGround: mob.onGround }
    try {
      for (let left = delta; left > 1e-6; left -= PHYSICS_STEP) {
        result = await whole(Math.min(PHYSICS_STEP, left))
        mob.position = result.position // the next step starts where this one ended
      }
    } finally {
      mob.position = from // sendPosition moves it, from where the clients last saw it
    }
    return result
  }
}

module.exports = function mobOps (ctx) {
  const { serv, registry, player, entityNamed } = ctx
  const tracked = new Map() // entity id -> mob spawned by us (for death clean-up / ai)
  const spawnedAt = new Map() // entity id -> performance.now() at spawn (reaction benchmark)
  const firstHit = new Map() // entity id -> performance.now() of the first attack packet on it

  function despawnDead (e) {
    // flying-squid's takeDamage sends entity_status 3 and deletes the mob from
    // serv.entities but never sends entity_destroy, so clients keep a corpse.
    if (e._pepaGone) return
    e._pepaGone = true
    serv._writeAll('entity_destroy', { entityIds: [e.id] })
    delete serv.entities[e.id]
    tracked.delete(e.id)
  }

  const chase = zombieAi(serv)
  serv.on('tick', (delta) => {
    const now = Date.now()
    for (const e of tracked.values()) {
      if (e.health <= 0) {
        if (!e._deadAt) e._deadAt = now
        else if (now - e._deadAt > DEAD_LIES_MS) despawnDead(e)
        continue
      }
      chase(e, delta, now)
    }
  })

  serv.on('newPlayer', (p) => {
    p._client.on('use_entity', ({ mouse, target } = {}) => {
      if (mouse === 1 && !firstHit.has(target)) firstHit.set(target, performance.now())
    })
  })

  return {
    entities: ({ name } = {}) => Object.values(serv.entities)
      .filter(e => e.type !== 'player' && (!name || String(e.name).toLowerCase() === String(name).toLowerCase()))
      .map(e => ({
        id: e.id,
        name: e.name,
        health: e.health,
        position: pos(e.position),
        ...(e.itemId !== undefined ? { item: registry.items[e.itemId]?.name, count: e.itemCount } : {})
      })),

    spawn_mob: (a) => {
      const p = player(a.player)
      const name = a.name || 'zombie'
      const type = entityNamed(name)
      if (!type || !LIVING.has(type.type)) throw new Error(`not a mob: ${name}`)
      // from 1.17.1 minecraft-data types a zombie 'hostile' (a cow 'animal', ...), and
      // registry.mobs, where flying-squid's spawnMob looks its name up, keeps the few of
      // type 'mob' only: spawnMob threw on every other. Registered there, it spawns.
      if (!registry.mobs[type.id]) registry.mobs[type.id] = type
      const count = num(a.count, 1)
      const spacing = num(a.spacing, 1)
      const side = Math.ceil(Math.sqrt(count))
      const ids = []
      for (let i = 0; i < count; i++) {
        const off = new Vec3(num(a.dx, 2) + (i % side) * spacing, num(a.dy, 0), num(a.dz, 0) + Math.floor(i / side) * spacing)
        // before the spawn, which writes it to the players near: stamped after, a busy server's
        // bots had it up to 150 ms before the stamp, and the reaction read that much short
        const spawning = performance.now()
        const mob = serv.spawnMob(type.id, p.world, p.position.plus(off), {})
        steppedPhysics(mob)
        mob.pepaAi = a.ai === undefined ? undefined : !!a.ai // explicit false: the sandbox keeps it still
        mob.pepaDamage = a.damage
        mob.pepaBaby = a.baby === undefined ? undefined : !!a.baby // a zombie's or a farm animal's: a baby or not (a zombie by chance, naturally)
        mob.pepaSize = a.size === undefined ? undefined : Number(a.size) // a slime's: 1, 2 or 4 (else by chance)
        spawnedAt.set(mob.id, spawning)
        tracked.set(mob.id, mob)
        ids.push(mob.id)
      }
      return { ids, name }
    },

    remove_mobs: ({ name } = {}) => {
      const gone = Object.values(serv.entities).filter(e => e.type === 'mob' && (!name || e.name === name))
      for (const e of gone) despawnDead(e)
      return { removed: gone.length }
    },

    remove_mob: ({ mob }) => { const e = serv.entities[mob]; if (e && e.type === 'mob') despawnDead(e); return { removed: e ? 1 : 0 } },

    set_ai: ({ mob, ai = true }) => { const e = serv.entities[mob]; if (!e) throw new Error('no entity'); e.pepaAi = !!ai; return {} },

    // (operation arguments never use `id`: that field is the request's own id)
    reaction: ({ mob }) => {
      const hitAt = firstHit.get(mob)
      if (hitAt === undefined || !spawnedAt.has(mob)) return { hit: false }
      return { hit: true, ms: hitAt - spawnedAt.get(mob) }
    }
  }
}
