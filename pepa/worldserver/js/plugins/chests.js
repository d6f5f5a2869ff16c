'use strict'
// The survival sandbox: chests that keep what is put in them, as vanilla 1.16.5's
// ChestBlock and ChestTileEntity.
//
// flying-squid 1.12's chest.js opens an empty window that keeps nothing. Here:
//   - right-clicking a `chest` or `trapped_chest` block opens its window (1.16.5 menu
//     minecraft:generic_9x3, id 2, title container.chest): its 27 slots 0-26, then the
//     player's main inventory 27-53 and hotbar 54-62; crafting.js answers the clicks
//     (serv.pepaContainers), every slot takes anything up to its stack size, and a
//     shift-click moves a stack from the chest into the inventory (hotbar end first) or from
//     the inventory into the chest (ChestContainer.transferStackInSlot);
//   - a chest under a solid block (a whole opaque cube: minecraft-data's boundingBox `block`,
//     not `transparent`; vanilla ChestBlock.isBlocked) does not open, and the click places
//     nothing either; sneaking with an item in hand places it, as vanilla;
//   - each chest - one per block position, made when first opened - keeps its contents
//     across closing and opening, for every player; the lid opens for the players near
//     while anybody looks in (block_action 1), with the chest's sounds;
//   - breaking the chest, by any means, drops its contents (InventoryHelper.dropInventoryItems)
//     and closes its window for whoever has it open: a player's dig at once, anything else
//     within a second; the chest itself drops as any block (drops.js);
//   - chests outlive a restart: <world>/pepa_chests.json, written every 30 s when something
//     changed and when the server stops.
// A chest placed beside another stays single (vanilla joins them into a double chest).
// flying-squid's own handler for chest blocks is replaced (its log says so once at start).
// Control op: chest {x, y, z} → its contents {name: count} ({} when empty or never opened),
// null when no chest is there.
const fs = require('fs')
const path = require('path')
const { Vec3 } = require('vec3')

const MENU_CHEST = 2 // 1.16.5 menu registry: minecraft:generic_9x3
const TITLE = JSON.stringify({ translate: 'container.chest' })
const SIZE = 27
const CHESTS = ['chest', 'trapped_chest']
const SAVE_EVERY = 600 // ticks
const FILE = 'pepa_chests.json'

module.exports.server = function (serv, settings = {}) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const chests = new Map() // 'world:x,y,z' -> chest
  let dirty = false
  let ticks = 0

  const worldName = (world) => (world === serv.netherworld ? 'nether' : 'overworld')
  const worldNamed = (name) => (name === 'nether' ? serv.netherworld : serv.overworld)
  const keyOf = (world, pos) => `${worldName(world)}:${pos.x},${pos.y},${pos.z}`
  const isChest = (block) => !!block && CHESTS.includes(block.name)

  function chestAt (world, pos, create) {
    const key = keyOf(world, pos)
    if (!chests.has(key) && create) {
      chests.set(key, { key, world, pos: pos.clone(), slots: new Array(SIZE).fill(null), viewers: new Set() })
    }
    return chests.get(key) || null
  }

  // vanilla ChestBlock.isBlocked: a whole opaque cube above the chest keeps its lid shut
  async function blocked (world, pos) {
    const above = await world.getBlock(pos.offset(0, 1, 0))
    return !!above && above.boundingBox === 'block' && !above.transparent
  }

  function put (c, slot, item) {
    c.slots[slot] = item
    dirty = true
    for (const v of c.viewers) v.player._client.write('set_slot', { windowId: v.id, slot, item: Item.toNotch(item) })
  }

  // the lid: open while anybody looks in (vanilla ChestTileEntity's block event 1: viewers)
  function lid (c, opening) {
    serv.setBlockAction(c.world, c.pos, 1, c.viewers.size)
      .catch((err) => serv.err(`chests: the lid of ${c.key} failed: ${err && err.stack}`))
    if (opening ? c.viewers.size === 1 : c.viewers.size === 0) {
      serv.playSound(`block.chest.${opening ? 'open' : 'close'}`, c.world, c.pos.offset(0.5, 0.5, 0.5), {})
    }
  }

  function broken (c) {
    if (chests.get(c.key) !== c) return
    chests.delete(c.key)
    dirty = true
    for (const v of [...c.viewers]) serv.pepaContainers.close(v.player)
    for (const item of c.slots) if (item) serv.pepaContainers.spill(c.world, c.pos, item)
  }

  function open (player, block) {
    const c = chestAt(player.world, block.position, true)
    const box = {
      block: block.name,
      position: block.position,
      type: MENU_CHEST,
      title: TITLE,
      size: SIZE,
      read: () => c.slots,
      write: (slot, item) => put(c, slot, item),
      accepts: () => true,
      limit: (s, item) => item.stackSize,
      // ChestContainer.transferStackInSlot: out of the chest into the inventory from its end
      // (the hotbar's last slot first), out of the inventory into the chest from its start
      quickMove: (slots, slot, item, merge) => {
        if (slot < SIZE) merge(slots, item, SIZE, SIZE + 36, true)
        else merge(slots, item, 0, SIZE, false)
      },
      closed: () => { if (c.viewers.delete(box)) lid(c, false) },
      player
    }
    box.id = serv.pepaContainers.open(player, box)
    c.viewers.add(box)
    lid(c, true)
  }

  serv.once('asap', () => {
    for (const name of CHESTS) {
      serv.onBlockInteraction(name, async ({ block, player }) => {
        // vanilla: sneaking with an item in hand uses the item (places a block) instead
        if (player.crouching && player.inventory.slots[36 + player.heldItemSlot]) return false
        try {
          if (!await blocked(player.world, block.position)) open(player, block)
        } catch (err) {
          serv.err(`chests: opening the chest at ${block.position} failed: ${err && err.stack}`)
        }
        return true
      })
    }
  })
  serv.once('pluginsReady', load) // the worlds exist by then

  serv.on('newPlayer', (player) => {
    player.on('dug', (data, cancelled) => {
      const c = !cancelled && chestAt(player.world, data.position, false)
      try { if (c) broken(c) } catch (err) { serv.err(`chests: breaking ${c.key} failed: ${err && err.stack}`) }
    })
  })

  serv.on('tick', () => {
    if (++ticks % 20 === 0) {
      // a chest replaced by anything else (an explosion, an operation) spills too
      for (const c of chests.values()) {
        c.world.getBlock(c.pos)
          .then((block) => { if (!isChest(block)) broken(c) })
          .catch((err) => serv.err(`chests: checking ${c.key} failed: ${err && err.stack}`))
      }
    }
    if (ticks % SAVE_EVERY === 0) save()
  })

  // --- across restarts ------------------------------------------------------------------

  const file = settings.worldFolder ? path.join(settings.worldFolder, FILE) : null

  function save () {
    if (!file || !dirty) return
    dirty = false
    const data = [...chests.values()].map(c => ({
      world: worldName(c.world),
      pos: { x: c.pos.x, y: c.pos.y, z: c.pos.z },
      slots: c.slots.map(it => Item.toNotch(it))
    }))
    try {
      fs.writeFileSync(file + '.tmp', JSON.stringify(data))
      fs.renameSync(file + '.tmp', file)
    } catch (err) {
      serv.err(`chests: saving ${file} failed: ${err && err.stack}`)
    }
  }

  function load () {
    if (!file || !fs.existsSync(file)) return
    try {
      for (const saved of JSON.parse(fs.readFileSync(file, 'utf8'))) {
        const c = chestAt(worldNamed(saved.world), new Vec3(saved.pos.x, saved.pos.y, saved.pos.z), true)
        c.slots = saved.slots.map(it => Item.fromNotch(it))
      }
    } catch (err) {
      serv.err(`chests: loading ${file} failed: ${err && err.stack}`)
    }
  }

  serv.on('close', save)
  // a SIGTERM ends the process through flying-squid's exit hook before its
  // asynchronous quit reaches 'close': save on the way out too
  process.on('exit', save)

  // --- control ops ----------------------------------------------------------------------

  if (serv.pepaOps) {
    serv.pepaOps.chest = async ({ x, y, z }) => {
      const pos = new Vec3(Number(x), Number(y), Number(z))
      if (!isChest(await serv.overworld.getBlock(pos))) return null
      const contents = {}
      for (const it of (chestAt(serv.overworld, pos, false) || { slots: [] }).slots) {
        if (it) contents[it.name] = (contents[it.name] || 0) + it.count
      }
      return contents
    }
  }
}

module.exports.CHESTS = CHESTS
