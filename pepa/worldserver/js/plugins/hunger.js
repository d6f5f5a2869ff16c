'use strict'
// Hunger, as vanilla 1.16 FoodData and Player.causeFoodExhaustion:
//   exhaustion: sprinting 0.1 per metre, jumping 0.05 (sprint-jumping 0.2),
//   attacking 0.1, taking damage 0.1, healing 6.0 per health point, breaking
//   a block 0.005 (plugins/drops.js); walking, sneaking and standing cost
//   nothing. Capped at 40.
//   At exhaustion > 4: -4, then one saturation point, or one food point when
//   saturation is empty (not in peaceful).
//   Natural regeneration: food 20 with saturation -> heal min(sat, 6) / 6 every
//   10 ticks; food >= 18 -> heal 1 every 80 ticks (6 exhaustion a point).
//   Starvation: food 0 -> 1 damage every 80 ticks, down to 10 hp on easy,
//   1 hp on normal, to death on hard.
// Eating itself is a fix every world has (fixes/eating.js: minecraft-data
// foodPoints and saturation, 32 ticks).
// Swimming (0.01 per metre) is not counted: the server does not track water
// around players.
// Control ops: hunger_scale {factor} (exhaustion and the food timers run that
// many times faster), hunger {player}.
const { lifeOf } = require('../life/state')
const { hurtPlayer } = require('../life/combat')

const SPRINT_PER_METRE = 0.1
const JUMP = 0.05
const SPRINT_JUMP = 0.2
const ATTACK = 0.1
const DAMAGE = 0.1
const HEAL = 6.0

function hungerOf (p) {
  if (!p._lifeHunger) p._lifeHunger = { exhaustion: 0, timer: 0, sprinting: false, spared: 0, starved: 0 }
  return p._lifeHunger
}

function exhaust (life, p, amount) {
  const h = hungerOf(p)
  h.exhaustion = Math.min(h.exhaustion + amount * life.hungerScale, 40)
}

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  life.exhaust = (p, amount) => exhaust(life, p, amount)

  function foodTick (p) {
    const h = hungerOf(p)
    const difficulty = serv.difficulty
    let food = p.food
    let sat = p.foodSaturation ?? 5
    let health = p.health
    if (h.exhaustion > 4) {
      h.exhaustion -= 4
      if (sat > 0) sat = Math.max(sat - 1, 0)
      else if (difficulty !== 0) food = Math.max(food - 1, 0)
    }
    const hurt = health > 0 && health < 20
    if (sat > 0 && hurt && food >= 20) {
      h.timer += life.hungerScale
      if (h.timer >= 10) {
        const f = Math.min(sat, 6)
        health = Math.min(20, health + f / 6)
        exhaust(life, p, f)
        h.timer = 0
      }
    } else if (hurt && food >= 18) {
      h.timer += life.hungerScale
      if (h.timer >= 80) {
        health = Math.min(20, health + 1)
        exhaust(life, p, HEAL)
        h.timer = 0
      }
    } else if (food <= 0) {
      h.timer += life.hungerScale
      if (h.timer >= 80) {
        h.timer = 0
        if (health > 10 || difficulty === 3 || (health > 1 && difficulty === 2)) {
          h.starved++
          starve(p)
          return
        }
        h.spared++ // the difficulty floor held
      }
    } else h.timer = 0
    if (food !== p.food || sat !== p.foodSaturation || health !== p.health) {
      p.food = food
      p.foodSaturation = sat
      p.updateHealth(health) // sends update_health with food and saturation
    }
  }

  // through the damage funnel: starvation bypasses armour and costs no exhaustion; no knockback
  function starve (p) {
    hurtPlayer(serv, life, p, 1, { strength: 0, cause: { type: 'starve' } })
  }

  serv.on('tick', () => {
    for (const p of serv.players) {
      if (!p._lifeSpawned) continue
      const h = hungerOf(p)
      if (p.health <= 0) { h.dead = true; continue }
      if (h.dead) { h.dead = false; h.exhaustion = 0; h.timer = 0 } // respawned
      if (p.gameMode === 0) foodTick(p)
    }
  })

  const player = (name) => {
    const p = serv.getPlayer(name)
    if (!p) throw new Error(`no such player: ${name}`)
    return p
  }
  life.ops.hunger_scale = ({ factor = 1 }) => {
    life.hungerScale = Math.max(0, Number(factor))
    return { factor: life.hungerScale }
  }
  life.ops.hunger = ({ player: name }) => {
    const p = player(name)
    const h = hungerOf(p)
    return {
      food: p.food, saturation: p.foodSaturation, health: p.health, exhaustion: h.exhaustion,
      sprinting: h.sprinting, starved: h.starved, spared: h.spared
    }
  }
}

module.exports.player = function (player, serv) {
  const life = lifeOf(serv)
  const h = hungerOf(player)
  player.once('spawned', () => {
    // flying-squid never sets saturation: vanilla starts a player at 5
    if (player.foodSaturation === undefined) player.foodSaturation = 5
    player._lifeSpawned = true
    player.updateHealth(player.health)
  })
  player._client.on('entity_action', ({ actionId }) => {
    if (actionId === 'start_sprinting' || actionId === 3) h.sprinting = true
    if (actionId === 'stop_sprinting' || actionId === 4) h.sprinting = false
  })
  // vanilla ServerGamePacketListenerImpl: a move that leaves the ground upwards is a jump;
  // sprinting costs by the horizontal distance (in whole centimetres)
  player.on('move', ({ position, onGround, teleport }, cancelled) => {
    if (cancelled || teleport || player.gameMode !== 0 || player.health <= 0) return // (a stale move)
    const from = player.position
    const dx = position.x - from.x
    const dz = position.z - from.z
    const dist = Math.hypot(dx, dz)
    if (dist > 10) return // a teleport confirmation, not a walk
    if (player.onGround && !onGround && position.y > from.y) exhaust(life, player, h.sprinting ? SPRINT_JUMP : JUMP)
    if (h.sprinting && dist > 0) exhaust(life, player, SPRINT_PER_METRE * Math.round(dist * 100) / 100)
  })
  player.on('attack', () => exhaust(life, player, ATTACK))
  const takeDamage = player.takeDamage
  player.takeDamage = (opts) => {
    if (player.gameMode === 0 && player.health > 0) exhaust(life, player, DAMAGE)
    return takeDamage(opts)
  }
}
