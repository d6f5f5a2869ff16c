'use strict'
// Husbandry: what players do to farm animals and their pens, after vanilla 1.16.5
// (the animals' own goals and timers: life/herd.js; the rules: life/husbandry.js).
//  - a right click on an animal (use_entity, interact; within 6 blocks, not a spectator)
//    with its food in that hand (AnimalEntity.mobInteract): an adult with no cooldown, not in
//    love, is put in love for 600 ticks; a baby grows by a tenth of what it has left; either
//    way one of the food is eaten (not in creative). Anything else eats nothing;
//  - with shears, on an adult sheep not sheared (SheepEntity.mobInteract, shear): 1..3 wool
//    of its colour drop from it, it is sheared, the shears lose 1 durability (not in
//    creative; entity event 47/48 when they break);
//  - a right click on a fence gate (FenceGateBlock.use) opens it, turned to face the way the
//    player looks if it faced her, or closes it; sneaking with an item in hand does not.
// Control ops: animal {mob}, animals {near?, radius?, name?}, set_animal {mob, age?, love?,
// sheared?, colour?}, husbandry_scale {factor}, husbandry_stats.
const { Vec3 } = require('vec3')
const { lifeOf } = require('../life/state')
const rules = require('../life/husbandry')
const { wear } = require('../life/combat')

const INTERACT = 0 // use_entity's mouse: interact (1 attack, 2 interact at)
const REACH_SQ = 36 // ServerPlayNetHandler.handleInteract
const HAND_BREAKS = [47, 48] // entity events: the main hand's item broke, the off hand's
const DIRECTIONS = ['south', 'west', 'north', 'east'] // Direction.from2DDataValue
const OPPOSITE = { north: 'south', south: 'north', east: 'west', west: 'east' }

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { registry } = serv
  const Block = require('prismarine-block')(registry)
  const itemType = registry.entitiesByName.item.id
  const farmAnimal = (id) => {
    const m = life.mobs && life.mobs.get(Number(id))
    return m && m.farm && !m.dead ? m : null
  }

  // --- a player's click on an animal ----------------------------------------------------------
  life.interactAnimal = (player, target, hand) => {
    const m = farmAnimal(target)
    if (!m || player.gameMode === 3 || player.world !== m.e.world) return null
    if (player.position.distanceSquared(m.e.position) >= REACH_SQ) return null
    const slot = hand === 1 ? 45 : 36 + player.heldItemSlot
    const item = player.inventory.slots[slot]
    if (!item) return null
    const wasBaby = rules.isBaby(m.farm)
    if (item.name === 'shears') {
      const wool = rules.shear(m.e.name, m.farm, life.int)
      if (!wool) return null
      for (let i = 0; i < wool.count; i++) dropWool(m, wool.item)
      life.herd.changed(m, wasBaby)
      if (player.gameMode !== 1) wear(player, slot, 1, HAND_BREAKS[hand === 1 ? 1 : 0])
      const left = player.inventory.slots[slot]
      life.herd.record('sheared', { mob: m.e.id, player: player.username, ...wool, shearsUsed: left && left.name === 'shears' ? left.durabilityUsed || 0 : null })
      return 'shear'
    }
    const done = rules.feed(m.e.name, m.farm, item.name)
    if (!done) return null
    if (player.gameMode !== 1) {
      item.count -= 1
      player.inventory.updateSlot(slot, item.count > 0 ? item : null)
    }
    if (done === 'love') life.herd.event(m, 18) // hearts
    life.herd.changed(m, wasBaby)
    return done
  }

  // vanilla SheepEntity.shear: each wool its own item, a block up, with a small push
  function dropWool (m, name) {
    const it = registry.itemsByName[name]
    const r = life.random
    serv.spawnObject(itemType, m.e.world, m.e.position.offset(0, 1, 0), {
      velocity: new Vec3((r() - r()) * 2, 1 + r(), (r() - r()) * 2),
      itemId: it.id, itemCount: 1, pickupTime: 500, deathTime: 5 * 60 * 1000
    })
  }

  // --- fence gates ---------------------------------------------------------------------------
  function toggleGate ({ block, player }) {
    if (player.gameMode === 3) return false
    if (player.crouching && player.inventory.slots[36 + player.heldItemSlot]) return false
    const props = block.getProperties()
    if (props.open) props.open = false
    else {
      const degrees = (player.yaw || 0) * 360 / 256
      const looking = DIRECTIONS[Math.floor(degrees / 90 + 0.5) & 3]
      if (props.facing === OPPOSITE[looking]) props.facing = looking
      props.open = true
    }
    const state = Block.fromProperties(block.type, props, 0).stateId
    serv.setBlock(player.world, block.position, state)
      .catch((err) => serv.err && serv.err(`[husbandry] the gate at ${block.position}: ${err && err.message}`))
    return true
  }
  serv.once('asap', () => {
    for (const name of Object.keys(registry.blocksByName)) if (name.endsWith('_fence_gate')) serv.onBlockInteraction(name, toggleGate)
  })

  // --- ops -----------------------------------------------------------------------------------
  const xyz = (p) => ({ x: p.x, y: p.y, z: p.z })
  function describe (m) {
    const f = m.farm
    return {
      id: m.e.id, alive: !m.dead, name: m.e.name, baby: rules.isBaby(f), age: f.age, inLove: f.love > 0, love: f.love,
      cooldown: Math.max(0, f.age), sheared: f.sheared, colour: f.colour, health: m.e.health, pos: xyz(m.e.position),
      goal: f.goal, tempter: f.tempter ? f.tempter.username : null, partner: f.partner ? f.partner.e.id : null, tick: life.tick
    }
  }
  const animalOf = (mob) => {
    const m = farmAnimal(mob)
    if (!m) throw new Error(`no live farm animal ${mob}`)
    return m
  }
  life.ops.animal = ({ mob }) => {
    const m = life.mobs && life.mobs.get(Number(mob))
    return m && m.farm ? describe(m) : { id: Number(mob), alive: false }
  }
  life.ops.animals = ({ near, radius = 16, name } = {}) => {
    const at = near ? new Vec3(Number(near.x), Number(near.y), Number(near.z)) : null
    return [...(life.mobs || new Map()).values()]
      .filter(m => m.farm && !m.dead && (!name || m.e.name === name) && (!at || m.e.position.distanceTo(at) <= Number(radius)))
      .map(describe)
  }
  // set_animal {mob, age?, love?, sheared?, colour?}: an animal's state, for tests
  life.ops.set_animal = ({ mob, age, love, sheared, colour }) => {
    const m = animalOf(mob)
    const f = m.farm
    const wasBaby = rules.isBaby(f)
    const int = (v, what) => {
      const n = Number(v)
      if (!Number.isInteger(n)) throw new Error(`${what} must be an integer, not ${JSON.stringify(v)}`)
      return n
    }
    if (age !== undefined) f.age = int(age, 'age')
    if (love !== undefined) f.love = Math.max(0, int(love, 'love'))
    if (sheared !== undefined || colour !== undefined) {
      if (m.e.name !== 'sheep') throw new Error(`a ${m.e.name} has no wool`)
      if (colour !== undefined && !rules.COLOURS.includes(colour)) throw new Error(`no colour ${JSON.stringify(colour)}: one of ${rules.COLOURS.join(', ')}`)
      if (sheared !== undefined) f.sheared = !!sheared
      if (colour !== undefined) f.colour = colour
    }
    life.herd.changed(m, wasBaby)
    return describe(m)
  }
  life.ops.husbandry_scale = ({ factor = 1 }) => {
    const n = Number(factor)
    if (!Number.isFinite(n) || n < 1) throw new Error(`factor must be a number of at least 1, not ${JSON.stringify(factor)}`)
    life.husbandryScale = n
    return { factor: n }
  }
  life.ops.husbandry_stats = () => {
    const s = life.herd ? life.herd.stats : { bred: [], sheared: [], eaten: [] }
    return { scale: life.husbandryScale, bred: s.bred, sheared: s.sheared, eaten: s.eaten }
  }
}

module.exports.player = function (player, serv) {
  const life = lifeOf(serv)
  player._client.on('use_entity', ({ mouse, target, hand } = {}) => {
    if (mouse !== INTERACT || !life.interactAnimal || !life.herd) return
    try {
      life.interactAnimal(player, target, hand)
    } catch (err) {
      serv.err && serv.err(`[husbandry] ${player.username} on ${target}: ${err && err.stack}`)
    }
  })
}
