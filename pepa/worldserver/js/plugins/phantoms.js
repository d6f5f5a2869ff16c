'use strict'
// Phantoms come to those who do not sleep: vanilla 1.16.5's PhantomSpawner. A
// survival player's time since rest (the TIME_SINCE_REST statistic) counts up
// every tick while alive and is reset by lying in a bed and by dying. Every
// 60..119 seconds of game time, at night (the sky darkened by 5 or more), for
// each survival player at or above sea level under open sky, with a chance of
// difficulty / 3 (vanilla: the local difficulty against random(3)), if
// random(time since rest) >= 72000 (three days and nights awake): 1 to
// difficulty + 1 phantoms spawn 20..34 blocks above her, within 10 across,
// where there is air. Phantoms fly and swoop (life/brains.js phantom). Vanilla
// world only.
//
// Control op: rest {player, ticks?, tryIn?} → {ticks, phantomsSpawned, nextTry}: the time since
// rest, read or set; tryIn: the next spawning try that many ticks from now.
const { Vec3 } = require('vec3')
const { lifeOf } = require('../life/state')
const blockView = require('../life/blocks')
const { SEA_LEVEL } = require('../vanilla/land')

const AWAKE = 72000

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { registry } = serv
  const view = blockView(registry)
  let next = 0
  const restOf = (p) => p._lifeRest || 0

  serv.on('tick', () => {
    for (const p of serv.players) {
      if (p.gameMode !== 0 || p.health <= 0 || p._pepaSleeping) { if (p.health <= 0 || p._pepaSleeping) p._lifeRest = 0; continue }
      p._lifeRest = restOf(p) + 1
    }
    if (life.terrain !== 'vanilla' || !life.skyDarken) return
    if (--next > 0) return
    next += (60 + life.int(60)) * 20
    if (life.skyDarken() < 5 || serv.difficulty === 0) return
    for (const p of serv.players) {
      if (p.gameMode !== 0 || p.health <= 0) continue
      const x = Math.floor(p.position.x); const y = Math.floor(p.position.y); const z = Math.floor(p.position.z)
      if (y < SEA_LEVEL || !view.canSeeSky(p.world, x, y + 1, z)) continue
      if (!(life.random() * 3 < serv.difficulty)) continue
      if (life.int(Math.max(1, restOf(p))) < AWAKE) continue
      spawnOver(p, 1 + life.int(serv.difficulty + 1))
    }
  })

  function spawnOver (p, n) {
    const at = p.position.floored().offset(-10 + life.int(21), 20 + life.int(15), -10 + life.int(21))
    const b = view.block(p.world, at.x, at.y, at.z)
    if (!b || b.boundingBox !== 'empty') return 0
    let made = 0
    for (let i = 0; i < n; i++) {
      try {
        const e = serv.spawnMob(registry.entitiesByName.phantom.id, p.world, new Vec3(at.x + 0.5, at.y, at.z + 0.5), { yaw: life.int(256) - 128 })
        e._lifeNatural = true
        made++
      } catch (err) { break } // flying-squid's max-entities
    }
    life.phantomsSpawned = (life.phantomsSpawned || 0) + made
    return made
  }

  life.ops.rest = ({ player: name, ticks, tryIn }) => {
    const p = serv.players.find(pl => pl.username === name)
    if (!p) throw new Error(`no player ${JSON.stringify(name)}`)
    if (ticks !== undefined) {
      const n = Number(ticks)
      if (!Number.isInteger(n) || n < 0) throw new Error(`ticks must be a whole number >= 0, not ${JSON.stringify(ticks)}`)
      p._lifeRest = n
    }
    if (tryIn !== undefined) next = Math.max(1, Math.round(Number(tryIn)) || 1) // the next try, in ticks (tests)
    return { ticks: restOf(p), phantomsSpawned: life.phantomsSpawned || 0, nextTry: next }
  }
}

// vanilla ServerPlayer.die resets TIME_SINCE_REST: a respawn follows a death
module.exports.player = function (player) {
  player.on('requestRespawn', () => { player._lifeRest = 0 })
}
