'use strict'
// Husbandry: breed — two adults of a species fed their food and their young awaited; shear —
// the nearest woolly adult sheep shorn and its wool picked up; lure — the food held on a walk
// to a place, paced so that the animals it tempts keep up (pepa/game/js/animals.js: the food,
// the ranges, what the metadata says of an animal).
// Every function takes the bot's context first (context.js) and its action id next.
//
// A client is not told an animal's love or its breeding cooldown, only whether it is a baby
// (metadata) and, for a sheep, whether it is shorn. So breed remembers, per bot, each animal it
// fed: one that ate is in love for 30 s, the parents of a young one wait 5 minutes (vanilla
// 6000 ticks), and one that would not eat (its food held, clicked within reach, none eaten:
// bred lately or in love already) is left a minute; remembered animals are not picked.
const { vxyz } = require('../plain')
const { FOOD, BREED_COOLDOWN, TEMPT_RANGE, PARTNER_RANGE, isBaby, isSheared } = require('../../../game/js/animals')

const LOVE_MS = 30000 // vanilla: 600 ticks in love
const COOLDOWN_MS = BREED_COOLDOWN * 50
const REFUSED_MS = 60000
const REACH = 3 // blocks from an animal the bot clicks it from
const WALK_MS = 20000 // to an animal
const EATEN_MS = 1500 // a click's food gone from the inventory
const DROPS_NEAR = 5 // shear: wool items this near where the sheep stood are its own
const PICKUP_MS = 10000
const YOUNG_MS = 20000 // the two in love find each other and 3 s later the young one comes
const KEEP_UP = 4.5 // lure: the nearest tempted animal this far behind: the bot waits
const CAUGHT_UP = 3
const WAIT_MS = 6000 // lure: waited this long in vain, the bot walks on without the laggards
const FOLLOWED = 4 // lure: animals this close at the end followed
const LURE_MS = 120000

const remembered = new WeakMap() // the bot's context -> Map(entity id -> ms until it may be picked)
function memoryOf (ctx) {
  if (!remembered.has(ctx)) remembered.set(ctx, new Map())
  return remembered.get(ctx)
}

const stopped = () => new Error('stopped')

// to within REACH of an animal (it moves: the goal follows it), then a click with the held item
async function click (ctx, e, epoch) {
  const { bot, goals, waitFor } = ctx
  const near = () => !bot.entities[e.id] || bot.entity.position.distanceTo(e.position) <= REACH
  if (!near()) {
    bot.pathfinder.setGoal(new goals.GoalFollow(e, REACH - 1), true)
    await waitFor(() => near() || epoch !== ctx.epoch, WALK_MS)
    if (epoch !== ctx.epoch) throw stopped() // the pre-empting action owns the pathfinder
    bot.pathfinder.setGoal(null)
  }
  if (!bot.entities[e.id]) throw new Error(`the ${e.name} ${e.id} is gone`)
  if (!near()) throw new Error(`could not get to the ${e.name} ${e.id} in ${WALK_MS / 1000} s`)
  await bot.activateEntity(e)
}

async function hold (ctx, item) {
  const { bot } = ctx
  if (bot.heldItem && bot.heldItem.name === item) return
  const it = bot.inventory.items().find(i => i.name === item)
  if (!it) throw new Error(`no ${item} held`)
  await bot.equip(it, 'hand')
}

// breed(id, names, radius): of the first species in `names` whose food is held and of which
// two adults not remembered (see the header) are within `radius` and 8 blocks of each other,
// the two nearest the bot are fed; done once both ate, with {fed, baby} (baby: a young one of
// that species came near them within 20 s)
function breed (ctx, id, names, radius) {
  const { bot, done, countOf, waitFor } = ctx
  const epoch = ctx.epoch
  const memory = memoryOf(ctx)
  const r = radius || 16
  const result = { action: 'breed', fed: 0, baby: false }
  const run = async () => {
    const now = Date.now()
    const adults = (name) => Object.values(bot.entities)
      .filter(e => e.name === name && e !== bot.entity && !isBaby(e.metadata) && !(memory.get(e.id) > now) &&
        e.position.distanceTo(bot.entity.position) <= r)
      .sort((a, b) => a.position.distanceTo(bot.entity.position) - b.position.distanceTo(bot.entity.position))
    let species = null; let food = null; let herd = []
    const unfed = []
    for (const name of names) {
      if (!FOOD[name]) continue
      const item = FOOD[name].find(i => countOf(i) >= 2)
      if (!item) { unfed.push(name); continue }
      const found = adults(name).filter((e, _, all) => all.some(o => o !== e && o.position.distanceTo(e.position) <= PARTNER_RANGE))
      if (found.length >= 2) { species = name; food = item; herd = found; break }
    }
    if (!species) {
      if (unfed.length === names.length) throw new Error(`no food held for ${names.join('/')}: two of ${unfed.map(n => FOOD[n].join(' or ')).join(', ')}`)
      throw new Error(`no two adult ${names.join('/')} within ${r} blocks of the bot and ${PARTNER_RANGE} of each other, not fed lately`)
    }
    Object.assign(result, { species, food })
    const known = new Set(Object.keys(bot.entities))
    const parents = []
    for (const e of herd) {
      if (parents.length === 2) break
      if (parents.length === 1 && e.position.distanceTo(parents[0].position) > PARTNER_RANGE) continue
      if (epoch !== ctx.epoch) throw stopped()
      await hold(ctx, food)
      const stock = countOf(food)
      await click(ctx, e, epoch)
      const ate = await waitFor(() => countOf(food) < stock || epoch !== ctx.epoch, EATEN_MS) && countOf(food) < stock
      memory.set(e.id, Date.now() + (ate ? LOVE_MS : REFUSED_MS))
      if (ate) { parents.push(e); result.fed++ }
      if (countOf(food) === 0 && parents.length < 2) throw new Error(`out of ${food} with ${parents.length} ${species} fed`)
    }
    if (parents.length < 2) throw new Error(`only ${parents.length} of the ${species} would eat (bred lately or in love)`)
    const young = () => Object.values(bot.entities).find(e => e.name === species && !known.has(String(e.id)) &&
      isBaby(e.metadata) && parents.some(p => p.position.distanceTo(e.position) <= PARTNER_RANGE))
    result.baby = !!(await waitFor(() => !!young() || epoch !== ctx.epoch, YOUNG_MS)) && !!young()
    if (epoch !== ctx.epoch) throw stopped()
    if (result.baby) for (const p of parents) memory.set(p.id, Date.now() + COOLDOWN_MS)
  }
  run().then(
    () => done(id, true, result),
    (e) => {
      if (epoch === ctx.epoch) bot.pathfinder.setGoal(null) // never clear another action's goal
      done(id, false, { ...result, error: String(e && e.message) })
    })
  return true
}

// shear(id, radius): the nearest adult sheep within `radius` not shorn is walked to and shorn
// with held shears, then each wool item on the ground within 5 blocks of it is walked to until
// it is gone (10 s at most); done with {wool} (the wool picked up)
function shear (ctx, id, radius) {
  const { bot, done, goals, waitFor } = ctx
  const epoch = ctx.epoch
  const r = radius || 16
  const woolHeld = () => bot.inventory.items().filter(i => i.name.endsWith('_wool')).reduce((n, i) => n + i.count, 0)
  const before = woolHeld()
  const run = async () => {
    if (!bot.inventory.items().some(i => i.name === 'shears')) throw new Error('no shears held')
    const sheep = bot.nearestEntity(e => e.name === 'sheep' && !isBaby(e.metadata) && !isSheared(e.metadata) &&
      e.position.distanceTo(bot.entity.position) <= r)
    if (!sheep) throw new Error(`no woolly adult sheep within ${r} blocks`)
    await hold(ctx, 'shears')
    await click(ctx, sheep, epoch)
    if (!(await waitFor(() => isSheared(sheep.metadata) || epoch !== ctx.epoch, 2000)) || epoch !== ctx.epoch) {
      throw epoch !== ctx.epoch ? stopped() : new Error(`the sheep ${sheep.id} was not shorn`)
    }
    // its wool: the items on the ground by it, each walked to until it is gone (picked up)
    const at = sheep.position.clone()
    const wool = (e) => { const it = e.name === 'item' && e.getDroppedItem(); return !!it && it.name.endsWith('_wool') }
    const drops = () => Object.values(bot.entities).filter(e => wool(e) && e.position.distanceTo(at) <= DROPS_NEAR)
      .sort((a, b) => a.position.distanceTo(bot.entity.position) - b.position.distanceTo(bot.entity.position))
    await waitFor(() => drops().length > 0 || epoch !== ctx.epoch, 1500)
    const until = Date.now() + PICKUP_MS
    for (let left = drops(); left.length && Date.now() < until; left = drops()) {
      if (epoch !== ctx.epoch) throw stopped()
      const d = left[0]
      if (!(await waitFor(() => !bot.entities[d.id], 600))) {
        await ctx.gotoWithin(new goals.GoalNear(d.position.x, d.position.y, d.position.z, 0.5), 5000).catch(() => {})
        await waitFor(() => !bot.entities[d.id] || epoch !== ctx.epoch, 1500)
      }
    }
    if (epoch !== ctx.epoch) throw stopped()
  }
  run().then(
    () => done(id, true, { action: 'shear', wool: woolHeld() - before }),
    (e) => {
      if (epoch === ctx.epoch) bot.pathfinder.setGoal(null)
      done(id, false, { action: 'shear', wool: woolHeld() - before, error: String(e && e.message) })
    })
  return true
}

// lure(id, names, x, y, z): the food of the first of `names` held (in hand), a walk that digs
// and towers nothing to within a block of x, y, z; whenever no animal of `names` that was
// within 10 blocks at the start (the tempted ones) is within 4.5 blocks, the bot stops until
// one is within 3 (or 6 s have passed: it walks on without them); done there with
// {followed}: the animals of `names` within 4 blocks
function lure (ctx, id, names, x, y, z) {
  const { bot, done, goals, waitFor, countOf, Vec3 } = ctx
  const epoch = ctx.epoch
  const target = new Vec3(x, y, z)
  const wanted = new Set(names)
  const near = (e, blocks) => !!bot.entities[e.id] && e.position.distanceTo(bot.entity.position) <= blocks
  const followed = () => Object.values(bot.entities).filter(e => wanted.has(e.name) && near(e, FOLLOWED)).length
  const run = async () => {
    const food = names.flatMap(n => FOOD[n] || []).find(i => countOf(i) > 0)
    if (!food) throw new Error(`no food held to lure ${names.join('/')}`)
    await hold(ctx, food)
    let herd = Object.values(bot.entities).filter(e => wanted.has(e.name) && near(e, TEMPT_RANGE))
    const lagging = () => { herd = herd.filter(e => !!bot.entities[e.id]); return herd.length > 0 && !herd.some(e => near(e, KEEP_UP)) }
    const goal = new goals.GoalNear(target.x, target.y, target.z, 1)
    const until = Date.now() + LURE_MS
    let paused = false
    while (!goal.isEnd(bot.entity.position.floored())) {
      if (epoch !== ctx.epoch) throw stopped()
      if (Date.now() > until) throw new Error(`not there within ${LURE_MS / 1000} s`)
      if (lagging()) {
        const caught = await waitFor(() => herd.some(e => near(e, CAUGHT_UP)) || epoch !== ctx.epoch, WAIT_MS)
        if (!caught) herd = herd.filter(e => near(e, KEEP_UP)) // lost: on without them
        continue
      }
      paused = false
      const watch = setInterval(() => { if (!paused && lagging()) { paused = true; bot.pathfinder.setGoal(null) } }, 100)
      try {
        await ctx.gotoGently(goal, LURE_MS)
      } catch (e) {
        if (epoch !== ctx.epoch) throw stopped()
        if (!paused) throw new Error(`no way to ${x}, ${y}, ${z}: ${e && e.message}`)
      } finally {
        clearInterval(watch)
      }
      if (!paused && !goal.isEnd(bot.entity.position.floored())) throw new Error(`stopped ${bot.entity.position.distanceTo(target).toFixed(1)} blocks short`)
    }
    if (herd.length) await waitFor(() => herd.every(e => !bot.entities[e.id] || near(e, FOLLOWED)) || epoch !== ctx.epoch, WAIT_MS)
    if (epoch !== ctx.epoch) throw stopped()
  }
  run().then(
    () => done(id, true, { action: 'lure', followed: followed(), position: vxyz(bot.entity.position) }),
    (e) => {
      if (epoch === ctx.epoch) bot.pathfinder.setGoal(null)
      done(id, false, { action: 'lure', followed: followed(), error: String(e && e.message), position: vxyz(bot.entity.position) })
    })
  return true
}

// each walks and turns the bot: the shield down while it runs (bot_helper.js)
breed.holdsShield = true
shear.holdsShield = true
lure.holdsShield = true

module.exports = { breed, shear, lure }
