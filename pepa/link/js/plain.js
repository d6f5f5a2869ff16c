'use strict'
// What Python is told of, as plain JSON-able values (bot_helper.js's rule: no Vec3 or Entity
// ever crosses the bridge): rounded numbers, positions, entities.
const CREEPER_STATE = 15 // the creeper's swell-direction metadata index in 1.16.5
const r1 = (v) => Math.round(v * 10) / 10
const r2 = (v) => Math.round(v * 100) / 100
const vxyz = (p) => (p ? { x: r2(p.x), y: r2(p.y), z: r2(p.z) } : null)

const hostile = (e) => e.type === 'hostile' || e.kind === 'Hostile mobs'
const ON_FIRE = 0x01 // the entity's shared flags (metadata 0, vanilla Entity.DATA_SHARED_FLAGS_ID): on fire
const onFire = (e) => ((e.metadata && typeof e.metadata[0] === 'number' ? e.metadata[0] : 0) & ON_FIRE) !== 0
// minecraft-data's categories and mineflayer's types of what is not a creature: items on the
// ground, experience orbs, arrows, boats and minecarts, paintings, falling blocks
const THINGS = new Set(['Drops', 'Projectiles', 'Vehicles', 'Immobile', 'Blocks'])
const THING_TYPES = new Set(['object', 'orb', 'projectile', 'other', 'global'])
// What the snapshot and the entities events tell Python of: players, hostiles and other
// creatures (pepa.world.view.Entity reads nothing else). Things are left out: with bots at
// work, items came and went several times a second, an event and a snapshot each.
const creature = (e) => e.type === 'player' || hostile(e) || !(THINGS.has(e.kind) || THING_TYPES.has(e.type))

function entityInfo (e, from) {
  return {
    id: e.id,
    name: e.name || e.username || null,
    username: e.username || null,
    type: e.type || null, // 'player' | 'hostile' | 'passive' | 'mob' | 'object' | ...
    kind: e.kind || null, // minecraft-data category, e.g. 'Hostile mobs'
    distance: from && e.position ? r1(from.distanceTo(e.position)) : null,
    position: vxyz(e.position),
    // a creeper's fuse: metadata 15 is its swell direction (vanilla 1.16.5 CreeperEntity.STATE: -1 idle, 1 lit)
    swelling: e.name === 'creeper' ? !!(e.metadata && e.metadata[CREEPER_STATE] === 1) : undefined
  }
}

module.exports = { r1, r2, vxyz, hostile, onFire, creature, entityInfo }
