'use strict'
// The survival sandbox's shared state: one object on the server, created by
// whichever sandbox plugin loads first (daynight.js, hunger.js, mobs.js), so
// the plugins and the scenario plugin see the same switches.
//
// Why a plain module and not a plugin: every .js file in plugins/ is
// loaded as a flying-squid plugin; helpers live here, in sandbox/life/.
const { profileOf } = require('./profiles')

// mulberry32: a small seeded PRNG, so a seeded sandbox spawns the same way
// (timings still vary with the real clock, the draws do not).
function seeded (seed) {
  let a = (Number(seed) >>> 0) || 0x9e3779b9
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function lifeOf (serv, settings = {}) {
  if (serv.pepaLife) return serv.pepaLife
  const random = seeded(settings.seed)
  const life = {
    profile: settings.profile || 'gentle', // the sandbox profile the server was started with
    settings: profileOf(settings.profile || 'gentle'), // its values (life/profiles.js)
    terrain: settings.terrain || 'gentle', // the terrain the world was made with: gentle or vanilla
    random,
    int: (n) => Math.floor(random() * n), // vanilla Random.nextInt(n)
    gaussian: () => { // vanilla Random.nextGaussian (Box-Muller)
      const u = Math.max(random(), 1e-12)
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
    },
    tick: 0, // sandbox ticks since start (20 a second)
    timeScale: 1, // game time runs this many times faster than real time
    hungerScale: 1, // exhaustion and the 80-tick food timer run this many times faster
    husbandryScale: 1, // farm animals' age, love and grass-eating timers run this many times faster (life/herd.js)
    day: 0, // days completed since the server started (each wrap of the time of day)
    spawning: true,
    kinds: null, // null: every species the sandbox knows; else the ones allowed to spawn
    ops: (serv.pepaOps = serv.pepaOps || {}) // the scenario's control-channel ops (scenario/)
  }
  serv.pepaLife = life
  return life
}

// vanilla Player.hurt: damage from mobs and explosions scales with difficulty
function scaleForDifficulty (damage, difficulty) {
  if (difficulty === 0) return 0
  if (difficulty === 1) return Math.min(damage / 2 + 1, damage)
  if (difficulty === 3) return damage * 1.5
  return damage
}

module.exports = { lifeOf, seeded, scaleForDifficulty }
