'use strict'
// What each kind of mob wants to do this tick, after the vanilla 1.16 goals.
// A brain returns the movement input {dx, dz, s, jump} for body.step (s is
// movement_speed * the goal's speed modifier) and acts (hits, shoots, swells)
// through ctx. There is no path finding: mobs walk straight at their goal,
// slide along walls, jump one-block steps and stop at drops deeper than
// vanilla's maximum fall distance (vanilla uses A*).
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
//  - animal: RandomStrollGoal (1/120 chance a tick to walk to a spot within
//    10 blocks) and PanicGoal (for 100 ticks after being hurt, at the panic speed).
// Hostiles with no target stroll like animals.

const STROLL_CHANCE = 120

function unit (dx, dz) {
  const len = Math.hypot(dx, dz)
  return len < 1e-6 ? null : { dx: dx / len, dz: dz / len, len }
}

module.exports = function brains (ctx) {
  const { life, view, serv } = ctx
  const eye = (m) => m.e.position.offset(0, m.h * 0.85, 0)
  const playerEye = (p) => p.position.offset(0, 1.62, 0)
  const sees = (m, p) => view.lineOfSight(m.e.world, eye(m), playerEye(p))
  const valid = (m, p) => p && p.world === m.e.world && p.gameMode === 0 && p.health > 0 &&
    serv.players.includes(p) && p.position.distanceTo(m.e.position) <= m.sp.follow

  function retarget (m) {
    if (m.target && !valid(m, m.target)) m.target = null
    if (m.target) {
      if ((life.tick + m.e.id) % 5 === 0) {
        m.seen = sees(m, m.target)
        m.unseen = m.seen ? 0 : m.unseen + 5
        if (m.unseen > 60) m.target = null
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
    if (best) { m.target = best; m.seen = true; m.unseen = 0; m.cooldown = 0 }
    return best
  }

  // vanilla Mob.getMaxFallDistance: 3 blocks, more for a healthy mob with a target
  function maxFall (m) {
    if (!m.target) return 3
    return Math.max(3, Math.floor(m.e.health - m.sp.health * 0.33) - (3 - serv.difficulty) * 4 + 3)
  }

  // the path finder never walks off a drop deeper than maxFall (water below is fine)
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
    return { dx: u.dx, dz: u.dz, s: m.sp.speed * modifier, jump: ctx.wantsJump(m, u.dx, u.dz), len: u.len }
  }

  function stroll (m, modifier = 1) {
    if (m.e.pepaAi === false) return null
    const w = m.wander
    if (w && (life.tick > w.until || Math.hypot(w.x - m.e.position.x, w.z - m.e.position.z) < 0.7)) m.wander = null
    if (!m.wander) {
      if (life.int(STROLL_CHANCE) !== 0) return null
      const a = life.random() * Math.PI * 2
      const r = 2 + life.random() * 8
      m.wander = { x: m.e.position.x + Math.cos(a) * r, z: m.e.position.z + Math.sin(a) * r, until: life.tick + 200 }
    }
    return toward(m, m.wander.x, m.wander.z, modifier)
  }

  function melee (m) {
    const t = retarget(m)
    if (!t) return stroll(m, m.sp.strollMod)
    m.cooldown = Math.max(m.cooldown - 1, 0)
    const pos = m.e.position
    const distSq = pos.distanceSquared(t.position)
    const reachSq = (m.w * 2) ** 2 + 0.6
    if (distSq <= reachSq && m.cooldown <= 0 && m.seen) {
      m.cooldown = 20
      ctx.swing(m)
      ctx.hitPlayer(m, t)
    }
    const go = toward(m, t.position.x, t.position.z, 1.0)
    if (go && go.len < 0.8) return null // pressed against the target
    return go
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
    const go = toward(m, t.position.x, t.position.z, 1.0)
    return go && go.len < 0.8 ? null : go
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
      ctx.face(m, t.position.x - m.e.position.x, t.position.z - m.e.position.z)
      if (distSq < 225 * 0.25) { // back off
        const u = unit(m.e.position.x - t.position.x, m.e.position.z - t.position.z)
        if (u && safeAhead(m, u.dx, u.dz)) input = { dx: u.dx, dz: u.dz, s: m.sp.speed * 0.5, jump: false }
      }
    } else input = toward(m, t.position.x, t.position.z, 1.0)
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
      const w = m.wander
      if (!w || !w.panic || Math.hypot(w.x - m.e.position.x, w.z - m.e.position.z) < 0.7 || life.tick > w.until) {
        const a = life.random() * Math.PI * 2
        const r = 2 + life.random() * 3
        m.wander = { x: m.e.position.x + Math.cos(a) * r, z: m.e.position.z + Math.sin(a) * r, until: life.tick + 60, panic: true }
      }
      return toward(m, m.wander.x, m.wander.z, m.sp.panic)
    }
    if (m.wander && m.wander.panic) m.wander = null
    return stroll(m, 1.0)
  }

  return { melee, creeper, archer, animal, still: () => null }
}
