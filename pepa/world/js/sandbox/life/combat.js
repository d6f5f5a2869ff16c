'use strict'
// Damage with vanilla 1.16 numbers: players hurt by mobs (difficulty scaling,
// the 10-tick hurt immunity, knockback 0.4), players' melee by weapon and
// attack cooldown, and skeleton arrows flown tick by tick.
const { Vec3 } = require('vec3')
const { scaleForDifficulty } = require('./state')

// 1.16 attack damage (the fist's 1 included) and attack speed per item
const WEAPONS = {
  wooden_sword: [4, 1.6], golden_sword: [4, 1.6], stone_sword: [5, 1.6], iron_sword: [6, 1.6], diamond_sword: [7, 1.6], netherite_sword: [8, 1.6],
  wooden_axe: [7, 0.8], golden_axe: [7, 1.0], stone_axe: [9, 0.8], iron_axe: [9, 0.9], diamond_axe: [9, 1.0], netherite_axe: [10, 1.0],
  wooden_pickaxe: [2, 1.2], golden_pickaxe: [2, 1.2], stone_pickaxe: [3, 1.2], iron_pickaxe: [4, 1.2], diamond_pickaxe: [5, 1.2], netherite_pickaxe: [6, 1.2],
  wooden_shovel: [2.5, 1], golden_shovel: [2.5, 1], stone_shovel: [3.5, 1], iron_shovel: [4.5, 1], diamond_shovel: [5.5, 1], netherite_shovel: [6.5, 1],
  wooden_hoe: [1, 1], golden_hoe: [1, 1], stone_hoe: [1, 2], iron_hoe: [1, 3], diamond_hoe: [1, 4], netherite_hoe: [1, 4],
  trident: [9, 1.1]
}
const FIST = [1, 4]

// vanilla Player.attack: damage * (0.2 + strength^2 * 0.8), strength = how far the
// attack cooldown (20 / attack speed ticks) has recharged since the last attack
function meleeDamage (itemName, ticksSinceLastAttack) {
  const [damage, speed] = WEAPONS[itemName] || FIST
  const strength = Math.max(0, Math.min(1, (ticksSinceLastAttack + 0.5) / (20 / speed)))
  return damage * (0.2 + strength * strength * 0.8)
}

// the hurt immunity of LivingEntity.hurt: for 10 ticks after a hit only a
// bigger hit counts, and only by the difference. Returns the damage to apply.
function immune (state, tick, amount) {
  if (tick - state.hurtTick < 10) {
    if (amount <= state.lastHurt) return 0
    const extra = amount - state.lastHurt
    state.lastHurt = amount
    return extra
  }
  state.hurtTick = tick
  state.lastHurt = amount
  return amount
}

// a mob (or an explosion) hurts a survival player; `from` is where the blow came from
function hurtPlayer (serv, life, p, amount, { from = null, scale = true, strength = 0.4 } = {}) {
  if (p.gameMode !== 0 || p.health <= 0) return 0
  if (scale) amount = scaleForDifficulty(amount, serv.difficulty)
  if (amount <= 0) return 0
  const state = p._lifeHurt || (p._lifeHurt = { hurtTick: -100, lastHurt: 0 })
  amount = immune(state, life.tick, amount)
  if (amount <= 0) return 0
  let velocity = new Vec3(0, 0, 0)
  if (from && strength > 0) {
    const dx = p.position.x - from.x
    const dz = p.position.z - from.z
    const len = Math.hypot(dx, dz) || 1
    // blocks per tick -> flying-squid's sendVelocity takes blocks per second
    velocity = new Vec3((dx / len) * strength, p.onGround === false ? 0 : 0.4, (dz / len) * strength).scaled(20)
  }
  p.takeDamage({ damage: amount, velocity })
  return amount
}

// --- skeleton arrows ---------------------------------------------------------
// vanilla RangedBowAttackGoal -> Skeleton.performRangedAttack(target, power 1.0):
// from the eyes (- 0.1) towards a third of the target's height, aimed up by
// 0.2 per block of distance, 1.6 blocks/tick, spread 14 - 4 * difficulty;
// base damage 2 + N(0, 0.25) + 0.11 * difficulty; in flight drag 0.99 and
// gravity 0.05 per tick; a hit does ceil(speed * base damage), scaled by difficulty.
function arrows (serv, life, view) {
  const flying = new Set()
  const arrowType = serv.registry.entitiesByName.arrow.id

  function shoot (shooter, eyeHeight, target) {
    const from = shooter.position.offset(0, eyeHeight - 0.1, 0)
    const tx = target.position.x - from.x
    const ty = target.position.y + 1.8 / 3 - from.y
    const tz = target.position.z - from.z
    const dh = Math.hypot(tx, tz)
    const spread = 14 - serv.difficulty * 4
    let dir = new Vec3(tx, ty + dh * 0.2, tz)
    dir = dir.scaled(1 / (dir.norm() || 1))
    dir = dir.offset(life.gaussian() * 0.0075 * spread, life.gaussian() * 0.0075 * spread, life.gaussian() * 0.0075 * spread)
    const vel = dir.scaled(1.6)
    const e = serv.spawnObject(arrowType, shooter.world, from, { velocity: vel.scaled(20), data: shooter.id + 1 })
    e.size = null // flying-squid's own physics off: this module flies it
    flying.add({ e, shooter, pos: from.clone(), vel, base: 2 + life.gaussian() * 0.25 + serv.difficulty * 0.11, age: 0, stuck: -1 })
  }

  // where on the segment a->a+d (0..1) it enters box [lo, hi], or null
  function enter (a, d, lo, hi) {
    let t0 = 0; let t1 = 1
    for (const k of ['x', 'y', 'z']) {
      if (Math.abs(d[k]) < 1e-9) {
        if (a[k] < lo[k] || a[k] > hi[k]) return null
        continue
      }
      let ta = (lo[k] - a[k]) / d[k]
      let tb = (hi[k] - a[k]) / d[k]
      if (ta > tb) [ta, tb] = [tb, ta]
      t0 = Math.max(t0, ta); t1 = Math.min(t1, tb)
      if (t0 > t1) return null
    }
    return t0
  }

  function remove (a) {
    flying.delete(a)
    if (serv.entities[a.e.id]) serv.destroyEntity(a.e)
  }

  function tick () {
    for (const a of flying) {
      if (!serv.entities[a.e.id]) { flying.delete(a); continue }
      if (a.stuck >= 0) { if (++a.stuck > 20) remove(a); continue }
      if (++a.age > 200) { remove(a); continue }
      // the first block on the way (0.1-block steps), then the first player box
      const len = a.vel.norm()
      const steps = Math.max(1, Math.ceil(len / 0.1))
      let tBlock = null
      for (let i = 1; i <= steps; i++) {
        const t = i / steps
        if (view.solid(a.e.world, a.pos.x + a.vel.x * t, a.pos.y + a.vel.y * t, a.pos.z + a.vel.z * t)) { tBlock = (i - 1) / steps; break }
      }
      let hit = null; let tHit = 2
      for (const p of serv.players) {
        if (p.world !== a.e.world || p.gameMode !== 0 || p.health <= 0) continue
        // the player's 0.6 x 1.8 box, inflated by 0.3 as vanilla projectiles do
        const t = enter(a.pos, a.vel, p.position.offset(-0.6, -0.3, -0.6), p.position.offset(0.6, 2.1, 0.6))
        if (t !== null && t < tHit) { hit = p; tHit = t }
      }
      if (hit && (tBlock === null || tHit <= tBlock)) {
        hurtPlayer(serv, life, hit, Math.ceil(len * a.base), { from: a.shooter.position })
        remove(a)
        continue
      }
      if (tBlock !== null) {
        a.pos = a.pos.plus(a.vel.scaled(tBlock))
        a.vel = new Vec3(0, 0, 0)
        a.stuck = 0
      } else {
        a.pos = a.pos.plus(a.vel)
        a.vel = a.vel.scaled(0.99).offset(0, -0.05, 0)
      }
      a.e.sendPosition(a.pos.clone(), a.stuck >= 0)
    }
  }

  return { shoot, tick, count: () => flying.size }
}

module.exports = { WEAPONS, meleeDamage, immune, hurtPlayer, arrows }
