'use strict'
// Crafting and smelting: craft, smelt — at the carried table or furnace (workshop.js) when no
// other is at hand.
// Every function takes the bot's context first (context.js) and its action id next.

// items one piece of fuel smelts: burn ticks / 200 (vanilla 1.16.5 AbstractFurnaceTileEntity.getBurnTimes)
const fuelSmelts = (name) => (name === 'coal' || name === 'charcoal' ? 8 : 1.5)

// craft(id, item, times, underCover): craft `times` crafts of `item` by its recipe,
// at a crafting table when the recipe needs one (workshop.reachTable: one in reach,
// else the held one placed beside the bot — in the sealed pocket under cover —
// else one within 32 blocks walked to); a table it placed is dug back up after.
function craft (ctx, id, item, times, underCover) {
  const { bot, done, workshop, countOf } = ctx
  const info = bot.registry.itemsByName[item]
  if (!info) { done(id, false, { action: 'craft', error: `no such item ${item}` }); return false }
  const epoch = ctx.epoch
  const run = async () => {
    // mineflayer's bot.craft cannot be stopped and keeps one table window for all
    // crafts: one a pre-emption left running must end before the next clicks
    await ctx.crafting
    if (epoch !== ctx.epoch) throw new Error('stopped')
    let recipe = bot.recipesFor(info.id, null, 1, null)[0]
    let table = null
    if (!recipe) {
      table = await workshop.reachTable(!!underCover)
    }
    try {
      if (epoch !== ctx.epoch) throw new Error('stopped')
      if (table) recipe = bot.recipesFor(info.id, null, 1, table)[0]
      if (!recipe) throw new Error(`no recipe for ${item} with this inventory`)
      await bot.craft(recipe, times || 1, table)
    } finally { // the table goes back into the bag, for the next craft wherever it is
      if (table && epoch === ctx.epoch) await workshop.takeBack(table.position, () => {}).catch(() => false)
    }
    if (/_(helmet|chestplate|leggings|boots)$|^shield$/.test(item)) await ctx.wearBest()
  }
  const running = run()
  ctx.crafting = running.catch(() => {})
  running.then(
    () => done(id, true, { action: 'craft', item, held: countOf(item) }),
    (e) => done(id, false, { action: 'craft', item, error: String(e && e.message) }))
  return true
}

// smelt(id, item, count, fuel, underCover): smelt `count` of `item` in a furnace within
// 32 blocks — one this bot loaded before (what it left there comes back first)
// or an empty one: never someone else's — or one placed from the inventory
// (workshop.place: beside the bot, in the sealed pocket under cover, or above its
// head down a shaft) and dug back up after; underCover: never walks,
// burning `fuel` (only the pieces the smelts need); each output is taken as it
// comes (vanilla: 10 s an item)
function smelt (ctx, id, item, count, fuel, underCover) {
  const { bot, done, finder, workshop, countOf, waitFor, loadedFurnaces } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  let made = 0
  // a furnace near by this bot may use, open; null when none (at most 3 looked into)
  const openUsable = async () => {
    const mine = (p) => loadedFurnaces.has(p.toString())
    const spots = finder.findBlocks({ matching: bot.registry.blocksByName.furnace.id, maxDistance: 32, count: 8 })
      .sort((a, b) => mine(b) - mine(a))
    for (const at of spots.slice(0, 3)) {
      stopped()
      if (bot.entity.position.distanceTo(at) > 3.5) {
        if (underCover) continue // never walks out of the pocket
        if (!await ctx.gotoWithin(new ctx.goals.GoalNear(at.x, at.y, at.z, 2), 20000).then(() => true, () => false)) continue
      }
      stopped()
      const furnace = await bot.openFurnace(bot.blockAt(at))
      if (mine(at) || (!furnace.inputItem() && !furnace.outputItem() && !furnace.fuelItem())) return { at, furnace }
      furnace.close() // someone else's smelting: hands off
    }
    return null
  }
  const run = async () => {
    let usable = await openUsable()
    if (!usable) { // the held one: beside the bot, in the pocket under cover, above its head down a shaft
      const block = bot.blockAt(await workshop.place('furnace', !!underCover))
      stopped()
      usable = { at: block.position, furnace: await bot.openFurnace(block) }
    }
    const { at, furnace } = usable
    try {
      if (furnace.outputItem()) await furnace.takeOutput()
      if (furnace.inputItem()) await furnace.takeInput()
      if (furnace.fuelItem() && furnace.fuelItem().name !== fuel) await furnace.takeFuel()
      const n = Math.min(Number(count), countOf(item))
      if (!n) throw new Error(`no ${item} to smelt`)
      loadedFurnaces.add(at.toString())
      const inSlot = furnace.fuelItem() ? furnace.fuelItem().count : 0
      const pieces = Math.min(Math.ceil(n / fuelSmelts(fuel)) - inSlot, countOf(fuel))
      if (pieces > 0) await furnace.putFuel(bot.registry.itemsByName[fuel].id, null, pieces)
      if (!furnace.fuelItem() && !furnace.fuel) throw new Error(`no ${fuel} to burn`)
      await furnace.putInput(bot.registry.itemsByName[item].id, null, n)
      const until = Date.now() + n * 10000 + 20000
      while (made < n) {
        stopped()
        const out = furnace.outputItem()
        if (out) { made += out.count; await furnace.takeOutput(); continue }
        if (Date.now() > until) throw new Error(`only ${made} of ${n} smelted in time`)
        await waitFor(() => !!furnace.outputItem() || epoch !== ctx.epoch, 1000)
      }
    } finally {
      furnace.close()
    }
    // our own furnace goes back into the bag for the next smelt
    if (await workshop.takeBack(at, stopped)) loadedFurnaces.delete(at.toString())
  }
  run().then(
    () => done(id, true, { action: 'smelt', made, furnace: countOf('furnace') }),
    (e) => done(id, false, { action: 'smelt', error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message), made }))
  return true
}

// each places, opens or walks to a block: the shield down, the guard off (bot_helper.js)
craft.holdsShield = true
smelt.holdsShield = true

module.exports = { craft, smelt }
