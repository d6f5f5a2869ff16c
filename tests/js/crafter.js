'use strict'
// A survival player stand-in for the sandbox tests: a mineflayer client that
// crafts, smelts, digs, places and walks through mineflayer's own API (the code paths
// the bot uses), driven by JSON lines on stdin, reporting JSON lines on stdout.
//   node crafter.js HOST PORT USERNAME
//   stdin:  {"id":1,"op":"craft","item":"oak_planks","count":1,"table":{x,y,z}?}
//           {"id":2,"op":"dig","x":..,"y":..,"z":..}       (equip first with "equip")
//           {"id":3,"op":"place","item":"crafting_table","x":..,"y":..,"z":..}  (on top of x,y,z)
//           {"id":4,"op":"equip","item":"wooden_pickaxe"}
//           {"id":5,"op":"open","x":..,"y":..,"z":..} | {"id":6,"op":"close"}   (a container block)
//           {"id":5,"op":"click","slot":0,"button":0,"mode":1}  (a raw click in the open window)
//           {"id":6,"op":"inventory"} | {"id":7,"op":"find","block":"oak_log","distance":30}
//           {"id":8,"op":"block","x":..,"y":..,"z":..} | {"id":9,"op":"where"} | {"op":"quit"}
//           {"id":10,"op":"furnace","x":..,"y":..,"z":..}  (open it with mineflayer's openFurnace)
//           {"id":11,"op":"fuel"|"input","item":"coal","count":1} | {"id":12,"op":"output"}  (take it)
//           {"id":13,"op":"smelted","item":"iron_ingot"}  (wait until the output slot holds it)
//   stdout: {"type":"spawn","position":{..}} | {"type":"ready",..} (login over) | {"type":"moved",..}
//           {"type":"collected","item":"oak_log","count":1}
//           {"type":"slot","slot":36,"name":"oak_log","total":3}  (the player's new total of that item)
//           {"type":"death","position":{..}}
//           {"type":"done","id":1,"ok":true,"result":..} | {"type":"done","id":1,"ok":false,"error":".."}
const path = require('path')
const readline = require('readline')
const { once } = require('events')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const mineflayer = require(path.join(NM, 'mineflayer'))
const { Vec3 } = require(path.join(NM, 'vec3'))

const [host, port, username] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const xyz = (p) => ({ x: p.x, y: p.y, z: p.z })
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.16.5', auth: 'offline', hideErrors: true, validateChannelProtocol: false })

bot.once('spawn', () => {
  out({ type: 'spawn', position: xyz(bot.entity.position) })
  // flying-squid ends a login - sends the remaining chunks, then puts the
  // player back where it joined - only when the client sends a `look` or
  // `flying` packet, which an idle mineflayer may never do; until then a
  // teleport can be undone. Turn the head a little, and report `ready` once
  // the server has put the player back.
  // On a busy machine the first look can be taken before the server is ready
  // for it: turn the head again every half second until the server answers.
  const nudge = () => bot.look(bot.entity.yaw + 0.1, bot.entity.pitch, true)
  const nudging = setInterval(nudge, 500)
  bot.once('forcedMove', () => {
    clearInterval(nudging)
    out({ type: 'ready', position: xyz(bot.entity.position) })
  })
  nudge()
  // what the server put into a slot, with the player's new total of that item
  bot.inventory.on('updateSlot', (slot, oldItem, item) => {
    const name = item ? item.name : oldItem ? oldItem.name : null
    if (!name) return
    out({ type: 'slot', slot, name, total: bot.inventory.count(bot.registry.itemsByName[name].id) })
  })
})
bot.on('forcedMove', () => out({ type: 'moved', position: xyz(bot.entity.position) }))
bot.on('playerCollect', (collector, collected) => {
  if (collector !== bot.entity) return
  const item = collected.getDroppedItem && collected.getDroppedItem()
  out({ type: 'collected', item: item ? item.name : null, count: item ? item.count : null })
})
bot.on('death', () => out({ type: 'death', position: xyz(bot.entity.position) }))
bot.on('end', (reason) => { out({ type: 'end', reason: String(reason) }); process.exit(0) })
bot.on('error', (err) => out({ type: 'error', message: String(err && err.message) }))

const itemId = (name) => {
  const item = bot.registry.itemsByName[name]
  if (!item) throw new Error(`no such item: ${name}`)
  return item.id
}
const blockAt = (c) => {
  const block = bot.blockAt(new Vec3(c.x, c.y, c.z))
  if (!block) throw new Error(`no block loaded at ${c.x} ${c.y} ${c.z}`)
  return block
}
const inventory = () => bot.inventory.items().map(it => ({
  name: it.name, count: it.count, slot: it.slot, durabilityUsed: it.durabilityUsed || 0
}))
const windowState = () => {
  const window = bot.currentWindow || bot.inventory
  return {
    id: window.id,
    type: window.type,
    slots: window.slots.map(it => (it ? { name: it.name, count: it.count } : null)),
    cursor: window.selectedItem ? { name: window.selectedItem.name, count: window.selectedItem.count } : null
  }
}

let furnace = null // the furnace window open (mineflayer's openFurnace)
const furnaceState = () => ({
  ...windowState(),
  fuel: furnace.fuel, // 0..1 of the fuel's burn time left, from the window properties
  totalFuel: furnace.totalFuel,
  progress: furnace.progress,
  totalProgress: furnace.totalProgress
})

const ops = {
  where: () => xyz(bot.entity.position),
  inventory,
  block: (c) => blockAt(c).name,
  find: ({ block, distance = 32, count = 1 }) => bot.findBlocks({
    matching: bot.registry.blocksByName[block].id, maxDistance: distance, count
  }).map(xyz),
  equip: async ({ item }) => { await bot.equip(itemId(item), 'hand'); return bot.heldItem && bot.heldItem.name },
  craft: async ({ item, count = 1, table }) => {
    const tableBlock = table ? blockAt(table) : null
    const [recipe] = bot.recipesFor(itemId(item), null, 1, tableBlock)
    if (!recipe) throw new Error(`no recipe for ${item} with this inventory`)
    await bot.craft(recipe, count, tableBlock)
    return inventory()
  },
  dig: async (c) => {
    const block = blockAt(c)
    const name = block.name
    await bot.dig(block, true)
    return { dug: name, now: blockAt(c).name }
  },
  place: async ({ item, x, y, z }) => {
    await bot.equip(itemId(item), 'hand')
    await bot.placeBlock(blockAt({ x, y, z }), new Vec3(0, 1, 0))
    return blockAt({ x, y: y + 1, z }).name
  },
  open: async (c) => { await bot.openBlock(blockAt(c)); return windowState() },
  click: async ({ slot, button = 0, mode = 0 }) => {
    // the server answers a click at once and then sends what it did: slots it
    // changed, or the whole window for any click but a plain one
    // (and after every click in a furnace, whose slot rules mineflayer does not know)
    const window = bot.currentWindow || bot.inventory
    const resent = mode === 0 && window.type !== 'minecraft:furnace' ? null : once(bot, `setWindowItems:${window.id}`)
    await bot.clickWindow(slot, button, mode)
    if (resent) await resent
    return windowState()
  },
  furnace: async (c) => { furnace = await bot.openFurnace(blockAt(c)); return furnaceState() },
  fuel: async ({ item, count = 1 }) => { await furnace.putFuel(itemId(item), null, count); return furnaceState() },
  input: async ({ item, count = 1 }) => { await furnace.putInput(itemId(item), null, count); return furnaceState() },
  output: async () => {
    const item = await furnace.takeOutput()
    return { name: item.name, count: item.count }
  },
  smelted: async ({ item }) => {
    while (!(furnace.outputItem() && furnace.outputItem().name === item)) await once(furnace, 'updateSlot:2')
    return furnaceState()
  },
  close: async () => {
    const window = bot.currentWindow
    if (window) await bot.closeWindow(window)
    return windowState()
  }
}

readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  let cmd
  try { cmd = JSON.parse(line) } catch (e) { return out({ type: 'error', message: 'bad json' }) }
  if (cmd.op === 'quit') return bot.quit()
  const fn = ops[cmd.op]
  try {
    if (!fn) throw new Error(`unknown op: ${cmd.op}`)
    out({ type: 'done', id: cmd.id, ok: true, result: await fn(cmd) })
  } catch (err) {
    out({ type: 'done', id: cmd.id, ok: false, error: String(err && err.message) })
  }
}).on('close', () => bot.quit())
