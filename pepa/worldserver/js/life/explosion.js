'use strict'
// A vanilla 1.16 explosion (Explosion.explode + finalizeExplosion), for creepers:
//  - blocks: 16x16x16 rays from the centre, each with intensity
//    power * (0.7..1.3), stepping 0.3 blocks, losing (resistance + 0.3) * 0.3
//    in every non-air block and 0.225 per step; a block is destroyed while the
//    intensity stays positive (resistance from minecraft-data);
//  - entities within 2 * power: impact = (1 - distance / (2 power)) * exposure,
//    damage = floor((impact^2 + impact) / 2 * 7 * 2 power + 1), scaled by
//    difficulty for players; knocked away by impact blocks/tick.
// A player's damage goes through combat.hurtPlayer as 'explosion' with the
// source (the creeper) as attacker: armour and a raised shield facing it count.
// Exposure is sampled on a 2x3x2 grid of the target's box (vanilla: finer).
// Destroyed blocks drop nothing (vanilla: each drops with chance 1 / power).
// life.explosionsBreakBlocks false (the profile's explosionsBreakBlocks, the
// control op `explosions {breakBlocks}`) keeps every block (vanilla: the
// mobGriefing game rule false).
const { Vec3 } = require('vec3')
const { hurtPlayer } = require('./combat')

function blastedBlocks (view, world, center, power, random) {
  const out = new Map()
  for (let i = 0; i < 16; i++) {
    for (let j = 0; j < 16; j++) {
      for (let k = 0; k < 16; k++) {
        if (i !== 0 && i !== 15 && j !== 0 && j !== 15 && k !== 0 && k !== 15) continue
        let dx = i / 15 * 2 - 1; let dy = j / 15 * 2 - 1; let dz = k / 15 * 2 - 1
        const len = Math.hypot(dx, dy, dz)
        dx /= len; dy /= len; dz /= len
        let f = power * (0.7 + random() * 0.6)
        let x = center.x; let y = center.y; let z = center.z
        while (f > 0) {
          const bx = Math.floor(x); const by = Math.floor(y); const bz = Math.floor(z)
          const b = view.block(world, bx, by, bz)
          if (!b) break
          const isAir = b.name === 'air' || b.name === 'cave_air' || b.name === 'void_air'
          if (!isAir) f -= ((b.resistance ?? 0) + 0.3) * 0.3
          if (f > 0 && !isAir) out.set(`${bx},${by},${bz}`, new Vec3(bx, by, bz))
          x += dx * 0.3; y += dy * 0.3; z += dz * 0.3
          f -= 0.22500001
        }
      }
    }
  }
  return [...out.values()]
}

function exposure (view, world, center, pos, hw, h) {
  let seen = 0; let total = 0
  for (const fx of [-hw, hw]) {
    for (const fy of [0.1, h / 2, h - 0.1]) {
      for (const fz of [-hw, hw]) {
        total++
        if (view.lineOfSight(world, pos.offset(fx, fy, fz), center)) seen++
      }
    }
  }
  return seen / total
}

// targets: [{ entity, hurt(amount, from), push(dx, dy, dz) }] for mobs; players are found here;
// source: the exploding entity (a creeper), or null
async function explode (serv, life, view, { world, center, power, source = null, mobs = [] }) {
  const radius = power * 2
  const motions = new Map() // player -> knockback (blocks/tick)
  for (const p of serv.players) {
    if (p.world !== world || p.gameMode !== 0 || p.health <= 0) continue
    const d = p.position.distanceTo(center) / radius
    if (d > 1) continue
    const impact = (1 - d) * exposure(view, world, center, p.position, 0.3, 1.8)
    const dir = p.position.offset(0, 1.62, 0).minus(center)
    const len = dir.norm() || 1
    hurtPlayer(serv, life, p, Math.floor((impact * impact + impact) / 2 * 7 * radius + 1), {
      from: center, cause: { type: 'explosion', attacker: source }
    })
    motions.set(p, dir.scaled(impact / len))
  }
  for (const m of mobs) {
    const d = m.entity.position.distanceTo(center) / radius
    if (d > 1) continue
    const impact = (1 - d) * exposure(view, world, center, m.entity.position, m.hw, m.h)
    const dir = m.entity.position.minus(center)
    const len = dir.norm() || 1
    m.hurt(Math.floor((impact * impact + impact) / 2 * 7 * radius + 1), center)
    m.push(dir.x / len * impact, dir.y / len * impact, dir.z / len * impact)
  }
  const blocks = life.explosionsBreakBlocks === false ? [] : blastedBlocks(view, world, center, power, life.random)
  const base = center.floored()
  for (const p of serv.players) {
    if (p.world !== world || p.position.distanceTo(center) > 64) continue
    const m = motions.get(p) || new Vec3(0, 0, 0)
    p._client.write('explosion', {
      x: center.x, y: center.y, z: center.z, radius: power,
      affectedBlockOffsets: blocks.map(b => ({ x: b.x - base.x, y: b.y - base.y, z: b.z - base.z })),
      playerMotionX: m.x, playerMotionY: m.y, playerMotionZ: m.z
    })
  }
  for (const b of blocks) await serv.setBlock(world, b, 0)
  return { blocks: blocks.length, players: motions.size }
}

module.exports = { explode, blastedBlocks }
