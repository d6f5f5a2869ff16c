'use strict'
// The survival sandbox: furnaces, as vanilla 1.16.5's AbstractFurnaceTileEntity.
//
// flying-squid 1.12 has no furnaces: right-clicking one does nothing. Here:
//   - right-clicking a `furnace` block opens its window (1.16.5 menu
//     minecraft:furnace: input 0, fuel 1, output 2, then the player's main
//     inventory 3-29 and hotbar 30-38); crafting.js answers the clicks
//     (serv.pepaContainers), this plugin gives the slots' rules: the fuel slot
//     takes fuel and a bucket (one), the output takes nothing, a shift-click
//     sends a smeltable item to the input and fuel to the fuel slot
//     (AbstractFurnaceContainer.transferStackInSlot);
//   - each furnace - one per block position, made when first opened - burns
//     and cooks 20 ticks a second whether anybody looks or not
//     (AbstractFurnaceTileEntity.tick): fuel is lit only when the input can
//     smelt, burns its vanilla time (coal 1600 ticks, a log or plank 300, a
//     stick 100, lava 20000 and leaves the bucket, `FUEL`), an item cooks in
//     200 ticks (10 s) while it burns, progress falls back 2 a tick when the
//     fire is out; the block is `lit` while it burns;
//   - a viewer gets the window properties (craft_progress_bar 0 fuel left,
//     1 the fuel's burn time, 2 cook progress, 3 cook time) when the window
//     opens and each tick they change, as vanilla's FurnaceContainer;
//   - breaking the block, by any means, drops its contents
//     (InventoryHelper.dropInventoryItems); a player dig at once, anything
//     else within a second;
//   - furnaces outlive a restart: <world>/pepa_furnaces.json, written every
//     30 s when something changed and when the server stops.
// Recipes are vanilla 1.16.5's `minecraft:smelting` ones (`SMELTING`;
// minecraft-data has crafting recipes only); no experience is given.
// Control ops: furnace {x, y, z} (its state, or null), furnace_scale {factor}
// (furnaces tick that many times faster, 0..1000).
const fs = require('fs')
const path = require('path')
const { Vec3 } = require('vec3')

const MENU_FURNACE = 13 // 1.16.5 menu registry: minecraft:furnace
const TITLE = JSON.stringify({ translate: 'container.furnace' })
const COOK_TICKS = 200 // AbstractCookingRecipe cookingtime of every 1.16.5 smelting recipe
const SAVE_EVERY = 600 // ticks
const FILE = 'pepa_furnaces.json'

const WOODS = ['oak', 'spruce', 'birch', 'jungle', 'acacia', 'dark_oak'] // crimson and warped do not burn
const COLOURS = ['white', 'orange', 'magenta', 'light_blue', 'yellow', 'lime', 'pink', 'gray', 'light_gray',
  'cyan', 'purple', 'blue', 'brown', 'green', 'red', 'black']
const LOGS = WOODS.flatMap(w => [`${w}_log`, `${w}_wood`, `stripped_${w}_log`, `stripped_${w}_wood`])
const each = (names, value) => Object.fromEntries(names.map(n => [n, value]))
const wooden = (suffix) => WOODS.map(w => `${w}_${suffix}`)

// vanilla 1.16.5 AbstractFurnaceTileEntity.getBurnTimes(): item -> ticks of fire
const FUEL = {
  lava_bucket: 20000,
  coal_block: 16000,
  blaze_rod: 2400,
  coal: 1600,
  charcoal: 1600,
  ...each(LOGS, 300),
  ...each(wooden('planks'), 300),
  ...each(wooden('stairs'), 300),
  ...each(wooden('slab'), 150),
  ...each(wooden('trapdoor'), 300),
  ...each(wooden('pressure_plate'), 300),
  ...each(wooden('fence'), 300),
  ...each(wooden('fence_gate'), 300),
  ...each(['note_block', 'bookshelf', 'lectern', 'jukebox', 'chest', 'trapped_chest', 'crafting_table',
    'daylight_detector', 'bow', 'fishing_rod', 'ladder', 'crossbow', 'loom', 'barrel', 'cartography_table',
    'fletching_table', 'smithing_table', 'composter'], 300),
  ...each(COLOURS.map(c => `${c}_banner`), 300),
  ...each(wooden('sign'), 200),
  ...each(['wooden_shovel', 'wooden_sword', 'wooden_hoe', 'wooden_axe', 'wooden_pickaxe'], 200),
  ...each(wooden('door'), 200),
  ...each(wooden('boat'), 1200),
  ...each(COLOURS.map(c => `${c}_wool`), 100),
  ...each(wooden('button'), 100),
  stick: 100,
  ...each(wooden('sapling'), 100),
  bowl: 100,
  ...each(COLOURS.map(c => `${c}_carpet`), 67),
  dried_kelp_block: 4001,
  bamboo: 50,
  dead_bush: 100,
  scaffolding: 400
}
// Item.getContainerItem(): what stays in the fuel slot when the last one burns
const FUEL_REMAINDER = { lava_bucket: 'bucket' }

// vanilla 1.16.5 data/minecraft/recipes of type minecraft:smelting: input -> result (one)
const SMELTING = {
  iron_ore: 'iron_ingot',
  gold_ore: 'gold_ingot',
  nether_gold_ore: 'gold_ingot',
  diamond_ore: 'diamond',
  emerald_ore: 'emerald',
  lapis_ore: 'lapis_lazuli',
  redstone_ore: 'redstone',
  coal_ore: 'coal',
  nether_quartz_ore: 'quartz',
  ancient_debris: 'netherite_scrap',
  beef: 'cooked_beef',
  porkchop: 'cooked_porkchop',
  chicken: 'cooked_chicken',
  mutton: 'cooked_mutton',
  rabbit: 'cooked_rabbit',
  cod: 'cooked_cod',
  salmon: 'cooked_salmon',
  potato: 'baked_potato',
  kelp: 'dried_kelp',
  sand: 'glass',
  red_sand: 'glass',
  cobblestone: 'stone',
  stone: 'smooth_stone',
  sandstone: 'smooth_sandstone',
  red_sandstone: 'smooth_red_sandstone',
  quartz_block: 'smooth_quartz',
  stone_bricks: 'cracked_stone_bricks',
  nether_bricks: 'cracked_nether_bricks',
  polished_blackstone_bricks: 'cracked_polished_blackstone_bricks',
  netherrack: 'nether_brick',
  clay_ball: 'brick',
  clay: 'terracotta',
  wet_sponge: 'sponge',
  cactus: 'green_dye',
  sea_pickle: 'lime_dye',
  chorus_fruit: 'popped_chorus_fruit',
  ...each(LOGS, 'charcoal'),
  ...Object.fromEntries(COLOURS.map(c => [`${c}_terracotta`, `${c}_glazed_terracotta`])),
  ...each(['pickaxe', 'shovel', 'axe', 'hoe', 'sword', 'helmet', 'chestplate', 'leggings', 'boots', 'horse_armor']
    .map(t => `iron_${t}`).concat(['helmet', 'chestplate', 'leggings', 'boots'].map(t => `chainmail_${t}`)), 'iron_nugget'),
  ...each(['pickaxe', 'shovel', 'axe', 'hoe', 'sword', 'helmet', 'chestplate', 'leggings', 'boots', 'horse_armor']
    .map(t => `golden_${t}`), 'gold_nugget')
}

module.exports.server = function (serv, settings = {}) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const Block = require('prismarine-block')(registry)
  const furnaces = new Map() // 'world:x,y,z' -> furnace
  let dirty = false
  let scale = 1 // furnace ticks per server tick (furnace_scale)
  let owed = 0
  let ticks = 0

  const burnTime = (item) => (item && FUEL[item.name]) || 0
  const resultOf = (item) => (item && SMELTING[item.name] ? registry.itemsByName[SMELTING[item.name]] : null)
  const same = (a, b) => !!a && !!b && a.type === b.type && JSON.stringify(a.nbt || null) === JSON.stringify(b.nbt || null)
  const worldName = (world) => (world === serv.netherworld ? 'nether' : 'overworld')
  const worldNamed = (name) => (name === 'nether' ? serv.netherworld : serv.overworld)
  const keyOf = (world, pos) => `${worldName(world)}:${pos.x},${pos.y},${pos.z}`

  function furnaceAt (world, pos, create) {
    const key = keyOf(world, pos)
    if (!furnaces.has(key) && create) {
      // burn/burnTotal: fire left and the lit fuel's burn time; cook/cookTotal: progress and its end
      furnaces.set(key, {
        key, world, pos: pos.clone(), slots: [null, null, null], burn: 0, burnTotal: 0, cook: 0, cookTotal: 0, viewers: new Set()
      })
    }
    return furnaces.get(key) || null
  }

  // --- what viewers see -------------------------------------------------------

  function showSlot (f, slot) {
    dirty = true
    for (const v of f.viewers) {
      v.player._client.write('set_slot', { windowId: v.id, slot, item: Item.toNotch(f.slots[slot]) })
    }
  }

  function showProperties (f, v) {
    const values = [f.burn, f.burnTotal, f.cook, f.cookTotal]
    values.forEach((value, property) => {
      if (v.sent[property] === value) return
      v.sent[property] = value
      v.player._client.write('craft_progress_bar', { windowId: v.id, property, value })
    })
  }

  // vanilla setInventorySlotContents: another item in the input starts cooking anew
  function put (f, slot, item) {
    const old = f.slots[slot]
    f.slots[slot] = item
    if (slot === 0 && !(item && old && same(item, old))) {
      f.cookTotal = COOK_TICKS
      f.cook = 0
    }
    showSlot(f, slot)
  }

  // --- burning and cooking: AbstractFurnaceTileEntity.tick -----------------------

  function canSmelt (f, result) {
    const out = f.slots[2]
    if (!f.slots[0] || !result) return false
    return !out || (out.type === result.id && out.count + 1 <= out.stackSize)
  }

  function smelt (f, result) {
    const [input, fuel, out] = f.slots
    if (!out) f.slots[2] = new Item(result.id, 1)
    else out.count += 1
    if (input.name === 'wet_sponge' && fuel && fuel.name === 'bucket') {
      f.slots[1] = new Item(registry.itemsByName.water_bucket.id, 1)
    }
    input.count -= 1
    if (input.count <= 0) f.slots[0] = null
    for (let s = 0; s < 3; s++) showSlot(f, s)
  }

  function tickFurnace (f) {
    const wasBurning = f.burn > 0
    if (f.burn > 0) { f.burn--; dirty = true }
    const [input, fuel] = f.slots
    if (f.burn > 0 || (fuel && input)) {
      const result = resultOf(input)
      if (f.burn <= 0 && canSmelt(f, result)) {
        f.burn = burnTime(fuel)
        f.burnTotal = f.burn
        if (f.burn > 0) {
          fuel.count -= 1
          if (fuel.count <= 0) {
            const rest = FUEL_REMAINDER[fuel.name]
            f.slots[1] = rest ? new Item(registry.itemsByName[rest].id, 1) : null
          }
          showSlot(f, 1)
        }
      }
      if (f.burn > 0 && canSmelt(f, result)) {
        f.cook++
        if (f.cook === f.cookTotal) {
          f.cook = 0
          f.cookTotal = COOK_TICKS
          smelt(f, result)
        }
      } else {
        f.cook = 0
      }
    } else if (f.burn <= 0 && f.cook > 0) {
      f.cook = Math.max(0, Math.min(f.cook - 2, f.cookTotal))
    }
    if (wasBurning !== f.burn > 0) light(f, f.burn > 0)
  }

  // the block's `lit` state follows the fire (vanilla AbstractFurnaceBlock.LIT)
  function light (f, lit) {
    f.world.getBlock(f.pos).then((block) => {
      if (!block || block.name !== 'furnace' || furnaces.get(f.key) !== f) return
      const props = block.getProperties()
      if (props.lit === lit) return
      return serv.setBlock(f.world, f.pos, Block.fromProperties('furnace', { ...props, lit }, 0).stateId)
    }).catch((err) => serv.err(`furnace: lighting ${f.key} failed: ${err && err.stack}`))
  }

  // --- breaking ---------------------------------------------------------------------

  function broken (f) {
    if (furnaces.get(f.key) !== f) return
    furnaces.delete(f.key)
    dirty = true
    for (const v of [...f.viewers]) serv.pepaContainers.close(v.player)
    for (const item of f.slots) if (item) serv.pepaContainers.spill(f.world, f.pos, item)
  }

  // --- the window ---------------------------------------------------------------------

  function open (player, pos) {
    const f = furnaceAt(player.world, pos, true)
    const box = {
      block: 'furnace',
      position: pos,
      type: MENU_FURNACE,
      title: TITLE,
      size: 3,
      read: () => f.slots,
      write: (slot, item) => put(f, slot, item),
      // FurnaceFuelSlot: fuel or a bucket; FurnaceResultSlot: nothing
      accepts: (s, item) => s !== 2 && (s !== 1 || burnTime(item) > 0 || item.name === 'bucket'),
      limit: (s, item) => (s === 1 && item.name === 'bucket' ? 1 : item.stackSize),
      // AbstractFurnaceContainer.transferStackInSlot
      quickMove: (slots, slot, item, merge) => {
        if (slot === 2) merge(slots, item, 3, 39, true)
        else if (slot < 2) merge(slots, item, 3, 39, false)
        else if (resultOf(item)) merge(slots, item, 0, 1, false)
        else if (burnTime(item) > 0) merge(slots, item, 1, 2, false)
        else if (slot < 30) merge(slots, item, 30, 39, false)
        else merge(slots, item, 3, 30, false)
      },
      closed: () => f.viewers.delete(box),
      player,
      sent: []
    }
    box.id = serv.pepaContainers.open(player, box)
    f.viewers.add(box)
    showProperties(f, box)
  }

  serv.once('asap', () => {
    serv.onBlockInteraction('furnace', ({ block, player }) => {
      // vanilla: sneaking with an item in hand uses the item (places a block) instead
      if (player.crouching && player.inventory.slots[36 + player.heldItemSlot]) return false
      try { open(player, block.position) } catch (err) { serv.err(`furnace: opening failed: ${err && err.stack}`) }
      return true
    })
  })
  serv.once('pluginsReady', load) // the worlds exist by then

  serv.on('newPlayer', (player) => {
    player.on('dug', (data, cancelled) => {
      const f = !cancelled && furnaceAt(player.world, data.position, false)
      try { if (f) broken(f) } catch (err) { serv.err(`furnace: breaking ${f.key} failed: ${err && err.stack}`) }
    })
  })

  function tick () {
    owed += scale
    for (; owed >= 1; owed--) {
      for (const f of furnaces.values()) {
        try { tickFurnace(f) } catch (err) { serv.err(`furnace: ${f.key} tick failed: ${err && err.stack}`) }
      }
    }
    for (const f of furnaces.values()) for (const v of f.viewers) showProperties(f, v)
    if (++ticks % 20 === 0) {
      // a furnace replaced by anything else (an explosion, an operation) spills too
      for (const f of furnaces.values()) {
        f.world.getBlock(f.pos)
          .then((block) => { if (!block || block.name !== 'furnace') broken(f) })
          .catch((err) => serv.err(`furnace: checking ${f.key} failed: ${err && err.stack}`))
      }
    }
    if (ticks % SAVE_EVERY === 0) save()
  }

  serv.on('tick', () => {
    try { tick() } catch (err) { serv.err(`furnace: tick failed: ${err && err.stack}`) }
  })

  // --- across restarts ------------------------------------------------------------------

  const file = settings.worldFolder ? path.join(settings.worldFolder, FILE) : null

  function save () {
    if (!file || !dirty) return
    dirty = false
    const data = [...furnaces.values()].map(f => ({
      world: worldName(f.world),
      pos: { x: f.pos.x, y: f.pos.y, z: f.pos.z },
      slots: f.slots.map(it => Item.toNotch(it)),
      burn: f.burn,
      burnTotal: f.burnTotal,
      cook: f.cook,
      cookTotal: f.cookTotal
    }))
    try {
      fs.writeFileSync(file + '.tmp', JSON.stringify(data))
      fs.renameSync(file + '.tmp', file)
    } catch (err) {
      serv.err(`furnace: saving ${file} failed: ${err && err.stack}`)
    }
  }

  function load () {
    if (!file || !fs.existsSync(file)) return
    try {
      for (const saved of JSON.parse(fs.readFileSync(file, 'utf8'))) {
        const f = furnaceAt(worldNamed(saved.world), new Vec3(saved.pos.x, saved.pos.y, saved.pos.z), true)
        f.slots = saved.slots.map(it => Item.fromNotch(it))
        Object.assign(f, { burn: saved.burn, burnTotal: saved.burnTotal, cook: saved.cook, cookTotal: saved.cookTotal })
      }
    } catch (err) {
      serv.err(`furnace: loading ${file} failed: ${err && err.stack}`)
    }
  }

  serv.on('close', save)
  // a SIGTERM ends the process through flying-squid's exit hook before its
  // asynchronous quit reaches 'close': save on the way out too
  process.on('exit', save)

  // --- control ops ----------------------------------------------------------------------

  if (serv.pepaOps) {
    serv.pepaOps.furnace = async ({ x, y, z }) => {
      const f = furnaceAt(serv.overworld, new Vec3(Number(x), Number(y), Number(z)), false)
      if (!f) return null
      const block = await f.world.getBlock(f.pos)
      return {
        slots: f.slots.map(it => (it ? { name: it.name, count: it.count } : null)),
        burn: f.burn,
        burnTotal: f.burnTotal,
        cook: f.cook,
        cookTotal: f.cookTotal,
        lit: !!(block && block.name === 'furnace' && block.getProperties().lit),
        viewers: f.viewers.size
      }
    }
    // a finite factor, clamped to 0..1000 (more would stall a tick); anything else is an error reply
    serv.pepaOps.furnace_scale = ({ factor = 1 }) => {
      const n = Number(factor)
      if (factor === null || typeof factor === 'boolean' || !Number.isFinite(n)) throw new Error(`factor must be a finite number, not ${JSON.stringify(factor)}`)
      scale = Math.max(0, Math.min(1000, n))
      return { factor: scale }
    }
  }
}

module.exports.FUEL = FUEL
module.exports.SMELTING = SMELTING
