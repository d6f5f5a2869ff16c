'use strict'
// The scenario's zombie AI, for flat worlds: a mob spawned with {ai: true} walks at the
// nearest survival player within 32 blocks (2.3 blocks a second, straight, no path finding,
// no line of sight) and, within 2 blocks, hits it once a second for its `damage` (3 unless
// spawn_mob said). flying-squid's mobs have none of their own.
//
// Why the sandbox's mob life (plugins/mobs.js, life/) does not do this too: the tests and
// benchmarks that spawn {ai: true} mobs fight in flat worlds, and at every version pepa
// plays — tests/version_matrix.py's fight (test_versions.py at 1.12.2, 1.16.5 and the newest;
// bench/versions.py at each), test_fights.py's flat arena, test_watchdog_fight.py,
// bench/flee.py. The sandbox's life is loaded in sandbox worlds only, which run 1.16.5 only
// (pepa.game.versions), and speaks 1.16.5's packets: a player it kills is sent combat_event
// and a chat line, packets no version from 1.17 (combat_event) or 1.19 (chat) has; its burning
// and natural spawning read the sandbox's day (plugins/daynight.js); its mobs fight by vanilla's
// rules (line of sight, path finding, a reach of 1.43 blocks), which the flat-world fights
// above were not measured with. Where the life runs (serv.pepaLife), this AI steps aside: the
// life drives every mob, {ai: true} makes a mob of no known species chase as a zombie, and
// {ai: false} keeps a mob still.
const { num } = require('./context')

const ZOMBIE_SPEED = 2.3 // blocks / s
const REACH = 2.0
const FOLLOW = 32
const HIT_EVERY_MS = 1000

module.exports = function zombieAi (serv) {
  // one tick of mob `e` (alive, spawned by the scenario), delta seconds since the last
  return function chase (e, delta, now) {
    if (!e.pepaAi || serv.pepaLife) return
    let best = null
    let bestD = 1e9
    for (const p of serv.players) {
      if (p.world !== e.world || p.health <= 0 || p.gameMode !== 0) continue
      const d = p.position.distanceTo(e.position)
      if (d < bestD) { bestD = d; best = p }
    }
    if (!best || bestD > FOLLOW) return
    const dir = best.position.minus(e.position)
    dir.y = 0
    const flat = Math.sqrt(dir.x * dir.x + dir.z * dir.z)
    e.yaw = Math.round(((Math.atan2(-dir.x, dir.z) * 180 / Math.PI) / 360) * 256) & 255
    if (bestD > REACH && flat > 0.01) {
      const step = Math.min(flat - REACH * 0.8, ZOMBIE_SPEED * delta)
      if (step > 0) e.sendPosition(e.position.plus(dir.scaled(step / flat)), e.onGround)
    } else if (now - (e._lastHit || 0) >= HIT_EVERY_MS) {
      e._lastHit = now
      best.takeDamage({ damage: num(e.pepaDamage, 3), velocity: dir.scaled(1 / Math.max(flat, 0.01)).scaled(2) })
    }
  }
}
