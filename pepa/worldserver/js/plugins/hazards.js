'use strict'
// The world hurts survival players, with vanilla 1.16 numbers
// (docs/sandbox-life.md "Damage and hazards"): falls, lava, fire and burning,
// drowning and suffocation, magma blocks, cactus, sweet berry bushes,
// campfires and wither roses (with the Wither effect), each through the damage funnel
// (life/combat.js hurtPlayer) with its cause, so a death gets its vanilla
// message. Also the player's side of that funnel (shield and look, combat.js
// watchPlayer) and the explosions' block-breaking switch.
//
// Control ops: hazards {player, air?, fire?, invulnerable?, wither?, poison?, slowness?,
// weakness?} (read, or set the air supply, fire ticks, spawn invulnerability ticks and the
// effects' ticks), explosions {breakBlocks}. Poison (a cave spider's bite, a witch's potion),
// slowness and weakness (a witch's) are the mob effects of life.poison and life.splash.
const { lifeOf } = require('../life/state')
const { hurtPlayer, watchPlayer, armourOf, SPAWN_INVULNERABLE_TICKS } = require('../life/combat')

const MAX_AIR = 300 // vanilla Entity.getMaxAirSupply
const FIRE_IMMUNE_TICKS = 20 // vanilla Player.getFireImmuneTicks
const LAVA_FIRE_TICKS = 15 * 20 // vanilla Entity.lavaHurt: setSecondsOnFire(15)
const FIRE_BLOCK_TICKS = 8 * 20 // vanilla BaseFireBlock.entityInside: setSecondsOnFire(8)
const FIRE_DAMAGE = { fire: 1, soul_fire: 2 } // vanilla BaseFireBlock fireDamage
const CAMPFIRE_DAMAGE = { campfire: 1, soul_campfire: 2 } // vanilla CampfireBlock fireDamage
const ON_POS = 0.2 // vanilla Entity.getOnPos: the block this far below the feet is the one stood on
const BERRY_MOVE = 0.003 // vanilla SweetBerryBushBlock.entityInside: a smaller move does not prick
// vanilla CactusBlock: its collision box is inset 1/16 on the sides, so a player against it is
// inside its cell; the box grown by this much counts one flush with the cell's face too
const WITHER_ROSE_TICKS = 40 // vanilla WitherRoseBlock.entityInside: Wither I for 40 ticks
const WITHER_INTERVAL = 40 // vanilla MobEffect.isDurationEffectTick: WITHER 40 >> amplifier (I: 0)
const WITHER_MAX = 20 * 1000000 // vanilla /effect's longest: 1,000,000 s
const WITHER_EFFECT = 20 // the mob effect id of minecraft:wither
const POISON_EFFECT = 19 // minecraft:poison
const POISON_INTERVAL = 25 // vanilla MobEffect.isDurationEffectTick: POISON 25 >> amplifier (I: 0)
const SLOWNESS_EFFECT = 2
const WEAKNESS_EFFECT = 18
// vanilla Potions: the splash potions a witch throws, their effect and its ticks at full strength
const POTIONS = { harming: null, poison: ['poison', 900], slowness: ['slowness', 1800], weakness: ['weakness', 1800] }
const EFFECT_SHOWN = 0x06 // entity_effect flags: particles and icon shown, not ambient
const EYE = 1.62 // a standing player's eye height
const WATERY = new Set(['water', 'bubble_column', 'kelp', 'kelp_plant', 'seagrass', 'tall_seagrass'])
const CLIMBABLE = new Set(['ladder', 'vine', 'scaffolding', 'twisting_vines', 'twisting_vines_plant', 'weeping_vines', 'weeping_vines_plant'])
// Entity DATA_SHARED_FLAGS_ID (metadata index 0) bits
const ON_FIRE = 0x01
const CROUCHING = 0x02
const SPRINTING = 0x08
// entity_action: minecraft-data names the 1.16 action ids, older ones are numbers
const ACTION_FLAGS = { start_sneaking: [CROUCHING, true], 0: [CROUCHING, true], stop_sneaking: [CROUCHING, false], 1: [CROUCHING, false], start_sprinting: [SPRINTING, true], 3: [SPRINTING, true], stop_sprinting: [SPRINTING, false], 4: [SPRINTING, false] }
const NEAR_SENT = 1 // blocks: a move this close to the last position sent is the client's answer to it

function hazardOf (p) {
  // answering: every position packet sent is confirmed, no move near the last one seen yet;
  // flags: the player's own shared flags (flying-squid keeps none), sentFlags: them with the
  // fire bit, as last sent; wither: the Wither effect's ticks left, sentWither: as last shown
  // to the client; was: where the player was a tick ago (vanilla Entity.xOld, zOld)
  if (!p._lifeHazard) p._lifeHazard = { air: MAX_AIR, fire: -FIRE_IMMUNE_TICKS, fall: 0, burning: false, sentAir: MAX_AIR, answering: false, last: null, flags: 0, sentFlags: 0, wither: 0, sentWither: 0, poison: 0, sentPoison: 0, slowness: 0, sentSlowness: 0, weakness: 0, sentWeakness: 0, was: null }
  return p._lifeHazard
}

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { registry } = serv
  const byState = registry.blocksByStateId
  const Block = require('prismarine-block')(registry)
  life.explosionsBreakBlocks = life.settings.explosionsBreakBlocks // vanilla mobGriefing

  const stateAt = (world, x, y, z) => {
    if (y < 0 || y > 255) return null
    const pos = { x: Math.floor(x), y: Math.floor(y), z: Math.floor(z) }
    if (!world.sync.getColumnAt(pos)) return null
    const id = world.sync.getBlockStateId(pos)
    return { id, block: byState[id] }
  }
  // the first block the player's 0.6 x 1.8 box, grown by `grow` on every side (shrunk by
  // 0.001 by default, as vanilla Entity.checkInsideBlocks), overlaps for which test(name, state)
  function touching (world, pos, test, grow = -0.001) {
    for (let x = Math.floor(pos.x - 0.3 - grow); x <= Math.floor(pos.x + 0.3 + grow); x++) {
      for (let y = Math.floor(pos.y - grow); y <= Math.floor(pos.y + 1.8 + grow); y++) {
        for (let z = Math.floor(pos.z - 0.3 - grow); z <= Math.floor(pos.z + 0.3 + grow); z++) {
          const s = stateAt(world, x, y, z)
          if (s && s.block && test(s.block.name, s)) return s.block.name
        }
      }
    }
    return null
  }
  const inWater = (world, pos) => !!touching(world, pos, n => WATERY.has(n))
  // vanilla Entity.updateFluidOnEyes: the eye (less 1/9) under the water's surface
  function eyeInWater (world, pos) {
    const eye = pos.y + EYE - 0.11111111
    const s = stateAt(world, pos.x, eye, pos.z)
    if (!s || !s.block || !WATERY.has(s.block.name)) return false
    if (s.block.name === 'bubble_column') return false // vanilla: air is not used up in a bubble column
    const above = stateAt(world, pos.x, eye + 1, pos.z)
    let height = 1
    if (s.block.name === 'water' && !(above && above.block && WATERY.has(above.block.name))) {
      const level = s.id - s.block.minStateId // 0 source, 1..7 flowing, 8+ falling
      height = (level === 0 || level >= 8 ? 8 : 8 - level) / 9
    }
    return Math.floor(eye) + height > eye
  }
  // vanilla Entity.isInWall: a 0.48-wide, 0.1-tall box at the eyes in a suffocating (opaque full) block
  function inWall (world, pos) {
    for (const dx of [-0.24, 0.24]) {
      for (const dy of [-0.05, 0.05]) {
        for (const dz of [-0.24, 0.24]) {
          const s = stateAt(world, pos.x + dx, pos.y + EYE + dy, pos.z + dz)
          if (s && s.block && s.block.boundingBox === 'block' && !s.block.transparent) return true
        }
      }
    }
    return false
  }
  const hurt = (p, amount, type, extra = {}) => hurtPlayer(serv, life, p, amount, { strength: 0, cause: { type, ...extra } })
  const meta = (p, metadata) => {
    p._client.write('entity_metadata', { entityId: p.id, metadata })
    p._writeOthersNearby('entity_metadata', { entityId: p.id, metadata })
  }
  // the shared flags with the fire bit: the crouch and sprint bits stay as the player set them
  const showFlags = (p, h) => {
    h.sentFlags = h.flags | (h.burning ? ON_FIRE : 0)
    meta(p, [{ key: 0, type: 0, value: h.sentFlags }])
  }
  life.showFlags = showFlags
  function show (p, h) {
    const burning = h.fire > 0
    if (burning !== h.burning) {
      h.burning = burning
      showFlags(p, h)
    }
    if (h.air !== h.sentAir) {
      h.sentAir = h.air
      p._client.write('entity_metadata', { entityId: p.id, metadata: [{ key: 1, type: 1, value: h.air }] }) // air supply
    }
    // vanilla ServerPlayer.onEffectAdded / onEffectRemoved: the player's own client is told
    if (h.wither > h.sentWither) {
      p._client.write('entity_effect', { entityId: p.id, effectId: WITHER_EFFECT, amplifier: 0, duration: h.wither, hideParticles: EFFECT_SHOWN })
    } else if (h.wither === 0 && h.sentWither > 0) {
      p._client.write('remove_entity_effect', { entityId: p.id, effectId: WITHER_EFFECT })
    }
    h.sentWither = h.wither
    if (h.poison > h.sentPoison) {
      p._client.write('entity_effect', { entityId: p.id, effectId: POISON_EFFECT, amplifier: 0, duration: h.poison, hideParticles: EFFECT_SHOWN })
    } else if (h.poison === 0 && h.sentPoison > 0) {
      p._client.write('remove_entity_effect', { entityId: p.id, effectId: POISON_EFFECT })
    }
    h.sentPoison = h.poison
    for (const [key, sent, id] of [['slowness', 'sentSlowness', SLOWNESS_EFFECT], ['weakness', 'sentWeakness', WEAKNESS_EFFECT]]) {
      if (h[key] > h[sent]) {
        p._client.write('entity_effect', { entityId: p.id, effectId: id, amplifier: 0, duration: h[key], hideParticles: EFFECT_SHOWN })
      } else if (h[key] === 0 && h[sent] > 0) {
        p._client.write('remove_entity_effect', { entityId: p.id, effectId: id })
      }
      h[sent] = h[key]
    }
  }
  // a campfire is lit unless its `lit` property says not (the default state is lit)
  const lit = (s) => Block.fromStateId(s.id, 0).getProperties().lit !== false

  // the blocks the player stands on and in, as vanilla Entity.move (handled before the tick):
  // Block.stepOn for the block stood on, Block.entityInside for those the box overlaps
  function blockContact (p, h, world, pos, moved) {
    // vanilla MagmaBlock.stepOn: 1 a tick to one on the ground, unless crouching (isSteppingCarefully)
    if (p.onGround && !(h.flags & CROUCHING)) {
      const on = stateAt(world, pos.x, pos.y - ON_POS, pos.z)
      if (on && on.block && on.block.name === 'magma_block') hurt(p, 1, 'hotFloor')
    }
    if (p.health > 0 && touching(world, pos, n => n === 'cactus')) hurt(p, 1, 'cactus') // vanilla CactusBlock.entityInside
    // vanilla SweetBerryBushBlock.entityInside: a grown bush (age above 0) pricks a player moving in it
    const bush = moved && touching(world, pos, (n, s) => n === 'sweet_berry_bush' && s.id > s.block.minStateId)
    if (bush && p.health > 0) hurt(p, 1, 'sweetBerryBush')
    // vanilla CampfireBlock.entityInside: a lit one; 7/16 tall, so one standing on it is in its cell
    const campfire = touching(world, pos, (n, s) => n in CAMPFIRE_DAMAGE && lit(s))
    if (campfire && p.health > 0) hurt(p, CAMPFIRE_DAMAGE[campfire], 'inFire')
    // vanilla WitherRoseBlock.entityInside (not on peaceful): the effect renewed to 40 ticks
    // when shorter (MobEffectInstance.update)
    if (serv.difficulty !== 0 && touching(world, pos, n => n === 'wither_rose')) h.wither = Math.max(h.wither, WITHER_ROSE_TICKS)
  }

  // one tick of one player: vanilla Entity.move's block contact, Entity.baseTick, LivingEntity.baseTick
  // (its effects), Entity.move's fire checks
  function tickPlayer (p) {
    const h = hazardOf(p)
    if (p.health <= 0) return
    const pos = p.position
    const moved = !!h.was && (Math.abs(pos.x - h.was.x) >= BERRY_MOVE || Math.abs(pos.z - h.was.z) >= BERRY_MOVE)
    h.was = { x: pos.x, z: pos.z }
    if (p.gameMode === 1 || p.gameMode === 3) {
      Object.assign(h, { air: MAX_AIR, fire: -FIRE_IMMUNE_TICKS, fall: 0, wither: 0, poison: 0, slowness: 0, weakness: 0 })
      show(p, h)
      return
    }
    const world = p.world
    blockContact(p, h, world, pos, moved)
    // vanilla LivingEntity.tickEffects, MobEffectInstance.tick: Wither I hurts 1 whenever its
    // ticks left are a multiple of 40; a rose renews it to 40 each tick, so in one it hurts
    // every tick (every 10 with the hurt immunity) and after it no more
    if (h.wither > 0) {
      if (h.wither % WITHER_INTERVAL === 0 && p.health > 0) hurt(p, 1, 'wither')
      h.wither--
    }
    // vanilla PoisonMobEffect: 1 whenever its ticks left are a multiple of 25, never below 1 health
    if (h.poison > 0) {
      if (h.poison % POISON_INTERVAL === 0 && p.health > 1) hurt(p, 1, 'magic')
      h.poison--
    }
    if (h.slowness > 0) h.slowness-- // the client slows itself (its physics reads the effect)
    if (h.weakness > 0) h.weakness--
    if (h.fire > 0) { // burning: 1 every 20 ticks
      if (h.fire % 20 === 0) hurt(p, 1, 'onFire')
      h.fire--
    }
    const lava = touching(world, pos, n => n === 'lava')
    if (lava && p.health > 0) { // vanilla Entity.lavaHurt
      h.fire = Math.max(h.fire, LAVA_FIRE_TICKS)
      hurt(p, 4, 'lava')
      h.fall *= 0.5
    }
    if (p.health > 0 && inWall(world, pos)) hurt(p, 1, 'inWall')
    if (p.health > 0 && eyeInWater(world, pos)) { // vanilla LivingEntity.baseTick: drowning
      h.air--
      if (h.air === -20) {
        h.air = 0
        hurt(p, 2, 'drown')
      }
    } else if (h.air < MAX_AIR) h.air = Math.min(MAX_AIR, h.air + 4)
    const fire = touching(world, pos, n => n === 'fire' || n === 'soul_fire')
    if (fire && p.health > 0) { // vanilla BaseFireBlock.entityInside
      h.fire++
      if (h.fire === 0) h.fire = FIRE_BLOCK_TICKS
      hurt(p, FIRE_DAMAGE[fire], 'inFire')
    } else if (!lava && h.fire <= 0) h.fire = -FIRE_IMMUNE_TICKS
    if (h.fire > 0 && inWater(world, pos)) h.fire = -FIRE_IMMUNE_TICKS // water puts it out
    show(p, h)
  }

  serv.on('tick', () => {
    for (const p of serv.players) {
      try { tickPlayer(p) } catch (err) { serv.err && serv.err(`[life] hazards ${p.username}: ${err && err.stack}`) }
    }
  })

  // vanilla Entity.checkFallDamage / LivingEntity.causeFallDamage, from the client's moves:
  // the fall distance sums the drops of the moves in the air (not the landing move's:
  // 9.67 for a drop of 10.5 blocks); landing hurts ceil(distance - 3); water and climbing
  // reset it. As vanilla (ServerGamePacketListenerImpl.awaitingPositionFromClient), moves
  // sent before the client confirmed every position packet sent to it (teleports, the
  // respawn, the login's) are stale (fixes/teleport_confirm.js cancels them: they never come here),
  // and a jump of more than 10 blocks in one move is no move: neither counts. flying-squid
  // handles a move asynchronously, so a stale one can come after the confirm: after it,
  // moves are measured from the position sent and only once one near it came. The drop is
  // from the last move seen here: p.position may lag behind.
  life.fallMove = (p, { position, onGround, teleport }) => {
    const h = hazardOf(p)
    if (teleport) { h.fall = 0; return } // the server's own move
    if (h.answering) {
      if (position.distanceTo(h.last) > NEAR_SENT) { h.fall = 0; return }
      h.answering = false
    }
    const last = h.last || p.position
    h.last = position.clone()
    if (p.gameMode === 1 || p.gameMode === 3 || p.health <= 0) { h.fall = 0; return }
    const dx = position.x - last.x; const dy = position.y - last.y; const dz = position.z - last.z
    if (dx * dx + dy * dy + dz * dz > 100) return // vanilla: "moved too quickly", not a move
    const feet = stateAt(p.world, position.x, position.y, position.z)
    if (inWater(p.world, position) || (feet && feet.block && CLIMBABLE.has(feet.block.name))) { h.fall = 0; return }
    if (onGround) {
      const distance = h.fall
      h.fall = 0
      // what a landing does to the block under it (crops.js: farmland trampled)
      if (distance > 0) serv.emit('pepa_landed', { world: p.world, position, distance, player: true, width: 0.6, height: 1.8 })
      const damage = Math.ceil(distance - 3)
      if (damage > 0) hurt(p, damage, 'fall', { distance })
    } else if (dy < 0) h.fall -= dy
  }

  const player = (name) => {
    const p = serv.getPlayer(name)
    if (!p) throw new Error(`no such player: ${name}`)
    return p
  }
  // a finite number within [lo, hi], or an error reply
  const bounded = (what, value, lo, hi) => {
    const n = Number(value)
    if (value === null || typeof value === 'boolean' || !Number.isFinite(n)) throw new Error(`${what} must be a finite number, not ${JSON.stringify(value)}`)
    return Math.max(lo, Math.min(hi, n))
  }
  // a mob's poison (a cave spider's bite): the effect renewed to at least `ticks`
  life.poison = (p, ticks) => { const h = hazardOf(p); h.poison = Math.max(h.poison, ticks) }
  life.effects = (p) => { const h = hazardOf(p); return { poison: h.poison, slowness: h.slowness, weakness: h.weakness } }
  // vanilla ThrownPotion.applySplash: every player within 4 blocks of where a splash potion broke
  // (16 > distance squared), at intensity 1 if it hit them, else 1 - distance / 4; harming hurts
  // (int)(intensity x 6 + 0.5) as magic from the thrower, bypassing armour; an effect lasts
  // (int)(intensity x its ticks + 0.5), if over 20
  life.splash = (world, at, potion, direct, thrower) => {
    for (const p of serv.players) {
      if (p.world !== world || p.gameMode === 1 || p.gameMode === 3 || p.health <= 0) continue
      const d2 = at.distanceSquared(p.position)
      if (d2 >= 16 || Math.abs(at.y - p.position.y) > 3.8) continue
      const intensity = p === direct ? 1 : 1 - Math.sqrt(d2) / 4
      if (potion === 'harming') {
        const amount = Math.floor(intensity * 6 + 0.5)
        if (amount > 0) hurt(p, amount, 'indirectMagic', { attacker: thrower })
        continue
      }
      const [key, ticks] = POTIONS[potion] || []
      const n = Math.floor(intensity * ticks + 0.5)
      if (key && n > 20) hazardOf(p)[key] = Math.max(hazardOf(p)[key], n)
    }
    life.splashes = [...(life.splashes || []).slice(-19), { potion, at: { x: at.x, y: at.y, z: at.z }, direct: direct ? direct.username : null, tick: life.tick }]
  }
  life.ops.hazards = ({ player: name, air, fire, invulnerable, wither, poison, slowness, weakness }) => {
    const p = player(name)
    const h = hazardOf(p)
    // vanilla ranges: air -20..300 (drowning wraps at -20), fire ticks -20 (not burning,
    // just out of a fire) to a short's top, spawn invulnerability 0..60 ticks, Wither 0 (none)
    // to /effect's longest
    const set = {
      air: air !== undefined ? Math.round(bounded('air', air, -20, MAX_AIR)) : undefined,
      fire: fire !== undefined ? Math.round(bounded('fire', fire, -FIRE_IMMUNE_TICKS, 32767)) : undefined,
      invulnerable: invulnerable !== undefined ? Math.round(bounded('invulnerable', invulnerable, 0, SPAWN_INVULNERABLE_TICKS)) : undefined,
      wither: wither !== undefined ? Math.round(bounded('wither', wither, 0, WITHER_MAX)) : undefined,
      poison: poison !== undefined ? Math.round(bounded('poison', poison, 0, WITHER_MAX)) : undefined,
      slowness: slowness !== undefined ? Math.round(bounded('slowness', slowness, 0, WITHER_MAX)) : undefined,
      weakness: weakness !== undefined ? Math.round(bounded('weakness', weakness, 0, WITHER_MAX)) : undefined
    }
    if (set.air !== undefined) h.air = set.air
    if (set.fire !== undefined) h.fire = set.fire
    if (set.invulnerable !== undefined) p._lifeInvulnerableUntil = life.tick + set.invulnerable
    if (set.wither !== undefined) h.wither = set.wither
    if (set.poison !== undefined) h.poison = set.poison
    if (set.slowness !== undefined) h.slowness = set.slowness
    if (set.weakness !== undefined) h.weakness = set.weakness
    const worn = armourOf(p)
    const use = p._lifeUse || {}
    return {
      tick: life.tick, health: p.health, air: h.air, fire: h.fire, fall: h.fall, armour: worn.armour, toughness: worn.toughness,
      invulnerable: Math.max(0, (p._lifeInvulnerableUntil ?? 0) - life.tick), flags: h.sentFlags, wither: h.wither, poison: h.poison, slowness: h.slowness, weakness: h.weakness,
      worn: worn.worn.map(w => ({ name: w.item.name, durabilityUsed: w.item.durabilityUsed || 0 })),
      blocking: use.hand !== null && use.hand !== undefined, shieldBlocks: life.shieldBlocks || 0, lastDamage: p._lifeLastDamage || null
    }
  }
  life.ops.explosions = ({ breakBlocks }) => {
    if (breakBlocks !== undefined) life.explosionsBreakBlocks = !!breakBlocks
    return { breakBlocks: life.explosionsBreakBlocks }
  }
}

module.exports.player = function (player, serv) {
  const life = lifeOf(serv)
  watchPlayer(player, life)
  const h = hazardOf(player)
  // a respawn starts with full air, not burning, not falling (its position packet is confirmed
  // below), with no effects (the client drops its own at the respawn)
  player.on('requestRespawn', () => Object.assign(h, { air: MAX_AIR, fire: -FIRE_IMMUNE_TICKS, fall: 0, wither: 0, sentWither: 0, poison: 0, sentPoison: 0, slowness: 0, sentSlowness: 0, weakness: 0, sentWeakness: 0 }))
  // every position packet to the client (teleports, respawn, login) confirmed: the next
  // moves are measured from the last one (fixes/teleport_confirm.js counts them)
  player.on('pepa_teleports_confirmed', (sent) => Object.assign(h, { last: sent, answering: true, fall: 0 }))
  player._client.on('entity_action', ({ actionId }) => {
    const change = ACTION_FLAGS[actionId]
    if (!change) return
    const flags = change[1] ? h.flags | change[0] : h.flags & ~change[0]
    if (flags === h.flags) return
    h.flags = flags
    life.showFlags(player, h)
  })
  player.on('move', (move, cancelled) => {
    if (cancelled) return // the player did not move (a stale move: fixes/teleport_confirm.js)
    try { life.fallMove(player, move) } catch (err) { serv.err && serv.err(`[life] fall ${player.username}: ${err && err.stack}`) }
  })
}
