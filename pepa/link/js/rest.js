'use strict'
// An idle bot's physics, made cheap. Measured with perf on a fleet bridge of 8 idle bots:
// mineflayer's physics tick was two thirds of the Node process's time, most of it for bots
// standing still. Two causes, two cuts, neither changing what the physics computes:
//
// 1. prismarine-physics builds its PlayerState every tick with require('minecraft-data')(version),
//    and minecraft-data resolves the version anew on every call (a for-in over every known
//    version, sorted each time, before its own cache): a fifth of the process's time.
//    memoizeMinecraftData() answers the same version with the same object it returned first.
//
// 2. A bot at rest (no control pressed, nothing under or around it changing) is a fixed point of
//    the simulation: a tick turns its state into the same state. restingPhysics() remembers a
//    state that a tick left unchanged twice and skips the simulation while the state stays that
//    one. Any change of the state (a key pressed, a knockback, a teleport, an effect, equipment)
//    simulates again at once; so does a block changing near the bot or a chunk loading, the only
//    inputs that are not in the state.
//
// 3. prismarine-physics's PlayerState, made every tick for every bot, requires minecraft-data and
//    prismarine-nbt in its constructor: each call a trip through Node's module loader (its
//    caches, its diagnostics channel), 5 % of an idle fleet bridge's JS time. memoizeRequires()
//    gives such a module a require that answers a name it answered before from its own map.

const memoized = new Map()

function memoizeMinecraftData (mcDataPath) {
  const resolved = require.resolve(mcDataPath)
  require(resolved)
  const entry = require.cache[resolved]
  const original = entry.exports
  if (original.pepaMemoized) return
  const wrapped = function (version, preNetty) {
    const key = `${version}|${!!preNetty}`
    if (!memoized.has(key)) memoized.set(key, original(version, preNetty))
    return memoized.get(key)
  }
  Object.assign(wrapped, original)
  wrapped.pepaMemoized = true
  entry.exports = wrapped
}

function memoizeRequires (modulePath) {
  const resolved = require.resolve(modulePath)
  require(resolved)
  const mod = require.cache[resolved]
  if (!mod || mod.pepaRequires) return
  const load = mod.require // the module's own require(name) calls it (Node's makeRequireFunction)
  const answered = new Map()
  mod.require = function (name) {
    if (!answered.has(name)) answered.set(name, load.call(this, name))
    return answered.get(name)
  }
  mod.pepaRequires = true
}

const CONTROLS = ['forward', 'back', 'left', 'right', 'jump', 'sprint', 'sneak']
const FIELDS = ['onGround', 'isInWater', 'isInLava', 'isInWeb', 'isCollidedHorizontally',
  'isCollidedVertically', 'elytraFlying', 'jumpTicks', 'jumpQueued', 'fireworkRocketDuration',
  'jumpBoost', 'speed', 'slowness', 'dolphinsGrace', 'slowFalling', 'levitation', 'depthStrider',
  'elytraEquipped', 'yaw', 'pitch']
const NEAR = 3 // blocks: a change this close to the bot may move it

// everything the simulation reads from its state, as numbers (no allocation but the array)
function stateOf (s, into) {
  let i = 0
  into[i++] = s.pos.x; into[i++] = s.pos.y; into[i++] = s.pos.z
  into[i++] = s.vel.x; into[i++] = s.vel.y; into[i++] = s.vel.z
  for (const f of FIELDS) into[i++] = +s[f] || 0
  for (const c of CONTROLS) into[i++] = s.control && s.control[c] ? 1 : 0
  return into
}

function same (a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function restingPhysics (bot) {
  const physics = bot.physics
  if (!physics || physics.pepaResting) return
  const simulate = physics.simulatePlayer
  const size = 6 + FIELDS.length + CONTROLS.length
  const before = new Array(size)
  const after = new Array(size)
  const rest = new Array(size)
  let resting = false // rest holds a state that two ticks in a row left as it was
  let calm = 0
  const counts = { simulated: 0, skipped: 0 }
  physics.pepaResting = counts
  physics.simulatePlayer = (state, world) => {
    stateOf(state, before)
    if (resting && same(before, rest)) {
      counts.skipped++
      return state
    }
    resting = false
    counts.simulated++
    const out = simulate(state, world)
    stateOf(out, after)
    if (same(before, after)) {
      if (++calm >= 2) {
        for (let i = 0; i < size; i++) rest[i] = after[i]
        resting = true
      }
    } else calm = 0
    return out
  }
  const wake = () => { resting = false; calm = 0 }
  bot.on('blockUpdate', (old, block) => {
    if (!resting) return
    const p = (block || old) && (block || old).position
    const me = bot.entity && bot.entity.position
    if (!p || !me || (Math.abs(p.x + 0.5 - me.x) <= NEAR && Math.abs(p.y - me.y) <= NEAR + 1 &&
      Math.abs(p.z + 0.5 - me.z) <= NEAR)) wake()
  })
  bot.on('chunkColumnLoad', wake)
  bot.on('chunkColumnUnload', wake)
  bot.on('respawn', wake)
  bot.on('spawn', wake)
}

module.exports = { memoizeMinecraftData, memoizeRequires, restingPhysics }
