'use strict'
// What each kind of mob wants to do this tick, after the vanilla 1.16 goals.
// A brain returns the movement input {dx, dz, s, jump} for body.step (s is
// movement_speed * the goal's speed modifier) and acts (hits, shoots, swells)
// through ctx. Mobs find their way with path.js (A*) and follow its nodes.
//
//  - melee (zombie): NearestAttackableTargetGoal (a survival player within the
//    follow range, in sight, re-checked every 10 ticks; lost after 60 ticks
//    unseen) + MeleeAttackGoal (speed 1.0, reach^2 = (2 * width)^2 +
//    target width = 2.04, i.e. 1.43 blocks feet to feet, one hit per 20 ticks).
//  - creeper: the same chase; SwellGoal starts within 3 blocks, stops the
//    creeper and swells for 30 ticks, un-swells beyond 7 blocks or out of sight.
//  - archer (skeleton): RangedBowAttackGoal (speed 1.0, radius 15): walks
//    until it has seen the target for 20 ticks within 15 blocks, backs off
//    inside 7.5 blocks (no sideways strafing), draws the bow 20 ticks, then
//    waits 40 ticks (20 on hard) before drawing again: one arrow per 3 s.
//  - spider: Spider.SpiderTargetGoal (no new target in brightness >= 0.5),
//    Spider.SpiderAttackGoal (a MeleeAttackGoal that follows even unseen, reach^2
//    = 4 + target width; in brightness >= 0.5 it gives up with a chance of
//    1/100 a tick), LeapAtTargetGoal(0.4) within 2..4 blocks; it climbs walls.
//  - animal: WaterAvoidingRandomStrollGoal (1/120 chance a tick to walk to a
//    spot on land within 10 blocks across and 7 up or down, RandomPos.getLandPos)
//    and PanicGoal (for 100 ticks after being hurt, spots within 5 and 4, at the
//    panic speed); between the two, a farm animal's own goals (herd.js: breed,
//    tempt, follow a parent, eat grass).
// Hostiles with no target stroll like animals.
//
// Chasing (MeleeAttackGoal.tick): the path to the target is made again when
// the wait (4 + random(7) ticks, +5 beyond 16 blocks, +10 beyond 32; +15 when
// no path was found) is over and the target has moved a block since the last
// path, or with a chance of 0.05, and the mob sees the target (skeletons and
// spiders: seen or not); the mob goes straight at a target within 2
// blocks on its level once the path is walked. Following (PathNavigation
// .followThePath, MoveControl.tick): a node is passed when the mob is within
// maxDistanceToWaypoint (width > 0.75 ? width / 2 : 0.75 - width / 2) of its
// centre across and within a block up or down; the mob steers to the next
// node's centre and jumps when it is more than 0.6 higher and closer than
// max(1, width); a spider on a climb steers to the node past the wall. A path
// that makes no progress for 60 ticks is dropped. `paths {on: false}` (the
// control op) makes mobs walk straight at their goals, as before path finding.
const path = require('./path')
const { brightness } = require('./time')
const { eyeHeight } = require('../../../game/js/eyes')

const STROLL_CHANCE = 120
const PATH_BUDGET = 400 // nodes a search may expand; vanilla: follow range x 16 (zombie 560)
const STUCK_TICKS = 60

function unit (dx, dz) {
  const len = Math.hypot(dx, dz)
  return len < 1e-6 ? null : { dx: dx / len, dz: dz / len, len }
}

module.exports = function brains (ctx) {
  const { life, view, serv } = ctx
  if (life.paths === undefined) life.paths = true
  const stats = { searches: 0, visited: 0, ms: 0, maxMs: 0 }
  const eye = (m) => m.e.position.offset(0, eyeHeight(m.e.name, m.h), 0) // eyes.js: as the bot counts them
  const playerEye = (p) => p.position.offset(0, 1.62, 0)
  const sees = (m, p) => view.lineOfSight(m.e.world, eye(m), playerEye(p))
  const valid = (m, p) => p && p.world === m.e.world && p.gameMode === 0 && p.health > 0 &&
    serv.players.includes(p) && p.position.distanceTo(m.e.position) <= m.sp.follow

  // mayStart: whether the mob may pick a new target now (spiders: not in the light)
  function retarget (m, mayStart = null) {
    if (m.target && !valid(m, m.target)) drop(m)
    if (m.target) {
      if ((life.tick + m.e.id) % 5 === 0) {
        m.seen = sees(m, m.target)
        m.unseen = m.seen ? 0 : m.unseen + 5
        if (m.unseen > 60) drop(m)
      }
      return m.target
    }
    if ((life.tick + m.e.id) % 10 !== 0 || m.e.pepaAi === false) return null
    let best = null; let bestD = Infinity
    for (const p of serv.players) {
      if (!valid(m, p)) continue
      const d = p.position.distanceTo(m.e.position)
      if (d < bestD && sees(m, p)) { best = p; bestD = d }
    }
    if (best && mayStart && !mayStart()) return null
    if (best) { m.target = best; m.seen = true; m.unseen = 0; m.cooldown = 0; m.wander = null; m.path = null; m.pathedAt = null; m.repath = 0 }
    return best
  }

  function drop (m) { m.target = null; m.path = null; m.pathedAt = null }

  // vanilla Mob.getMaxFallDistance: 3 blocks, more for a healthy mob with a target
  function maxFall (m) {
    if (!m.target) return 3
    return Math.max(3, Math.floor(m.e.health - m.sp.health * 0.33) - (3 - serv.difficulty) * 4 + 3)
  }

  // --- path finding ------------------------------------------------------------------
  // the kind of a block, read straight from its chunk column (a search reads thousands)
  const byState = serv.registry.blocksByStateId
  const stateKinds = new Int8Array(Math.max(...Object.keys(byState).map(Number)) + 1).fill(-1)
  function kindAt (world) {
    let cx = null; let cz = null; let column = null
    const local = { x: 0, y: 0, z: 0 }
    return (x, y, z) => {
      if ((x >> 4) !== cx || (z >> 4) !== cz) { cx = x >> 4; cz = z >> 4; column = world.sync.getColumn(cx, cz) }
      if (!column) return path.KIND.TALL // not loaded: a wall
      local.x = x & 15; local.y = y; local.z = z & 15
      const state = column.getBlockStateId(local)
      if (stateKinds[state] < 0) stateKinds[state] = path.classify(byState[state] || byState[0], state, view.openGate(state))
      return stateKinds[state]
    }
  }

  // a path from the mob towards `goal` (a position): full, partial, or null when it is where it can get
  function plan (m, goal) {
    const t0 = process.cpuUsage()
    const follow = m.sp.follow || 16 // vanilla: every mob's default follow range is 16
    const found = path.findPath(kindAt(m.e.world), path.nodeOf(m.e.position, m.w), path.nodeOf(goal, m.w), {
      width: m.w,
      height: m.h,
      maxFall: maxFall(m),
      climber: !!m.sp.climbs,
      swim: m.body.inWater,
      budget: Math.min(PATH_BUDGET, follow * 16),
      maxDistance: follow
    })
    const { user, system } = process.cpuUsage(t0)
    const ms = (user + system) / 1000 // CPU time: a busy machine does not inflate it
    stats.searches++; stats.visited += found.visited; stats.ms += ms; stats.maxMs = Math.max(stats.maxMs, ms)
    m.path = found.nodes.length > 1 ? { nodes: found.nodes, i: 1, since: life.tick } : null
    return m.path
  }

  // the input that follows m.path, or null when it is walked (or stuck)
  function walk (m, modifier) {
    const p = m.path
    if (!p) return null
    const pos = m.e.position
    const near = m.w > 0.75 ? m.w / 2 : 0.75 - m.w / 2
    while (p.i < p.nodes.length) {
      const c = path.centreOf(p.nodes[p.i], m.w)
      if (Math.abs(c.x - pos.x) >= near || Math.abs(c.z - pos.z) >= near || Math.abs(c.y - pos.y) >= 1) break
      p.i++
      p.since = life.tick
    }
    if (p.i >= p.nodes.length || life.tick - p.since > STUCK_TICKS) { m.path = null; return null }
    let k = p.i // a climb (nodes straight up): steer to the node past the wall, into it
    while (k + 1 < p.nodes.length && p.nodes[k].x === p.nodes[k - 1].x && p.nodes[k].z === p.nodes[k - 1].z) k++
    const c = path.centreOf(p.nodes[k], m.w)
    const u = unit(c.x - pos.x, c.z - pos.z)
    if (!u) return null
    ctx.face(m, u.dx, u.dz)
    const jump = m.body.onGround && c.y - pos.y > 0.6 && (u.len * u.len < Math.max(1, m.w) || m.body.hitWall)
    return { dx: u.dx, dz: u.dz, s: m.sp.speed * modifier, jump }
  }

  // vanilla MeleeAttackGoal.tick's path to the target (see the header); evenUnseen:
  // repath while the target is out of sight too (spiders, skeletons)
  function chase (m, t, modifier, evenUnseen = false) {
    const pos = m.e.position; const tp = t.position
    if (!life.paths) return toward(m, tp.x, tp.z, modifier)
    m.repath = (m.repath || 0) - 1
    if (m.repath <= 0 && (m.seen || evenUnseen) &&
      (!m.pathedAt || tp.distanceSquared(m.pathedAt) >= 1 || life.random() < 0.05)) {
      m.pathedAt = tp.clone()
      const distSq = pos.distanceSquared(tp)
      m.repath = 4 + life.int(7) + (distSq > 1024 ? 10 : distSq > 256 ? 5 : 0)
      if (!plan(m, tp)) m.repath += 15
    }
    const go = walk(m, modifier)
    if (go) return go
    if (Math.abs(tp.y - pos.y) < 1 && (tp.x - pos.x) ** 2 + (tp.z - pos.z) ** 2 < 4) return toward(m, tp.x, tp.z, modifier)
    return null
  }

  // without path finding, and for the last steps: straight at (x, z), never off a deep drop
  function safeAhead (m, dx, dz) {
    const world = m.e.world
    const x = m.e.position.x + dx * (m.w / 2 + 0.4)
    const z = m.e.position.z + dz * (m.w / 2 + 0.4)
    const y = Math.floor(m.e.position.y)
    if (view.solid(world, x, y, z)) return true // a wall or a step: the body handles it
    for (let d = 1; d <= maxFall(m) + 1; d++) {
      if (view.solid(world, x, y - d, z)) return true
      const b = view.block(world, Math.floor(x), y - d, Math.floor(z))
      if (view.liquid(b)) return true
    }
    return false
  }

  function toward (m, x, z, modifier) {
    const u = unit(x - m.e.position.x, z - m.e.position.z)
    if (!u) return null
    ctx.face(m, u.dx, u.dz)
    if (m.body.onGround && !safeAhead(m, u.dx, u.dz)) { m.wander = null; return null }
    return { dx: u.dx, dz: u.dz, s: m.sp.speed * modifier, jump: ctx.wantsJump(m, u.dx, u.dz) }
  }

  // vanilla RandomPos.getLandPos(mob, across, upDown): of 10 random columns 2..across
  // blocks away, the first with a standing spot within upDown blocks of the mob's level
  // (the one nearest it), made reachable by the path to it (a partial path ends at the
  // reachable node closest to it)
  function wanderTo (m, across, upDown, ticks, panic = false) {
    const pos = m.e.position
    for (let i = 0; i < 10; i++) {
      const a = life.random() * Math.PI * 2
      const r = 2 + life.random() * (across - 2)
      const x = Math.floor(pos.x + Math.cos(a) * r); const z = Math.floor(pos.z + Math.sin(a) * r)
      const y = Math.floor(pos.y)
      const spots = view.standingSpots(m.e.world, x, z, y - upDown, y + upDown)
      if (!spots.length) continue
      const nearest = spots.reduce((b, s) => Math.abs(s.y - y) < Math.abs(b.y - y) ? s : b)
      const spot = pos.clone().set(x + 0.5, nearest.y, z + 0.5)
      if (life.paths && !plan(m, spot)) return null
      return { x: spot.x, z: spot.z, until: life.tick + ticks, panic }
    }
    return null
  }

  function wandering (m, modifier) {
    const w = m.wander
    if (!life.paths) return toward(m, w.x, w.z, modifier)
    const go = walk(m, modifier)
    if (!go) m.wander = null
    return go
  }

  function stroll (m, modifier = 1) {
    if (m.e.pepaAi === false) return null
    const w = m.wander
    if (w && (life.tick > w.until || Math.hypot(w.x - m.e.position.x, w.z - m.e.position.z) < 0.7)) { m.wander = null; m.path = null }
    if (!m.wander) {
      if (life.int(STROLL_CHANCE) !== 0) return null
      m.wander = wanderTo(m, 10, 7, 200)
      if (!m.wander) return null
    }
    return wandering(m, modifier)
  }

  // vanilla MeleeAttackGoal.checkAndPerformAttack: one hit per 20 ticks within reach
  function strike (m, t, reachSq) {
    m.cooldown = Math.max(m.cooldown - 1, 0)
    if (m.e.position.distanceSquared(t.position) <= reachSq && m.cooldown <= 0 && m.seen) {
      m.cooldown = 20
      ctx.swing(m)
      ctx.hitPlayer(m, t)
    }
  }

  // pressed against the target (mobs do not push players): stand
  const pressed = (m, t) => Math.abs(t.position.y - m.e.position.y) < 1 &&
    Math.hypot(t.position.x - m.e.position.x, t.position.z - m.e.position.z) < 0.8

  function melee (m) {
    const t = retarget(m)
    if (!t) return stroll(m, m.sp.strollMod)
    strike(m, t, (m.w * 2) ** 2 + 0.6)
    return pressed(m, t) ? null : chase(m, t, 1.0)
  }

  // the brightness (0..1) at the mob's eyes, vanilla Entity.getBrightness
  function bright (m) {
    const { x, y, z } = eye(m)
    const light = Math.max(view.blockLight(m.e.world, x, y, z), view.skyLight(m.e.world, x, y, z) - life.skyDarken())
    return brightness(light)
  }

  function spider (m) {
    const t = retarget(m, () => bright(m) < 0.5)
    if (t && life.int(100) === 0 && bright(m) >= 0.5) drop(m)
    if (!m.target) return stroll(m, m.sp.strollMod)
    strike(m, t, 4 + 0.6)
    const distSq = m.e.position.distanceSquared(t.position)
    if (m.body.onGround && distSq >= 4 && distSq <= 16 && life.int(5) === 0) { // LeapAtTargetGoal(0.4)
      const u = unit(t.position.x - m.e.position.x, t.position.z - m.e.position.z)
      if (u) {
        m.body.vx = u.dx * 0.4 + m.body.vx * 0.2
        m.body.vz = u.dz * 0.4 + m.body.vz * 0.2
        m.body.vy = 0.4
        return null
      }
    }
    return pressed(m, t) ? null : chase(m, t, 1.0, true)
  }

  function creeper (m) {
    const t = retarget(m)
    let dir = -1
    if (t) {
      const distSq = m.e.position.distanceSquared(t.position)
      if (m.swellDir > 0 || distSq < 9) dir = (distSq > 49 || !sees(m, t)) ? -1 : 1
    }
    ctx.setSwell(m, dir)
    m.swell = Math.max(0, m.swell + dir)
    if (m.swell >= 30) { ctx.explode(m); return null }
    if (dir > 0) { if (t) ctx.face(m, t.position.x - m.e.position.x, t.position.z - m.e.position.z); return null }
    if (!t) return stroll(m, m.sp.strollMod)
    return pressed(m, t) ? null : chase(m, t, 1.0)
  }

  function archer (m) {
    const t = retarget(m)
    if (!t) { ctx.drawBow(m, false); m.drawing = -1; return stroll(m, m.sp.strollMod) }
    const seen = sees(m, t)
    if (seen !== (m.seeTime > 0)) m.seeTime = 0
    m.seeTime += seen ? 1 : -1
    const distSq = m.e.position.distanceSquared(t.position)
    let input = null
    if (distSq <= 225 && m.seeTime >= 20) {
      m.path = null
      ctx.face(m, t.position.x - m.e.position.x, t.position.z - m.e.position.z)
      if (distSq < 225 * 0.25) { // back off
        const u = unit(m.e.position.x - t.position.x, m.e.position.z - t.position.z)
        if (u && safeAhead(m, u.dx, u.dz)) input = { dx: u.dx, dz: u.dz, s: m.sp.speed * 0.5, jump: false }
      }
    } else input = chase(m, t, 1.0, true) // vanilla moveTo(target) every tick, seen or not
    if (m.drawing >= 0) {
      if (!seen && m.seeTime < -60) { m.drawing = -1; ctx.drawBow(m, false) } else if (seen && ++m.drawing >= 20) {
        ctx.shoot(m, t)
        m.drawing = -1
        ctx.drawBow(m, false)
        m.attackTime = serv.difficulty === 3 ? 20 : 40
      }
    } else if (--m.attackTime <= 0 && m.seeTime >= -60) { m.drawing = 0; ctx.drawBow(m, true) }
    return input
  }

  function animal (m) {
    if (life.tick < m.panicUntil) {
      ctx.herd.panic(m)
      const w = m.wander
      if (!w || !w.panic || life.tick > w.until || (!life.paths && Math.hypot(w.x - m.e.position.x, w.z - m.e.position.z) < 0.7)) {
        m.wander = wanderTo(m, 5, 4, 60, true)
        if (!m.wander) return null
      }
      return wandering(m, m.sp.panic)
    }
    if (m.wander && m.wander.panic) { m.wander = null; m.path = null }
    const go = ctx.herd.goal(m, chase) // breeding, tempted, after a parent, eating grass (herd.js)
    return go === undefined ? stroll(m, 1.0) : go
  }

  // paths {on?}: path finding on or off; the searches so far and their cost
  life.ops.paths = ({ on } = {}) => {
    if (on !== undefined) life.paths = !!on
    const n = Math.max(stats.searches, 1)
    return { on: life.paths, searches: stats.searches, visited: stats.visited / n, ms: stats.ms / n, maxMs: stats.maxMs }
  }

  // vanilla EnderMan.isLookingAtMe: the player's view vector points at the enderman's eyes
  // within 1 - 0.025 / distance (a carved pumpkin on the head hides the stare) and it sees them
  function staredAt (m, p) {
    const head = p.inventory && p.inventory.slots && p.inventory.slots[5]
    if (head && head.name === 'carved_pumpkin') return false
    const yaw = (p.yaw || 0) * Math.PI / 128 // flying-squid keeps the look in 1/256 turns
    const pitch = (p.pitch || 0) * Math.PI / 128
    const vx = -Math.sin(yaw) * Math.cos(pitch)
    const vy = -Math.sin(pitch)
    const vz = Math.cos(yaw) * Math.cos(pitch)
    const from = playerEye(p)
    const to = eye(m)
    const dx = to.x - from.x; const dy = to.y - from.y; const dz = to.z - from.z
    const len = Math.hypot(dx, dy, dz)
    if (len < 1e-6) return false
    return (vx * dx + vy * dy + vz * dz) / len > 1 - 0.025 / len && sees(m, p)
  }
  // vanilla EnderMan: neutral; a player who stares at it (EndermanLookForPlayerGoal, within
  // its 64-block follow range) or hits it (HurtByTargetGoal) is hunted like a zombie's target
  function enderman (m) {
    if (!m.target && m.e.pepaAi !== false && (life.tick + m.e.id) % 5 === 0) {
      for (const p of serv.players) {
        if (!valid(m, p) || !staredAt(m, p)) continue
        m.target = p; m.seen = true; m.unseen = 0; m.cooldown = 0; m.wander = null; m.path = null; m.pathedAt = null; m.repath = 0
        m.provoked = (m.provoked || 0) + 1
        break
      }
    }
    // vanilla EnderMan.customServerAiStep: in bright daylight under open sky, 30 s after it last
    // changed targets (or came), it may drop its target and teleport away
    if (m.target !== m.lastTarget) { m.lastTarget = m.target; m.targetAt = life.tick }
    if (m.born === undefined) m.born = life.tick
    if (life.isDay && life.isDay() && life.tick % 2 === 0 && life.tick >= Math.max(m.born, m.targetAt || 0) + 600) {
      const { x, y, z } = eye(m)
      if (view.canSeeSky(m.e.world, x, y, z)) {
        const b = brightness(Math.max(view.blockLight(m.e.world, x, y, z), view.skyLight(m.e.world, x, y, z) - life.skyDarken()))
        if (b > 0.5 && life.random() * 30 < (b - 0.4) * 2) { drop(m); ctx.teleport(m); return null }
      }
    }
    const t = retarget(m, () => false) // never a target by sight alone
    if (!t) return stroll(m, m.sp.strollMod)
    // vanilla EndermanLookForPlayerGoal.tick: stared at within 4 blocks it teleports; more
    // than 16 away it teleports toward its target every 30 ticks it can
    const distSq = m.e.position.distanceSquared(t.position)
    if (staredAt(m, t)) {
      m.teleportTime = 0
      if (distSq < 16) { ctx.teleport(m); return null }
    } else if (distSq > 256 && (m.teleportTime = (m.teleportTime || 0) + 1) >= 30 && ctx.teleportTowards(m, t)) m.teleportTime = 0
    strike(m, t, (m.w * 2) ** 2 + 0.6)
    return pressed(m, t) ? null : chase(m, t, 1.0)
  }

  // vanilla Witch: RangedAttackGoal (speed 1.0, every 60 ticks, within 10 blocks, in sight 5
  // ticks: it stands) and Witch.performRangedAttack's choice of potion: slowness at 8 blocks or
  // more on one not slowed, poison on one with 8 health or more not poisoned, weakness within 3
  // blocks one time in 4 on one not weakened, harming otherwise
  function witch (m) {
    const t = retarget(m)
    if (!t) return stroll(m, m.sp.strollMod)
    const seen = sees(m, t)
    m.seeTime = seen ? Math.max(0, m.seeTime) + 1 : 0
    const distSq = m.e.position.distanceSquared(t.position)
    let input = null
    if (distSq <= 100 && m.seeTime >= 5) {
      m.path = null
      ctx.face(m, t.position.x - m.e.position.x, t.position.z - m.e.position.z)
    } else input = chase(m, t, 1.0)
    if (m.attackTime < 0) m.attackTime = 60
    if (--m.attackTime === 0) {
      if (distSq > 100 || !seen) { m.attackTime = 1; return input } // it waits to be in range
      const d = Math.sqrt(distSq)
      const has = life.effects ? life.effects(t) : { slowness: 0, poison: 0, weakness: 0 }
      let potion = 'harming'
      if (d >= 8 && !has.slowness) potion = 'slowness'
      else if (t.health >= 8 && !has.poison) potion = 'poison'
      else if (d <= 3 && !has.weakness && life.random() < 0.25) potion = 'weakness'
      ctx.throwPotion(m, t, potion)
      m.attackTime = 60
    }
    return input
  }

  // vanilla Phantom (PhantomCircleAroundAnchorGoal, PhantomSweepAttackGoal), simplified: it
  // circles an anchor 5..15 blocks round at its height; a target (the nearest survival player
  // it sees within 64) is swooped at after 5..10 s of circling; a swoop ends with a blow in
  // reach, or after 5 s, and the anchor moves 20..35 blocks over the target. It flies: the
  // mob tick moves it by `fly` (no gravity)
  function phantom (m) {
    const pos = m.e.position
    if (!m.anchor) m.anchor = { x: pos.x, y: pos.y, z: pos.z, angle: life.random() * Math.PI * 2, radius: 5 + life.random() * 10, turn: life.random() < 0.5 ? -1 : 1 }
    const t = retarget(m)
    m.cooldown = Math.max(m.cooldown - 1, 0)
    if (t && m.swoop === undefined) m.swoop = -(100 + life.int(100)) // ticks of circling first
    if (!t) m.swoop = undefined
    if (t && m.swoop < 0 && ++m.swoop === 0) m.swoop = 1 // the swoop begins
    if (t && m.swoop > 0) {
      const aim = t.position.offset(0, 0.9, 0)
      m.swoop++
      const close = pos.distanceTo(aim) < 1.6
      if (close && m.cooldown <= 0) { m.cooldown = 20; ctx.swing(m); ctx.hitPlayer(m, t) }
      if (close || m.swoop > 100) { // back up: circle high over the target
        m.anchor = { ...m.anchor, x: t.position.x, y: t.position.y + 20 + life.int(16), z: t.position.z }
        m.swoop = -(100 + life.int(100))
      }
      ctx.face(m, aim.x - pos.x, aim.z - pos.z)
      return { fly: aim, s: 0.8 }
    }
    const a = m.anchor
    a.angle += a.turn * 0.35 / a.radius
    const goal = { x: a.x + Math.cos(a.angle) * a.radius, y: a.y, z: a.z + Math.sin(a.angle) * a.radius }
    ctx.face(m, goal.x - pos.x, goal.z - pos.z)
    return { fly: goal, s: 0.4 }
  }

  // vanilla Drowned: it hunts a player only while she is in water or at night
  // (Drowned.okTarget); in water it swims straight at her (or up to the air when it has none,
  // DrownedSwimUpGoal), 0.12 blocks a tick; on land it walks and hits as a zombie
  function drowned (m) {
    const world = m.e.world
    const pos = m.e.position
    const inWater = (q, dy = 0.5) => view.liquid(view.block(world, Math.floor(q.x), Math.floor(q.y + dy), Math.floor(q.z)))
    const night = !(life.isDay && life.isDay())
    const t = retarget(m, () => night || serv.players.some(p => valid(m, p) && inWater(p.position)))
    if (t && !night && !inWater(t.position)) { drop(m); return stroll(m, m.sp.strollMod) }
    // in water, or bobbing at its surface over a target in the water: it swims (dives)
    const swimming = inWater(pos, 0.1) || (!!t && inWater(t.position) && inWater(pos, -0.4))
    if (!t) {
      if (swimming) return { fly: { x: pos.x, y: pos.y + 1, z: pos.z }, s: 0.06 } // up, slowly
      return stroll(m, m.sp.strollMod)
    }
    strike(m, t, (m.w * 2) ** 2 + 0.6)
    if (swimming) {
      ctx.face(m, t.position.x - pos.x, t.position.z - pos.z)
      return pressed(m, t) ? null : { fly: { x: t.position.x, y: t.position.y, z: t.position.z }, s: 0.12 }
    }
    return pressed(m, t) ? null : chase(m, t, 1.0)
  }

  return { melee, spider, creeper, archer, animal, enderman, witch, phantom, drowned, still: () => null }
}
