'use strict'
// Movement: goto, charge, gotoPlayer, follow, stop, setDanger, setHazards, lookAround.
// Every function takes the bot's context first (context.js); an action its id next
// (actions/index.js).
const { r1, vxyz } = require('../plain')

// The pathfinder's GoalFollow, moved with its entity once it is a block away from the goal's
// cell (GoalFollow waits until it is `range` away: a bot sent to a player who then stood still
// within that range of the first cell could stop up to twice `range` from them)
const nearEntity = new WeakMap() // the pathfinder's goals → the class
function goalNearEntity (goals) {
  if (!nearEntity.has(goals)) {
    nearEntity.set(goals, class GoalNearEntity extends goals.GoalFollow {
      hasChanged () {
        const p = this.entity.position.floored()
        const dx = this.x - p.x
        const dy = this.y - p.y
        const dz = this.z - p.z
        if (dx * dx + dy * dy + dz * dz <= 1) return false
        this.x = p.x
        this.y = p.y
        this.z = p.z
        return true
      }
    })
  }
  return nearEntity.get(goals)
}

// a goto's or gotoPlayer's walk that failed: why, and where the bot stands
const gotoFailed = (ctx, id) => (e) => ctx.done(id, false, { action: 'goto', error: String(e && e.message), position: vxyz(ctx.bot.entity && ctx.bot.entity.position) })

// a walk to within `reach` (default 1) of x, y, z: goto's and charge's
function walkNear (ctx, id, x, y, z, reach) {
  const { bot, done } = ctx
  const range = reach == null ? 1 : Number(reach)
  const target = new ctx.Vec3(Number(x), Number(y), Number(z))
  const goal = new ctx.goals.GoalNear(target.x, target.y, target.z, range)
  bot.pathfinder.goto(goal).then(
    () => {
      // the pathfinder may settle for the closest spot it found: say so
      const off = bot.entity.position.distanceTo(target)
      if (off > range + 1.5) done(id, false, { action: 'goto', error: `stopped ${r1(off)} blocks short`, position: vxyz(bot.entity.position) })
      else done(id, true, { action: 'goto', position: vxyz(bot.entity.position) })
    },
    gotoFailed(ctx, id))
  return true
}

// goto(id, x, y, z[, reach]): walk to within reach of x, y, z
function goto (ctx, id, x, y, z, reach) { return walkNear(ctx, id, x, y, z, reach) }

// charge(id, x, y, z[, reach]): goto's walk with the guard on (it does not hold the shield
// down): closing in on an archer, the shield comes up and the walk stops while it draws (melee.js)
function charge (ctx, id, x, y, z, reach) { return walkNear(ctx, id, x, y, z, reach) }

// gotoPlayer(id, name[, reach]): walk to that player, wherever they are by then: the goal
// follows them while the bot walks (planned again once they are a block away from where it
// was planned to), and the walk ends within `reach` of that cell
function gotoPlayer (ctx, id, name, reach) {
  const { bot, done } = ctx
  const p = bot.players[name] && bot.players[name].entity
  if (!p) { done(id, false, { action: 'goto', error: `cannot see ${name}` }); return false }
  const GoalNearEntity = goalNearEntity(ctx.goals)
  const goal = new GoalNearEntity(p, reach == null ? 2 : Number(reach))
  // where the pathfinder stops for a goal (its own two cells): the walk is over there
  const arrived = (at) => goal.isEnd(at.floored()) || goal.isEnd(at.floored().offset(0, 1, 0))
  bot.pathfinder.goto(goal, arrived).then(
    () => done(id, true, { action: 'goto', position: vxyz(bot.entity.position) }),
    gotoFailed(ctx, id))
  return true
}

// follow(id, name[, reach]): keep within reach of that player until stop(); done only on failure
function follow (ctx, id, name, reach) {
  const { bot, done } = ctx
  const p = bot.players[name] && bot.players[name].entity
  if (!p) { done(id, false, { action: 'follow', error: `cannot see ${name}` }); return false }
  bot.pathfinder.setGoal(new ctx.goals.GoalFollow(p, reach == null ? 2 : Number(reach)), true)
  return true
}

// stop(): stop walking and digging; every action under way gives up (the epoch)
function stop (ctx) {
  const { bot } = ctx
  ctx.epoch++
  ctx.melee.cancel()
  bot.clearControlStates()
  bot.pathfinder.stop()
  bot.pathfinder.setGoal(null)
  ctx.endGentle()
  if (bot.targetDigBlock) bot.stopDigging()
  return true
}

// setDanger(areas): [[x, z, r], ...], the areas the pathfinder avoids from now on
function setDanger (ctx, areas) {
  ctx.danger = (areas || []).map(a => [Number(a[0]), Number(a[1]), Number(a[2])])
  return ctx.danger.length
}

// setHazards(below, inside, touching): each [[block name, cost], ...]: a step onto, into or
// against a block of that type costs that much more from now on (100: never taken); names the
// server's registry does not know are left out. The lessons' block types (the watchdog's).
function setHazards (ctx, below, inside, touching) {
  const byName = ctx.bot.registry.blocksByName
  const costs = (pairs) => {
    const out = new Map()
    for (const [name, cost] of pairs || []) {
      const block = byName[String(name)]
      if (block && Number.isFinite(Number(cost))) out.set(block.id, Number(cost))
    }
    return out
  }
  ctx.hazards = { below: costs(below), inside: costs(inside), touching: costs(touching) }
  return ctx.hazards.below.size + ctx.hazards.inside.size + ctx.hazards.touching.size
}

// lookAround(): turn the head somewhere else (idle behaviour), at once: a turn at
// mineflayer's head speed is a look packet every tick for up to a second, each sent by the
// server to every player near (32 idle bots: 880 look packets a second to each bridge of 8)
function lookAround (ctx) {
  ctx.bot.look(Math.random() * Math.PI * 2 - Math.PI, (Math.random() - 0.5) * 0.6, true).catch(() => {})
  return true
}

goto.holdsShield = true // walks: the shield down, the guard off (bot_helper.js)

module.exports = { goto, charge, gotoPlayer, follow, stop, setDanger, setHazards, lookAround }
