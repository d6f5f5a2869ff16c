'use strict'
// What the scenario's operations share: the server, its registry, and the helpers that read
// an operation's arguments (a player by name, a block state by name, a position).
const { Vec3 } = require('vec3')

// the minecraft-data entity types of mobs ('mob' up to 1.16.5; then also these)
const LIVING = new Set(['mob', 'hostile', 'passive', 'animal', 'ambient', 'water_creature'])
const LOGIN_WITHIN_MS = 10000

function context (serv) {
  const { registry } = serv
  const player = (name) => {
    const p = serv.getPlayer(name)
    if (!p) throw new Error(`no such player: ${name}`)
    return p
  }
  const Block = require('prismarine-block')(registry)
  // a block's state by name, its default or the one with these properties ({age: 3})
  const blockState = (name, properties) => {
    const b = registry.blocksByName[name]
    if (!b) throw new Error(`no such block: ${name}`)
    if (!properties) return b.defaultState
    if (typeof properties !== 'object' || Array.isArray(properties)) throw new Error(`properties of ${name} must be an object`)
    const block = Block.fromProperties(b.id, properties, 0)
    if (!Number.isInteger(block.stateId)) throw new Error(`${name} has no state ${JSON.stringify(properties)}`)
    return block.stateId
  }
  return {
    serv,
    registry,
    Item: require('prismarine-item')(registry),
    player,
    blockState,
    // the world an operation acts in: its player's, else the overworld
    worldOf: (a) => (a.player ? player(a.player).world : serv.overworld),
    // up to 1.10 minecraft-data names entities in CamelCase (Zombie, Item): found either way
    entityNamed: (name) => registry.entitiesByName[name] ||
      registry.entitiesArray.find(e => e.name.toLowerCase() === String(name).toLowerCase()),
    // flying-squid's login ends by putting the player back where it joined: wait for that
    // (fixes/login.js, player._pepaReady) before moving a player, at most LOGIN_WITHIN_MS
    settled: (p) => Promise.race([p._pepaReady, new Promise(resolve => setTimeout(resolve, LOGIN_WITHIN_MS))])
  }
}

const num = (v, d) => (v === undefined || v === null ? d : Number(v))
const vec = (o) => new Vec3(Number(o.x), Number(o.y), Number(o.z))
const pos = (p) => ({ x: p.x, y: p.y, z: p.z })

module.exports = { context, num, vec, pos, LIVING }
