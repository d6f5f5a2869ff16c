'use strict'
// Chests: store, fetch, look_in — walk to the chest at x, y, z (within reach of its eyes, a face
// in sight: reach.js), open it (mineflayer's openContainer), put in, take out or read, close.
// Every function takes the bot's context first (context.js) and its action id next.
//
// Each ends with `contents`, the chest's {name: count} as it was left, and fails with `stopped`
// when stop() pre-empts it (between two stacks moved: the window is closed on the way out).
const { REACH, EYE } = require('../reach')

const CHESTS = new Set(['chest', 'trapped_chest'])
const OPEN_MS = 5000 // the server's window after the click (it never comes for a chest that cannot open)

// {name: count} of a list of items
function counts (items) {
  const out = {}
  for (const it of items) out[it.name] = (out[it.name] || 0) + it.count
  return out
}

const sum = (items, name) => items.reduce((n, it) => n + (it.name === name ? it.count : 0), 0)

// how many of `info` (an item's minecraft-data entry) the window's slots [start, end) still take
function room (window, info, start, end) {
  let n = 0
  for (let s = start; s < end; s++) {
    const it = window.slots[s]
    if (!it) n += info.stackSize
    else if (it.type === info.id && !it.nbt && it.count < info.stackSize) n += info.stackSize - it.count
  }
  return n
}

// Walk within reach of the chest at x, y, z and open it: its window. stopped() throws once
// stop() has pre-empted the action.
async function openChest (ctx, x, y, z, stopped) {
  const { bot, Vec3 } = ctx
  const at = new Vec3(x, y, z)
  const where = `${x} ${y} ${z}`
  const block = bot.blockAt(at)
  if (!block) throw new Error(`the chest at ${where} is not loaded`)
  if (!CHESTS.has(block.name)) throw new Error(`no chest at ${where} (${block.name})`)
  const above = bot.blockAt(at.offset(0, 1, 0))
  if (above && above.boundingBox === 'block' && !above.transparent) {
    throw new Error(`the chest at ${where} cannot open: ${above.name} on top of it`)
  }
  if (bot.entity.position.offset(0, EYE, 0).distanceTo(at.offset(0.5, 0.5, 0.5)) > REACH) {
    try {
      await ctx.reachBlock(at, CHESTS)
    } catch (e) {
      stopped()
      throw new Error(`not reached: the chest at ${where} (${e && e.message})`)
    }
  }
  stopped()
  if (!CHESTS.has(bot.blockAt(at)?.name)) throw new Error(`no chest at ${where} any more`)
  let late = false
  const opening = bot.openContainer(bot.blockAt(at))
  opening.then((window) => { if (late) window.close() }, () => {})
  let timer
  const limit = new Promise((resolve, reject) => {
    timer = setTimeout(() => { late = true; reject(new Error(`the chest at ${where} did not open`)) }, OPEN_MS)
  })
  try {
    return await Promise.race([opening, limit])
  } finally {
    clearTimeout(timer)
  }
}

// Run `use(window)` in the chest at x, y, z opened, then close it; the chest's contents after
async function inChest (ctx, x, y, z, stopped, use) {
  const window = await openChest(ctx, x, y, z, stopped)
  try {
    await use(window)
    return counts(window.containerItems())
  } finally {
    window.close()
  }
}

// store(id, x, y, z, items, keep): put the `items` held (names; none: everything held) into the
// chest at x, y, z, but for what `keep` says to keep of each ([[name, count], ...]: that many
// stay in the bag); done with {stored, contents}; a chest that cannot take it all fails,
// `stored` saying what went in and `left` what did not
function store (ctx, id, x, y, z, items, keep) {
  const { bot, done } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  const wanted = new Set(items || [])
  const kept = new Map((keep || []).map(([name, n]) => [name, Math.max(0, Math.floor(Number(n)))]))
  const stored = {}
  const left = {}
  let contents
  const run = async () => {
    contents = await inChest(ctx, x, y, z, stopped, async (window) => {
      const held = [...new Set(window.items().map(it => it.name))]
      for (const name of held.filter(n => !wanted.size || wanted.has(n))) {
        stopped()
        const info = bot.registry.itemsByName[name]
        const have = sum(window.items(), name) - (kept.get(name) || 0)
        if (have <= 0) continue
        const fits = Math.min(have, room(window, info, 0, window.inventoryStart))
        if (fits > 0) {
          await window.deposit(info.id, null, fits)
          stored[name] = fits
        }
        if (fits < have) left[name] = have - fits
      }
    })
    if (Object.keys(left).length) {
      throw new Error(`the chest at ${x} ${y} ${z} is full: no room for ${Object.entries(left).map(([n, c]) => `${c} ${n}`).join(', ')}`)
    }
  }
  run().then(
    () => done(id, true, { action: 'store', chest: { x, y, z }, stored, contents }),
    (e) => done(id, false, { action: 'store', chest: { x, y, z }, error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message), stored, left, contents }))
  return true
}

// fetch(id, x, y, z, item, count): take up to `count` of `item` out of the chest at x, y, z (as
// many as it holds and the inventory takes); done with {taken, contents}; fails when the chest
// holds none or the inventory has no room for one
function fetch (ctx, id, x, y, z, item, count) {
  const { bot, done } = ctx
  const info = bot.registry.itemsByName[item]
  if (!info) { done(id, false, { action: 'fetch', chest: { x, y, z }, error: `no such item ${item}` }); return false }
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  let taken = 0
  let contents
  const run = async () => {
    contents = await inChest(ctx, x, y, z, stopped, async (window) => {
      const there = sum(window.containerItems(), item)
      if (!there) throw new Error(`no ${item} in the chest at ${x} ${y} ${z}`)
      const n = Math.min(Number(count), there, room(window, info, window.inventoryStart, window.inventoryEnd))
      if (n <= 0) throw new Error(`no room in the inventory for ${item}`)
      stopped()
      await window.withdraw(info.id, null, n)
      taken = n
    })
  }
  run().then(
    () => done(id, true, { action: 'fetch', chest: { x, y, z }, item, taken, contents }),
    (e) => done(id, false, { action: 'fetch', chest: { x, y, z }, item, error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message), taken, contents }))
  return true
}

// lookIn(id, x, y, z): open the chest at x, y, z and read it; done with {contents}
function lookIn (ctx, id, x, y, z) {
  const { done } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  inChest(ctx, x, y, z, stopped, async () => {}).then(
    (contents) => done(id, true, { action: 'look_in', chest: { x, y, z }, contents }),
    (e) => done(id, false, { action: 'look_in', chest: { x, y, z }, error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message) }))
  return true
}

// each walks to a chest and opens it: the shield down, the guard off (bot_helper.js)
store.holdsShield = true
fetch.holdsShield = true
lookIn.holdsShield = true

module.exports = { store, fetch, lookIn }
