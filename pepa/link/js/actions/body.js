'use strict'
// Eating, sleeping, breathing, speaking: eat, sleep, surface, chat.
// Every function takes the bot's context first (context.js); an action its id next.
const breath = require('../breath')
const { vxyz } = require('../plain')

// eat(id, item): hold that food and eat it (the server ends eating with entity_status 9)
function eat (ctx, id, item) {
  const { bot, done } = ctx
  const it = bot.inventory.items().find(i => i.name === item)
  if (!it) { done(id, false, { action: 'eat', error: `no ${item}` }); return false }
  ctx.melee.suspend(bot.equip(it, 'hand').then(() => bot.consume())).then( // the shield down: eating uses the hand
    () => done(id, true, { action: 'eat', food: bot.food }),
    (e) => done(id, false, { action: 'eat', error: String(e && e.message) }))
  return true
}

// sleep(id, x, y, z): walk next to the bed, then lie down
function sleep (ctx, id, x, y, z) {
  const { bot, done, Vec3, goals } = ctx
  const bed = bot.blockAt(new Vec3(x, y, z))
  if (!bed) { done(id, false, { action: 'sleep', error: 'no bed there' }); return false }
  bot.pathfinder.goto(new goals.GoalNear(x, y, z, 2))
    .then(() => bot.sleep(bot.blockAt(new Vec3(x, y, z))))
    .then(() => done(id, true, { action: 'sleep' }), (e) => done(id, false, { action: 'sleep', error: String(e && e.message) }))
  return true
}

// surface(id): swim up for air until the head is out and the air full (breath.js)
function surface (ctx, id) {
  const { bot, done } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  bot.pathfinder.setGoal(null) // not stop(): with no path under way its flag would fail the next goto
  breath.surface(bot, stopped).then(
    (up) => done(id, true, { action: 'surface', air: up.air, position: vxyz(up.position) }),
    (e) => done(id, false, { action: 'surface', error: String(e && e.message), position: vxyz(bot.entity && bot.entity.position) }))
  return true
}

// chat(text): say it (the caller rate-limits)
function chat (ctx, text) { ctx.bot.chat(String(text)); return true }

// each walks or swims: the shield down, the guard off (bot_helper.js); eat holds it down itself
sleep.holdsShield = true
surface.holdsShield = true

module.exports = { eat, sleep, surface, chat }
