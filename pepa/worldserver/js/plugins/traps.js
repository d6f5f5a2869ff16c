'use strict'
// Traps (docs/sandbox-life.md "Damage and hazards"): a block cell armed by a control op,
// typically where the caller set a stone_pressure_plate or a tripwire, that springs once
// when a survival or adventure player's feet come into it. flying-squid has no redstone to wire a real
// trap (vanilla pistons pulling the floor away, a dispenser, a tripwire hook dropping
// sand): the effect is done here, and the damage is the world's own (hazards.js falls and
// suffocation).
//   pit: the 3x3 columns under the trigger, `depth` blocks down, and the trigger itself
//        become air: the player falls `depth` blocks onto whatever the caller put below;
//   gravel: the player's column, from the feet four blocks up, and the eight cells round
//        its feet and head become gravel: buried, as under the falling gravel of a
//        tripwire trap.
//
// Control ops: trap {x, y, z, effect, depth?=20, player?} → {id}: arms one (`player` names
// the world, else the overworld); traps → {armed: [{id, x, y, z, effect, depth}],
// fired: [{id, x, y, z, effect, depth, player, tick}]} (the last 100); clear_traps →
// {cleared}: disarms every armed trap.
const { Vec3 } = require('vec3')
const { lifeOf } = require('../life/state')

const EFFECTS = ['pit', 'gravel']
const DEPTH = { min: 2, max: 60, default: 20 }
const GRAVEL_HEIGHT = 4 // the buried column: the feet cell and three above
const FIRED_KEPT = 100
const BORDER = 30000000 // vanilla's world border, blocks from the origin

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const armed = new Map() // "x,y,z" -> trap: a player's feet cell is one lookup
  let fired = []
  let ids = 0

  const player = (name) => {
    const p = serv.getPlayer(name)
    if (!p) throw new Error(`no such player: ${name}`)
    return p
  }
  // an integer within [lo, hi], or an error reply
  const integer = (what, value, lo, hi) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`${what} must be an integer, not ${JSON.stringify(value)}`)
    if (value < lo || value > hi) throw new Error(`${what} must be ${lo} to ${hi}, not ${value}`)
    return value
  }

  const shown = ({ id, x, y, z, effect, depth }) => ({ id, x, y, z, effect, depth })
  const state = (name) => serv.registry.blocksByName[name].defaultState
  async function spring (t) {
    const { world, x, y, z } = t
    const set = (dx, dy, dz, stateId) => serv.setBlock(world, new Vec3(x + dx, y + dy, z + dz), stateId)
    if (t.effect === 'pit') {
      const air = state('air')
      await set(0, 0, 0, air)
      for (let dy = -1; dy >= -t.depth; dy--) { // top down: the player starts falling at once
        for (let dx = -1; dx <= 1; dx++) {
          for (let dz = -1; dz <= 1; dz++) await set(dx, dy, dz, air)
        }
      }
      return
    }
    const gravel = state('gravel')
    for (let dy = 0; dy < GRAVEL_HEIGHT; dy++) await set(0, dy, 0, gravel)
    for (let dy = 0; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        for (let dz = -1; dz <= 1; dz++) if (dx || dz) await set(dx, dy, dz, gravel)
      }
    }
  }

  serv.on('tick', () => {
    if (armed.size === 0) return
    for (const p of serv.players) {
      // survival and adventure players, as the damage funnel hurts
      if (p.health <= 0 || p.gameMode === 1 || p.gameMode === 3) continue
      const key = `${Math.floor(p.position.x)},${Math.floor(p.position.y)},${Math.floor(p.position.z)}`
      const t = armed.get(key)
      if (!t || t.world !== p.world) continue
      armed.delete(key) // once
      fired = [...fired.slice(-(FIRED_KEPT - 1)), { ...shown(t), player: p.username, tick: life.tick }]
      spring(t).catch((err) => serv.err && serv.err(`[life] trap ${t.id} at ${key}: ${err && err.stack}`))
    }
  })

  life.ops.trap = ({ x, y, z, effect, depth = DEPTH.default, player: name }) => {
    if (!EFFECTS.includes(effect)) throw new Error(`effect must be one of ${EFFECTS.join(', ')}, not ${JSON.stringify(effect)}`)
    const world = name !== undefined ? player(name).world : serv.overworld
    const t = {
      id: 0,
      x: integer('x', x, -BORDER, BORDER),
      y: integer('y', y, 0, 255),
      z: integer('z', z, -BORDER, BORDER),
      effect,
      depth: effect === 'pit' ? integer('depth', depth, DEPTH.min, DEPTH.max) : null,
      world
    }
    // every cell it changes inside the world's height
    if (effect === 'pit' && t.y - t.depth < 0) throw new Error(`a pit ${t.depth} deep under y ${t.y} would go below y 0`)
    if (effect === 'gravel' && t.y + GRAVEL_HEIGHT - 1 > 255) throw new Error(`gravel ${GRAVEL_HEIGHT} high over y ${t.y} would go above y 255`)
    const key = `${t.x},${t.y},${t.z}`
    const there = armed.get(key)
    if (there) throw new Error(`trap ${there.id} is already armed at ${key}`)
    t.id = ++ids
    armed.set(key, t)
    return { id: t.id }
  }
  life.ops.traps = () => ({ armed: [...armed.values()].map(shown), fired })
  life.ops.clear_traps = () => {
    const cleared = armed.size
    armed.clear()
    return { cleared }
  }
}
