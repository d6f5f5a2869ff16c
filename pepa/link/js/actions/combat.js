'use strict'
// Combat: attack, arm, hunt — a swing, the first blow armed in the bridge, a kill for food.
// Every function takes the bot's context first (context.js); an action its id next.
const { stop } = require('./movement')

// attack(entityId[, stopFirst]): one swing; returns false if the entity is unknown. The
// first at a target is at once, a later one a crit jump when it can be (melee.js). The
// best weapon is equipped after the swing, for the next one: the first hit must not wait
// for an inventory round trip. stopFirst: stop() first, in the same call (a swing that
// pre-empts a walk or a dig does not wait for a round trip of its own to stop it).
function attack (ctx, entityId, stopFirst) {
  if (stopFirst) stop(ctx)
  return ctx.melee.attack(entityId)
}

// arm(reach, hp, food): reach is [[name, blocks], ...], the hostiles to strike first the moment
// one comes within reach, while health and food are these (firstblow.js; the reflex's arming,
// pepa/policy/reflex/firstblow.py); [] disarms
function arm (ctx, reach, hp, food) { return ctx.firstBlow.arm(reach, hp, food) }

// hunt(id, names, radius): kill the nearest animal named in `names` with the
// best weapon, then walk over its drops; 30 s at most
function hunt (ctx, id, names, radius) {
  const { bot, done, goals, waitFor } = ctx
  const wanted = new Set(names)
  const before = bot.inventory.items().reduce((n, i) => n + i.count, 0)
  const epoch = ctx.epoch
  const run = async () => {
    const target = bot.nearestEntity(e => wanted.has(e.name) && e.position.distanceTo(bot.entity.position) <= (radius || 32))
    if (!target) throw new Error(`no ${names.join('/')} within ${radius || 32} blocks`)
    const weapon = ctx.bestWeapon()
    if (weapon) await bot.equip(weapon, 'hand')
    const until = Date.now() + 30000
    let last = target.position.clone()
    while (bot.entities[target.id] && Date.now() < until) {
      if (epoch !== ctx.epoch) throw new Error('stopped')
      last = target.position.clone()
      if (bot.entity.position.distanceTo(target.position) > 2.8) {
        bot.pathfinder.setGoal(new goals.GoalFollow(target, 1.5), true)
        await waitFor(() => !bot.entities[target.id] || bot.entity.position.distanceTo(target.position) <= 2.8, 1000)
        continue
      }
      bot.pathfinder.setGoal(null)
      await bot.lookAt(target.position.offset(0, (target.height || 1) / 2, 0), true)
      bot.attack(target)
      await waitFor(() => !bot.entities[target.id], 650)
    }
    if (epoch !== ctx.epoch) throw new Error('stopped') // the pre-empting action owns the pathfinder
    bot.pathfinder.setGoal(null)
    if (bot.entities[target.id]) throw new Error(`could not kill the ${target.name} in 30 s`)
    await ctx.gotoWithin(new goals.GoalNear(last.x, last.y, last.z, 0.5), 10000).catch(() => {})
    await waitFor(() => bot.inventory.items().reduce((n, i) => n + i.count, 0) > before, 1500)
    return target.name
  }
  run().then(
    (name) => done(id, true, { action: 'hunt', killed: name }),
    (e) => {
      if (epoch === ctx.epoch) bot.pathfinder.setGoal(null) // never clear another action's goal
      done(id, false, { action: 'hunt', error: String(e && e.message) })
    })
  return true
}

module.exports = { attack, arm, hunt }
