'use strict'
// Mobs of the survival sandbox, with vanilla 1.16 numbers (docs/sandbox-life.md):
// every mob (natural or from the scenario's spawn_mob) is simulated here —
// movement with gravity and collisions (sandbox/life/body.js), an AI per kind
// (sandbox/life/brains.js), burning in daylight, death with loot, and natural
// spawning/despawning near players. Players hit with their weapon's damage.
//
// flying-squid's own entity physics is switched off for mobs (it has no
// collisions: a mob standing on the ground bounces 0.875 blocks up each tick).
//
// Control ops: spawning {on, kinds?, cap?}, life_stats, life_mob {mob}, hurt_mob {mob, damage}, light_at {x, y, z}.
const { Vec3 } = require('vec3')
const { lifeOf } = require('../life/state')
const { hash, normSeed } = require('../terrain/rand')
const blockView = require('../life/blocks')
const { newBody, step, canJumpAhead, knockback } = require('../life/body')
const combat = require('../life/combat')
const { explode } = require('../life/explosion')
const { brightness } = require('../life/time')
const makeBrains = require('../life/brains')
const makeHerd = require('../life/herd')
const { lootOf } = require('../life/husbandry')
const { eyeHeight } = require('../../../game/js/eyes')
const { SPECIES, GENERIC } = require('../life/species')

const SPAWN_MIN = 24 // vanilla: never within 24 blocks of a player or of the world spawn
const BABY_CHANCE = 0.05 // vanilla Zombie.getSpawnAsBabyOdds
const SLIME_CHUNK_SALT = 987234911
const SEA = 63 // the overworld's sea level (vanilla/land.js)
// vanilla DifficultyInstance.getSpecialMultiplier: 0 until a place's regional difficulty passes
// 2 (hours of play nearby, a full moon, hard difficulty); taken as a new place's
const SPECIAL_MULTIPLIER = 0
const HOSTILE_EVERY = 10 // ticks between pack attempts per player (vanilla: every tick, per chunk)
const PASSIVE_EVERY = 400 // vanilla: creatures are tried every 400 ticks
const DESPAWN_FAR = 128 // vanilla instant despawn distance for monsters
const DESPAWN_IDLE = 32 // vanilla: beyond 32 blocks, after 600 idle ticks, 1/800 a tick

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const view = blockView(registry)
  const mobs = new Map() // entity id -> mob record
  life.hostileCap = life.settings.hostileCap // hostiles within 128 blocks of a player (life/profiles.js)
  life.passiveCap = 10 // vanilla creature cap
  life.despawned = 0 // natural hostiles removed for being far from every player
  const itemType = registry.entitiesByName.item.id
  const swingPacket = (m) => serv._writeAll('animation', { entityId: m.e.id, animation: 0 })

  // --- adoption: every mob is ours from its first tick ------------------------
  serv.on('newEntity', (e) => {
    if (e.type !== 'mob') return
    // flying-squid's physics moves every entity with a size; ours moves mobs
    Object.defineProperty(e, 'size', { get: () => null, set: () => {}, configurable: true })
    // spawnMob sets name, health and position after newEntity; a throw here would end the server
    setImmediate(() => { try { adopt(e) } catch (err) { serv.err && serv.err(`[life] adopt ${e.id}: ${err && err.stack}`) } })
  })

  function adopt (e) {
    if (mobs.has(e.id) || !serv.entities[e.id]) return
    let sp = SPECIES[e.name] || (e.pepaAi ? { ...GENERIC, brain: 'melee', hostile: true } : GENERIC)
    let type = registry.entitiesByName[e.name] || { width: 0.6, height: 1.8 }
    // vanilla Zombie.finalizeSpawn: one in 20 is a baby (speed + 50 %, half the size); asked for by the scenario's spawn_mob {baby}
    const baby = !!sp.babies && (e.pepaBaby === true || (!!e._lifeNatural && life.terrain === 'vanilla' && e.pepaBaby !== false && life.random() < BABY_CHANCE))
    if (sp.slime) { // vanilla Slime.finalizeSpawn / setSize; the scenario's spawn_mob {size}
      let n = life.int(3)
      if (n < 2 && life.random() < 0.5 * SPECIAL_MULTIPLIER) n++
      const size = [1, 2, 4].includes(e.pepaSize) ? e.pepaSize : (e.pepaSlimeSize || (1 << n))
      sp = { ...sp, health: size * size, speed: 0.2 + 0.1 * size, damage: size > 1 ? size : 0, size, loot: size === 1 ? sp.loot : [] }
      type = { width: 0.51 * size, height: 0.51 * size }
      serv._writeAll('entity_metadata', { entityId: e.id, metadata: [{ key: 15, type: 1, value: size }] }) // Slime ID_SIZE
    }
    if (baby) {
      sp = { ...sp, speed: sp.speed * 1.5 }
      type = { width: type.width / 2, height: type.height / 2 }
      serv._writeAll('entity_metadata', { entityId: e.id, metadata: [{ key: 15, type: 7, value: true }] }) // Zombie DATA_BABY_ID
    }
    const m = {
      e, sp, w: type.width, h: type.height, body: newBody(type.width, type.height, { flutter: e.name === 'chicken', climber: !!sp.climbs }),
      target: null, seen: false, unseen: 0, cooldown: 0, fire: 0, onFire: false, swell: 0, swellDir: -1,
      seeTime: 0, drawing: -1, attackTime: -1, panicUntil: -1, wander: null, idle: 0, yaw: null,
      path: null, pathedAt: null, repath: 0, // brains.js: the path followed, where the target was, ticks to the next
      hurtState: { hurtTick: -100, lastHurt: 0 }, lastPlayerHit: -1000, dead: false, natural: !!e._lifeNatural, baby
    }
    e.health = sp.health
    const takeDamage = e.takeDamage
    e.takeDamage = (o = {}) => hurtMob(m, takeDamage, o)
    if (sp.brain === 'archer') {
      e.equipment[0] = new Item(registry.itemsByName.bow.id, 1)
      serv._writeAll('entity_equipment', { entityId: e.id, equipments: [{ slot: 0, item: Item.toNotch(e.equipment[0]) }] })
    }
    mobs.set(e.id, m)
    if (sp.brain === 'animal') herd.adopt(m) // its age, love and wool (life/herd.js)
  }

  // --- damage, death, loot ------------------------------------------------------
  function hurtMob (m, takeDamage, o) {
    const e = m.e
    if (m.dead || e.health <= 0) return
    const amount = combat.immune(m.hurtState, life.tick, o.damage ?? 1)
    if (amount <= 0) return
    if (o.crit) { // vanilla shows the crit only for a hit the target took
      life.crits = (life.crits || 0) + 1
      serv._writeAll('animation', { entityId: e.id, animation: 4 })
    }
    takeDamage({ sound: `entity.${e.name}.hurt`, damage: amount, velocity: new Vec3(0, 0, 0) })
    const from = o.from || (o.velocity && (o.velocity.x || o.velocity.z) ? e.position.minus(o.velocity) : null)
    if (from) knockback(m.body, from, e.position, 0.4)
    if (o.byPlayer) m.lastPlayerHit = life.tick
    // vanilla EnderMan.hurt: hurt by no living thing (water, fire, a fall), it teleports 9 times in 10
    if (m.sp.teleports && !o.attacker && !o.byPlayer && e.health > 0 && life.int(10) !== 0) teleportRandomly(m)
    if (m.sp.panic) m.panicUntil = life.tick + 100
    if (m.farm) m.farm.love = 0 // vanilla AnimalEntity.hurt: a hurt animal leaves love
    // HurtByTargetGoal: a hostile turns on the survival player who hit it
    if (m.sp.hostile && o.attacker && o.attacker.gameMode === 0) { m.target = o.attacker; m.seen = true; m.unseen = 0 }
    if (e.health <= 0) die(m, true)
  }

  function die (m, withLoot) {
    m.dead = true
    m.deadTick = life.tick
    delete serv.entities[m.e.id] // flying-squid's takeDamage already does it for a kill
    if (!withLoot) return // a despawn or a blast's removal: nothing splits or drops
    if (m.sp.slime && m.sp.size > 1) splitSlime(m) // vanilla Slime.remove: a killed big one splits
    const at = m.e.position
    for (const [item, min, max, cooked, byPlayer] of lootOf(m.e.name, m.farm, m.sp.loot)) {
      if (byPlayer && life.tick - m.lastPlayerHit >= 100) continue
      const n = min + life.int(max - min + 1)
      for (let i = 0; i < n; i++) dropItem(m.e.world, at, m.onFire && cooked ? cooked : item)
    }
    if (m.sp.rare && life.tick - m.lastPlayerHit < 100 && life.random() < 0.025) {
      dropItem(m.e.world, at, m.sp.rare[life.int(m.sp.rare.length)])
    }
  }

  function splitSlime (m) {
    const size = m.sp.size / 2
    const n = 2 + life.int(3)
    for (let i = 0; i < n; i++) {
      const dx = ((i % 2) - 0.5) * m.sp.size / 4
      const dz = (Math.floor(i / 2) - 0.5) * m.sp.size / 4
      try {
        const e = serv.spawnMob(registry.entitiesByName.slime.id, m.e.world, m.e.position.offset(dx, 0.5, dz), { yaw: life.int(256) - 128 })
        e.pepaSlimeSize = size
        e._lifeNatural = m.natural
        if (m.e.pepaAi !== undefined) e.pepaAi = m.e.pepaAi
      } catch (err) { return } // flying-squid's max-entities
    }
  }

  // one item entity per item, picked up by flying-squid's entities.js (1.75 blocks, after 10 ticks)
  function dropItem (world, at, name) {
    const it = registry.itemsByName[name]
    if (!it) return
    serv.spawnObject(itemType, world, at.offset(0, 0.25, 0), {
      velocity: new Vec3((life.random() - 0.5) * 2, 2, (life.random() - 0.5) * 2),
      itemId: it.id, itemCount: 1, pickupTime: 500, deathTime: 5 * 60 * 1000
    })
  }

  function vanish (m) { // removed without a death (despawn, explosion)
    if (!m.dead) die(m, false)
    m.deadTick = -100
  }

  // --- what brains may do -----------------------------------------------------------
  const arrows = combat.arrows(serv, life, view)
  const meta = (m, metadata) => serv._writeAll('entity_metadata', { entityId: m.e.id, metadata })
  const ctx = {
    life, view, serv, mobs,
    face (m, dx, dz) {
      let b = Math.round((Math.atan2(-dx, dz) * 180 / Math.PI) * 256 / 360)
      b = ((b % 256) + 256) % 256
      if (b > 127) b -= 256
      if (m.yaw !== null && Math.abs(m.yaw - b) < 4) return
      m.yaw = b
      m.e.turn(b, 0) // told with its next move, to the players near (plugins/tracking.js)
    },
    wantsJump: (m, dx, dz) => m.body.hitWall && m.body.onGround && canJumpAhead(view, m.e.world, m.e.position, m.body, dx, dz),
    swing: swingPacket,
    hitPlayer (m, p) {
      // the scenario's spawn_mob {damage} is a final damage; otherwise scaled by difficulty
      const custom = m.e.pepaDamage !== undefined && m.e.pepaDamage !== null
      const { blocked } = combat.hurtPlayer(serv, life, p, custom ? Number(m.e.pepaDamage) : m.sp.damage, { from: m.e.position, scale: !custom, cause: { type: 'mob', attacker: m.e } })
      const poison = m.sp.poison ? m.sp.poison[serv.difficulty] || 0 : 0
      if (poison > 0 && !blocked && life.poison) life.poison(p, poison) // vanilla CaveSpider.doHurtTarget
    },
    setSwell (m, dir) {
      if (dir === m.swellDir) return
      m.swellDir = dir
      meta(m, [{ key: 15, type: 1, value: dir }]) // creeper state: -1 idle, 1 fuse lit
    },
    drawBow (m, on) {
      if (!!m.drawingShown === on) return
      m.drawingShown = on
      meta(m, [{ key: 7, type: 0, value: on ? 1 : 0 }]) // hand active
    },
    shoot: (m, t) => arrows.shoot(m.e, eyeHeight(m.e.name, m.h), t),
    throwPotion: (m, t, potion) => { swingPacket(m); arrows.throwPotion(m.e, t, potion) },
    teleport: (m) => teleportRandomly(m),
    // vanilla EnderMan.teleportTowards: 16 blocks toward the target, give or take 4 across and 8 up or down
    teleportTowards (m, t) {
      const p = m.e.position
      const v = new Vec3(p.x - t.position.x, p.y + m.h / 2 - (t.position.y + 1.62), p.z - t.position.z)
      const n = v.norm() || 1
      return teleportMob(m, p.x + (life.random() - 0.5) * 8 - v.x / n * 16, p.y + life.int(16) - 8 - v.y / n * 16, p.z + (life.random() - 0.5) * 8 - v.z / n * 16)
    },
    explode (m) {
      const center = m.e.position.clone()
      vanish(m)
      serv._writeAll('entity_destroy', { entityIds: [m.e.id] })
      m.e._pepaGone = true
      const near = [...mobs.values()].filter(o => !o.dead && o.e.world === m.e.world).map(o => ({
        entity: o.e, hw: o.w / 2, h: o.h,
        hurt: (damage, from) => o.e.takeDamage({ damage, from }),
        push: (x, y, z) => { o.body.vx += x; o.body.vy += y; o.body.vz += z }
      }))
      explode(serv, life, view, { world: m.e.world, center, power: 3, source: m.e, mobs: near }).catch(() => {})
    }
  }
  const herd = makeHerd(ctx) // farm animals' goals and timers; plugins/husbandry.js reads life.mobs and life.herd
  ctx.herd = herd
  life.mobs = mobs
  life.herd = herd
  const brains = makeBrains(ctx)

  // --- the tick ---------------------------------------------------------------------
  function nearestPlayer (e) {
    let best = Infinity
    for (const p of serv.players) {
      if (p.world === e.world && p.gameMode !== 3) best = Math.min(best, p.position.distanceTo(e.position))
    }
    return best
  }

  function burn (m) {
    const e = m.e
    if (m.body.inWater) m.fire = 0
    else if (m.sp.burns && life.isDay && life.isDay()) {
      // vanilla Mob.isSunBurnTick: brightness of the light at the eyes, and the sky seen from them
      // (a helmet would take the burn instead: mobs here wear none)
      const { x, y, z } = e.position.offset(0, eyeHeight(m.e.name, m.h), 0)
      if (view.canSeeSky(e.world, x, y, z)) {
        const b = brightness(Math.max(view.blockLight(e.world, x, y, z), view.skyLight(e.world, x, y, z) - life.skyDarken()))
        if (b > 0.5 && life.random() * 30 < (b - 0.4) * 2) m.fire = Math.max(m.fire, 160)
      }
    }
    if (m.fire > 0) {
      if (m.fire % 20 === 0) e.takeDamage({ damage: 1 })
      m.fire--
    }
    const onFire = m.fire > 0
    if (onFire !== m.onFire && !m.dead) {
      m.onFire = onFire
      meta(m, [{ key: 0, type: 0, value: onFire ? 1 : 0 }])
    }
  }

  function tickMob (m) {
    const e = m.e
    if (m.dead) {
      if (life.tick - m.deadTick >= 20) { // vanilla: the body lies 20 ticks
        if (!e._pepaGone) { e._pepaGone = true; serv._writeAll('entity_destroy', { entityIds: [e.id] }) }
        mobs.delete(e.id)
      }
      return
    }
    if (!serv.entities[e.id]) { mobs.delete(e.id); return } // removed by someone else
    const d = nearestPlayer(e)
    if (m.natural && m.sp.hostile) {
      if (d > DESPAWN_FAR) { despawn(m); return }
      if (d < DESPAWN_IDLE) m.idle = 0
      else if (++m.idle > 600 && life.int(800) === 0) { despawn(m); return }
    }
    if (d > DESPAWN_FAR || !view.isLoaded(e.world, Math.floor(e.position.x), Math.floor(e.position.z))) return // frozen
    burn(m)
    if (m.dead) return
    if (m.sp.teleports && m.body.inWater) e.takeDamage({ damage: 1 }) // vanilla: water hurts an enderman
    if (m.dead) return
    if (m.farm) herd.tick(m)
    const input = brains[e.pepaAi === false ? 'still' : m.sp.brain](m) // spawn_mob {ai: false}: a still target
    if (input && input.fly) { fly(m, input); return } // a flyer, or a swimmer in water
    const pos = step(view, e.world, e.position, m.body, input || {})
    if (!pos.equals(e.position) || e.onGround !== m.body.onGround) e.sendPosition(pos, m.body.onGround)
    // what a landing does to the block under it (crops.js: farmland trampled)
    if (m.body.fell > 0) serv.emit('pepa_landed', { world: e.world, position: pos, distance: m.body.fell, player: false, width: m.w, height: m.h })
    if (m.body.fell > 3) e.takeDamage({ damage: Math.ceil(m.body.fell - 3) })
  }

  // vanilla EnderMan.teleport(x, y, z): down from (x, y, z) to the first block that stops a
  // body, onto it, where the mob fits and no liquid is; false where it cannot
  function teleportMob (m, x, y, z) {
    const world = m.e.world
    const bx = Math.floor(x); const bz = Math.floor(z)
    let gy = Math.min(255, Math.floor(y))
    if (!view.isLoaded(world, bx, bz)) return false
    while (gy > 0 && !view.solid(world, bx, gy, bz)) gy--
    if (gy <= 0) return false
    for (let k = 1; k <= Math.ceil(m.h); k++) if (view.solid(world, bx, gy + k, bz)) return false
    if (view.liquid(view.block(world, bx, gy + 1, bz)) || view.liquid(view.block(world, bx, gy, bz))) return false
    Object.assign(m.body, { vx: 0, vy: 0, vz: 0, fallFrom: null, fell: 0 })
    m.path = null; m.pathedAt = null; m.wander = null
    m.e.sendPosition(new Vec3(bx + 0.5, gy + 1, bz + 0.5), true)
    m.teleported = (m.teleported || 0) + 1
    return true
  }
  // vanilla EnderMan.teleport(): a random place within 32 blocks across and up or down
  const teleportRandomly = (m) => {
    const p = m.e.position
    return teleportMob(m, p.x + (life.random() - 0.5) * 64, p.y + life.int(64) - 32, p.z + (life.random() - 0.5) * 64)
  }

  // a flyer (a phantom) goes straight toward input.fly at input.s blocks a tick, no gravity,
  // stopping short of a solid block; still without a goal
  function fly (m, input) {
    const e = m.e
    if (!input || !input.fly) return
    const d = new Vec3(input.fly.x - e.position.x, input.fly.y - e.position.y, input.fly.z - e.position.z)
    const len = d.norm()
    if (len < 1e-3) return
    const next = e.position.plus(d.scaled(Math.min(1, input.s / len)))
    if (view.solid(e.world, next.x, next.y, next.z) || view.solid(e.world, next.x, next.y + m.h, next.z)) return
    m.body.inWater = view.liquid(view.block(e.world, Math.floor(next.x), Math.floor(next.y), Math.floor(next.z))) // no burning in water
    e.sendPosition(next, false)
  }

  function despawn (m) {
    life.despawned++
    vanish(m)
    m.e._pepaGone = true
    serv._writeAll('entity_destroy', { entityIds: [m.e.id] })
    mobs.delete(m.e.id)
  }

  serv.on('tick', () => {
    life.tick++
    for (const m of mobs.values()) {
      try { tickMob(m) } catch (err) { serv.err && serv.err(`[life] mob ${m.e.id}: ${err && err.stack}`) }
    }
    arrows.tick()
    try { spawnTick() } catch (err) { serv.err && serv.err(`[life] spawning: ${err && err.stack}`) }
  })

  // --- natural spawning ---------------------------------------------------------------
  // the species of the vanilla world spawn naturally only there: the gentle worlds keep theirs
  const allowed = (name) => (!life.kinds || life.kinds.includes(name)) && (!SPECIES[name].vanilla || life.terrain === 'vanilla')
  function pick (hostile) {
    const kinds = Object.entries(SPECIES).filter(([n, s]) => !!s.hostile === hostile && allowed(n))
    const total = kinds.reduce((a, [, s]) => a + s.weight, 0)
    let r = life.random() * total
    for (const [n, s] of kinds) { if ((r -= s.weight) < 0) return n }
    return null
  }

  function around (p, hostile) {
    let n = 0
    for (const m of mobs.values()) {
      if (!m.dead && !!m.sp.hostile === hostile && m.e.world === p.world && m.e.position.distanceTo(p.position) <= 128) n++
    }
    return n
  }

  // vanilla Monster.isDarkEnoughToSpawn, clear weather (the spawners' test too: plugins/spawners.js)
  life.darkEnough = (world, x, y, z) => {
    const sky = view.skyLight(world, x, y, z)
    if (sky > life.int(32)) return false
    const light = Math.max(view.blockLight(world, x, y, z), sky - life.skyDarken())
    return light <= life.int(8)
  }
  // vanilla Slime.checkSlimeSpawnRules (not Monster's darkness test): in a swamp at y 51..69,
  // half the time, by the moon's brightness, where the raw light is at most random(8); or in a
  // slime chunk below y 40, one time in 10, at any light
  let seed = this.settings.seed // level.dat's, as world.js tells it (an existing world's own)
  serv.on('seed', (s) => { seed = s; lands = null })
  let lands = null
  const MOON = [1.0, 0.75, 0.5, 0.25, 0.0, 0.25, 0.5, 0.75] // DimensionType.MOON_BRIGHTNESS_PER_PHASE
  function slimeMaySpawn (world, x, y, z) {
    if (serv.difficulty === 0 || life.terrain !== 'vanilla') return false
    if (!lands) lands = require('../vanilla/land').land(seed)
    if (lands.biome(x, z) === 'swamp' && y > 50 && y < 70 && life.random() < 0.5 &&
      life.random() < MOON[(life.day || 0) % 8]) {
      const raw = Math.max(view.blockLight(world, x, y, z), view.skyLight(world, x, y, z) - life.skyDarken())
      return raw <= life.int(8)
    }
    return life.int(10) === 0 && slimeChunk(Math.floor(x / 16), Math.floor(z / 16)) && y < 40
  }
  const slimeChunk = (cx, cz) => hash(normSeed(seed), cx, cz, 0, SLIME_CHUNK_SALT) % 10 === 0
  life.slimeChunk = slimeChunk
  function spotOk (world, x, y, z, hostile, name, anywhere) {
    const at = new Vec3(x + 0.5, y, z + 0.5)
    if (!anywhere) {
      for (const p of serv.players) if (p.world === world && p.position.distanceTo(at) < SPAWN_MIN) return false
      const spawn = serv.players[0] && serv.players[0].spawnPoint
      if (spawn && spawn.distanceTo(at) < SPAWN_MIN) return false
    }
    const spots = view.standingSpots(world, x, z, y, y)
    if (!spots.length) return false
    const type = registry.entitiesByName[name]
    if (view.collides(world, at.x, y, at.z, type.width / 2, type.height)) return false
    const sky = view.skyLight(world, x, y, z)
    if (name === 'slime') return slimeMaySpawn(world, x, y, z)
    if (hostile) return life.darkEnough(world, x, y, z)
    // vanilla Animal.checkAnimalSpawnRules: on grass, raw light above 8
    return spots[0].floor === 'grass_block' && Math.max(sky, view.blockLight(world, x, y, z)) > 8
  }

  // anywhere: ignore the 24-block rule (vanilla's spawns at chunk generation do)
  // max: vanilla spawns up to 128 blocks away (the loaded chunks); the profile's spawnMax is less, so the cap is felt
  function spawnPack (p, hostile, { min = SPAWN_MIN, max = life.settings.spawnMax, anywhere = false } = {}) {
    const name = pick(hostile)
    if (!name) return 0
    const world = p.world
    const a = life.random() * Math.PI * 2
    const r = min + life.random() * (max - min)
    let x = Math.floor(p.position.x + Math.cos(a) * r)
    let z = Math.floor(p.position.z + Math.sin(a) * r)
    if (!view.isLoaded(world, x, z)) return 0
    const py = Math.floor(p.position.y)
    const spots = view.standingSpots(world, x, z, hostile ? py - 32 : 1, hostile ? py + 32 : 255)
    if (!spots.length) return 0
    const { y } = hostile ? spots[life.int(spots.length)] : spots[0]
    let n = 0
    for (let i = 0; i < SPECIES[name].pack; i++) {
      x += life.int(6) - life.int(6)
      z += life.int(6) - life.int(6)
      if (!view.isLoaded(world, x, z) || !spotOk(world, x, y, z, hostile, name, anywhere)) continue
      try {
        const e = serv.spawnMob(registry.entitiesByName[name].id, world, new Vec3(x + 0.5, y, z + 0.5), { yaw: life.int(256) - 128 })
        e._lifeNatural = true
        n++
      } catch (err) { return n } // flying-squid's max-entities
    }
    return n
  }

  // vanilla Drowned.checkDrownedSpawnRules: in water, in the dark (Monster's test); in a river
  // one time in 15, elsewhere (the oceans) one time in 40 and more than 5 below sea level. A
  // column of the player's ring whose biome is water, a water cell in it over something
  function spawnDrowned (p) {
    const world = p.world
    const a = life.random() * Math.PI * 2
    const r = SPAWN_MIN + life.random() * (life.settings.spawnMax - SPAWN_MIN)
    const x = Math.floor(p.position.x + Math.cos(a) * r)
    const z = Math.floor(p.position.z + Math.sin(a) * r)
    if (!view.isLoaded(world, x, z)) return 0
    const cells = []
    for (let y = 62; y > 1; y--) {
      const b = view.block(world, x, y, z)
      if (!b || b.name !== 'water') { if (cells.length) break; continue }
      cells.push(y)
    }
    if (!cells.length) return 0
    const y = cells[life.int(cells.length)]
    if (!drownedMaySpawn(world, x, y, z)) return 0
    for (const q of serv.players) if (q.world === world && q.position.distanceTo(new Vec3(x + 0.5, y, z + 0.5)) < SPAWN_MIN) return 0
    try {
      const e = serv.spawnMob(registry.entitiesByName.drowned.id, world, new Vec3(x + 0.5, y, z + 0.5), { yaw: life.int(256) - 128 })
      e._lifeNatural = true
      return 1
    } catch (err) { return 0 } // flying-squid's max-entities
  }
  function drownedMaySpawn (world, x, y, z) {
    if (serv.difficulty === 0 || life.terrain !== 'vanilla') return false
    const b = view.block(world, x, y, z)
    if (!b || b.name !== 'water') return false
    if (!lands) lands = require('../vanilla/land').land(seed)
    const biome = lands.biome(x, z)
    if (biome === 'river') { if (life.int(15) !== 0) return false } else if (biome === 'ocean' || biome === 'deep_ocean') {
      if (life.int(40) !== 0 || y >= SEA - 5) return false
    } else return false
    return life.darkEnough(world, x, y, z)
  }

  // spawn_rule {name, x, y, z, tries=1000}: how many of `tries` draws of the species' spawn
  // rule pass at a block (a monster's darkness, a slime's or a drowned's own), for tests
  life.ops.spawn_rule = ({ name, x, y, z, tries = 1000 }) => {
    const world = serv.overworld
    const rule = name === 'slime' ? slimeMaySpawn : name === 'drowned' ? drownedMaySpawn : life.darkEnough
    let passed = 0
    for (let i = 0; i < Number(tries); i++) if (rule(world, Math.floor(x), Math.floor(y), Math.floor(z))) passed++
    return { passed, tries: Number(tries) }
  }

  let initialAnimalsAt = null
  function spawnTick () {
    for (const p of serv.players) {
      if (!p._lifeSpawned || p.health <= 0 || p.gameMode === 3) continue
      if (initialAnimalsAt === null) initialAnimalsAt = life.tick + 40
      if (!life.spawning) continue
      if ((life.tick + p.id) % HOSTILE_EVERY === 0 && serv.difficulty > 0 && around(p, true) < life.hostileCap) spawnPack(p, true)
      if ((life.tick + p.id) % PASSIVE_EVERY === 0 && around(p, false) < life.passiveCap) spawnPack(p, false)
      if (life.terrain === 'vanilla' && (life.tick + p.id) % HOSTILE_EVERY === 5 && serv.difficulty > 0 && around(p, true) < life.hostileCap) spawnDrowned(p)
    }
    // vanilla puts animals in new chunks as they generate; here: a few packs near the first player
    if (initialAnimalsAt !== null && life.tick >= initialAnimalsAt) {
      initialAnimalsAt = Infinity
      const p = serv.players.find(pl => pl._lifeSpawned)
      let n = 0
      for (let i = 0; p && life.spawning && i < 12 && n < life.passiveCap; i++) n += spawnPack(p, false, { min: 8, max: 32, anywhere: true })
    }
  }

  // --- ops ---------------------------------------------------------------------------------
  life.ops.spawning = ({ on = true, kinds, cap }) => {
    life.spawning = !!on
    if (kinds !== undefined) life.kinds = kinds === null ? null : [].concat(kinds)
    if (cap !== undefined) life.hostileCap = Number(cap)
    return { on: life.spawning, kinds: life.kinds, cap: life.hostileCap }
  }
  life.ops.life_stats = () => {
    const counts = {}
    for (const m of mobs.values()) if (!m.dead) counts[m.e.name] = (counts[m.e.name] || 0) + 1
    return {
      time: life.timeOfDay ? life.timeOfDay() : serv.time, day: life.day, isDay: life.isDay ? life.isDay() : null,
      timeScale: life.timeScale, hungerScale: life.hungerScale, spawning: life.spawning, kinds: life.kinds,
      hostileCap: life.hostileCap, mobs: counts, arrows: arrows.count(), despawned: life.despawned,
      profile: life.profile, difficulty: serv.difficulty, spawnMax: life.settings.spawnMax,
      deaths: life.deaths || [], // the last 100 players' deaths: { player, key, by, tick }
      crits: life.crits || 0 // players' critical hits (module.exports.player)
    }
  }
  // hurt_mob {mob, damage}: a blow from nobody (no knockback), through the mob's own hurt
  life.ops.hurt_mob = ({ mob, damage }) => {
    const m = mobs.get(Number(mob))
    if (!m || m.dead) throw new Error(`no live mob ${mob}`)
    const n = Number(damage)
    if (!Number.isFinite(n) || n <= 0) throw new Error(`damage must be a positive number, not ${JSON.stringify(damage)}`)
    m.e.takeDamage({ damage: n })
    return { health: m.e.health, dead: m.dead }
  }
  life.ops.life_mob = ({ mob }) => {
    const m = mobs.get(Number(mob))
    if (!m) return { alive: false }
    const p = m.e.position
    return {
      alive: !m.dead, name: m.e.name, health: m.e.health, onFire: m.onFire, natural: m.natural, baby: m.baby, speed: m.sp.speed, size: m.sp.size || null,
      target: m.target ? m.target.username : null, swell: m.swell, position: { x: p.x, y: p.y, z: p.z }, onGround: m.body.onGround,
      seen: m.seen, cooldown: m.cooldown, provoked: m.provoked || 0, teleported: m.teleported || 0, pathLeft: m.path ? m.path.nodes.length - m.path.i : null, tick: life.tick // for a test's failure message
    }
  }
  // light_at {x, y, z}: the light model at a block (overworld) and the chance that a monster
  // passes vanilla's darkness test there now: P(sky <= random(32)) x P(raw <= random(8))
  life.ops.light_at = ({ x, y, z }) => {
    const world = serv.overworld
    x = Math.floor(x); y = Math.floor(y); z = Math.floor(z)
    const sky = view.skyLight(world, x, y, z)
    const block = view.blockLight(world, x, y, z)
    const raw = Math.max(block, sky - life.skyDarken())
    const monsterChance = (Math.max(0, 32 - sky) / 32) * (Math.max(0, 8 - raw) / 8)
    return { sky, block, raw, canSeeSky: view.canSeeSky(world, x, y, z), monsterChance }
  }
  life.ops.life_mobs = ({ name } = {}) => [...mobs.values()]
    .filter(m => !m.dead && (!name || m.e.name === name))
    .map(m => ({ id: m.e.id, name: m.e.name, health: m.e.health, onFire: m.onFire, natural: m.natural, position: { x: m.e.position.x, y: m.e.position.y, z: m.e.position.z } }))
}

// a player's melee hit does its weapon's damage, scaled by the attack cooldown, and half
// as much again for a critical hit (vanilla Player.attack: attack strength > 0.9, falling:
// fallDistance > 0 and not on the ground, not climbing, not in water (hazards.js keeps
// the fall distance from the moves and resets it in all three cases), not sprinting; no
// blindness or riding here); a crit that lands (hurtMob: not absorbed by hurt immunity)
// shows the crit particles (animation 4) and life.crits counts it (life_stats)
const SPRINTING = 0x08 // hazards.js: the player's shared flags
module.exports.player = function (player, serv) {
  const life = lifeOf(serv)
  player.on('attack', (data) => {
    const held = player.inventory.slots[36 + player.heldItemSlot]
    const since = life.tick - (player._lifeLastAttack ?? -1000)
    player._lifeLastAttack = life.tick
    data.damage = combat.meleeDamage(held && held.name, since)
    const h = player._lifeHazard
    if (combat.attackStrength(held && held.name, since) > 0.9 && h && h.fall > 0 && !(h.flags & SPRINTING)) {
      data.damage *= 1.5
      data.crit = true // counted and shown by hurtMob once the hit lands
    }
    data.byPlayer = true
    data.attacker = player
    data.from = player.position.clone()
  })
}
