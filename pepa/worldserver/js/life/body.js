'use strict'
// Mob movement, one 20 Hz tick at a time, after vanilla LivingEntity.travel on
// land (all speeds in blocks per tick):
//   velocity += input * accel; move with collisions; velocity *= friction;
//   vy = (vy - 0.08) * 0.98.
// On the ground accel = 0.98 * s * s where s = movement_speed * goal modifier
// (Mob.setSpeed also sets the forward input to s, so speed enters twice) and
// friction is 0.6 * 0.91 = 0.546, hence a walking speed of 0.98 s^2 / 0.454 per
// tick: zombie 0.23 -> 2.28 blocks/s, cow 0.2 -> 1.73, pig/chicken 0.25 -> 2.70.
// In the air accel = 0.02 * 0.98 * s and friction 0.91. Jump: vy = 0.42.
// In water: buoyancy (vanilla FloatGoal keeps mobs at the surface) and drag 0.8.
// Climbers (spiders, vanilla Spider.onClimbable = pushed against a wall last
// tick; LivingEntity.handleOnClimbable and travel): while climbing, horizontal
// speed is held within 0.15 and the fall within 0.15 a tick, and a tick that
// ends against a wall sets vy = 0.2 before gravity and drag, so the mob rises
// (0.2 - 0.08) * 0.98 = 0.118 blocks a tick and takes no fall damage.
const { Vec3 } = require('vec3')

const GROUND_FRICTION = 0.6 * 0.91
const AIR_FRICTION = 0.91
const GRAVITY = 0.08
const JUMP = 0.42

// flutter: a chicken, which falls at 0.6 of the speed and takes no fall damage;
// climber: a spider, which climbs the walls it walks into
function newBody (width, height, { flutter = false, climber = false } = {}) {
  return {
    vx: 0, vy: 0, vz: 0, hw: width / 2, h: height, onGround: false, inWater: false, hitWall: false,
    flutter, climber, climbing: false, fallFrom: null, fell: 0 // fell: blocks fallen, set on the tick of landing
  }
}

// walking speed in blocks per tick for a movement_speed attribute and a goal modifier
const walkSpeed = (attribute, modifier = 1) => 0.98 * (attribute * modifier) ** 2 / (1 - GROUND_FRICTION)

// one tick. input: {dx, dz} unit direction or null, s = attribute * modifier, jump.
// Returns the new position (a fresh Vec3) — the caller owns broadcasting it.
function step (view, world, pos, body, { dx = 0, dz = 0, s = 0, jump = false } = {}) {
  const feet = view.block(world, Math.floor(pos.x), Math.floor(pos.y), Math.floor(pos.z))
  body.inWater = view.liquid(feet)
  if (s > 0 && (dx || dz)) {
    const a = body.onGround ? 0.98 * s * s : 0.02 * 0.98 * s
    body.vx += dx * a
    body.vz += dz * a
  }
  if (jump && body.onGround) body.vy = JUMP
  if (body.inWater) body.vy = Math.max(body.vy, 0) + 0.04 // float up, as FloatGoal does
  if (body.climbing) {
    body.vx = Math.max(-0.15, Math.min(0.15, body.vx))
    body.vz = Math.max(-0.15, Math.min(0.15, body.vz))
    body.vy = Math.max(body.vy, -0.15)
  }

  let { x, y, z } = pos
  const speed = Math.max(Math.abs(body.vx), Math.abs(body.vy), Math.abs(body.vz))
  const n = Math.max(1, Math.ceil(speed / 0.45)) // sub-steps: never skip a block
  const wasOnGround = body.onGround
  body.hitWall = false
  body.onGround = false
  for (let i = 0; i < n; i++) {
    const mx = body.vx / n; const my = body.vy / n; const mz = body.vz / n
    if (mx && !view.collides(world, x + mx, y, z, body.hw, body.h)) x += mx
    else if (mx) { body.vx = 0; body.hitWall = true }
    if (mz && !view.collides(world, x, y, z + mz, body.hw, body.h)) z += mz
    else if (mz) { body.vz = 0; body.hitWall = true }
    if (my && !view.collides(world, x, y + my, z, body.hw, body.h)) y += my
    else if (my < 0) {
      // land on top of the block below: a cube's top, or a fence's half a block higher
      for (const top of [Math.floor(y + my + 0.5) + 0.5, Math.floor(y + my) + 1]) {
        if (top <= y && !view.collides(world, x, top, z, body.hw, body.h) && view.collides(world, x, top - 0.01, z, body.hw, body.h)) { y = top; break }
      }
      body.vy = 0
      body.onGround = true
    } else if (my > 0) body.vy = 0
  }
  if (!body.onGround && body.vy === 0 && view.collides(world, x, y - 0.01, z, body.hw, body.h)) body.onGround = true
  // vanilla travel in water: against a bank with room above, climb out (0.3 a tick
  // while in water there; a jump here, since the feet leave the water block sooner)
  if (body.inWater && body.hitWall && !view.collides(world, x, y + 1.2, z, body.hw, body.h)) body.vy = JUMP
  body.climbing = body.climber && body.hitWall
  if (body.climbing) body.vy = 0.2
  // falls, for fall damage (vanilla: ceil(distance - 3) on landing, none into water)
  body.fell = 0
  if (body.onGround || body.inWater || body.climbing) {
    if (body.fallFrom !== null && body.onGround && !body.inWater && !body.flutter) body.fell = body.fallFrom - y
    body.fallFrom = null
  } else body.fallFrom = Math.max(body.fallFrom ?? y, y)
  const friction = body.inWater ? 0.8 : (wasOnGround ? GROUND_FRICTION : AIR_FRICTION)
  body.vx *= friction
  body.vz *= friction
  body.vy = (body.vy - (body.inWater ? 0.02 : GRAVITY)) * 0.98
  if (body.flutter && !body.onGround && body.vy < 0) body.vy *= 0.6
  if (Math.abs(body.vx) < 0.003) body.vx = 0
  if (Math.abs(body.vz) < 0.003) body.vz = 0
  return new Vec3(x, y, z)
}

// would a jump get over what stopped us? (the block ahead is one high, with room above it)
function canJumpAhead (view, world, pos, body, dx, dz) {
  const ax = pos.x + dx * (body.hw + 0.3)
  const az = pos.z + dz * (body.hw + 0.3)
  return !view.collides(world, ax, pos.y + 1.0, az, body.hw, body.h) &&
    !view.collides(world, pos.x, pos.y + 1.0, pos.z, body.hw, body.h)
}

// knockback as vanilla LivingEntity.knockback(strength, dx, dz): away from the source
function knockback (body, from, pos, strength = 0.4) {
  let kx = pos.x - from.x
  let kz = pos.z - from.z
  const len = Math.hypot(kx, kz)
  if (len < 1e-4) { kx = Math.random() - 0.5; kz = Math.random() - 0.5 }
  const l = Math.hypot(kx, kz)
  body.vx = body.vx / 2 + (kx / l) * strength
  body.vz = body.vz / 2 + (kz / l) * strength
  if (body.onGround) body.vy = Math.min(0.4, body.vy / 2 + strength)
}

module.exports = { newBody, walkSpeed, step, canJumpAhead, knockback, GRAVITY }
