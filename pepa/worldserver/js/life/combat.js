'use strict'
// Damage with vanilla 1.16 numbers: THE funnel for every hurt to a player
// (hurtPlayer: difficulty, shield, hurt immunity, armour, knockback, the death
// message), players' melee by weapon and attack cooldown, and skeleton arrows
// flown tick by tick.
const { Vec3 } = require('vec3')
const { scaleForDifficulty } = require('./state')
// the weapons' attack damage and speed, the fist's, the armour per material and piece
const { WEAPONS, FIST, armourPiece } = require('../../../game/js/items')

// vanilla Player.attack: damage * (0.2 + strength^2 * 0.8), strength = how far the
// attack cooldown (20 / attack speed ticks) has recharged since the last attack
function attackStrength (itemName, ticksSinceLastAttack) {
  const speed = (WEAPONS[itemName] || FIST)[1]
  return Math.max(0, Math.min(1, (ticksSinceLastAttack + 0.5) / (20 / speed)))
}
function meleeDamage (itemName, ticksSinceLastAttack) {
  const strength = attackStrength(itemName, ticksSinceLastAttack)
  return (WEAPONS[itemName] || FIST)[0] * (0.2 + strength * strength * 0.8)
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

// --- armour (vanilla 1.16 ArmorMaterials: pepa/game/js/items.js) ----------------------
const FIRST_ARMOUR_SLOT = 5 // player inventory slots 5..8: helmet, chestplate, leggings, boots
const BREAK_EVENT = 49 // LivingEntity.entityEventForEquipmentBreak: head 49, chest 50, legs 51, feet 52

function armourOf (p) {
  const worn = []
  for (let i = 0; i < 4; i++) {
    const item = p.inventory.slots[FIRST_ARMOUR_SLOT + i]
    const piece = armourPiece(item, i)
    if (piece) worn.push({ slot: FIRST_ARMOUR_SLOT + i, index: i, item, ...piece })
  }
  const sum = (k) => worn.reduce((a, w) => a + w[k], 0)
  return { worn, armour: sum('defense'), toughness: sum('toughness'), knockbackResistance: sum('knockbackResistance') }
}

// vanilla CombatRules.getDamageAfterAbsorb
function afterArmour (damage, armour, toughness) {
  const f = 2 + toughness / 4
  const g = Math.min(20, Math.max(armour / 5, armour - damage / f))
  return damage * (1 - g / 25)
}

// vanilla ItemStack.hurtAndBreak for a player's item (no Unbreaking): true when it broke
function wear (p, slot, by, breakEvent) {
  const item = p.inventory.slots[slot]
  if (!item || !item.maxDurability) return false
  item.durabilityUsed = (item.durabilityUsed || 0) + by
  const broke = item.durabilityUsed >= item.maxDurability
  p.inventory.updateSlot(slot, broke ? null : item)
  if (broke) {
    p._client.write('entity_status', { entityId: p.id, entityStatus: breakEvent })
    p._writeOthersNearby('entity_status', { entityId: p.id, entityStatus: breakEvent })
  }
  return broke
}

// vanilla Inventory.hurtArmor: every piece loses max(1, damage / 4) (an int);
// netherite is not worn by fire and lava
function hurtArmour (p, worn, damage, type) {
  if (damage <= 0) return
  const by = Math.floor(Math.max(1, damage / 4))
  for (const w of worn) {
    if ((type === 'inFire' || type === 'lava') && w.item.name.startsWith('netherite_')) continue
    wear(p, w.slot, by, BREAK_EVENT + w.index)
  }
}

// --- shields --------------------------------------------------------------------
// The client says it raises an item with use_item {hand} and lowers it with
// block_dig status 5 (release use item); switching the hotbar slot drops a
// main-hand shield. Vanilla LivingEntity.isBlocking: the shield has been up
// for at least 5 ticks. Also keeps the player's exact look (flying-squid keeps
// it in 1/256ths of a turn), forgets the hurt immunity at a respawn and starts
// the spawn invulnerability at a join and a respawn.
const HAND_SLOT = (p, hand) => hand === 1 ? 45 : 36 + p.heldItemSlot
const HAND_ACTIVE = 7 // LivingEntity DATA_LIVING_ENTITY_FLAGS: 1 hand active, 2 offhand

function watchPlayer (p, life) {
  const use = { hand: null, since: 0, yaw: 0, pitch: 0 }
  const spawned = () => { p._lifeInvulnerableUntil = life.tick + SPAWN_INVULNERABLE_TICKS }
  spawned() // a join
  p.on('requestRespawn', () => { p._lifeHurt = null; spawned() }) // a new life: no hurt immunity left
  p._lifeUse = use
  const show = (on) => p._writeOthersNearby('entity_metadata', {
    entityId: p.id, metadata: [{ key: HAND_ACTIVE, type: 0, value: on ? 1 | (use.hand === 1 ? 2 : 0) : 0 }]
  })
  const lower = () => { if (use.hand !== null) { show(false); use.hand = null } }
  p._client.on('use_item', ({ hand }) => {
    const item = p.inventory.slots[HAND_SLOT(p, hand)]
    if (!item || item.name !== 'shield' || use.hand !== null) return
    use.hand = hand
    use.since = life.tick
    show(true)
  })
  p._client.on('block_dig', ({ status }) => { if (status === 5) lower() })
  p._client.on('held_item_slot', () => { if (use.hand === 0) lower() })
  const look = ({ yaw, pitch }) => { use.yaw = yaw; use.pitch = pitch }
  p._client.on('look', look)
  p._client.on('position_look', look)
  p.on('spawned', lower)
}

// vanilla LivingEntity.isDamageSourceBlocked: blocking, the source not
// bypassing armour, and the flat direction from the source to the player
// against the player's view vector (any angle over 90 degrees from the source)
function shieldBlocks (life, p, sourcePos) {
  const use = p._lifeUse
  if (!use || use.hand === null || !sourcePos || life.tick - use.since < 5) return false
  const item = p.inventory.slots[HAND_SLOT(p, use.hand)]
  if (!item || item.name !== 'shield') { use.hand = null; return false }
  const yaw = use.yaw * Math.PI / 180
  const pitch = use.pitch * Math.PI / 180
  const view = new Vec3(-Math.sin(yaw) * Math.cos(pitch), -Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch))
  const to = p.position.minus(sourcePos)
  const len = to.norm() || 1
  return (to.x / len) * view.x + (to.z / len) * view.z < 0
}

// vanilla Player.hurtCurrentlyUsedShield: a blow of 3 or more costs 1 + floor(damage)
function hurtShield (p, damage) {
  if (damage < 3) return
  const use = p._lifeUse
  if (wear(p, HAND_SLOT(p, use.hand), 1 + Math.floor(damage), use.hand === 1 ? 48 : 47)) use.hand = null
}

// --- the funnel ---------------------------------------------------------------------
// cause.type is the vanilla DamageSource msgId. Vanilla DamageSource flags:
// bypassArmor (no armour, no shield, no food exhaustion), scalesWithDifficulty: an
// EntityDamageSource scales when its direct entity is a living non-player (a mob's
// blow), not an arrow (IndirectEntityDamageSource: the arrow is the direct entity);
// explosions always.
const BYPASS_ARMOUR = new Set(['fall', 'drown', 'inWall', 'starve', 'onFire', 'generic', 'wither', 'magic', 'indirectMagic']) // vanilla DamageSource.WITHER and MAGIC bypass armour too
const SCALES = new Set(['mob', 'explosion'])
// vanilla ServerPlayer.spawnInvulnerableTime: 60 ticks after a join or a respawn in
// which ServerPlayer.hurt refuses all but outOfWorld and, on a dedicated server with
// PvP on (the sandbox's case), fall damage
const SPAWN_INVULNERABLE_TICKS = 60
const HURTS_INVULNERABLE = new Set(['outOfWorld', 'fall'])
const DAMAGE_EXHAUSTION = 0.1 // vanilla DamageSource.getFoodExhaustion

// a name as vanilla's chat shows it: a player's name, a mob's translated type
function nameOf (e) {
  if (!e) return null
  if (e.type === 'player') return { text: e.username }
  return { translate: `entity.minecraft.${e.name}` }
}

// vanilla CombatTracker.getDeathMessage / DamageSource.getLocalizedDeathMessage
function deathMessage (p, cause) {
  const who = nameOf(p)
  const by = nameOf(cause.attacker)
  let key = `death.attack.${cause.type}`
  if (cause.type === 'fall') key = cause.distance > 5 ? 'death.fell.accident.generic' : 'death.attack.fall'
  else if (cause.type === 'explosion' && by) key = 'death.attack.explosion.player'
  return { translate: key, with: by && cause.type !== 'fall' ? [who, by] : [who] }
}

// the same text as an English line (the server log; clients translate themselves)
function plain (registry, msg) {
  const lang = registry.language || {}
  const part = (c) => c.text !== undefined ? c.text : (lang[c.translate] || c.translate)
  let i = 0
  return (lang[msg.translate] || msg.translate).replace(/%(\d+\$)?s/g, (m, n) => part(msg.with[n ? Number(n.slice(0, -1)) - 1 : i++] || { text: '' }))
}

// vanilla ServerPlayer.die: the combat_event for the death screen, then the
// message as a system chat line to everybody (showDeathMessages)
function announceDeath (serv, p, cause) {
  const msg = deathMessage(p, cause)
  const json = JSON.stringify(msg)
  p._client.write('combat_event', { event: 2, playerId: p.id, entityId: cause.attacker ? cause.attacker.id : -1, message: json })
  for (const other of serv.players) {
    other._client.write('chat', { message: json, position: 1, sender: '00000000-0000-0000-0000-000000000000' })
  }
  serv.info && serv.info(plain(serv.registry, msg))
  return msg
}

// A player hurt by anything but another player's melee (flying-squid's pvp.js).
// `from`: where the blow came from (knockback); `strength`: knockback (vanilla
// 0.4 for a blow by an entity); `scale`: difficulty scaling (default: the
// cause's vanilla scalesWithDifficulty); `cause`: { type, attacker?,
// projectile?, distance? (falls) }. Returns { damage, blocked }.
function hurtPlayer (serv, life, p, amount, { from = null, scale, strength = 0.4, cause = { type: 'generic' } } = {}) {
  const none = { damage: 0, blocked: false }
  if (p.gameMode === 1 || p.gameMode === 3 || p.health <= 0) return none
  const type = cause.type
  if (life.tick < (p._lifeInvulnerableUntil ?? 0) && !HURTS_INVULNERABLE.has(type)) return none
  if (scale ?? SCALES.has(type)) amount = scaleForDifficulty(amount, serv.difficulty)
  if (amount <= 0) return none
  const bypass = BYPASS_ARMOUR.has(type)
  const source = (cause.projectile || cause.attacker || {}).position || from
  if (!bypass && shieldBlocks(life, p, source)) {
    hurtShield(p, amount)
    p._client.write('entity_status', { entityId: p.id, entityStatus: 29 }) // shield block sound
    p._writeOthersNearby('entity_status', { entityId: p.id, entityStatus: 29 })
    life.shieldBlocks = (life.shieldBlocks || 0) + 1
    return { damage: 0, blocked: true }
  }
  const state = p._lifeHurt || (p._lifeHurt = { hurtTick: -100, lastHurt: 0 })
  amount = immune(state, life.tick, amount)
  if (amount <= 0) return none
  const worn = armourOf(p)
  if (!bypass) {
    hurtArmour(p, worn.worn, amount, type)
    amount = afterArmour(amount, worn.armour, worn.toughness)
  }
  if (amount <= 0) return none
  if (!bypass && life.exhaust) life.exhaust(p, DAMAGE_EXHAUSTION)
  p._lifeLastDamage = { type, attacker: cause.attacker ? (cause.attacker.username || cause.attacker.name) : null, tick: life.tick, amount }
  p.updateHealth(Math.max(0, p.health - amount))
  // vanilla LivingEntity.knockback, less the knockback resistance of netherite
  const push = strength * (1 - worn.knockbackResistance)
  if (from && push > 0) {
    const dx = p.position.x - from.x
    const dz = p.position.z - from.z
    const len = Math.hypot(dx, dz) || 1
    // blocks per tick -> flying-squid's sendVelocity takes blocks per second
    p.sendVelocity(new Vec3((dx / len) * push, p.onGround === false ? 0 : 0.4, (dz / len) * push).scaled(20), new Vec3(4, 4, 4))
  }
  const dead = p.health <= 0
  p._client.write('entity_status', { entityId: p.id, entityStatus: dead ? 3 : 2 }) // hurt / death
  p._writeOthersNearby('entity_status', { entityId: p.id, entityStatus: dead ? 3 : 2 })
  if (dead) {
    const msg = announceDeath(serv, p, cause)
    // the last deaths by their message key, for benchmarks (life_stats)
    life.deaths = [...(life.deaths || []).slice(-99), { player: p.username, key: msg.translate, by: msg.with[1] ? (msg.with[1].text || msg.with[1].translate) : null, tick: life.tick }]
  }
  return { damage: amount, blocked: false }
}

// --- skeleton arrows ---------------------------------------------------------
// vanilla RangedBowAttackGoal -> Skeleton.performRangedAttack(target, power 1.0):
// from the eyes (- 0.1) towards a third of the target's height, aimed up by
// 0.2 per block of distance, 1.6 blocks/tick, spread 14 - 4 * difficulty;
// base damage 2 + N(0, 0.25) + 0.11 * difficulty; in flight drag 0.99 and
// gravity 0.05 per tick; a hit does ceil(speed * base damage), not scaled by difficulty.
// AbstractArrow: an arrow that misses sticks in the block it hit and stays
// 1200 ticks (tickDespawn), falling again if the block goes; one a shield
// blocks bounces back at a tenth of its speed and falls. A skeleton's arrow
// cannot be picked up (pickup DISALLOWED for a non-player owner).
const STUCK_TICKS = 1200

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
    flying.add({ e, shooter, pos: from.clone(), vel, base: 2 + life.gaussian() * 0.25 + serv.difficulty * 0.11, stuck: -1, block: null, ignore: null })
  }

  // vanilla Witch.performRangedAttack: a splash potion thrown at the target's eyes - 1.1,
  // aimed up by 0.2 per block, 0.75 blocks a tick, inaccuracy 8 (ThrownPotion: gravity 0.05,
  // drag 0.99 as an arrow's); `potion` says what it does where it breaks (life.splash)
  const potionType = (serv.registry.entitiesByName.potion || serv.registry.entitiesByName.arrow).id
  function throwPotion (thrower, target, potion) {
    const from = thrower.position.offset(0, eyeOf(thrower) - 0.1, 0)
    const tx = target.position.x - thrower.position.x
    const ty = target.position.y + 1.62 - 1.1 - thrower.position.y
    const tz = target.position.z - thrower.position.z
    const dh = Math.hypot(tx, tz)
    let dir = new Vec3(tx, ty + dh * 0.2, tz)
    dir = dir.scaled(1 / (dir.norm() || 1))
    dir = dir.offset(life.gaussian() * 0.0075 * 8, life.gaussian() * 0.0075 * 8, life.gaussian() * 0.0075 * 8)
    const vel = dir.scaled(0.75)
    const e = serv.spawnObject(potionType, thrower.world, from, { velocity: vel.scaled(20), data: 0 })
    e.size = null
    flying.add({ e, shooter: thrower, pos: from.clone(), vel, potion, stuck: -1, block: null, ignore: null })
  }
  const eyeOf = (e) => (e.height || 1.95) * 0.85

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

  function fly (a) {
    if (a.stuck >= 0) {
      if (++a.stuck >= STUCK_TICKS) remove(a)
      else if (!view.solid(a.e.world, a.block.x, a.block.y, a.block.z)) a.stuck = -1 // its block is gone: fall
      return
    }
    if (a.pos.y < -64) { remove(a); return } // out of the world
    // the first block on the way (0.1-block steps), then the first player box
    const len = a.vel.norm()
    const steps = Math.max(1, Math.ceil(len / 0.1))
    let tBlock = null
    for (let i = 1; i <= steps; i++) {
      const at = a.pos.plus(a.vel.scaled(i / steps))
      if (view.solid(a.e.world, at.x, at.y, at.z)) { tBlock = (i - 1) / steps; a.block = at.floored(); break }
    }
    let hit = null; let tHit = 2
    for (const p of serv.players) {
      if (p === a.ignore || p.world !== a.e.world || p.gameMode !== 0 || p.health <= 0) continue
      // the player's 0.6 x 1.8 box, inflated by 0.3 as vanilla projectiles do
      const t = enter(a.pos, a.vel, p.position.offset(-0.6, -0.3, -0.6), p.position.offset(0.6, 2.1, 0.6))
      if (t !== null && t < tHit) { hit = p; tHit = t }
    }
    if (a.potion && (hit || tBlock !== null)) { // it breaks where it meets a player or a block
      const t = hit && (tBlock === null || tHit <= tBlock) ? tHit : tBlock
      const at = a.pos.plus(a.vel.scaled(t))
      remove(a)
      if (life.splash) life.splash(a.e.world, at, a.potion, hit && t === tHit ? hit : null, a.shooter)
      return
    }
    if (hit && (tBlock === null || tHit <= tBlock)) {
      const { blocked } = hurtPlayer(serv, life, hit, Math.ceil(len * a.base), {
        from: a.shooter.position, cause: { type: 'arrow', attacker: a.shooter, projectile: a.e }
      })
      if (!blocked) { remove(a); return }
      a.ignore = hit
      a.pos = a.pos.plus(a.vel.scaled(tHit))
      a.vel = a.vel.scaled(-0.1)
    } else if (tBlock !== null) {
      a.pos = a.pos.plus(a.vel.scaled(tBlock))
      a.vel = new Vec3(0, 0, 0)
      a.stuck = 0
    } else {
      a.pos = a.pos.plus(a.vel)
      a.vel = a.vel.scaled(0.99).offset(0, -0.05, 0)
    }
    a.e.sendPosition(a.pos.clone(), a.stuck >= 0)
  }

  function tick () {
    for (const a of flying) {
      if (!serv.entities[a.e.id]) { flying.delete(a); continue }
      fly(a)
    }
  }

  // control op arrows: every arrow, flying or stuck
  life.ops.arrows = () => [...flying].map(a => ({ id: a.e.id, stuck: a.stuck >= 0, position: { x: a.pos.x, y: a.pos.y, z: a.pos.z } }))

  return { shoot, throwPotion, tick, count: () => flying.size }
}

module.exports = { WEAPONS, meleeDamage, attackStrength, immune, hurtPlayer, watchPlayer, armourOf, afterArmour, wear, arrows, SPAWN_INVULNERABLE_TICKS }
