'use strict'
// Farm animals' own goals and timers, after vanilla 1.16.5 (the rules: life/husbandry.js).
// The animal brain (brains.js) asks goal(m) after its panic and before its stroll; the goals,
// highest first, as the vanilla goal selectors rank them:
//  - breed (BreedGoal, speed 1.0): an adult in love walks to the nearest other adult of
//    its species in love within 8 blocks; once 60 ticks have passed with the two within 3
//    blocks (not, it starts again) a baby is born where it stands, both get a 6000-tick
//    cooldown and leave love (AnimalEntity.spawnChildFromBreeding; entity event 18: hearts);
//  - tempt (TemptGoal: cow 1.25, pig 1.2, chicken 1.0, sheep 1.1 x its speed): the nearest
//    player within 10 blocks (seen or not, not a spectator) holding its food in either hand
//    is followed to 2.5 blocks; when she is gone, or holds it no more, the animal is not
//    tempted again for 100 ticks (calmDown);
//  - follow a parent (FollowParentGoal: cow 1.25, others 1.1): a baby goes to the nearest
//    adult of its species within 8 blocks across and 4 up or down once more than 3 blocks
//    from it, until within 3 or beyond 16;
//  - eat grass (sheep, EatBlockGoal): one tick in 1000 (a baby's one in 50), on a grass
//    block or in grass, it stops and eats for 40 ticks (entity event 10); 4 ticks before the
//    end the grass under it becomes dirt (grass at its feet goes) and its wool grows back.
// Timers (tick(m), every tick of the animal's life): age and love (husbandry.js), `scale`
// ticks a tick with the husbandry_scale op; the chance of eating grass is `scale` times too.
// A baby is half the size of an adult; its metadata says so (AgeableEntity: index 15, a
// boolean), and a sheep's byte (index 16) says its colour and whether it is sheared; both are
// kept in the entity's metadata, so a player who comes later sees them at the spawn.
const { Vec3 } = require('vec3')
const rules = require('./husbandry')
const { BABY_KEY, WOOL_KEY, TEMPT_RANGE, PARTNER_RANGE } = require('../../../game/js/animals')

const BREED_TICKS = 60
const BREED_REACH_SQ = 9
const TEMPT_STOP_SQ = 6.25
const CALM_DOWN = 100
const TEMPT_SPEED = { cow: 1.25, pig: 1.2, chicken: 1.0, sheep: 1.1 }
const PARENT_SPEED = { cow: 1.25, pig: 1.1, chicken: 1.1, sheep: 1.1 }
const EAT_TICKS = 40
const HEARTS = 18 // entity events
const EATING = 10

module.exports = function herd (ctx) {
  const { life, view, serv, mobs } = ctx
  const { registry } = serv
  const scale = () => life.husbandryScale || 1
  const stats = { bred: [], sheared: [], eaten: [] } // the last 100 of each (the husbandry_stats op)
  const record = (kind, entry) => { const list = stats[kind]; list.push({ ...entry, tick: life.tick }); if (list.length > 100) list.shift() }

  // entries of the entity's metadata: kept on it (the spawn packets of later players) and told to all
  function meta (m, entries) {
    const keep = (m.e.metadata || []).filter(d => !entries.some(n => n.key === d.key))
    m.e.metadata = [...keep, ...entries]
    serv._writeAll('entity_metadata', { entityId: m.e.id, metadata: entries })
  }
  const event = (m, status) => serv._writeAll('entity_status', { entityId: m.e.id, entityStatus: status })

  function resize (m) {
    const type = registry.entitiesByName[m.e.name]
    const k = rules.isBaby(m.farm) ? 0.5 : 1
    m.w = type.width * k
    m.h = type.height * k
    m.body.hw = m.w / 2
    m.body.h = m.h
    m.baby = k < 1
  }

  // a new animal (mobs.js adopt): e.pepaBaby (the scenario's spawn_mob {baby}, or a birth) makes a baby
  function adopt (m) {
    m.farm = rules.newFarm(m.e.name, life.int, { baby: m.e.pepaBaby === true, colour: m.e.pepaColour })
    Object.assign(m.farm, { goal: null, partner: null, loveTime: 0, tempter: null, calmDown: 0, eating: 0, parent: null })
    resize(m)
    const entries = m.baby ? [{ key: BABY_KEY, type: 7, value: true }] : []
    if (m.farm.colour) entries.push({ key: WOOL_KEY, type: 0, value: rules.sheepByte(m.farm) })
    if (entries.length) meta(m, entries)
  }

  function tick (m) {
    const f = m.farm
    const wasBaby = rules.isBaby(f)
    rules.tickTimers(f, scale())
    if (wasBaby && !rules.isBaby(f)) grown(m)
  }

  function grown (m) {
    resize(m)
    meta(m, [{ key: BABY_KEY, type: 7, value: false }])
  }

  // a farm animal's record changed from outside (a click, the set_animal op): tell the players
  function changed (m, wasBaby) {
    if (wasBaby !== rules.isBaby(m.farm)) {
      resize(m)
      meta(m, [{ key: BABY_KEY, type: 7, value: m.baby }])
    }
    if (m.farm.colour) meta(m, [{ key: WOOL_KEY, type: 0, value: rules.sheepByte(m.farm) }])
  }

  const dist2 = (a, b) => a.distanceSquared(b)
  const alive = (o) => !o.dead && serv.entities[o.e.id] === o.e

  // --- goals --------------------------------------------------------------------------------
  function partnerOf (m) {
    let best = null; let bestD = Infinity
    for (const o of mobs.values()) {
      if (o === m || !o.farm || o.e.name !== m.e.name || !alive(o) || o.e.world !== m.e.world) continue
      if (o.farm.love <= 0 || o.farm.age !== 0) continue
      const p = o.e.position; const q = m.e.position
      if (Math.abs(p.x - q.x) > PARTNER_RANGE || Math.abs(p.y - q.y) > PARTNER_RANGE || Math.abs(p.z - q.z) > PARTNER_RANGE) continue
      const d = dist2(p, q)
      if (d < bestD) { best = o; bestD = d }
    }
    return best
  }

  function breed (m, chase) {
    const f = m.farm
    if (f.love <= 0) return undefined
    let p = f.partner
    if (p && (!alive(p) || p.farm.love <= 0 || f.loveTime >= BREED_TICKS)) p = f.partner = null
    if (!p) {
      f.loveTime = 0
      p = f.partner = partnerOf(m)
      if (!p) return undefined
    }
    f.loveTime++
    ctx.face(m, p.e.position.x - m.e.position.x, p.e.position.z - m.e.position.z)
    if (f.loveTime >= BREED_TICKS && dist2(m.e.position, p.e.position) < BREED_REACH_SQ) {
      birth(m, p)
      return null
    }
    return chase(m, p.e, 1.0, true) || null
  }

  function birth (m, p) {
    const type = registry.entitiesByName[m.e.name]
    let e
    try {
      e = serv.spawnMob(type.id, m.e.world, m.e.position.clone(), { yaw: life.int(256) - 128, metadata: [{ key: BABY_KEY, type: 7, value: true }] })
    } catch (err) { // flying-squid's max-entities: no baby, the parents keep their love
      serv.err && serv.err(`[life] no ${m.e.name} born of ${m.e.id} and ${p.e.id}: ${err && err.message}`)
      return
    }
    e.pepaBaby = true
    if (m.farm.colour) e.pepaColour = life.random() < 0.5 ? m.farm.colour : p.farm.colour
    for (const parent of [m, p]) {
      rules.bred(parent.farm)
      parent.farm.partner = null
      parent.farm.loveTime = 0
    }
    event(m, HEARTS)
    record('bred', { name: m.e.name, parents: [m.e.id, p.e.id], baby: e.id })
  }

  // the nearest player within 10 blocks, if she holds the animal's food
  function tempter (m) {
    let best = null; let bestD = TEMPT_RANGE * TEMPT_RANGE
    for (const p of serv.players) {
      if (p.world !== m.e.world || p.gameMode === 3 || p.health <= 0) continue
      const d = dist2(p.position, m.e.position)
      if (d <= bestD) { best = p; bestD = d }
    }
    if (!best) return null
    const held = [best.inventory.slots[36 + best.heldItemSlot], best.inventory.slots[45]]
    return held.some(it => it && rules.tempts(m.e.name, it.name)) ? best : null
  }

  function tempt (m, chase) {
    const f = m.farm
    if (!f.tempter && f.calmDown > 0) { f.calmDown--; return undefined }
    const p = tempter(m)
    if (!p) {
      if (f.tempter) { f.tempter = null; f.calmDown = CALM_DOWN }
      return undefined
    }
    f.tempter = p
    ctx.face(m, p.position.x - m.e.position.x, p.position.z - m.e.position.z)
    if (dist2(p.position, m.e.position) < TEMPT_STOP_SQ) { m.path = null; return null }
    return chase(m, p, TEMPT_SPEED[m.e.name] || 1.0, true) || null
  }

  function followParent (m, chase) {
    const f = m.farm
    if (!rules.isBaby(f)) { f.parent = null; return undefined }
    if (f.parent) {
      const d = alive(f.parent) ? dist2(f.parent.e.position, m.e.position) : -1
      if (d < 9 || d > 256) f.parent = null
    }
    if (!f.parent) {
      if ((life.tick + m.e.id) % 10 !== 0) return undefined // a search every 10 ticks
      let best = null; let bestD = Infinity
      for (const o of mobs.values()) {
        if (o === m || !o.farm || o.e.name !== m.e.name || !alive(o) || rules.isBaby(o.farm) || o.e.world !== m.e.world) continue
        const p = o.e.position; const q = m.e.position
        if (Math.abs(p.x - q.x) > 8 || Math.abs(p.y - q.y) > 4 || Math.abs(p.z - q.z) > 8) continue
        const d = dist2(p, q)
        if (d < bestD) { best = o; bestD = d }
      }
      if (!best || bestD < 9) return undefined
      f.parent = best
    }
    return chase(m, f.parent.e, PARENT_SPEED[m.e.name] || 1.0, true) || null
  }

  function grassAt (m) {
    const { x, y, z } = m.e.position
    const feet = view.block(m.e.world, Math.floor(x), Math.floor(y), Math.floor(z))
    if (feet && feet.name === 'grass') return { x: Math.floor(x), y: Math.floor(y), z: Math.floor(z), plant: true }
    const below = view.block(m.e.world, Math.floor(x), Math.floor(y - 0.01), Math.floor(z))
    if (below && below.name === 'grass_block') return { x: Math.floor(x), y: Math.floor(y - 0.01), z: Math.floor(z), plant: false }
    return null
  }

  function eat (m) {
    const f = m.farm
    if (m.e.name !== 'sheep') return undefined
    if (f.eating <= 0) {
      const odds = Math.max(1, Math.round((rules.isBaby(f) ? 50 : 1000) / scale()))
      if (life.int(odds) !== 0 || !grassAt(m)) return undefined
      f.eating = EAT_TICKS
      event(m, EATING)
      m.path = null
      return null
    }
    f.eating--
    if (f.eating === 4) {
      const at = grassAt(m)
      if (at) {
        const world = m.e.world
        const to = at.plant ? registry.blocksByName.air.defaultState : registry.blocksByName.dirt.defaultState
        serv.setBlock(world, new Vec3(at.x, at.y, at.z), to)
          .catch((err) => serv.err && serv.err(`[life] a sheep's grass at ${at.x},${at.y},${at.z}: ${err && err.message}`))
        const wasBaby = rules.isBaby(f)
        rules.ate(f)
        changed(m, wasBaby)
        record('eaten', { mob: m.e.id, at: { x: at.x, y: at.y, z: at.z }, plant: at.plant })
      }
    }
    return null
  }

  // the goal of a farm animal this tick: its movement input, null to stand, undefined when
  // none of these goals runs (the brain strolls)
  function goal (m, chase) {
    const f = m.farm
    if (!f || m.e.pepaAi === false) return undefined
    for (const [name, run] of GOALS) {
      const go = run(m, chase)
      if (go === undefined) continue
      if (f.goal !== name) start(m, name)
      return go
    }
    if (f.goal) start(m, null)
    return undefined
  }
  const GOALS = [['breed', breed], ['tempt', tempt], ['parent', followParent], ['eat', eat]]

  // a goal takes over from another (or from the stroll): the other's state goes
  function start (m, name) {
    const f = m.farm
    if (f.goal === 'breed' && name !== 'breed') { f.partner = null; f.loveTime = 0 }
    if (f.goal === 'tempt' && name !== 'tempt' && f.tempter) { f.tempter = null; f.calmDown = CALM_DOWN }
    if (f.goal === 'eat' && name !== 'eat') f.eating = 0
    if (f.goal === 'parent' && name !== 'parent') f.parent = null
    f.goal = name
    m.wander = null; m.path = null; m.pathedAt = null; m.repath = 0
  }
  // panic (brains.js) takes over: every goal stops
  const panic = (m) => { if (m.farm && m.farm.goal) start(m, null) }

  return { adopt, tick, goal, panic, changed, event, record, stats }
}
