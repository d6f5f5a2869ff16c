'use strict'
// The windows of the crafting plugin: the player's inventory (window 0), a crafting table and
// other plugins' block containers (furnace.js, chests.js), each seen as a list of slots;
// opening and closing them, and items given to a player, dropped or spilt as vanilla drops them.
const { Vec3 } = require('vec3')

const INVENTORY_TYPE_CRAFTING = 11 // 1.16.5 menu registry: minecraft:crafting
const TITLE = JSON.stringify({ translate: 'container.crafting' })
const THROW_PICKUP_MS = 2000 // vanilla: a thrown item waits 40 ticks before pickup
const SPILL_PICKUP_MS = 500 // vanilla ItemEntity: 10 ticks before pickup
const DESPAWN_MS = 5 * 60 * 1000 // 6000 ticks

// kit: { serv, registry, Item, copy, same, equal }; adds drop and give to it
module.exports = function windows (kit) {
  const { serv, registry, Item, copy, same, equal } = kit
  const itemEntity = (registry.entitiesByName.item || registry.entitiesByName.Item).id // Item: up to 1.10

  // The open window of a player as a list of slots. `slots` are copies the
  // click works on; `commit` writes the changed ones back and tells the client.
  // player._pepaTable is the block window open: a crafting table, or another
  // plugin's container (`box`, see openContainer below).
  function windowOf (player) {
    const table = player._pepaTable
    const inv = player.inventory.slots
    if (table && table.box) {
      const { box } = table
      return {
        id: table.id,
        kind: box.block,
        invStart: box.size,
        invEnd: box.size + 36,
        hotbar: box.size + 27,
        size: box.size + 36,
        accepts: box.accepts,
        limit: box.limit,
        quickMove: box.quickMove,
        read: () => [...box.read(), ...inv.slice(9, 45)].map(it => (it ? copy(it) : null)),
        write: (slot, item) => (slot < box.size ? box.write(slot, item) : player.inventory.updateSlot(slot - box.size + 9, item))
      }
    }
    if (!table) {
      return {
        id: 0,
        kind: 'inventory',
        width: 2,
        grid: [1, 2, 3, 4],
        invStart: 9,
        invEnd: 45, // exclusive
        hotbar: 36,
        size: 46,
        read: () => inv.map(it => (it ? copy(it) : null)),
        write: (slot, item) => player.inventory.updateSlot(slot, item)
      }
    }
    return {
      id: table.id,
      kind: 'table',
      width: 3,
      grid: [1, 2, 3, 4, 5, 6, 7, 8, 9],
      invStart: 10,
      invEnd: 46,
      hotbar: 37,
      size: 46,
      read: () => [...table.slots, ...inv.slice(9, 45)].map(it => (it ? copy(it) : null)),
      write: (slot, item) => {
        if (slot < 10) {
          table.slots[slot] = item
          if (item) item.slot = slot
          player._client.write('set_slot', { windowId: table.id, slot, item: Item.toNotch(item) })
        } else {
          player.inventory.updateSlot(slot - 1, item) // mirrored to the table window below
        }
      }
    }
  }

  function sendWindow (player, win, slots, cursor) {
    player._client.write('window_items', { windowId: win.id, items: slots.map(it => Item.toNotch(it)) })
    player._client.write('set_slot', { windowId: -1, slot: -1, item: Item.toNotch(cursor) })
  }

  function commit (player, win, before, after, which) {
    player._pepaCommitting = true
    try {
      for (let s = 0; s < win.size; s++) {
        if (which(s) && !equal(before[s], after[s])) win.write(s, after[s])
      }
    } finally {
      player._pepaCommitting = false
    }
  }

  function drop (player, item) {
    if (!item || item.count <= 0) return
    // vanilla PlayerEntity.dropItem: from just below the eyes, 0.3 blocks/tick the way the player looks
    const yaw = (player.yaw || 0) * Math.PI / 128
    const pitch = (player.pitch || 0) * Math.PI / 128
    serv.spawnObject(itemEntity, player.world, player.position.offset(0, 1.32, 0), {
      velocity: new Vec3(-Math.sin(yaw) * Math.cos(pitch) * 6, -Math.sin(pitch) * 6 + 2, Math.cos(yaw) * Math.cos(pitch) * 6),
      itemId: item.type,
      itemCount: item.count,
      pickupTime: THROW_PICKUP_MS,
      deathTime: DESPAWN_MS
    })
  }

  // a broken container's item (vanilla InventoryHelper.spawnItemStack): somewhere in the block
  // at `pos`, in stacks of 10-30
  function spill (world, pos, item) {
    let count = item.count
    while (count > 0) {
      const n = Math.min(count, 10 + Math.floor(Math.random() * 21))
      count -= n
      const at = pos.offset(0.125 + Math.random() * 0.75, Math.random() * 0.75, 0.125 + Math.random() * 0.75)
      // vanilla: 0.05 blocks/tick gaussian sideways, 0.2 up; sideways halved for
      // flying-squid's item physics, as drops.js does
      const gauss = () => Math.sqrt(-2 * Math.log(Math.max(Math.random(), 1e-12))) * Math.cos(2 * Math.PI * Math.random())
      serv.spawnObject(itemEntity, world, at, {
        velocity: new Vec3(gauss() * 0.5, 4 + gauss(), gauss() * 0.5),
        itemId: item.type,
        itemCount: n,
        pickupTime: SPILL_PICKUP_MS,
        deathTime: DESPAWN_MS
      })
    }
  }

  // put an item into the player's inventory (vanilla addItemStackToInventory:
  // the held slot, offhand, then any matching stack; then the first empty slot
  // of the hotbar and the main inventory); what does not fit falls
  function give (player, item) {
    const inv = player.inventory
    const order = [36 + player.heldItemSlot, 45]
    for (let s = 36; s < 45; s++) order.push(s)
    for (let s = 9; s < 36; s++) order.push(s)
    item = copy(item)
    for (const s of order) {
      const it = inv.slots[s]
      if (!item.count) return
      if (it && same(it, item) && it.count < it.stackSize) {
        const n = Math.min(item.count, it.stackSize - it.count)
        it.count += n
        item.count -= n
        inv.updateSlot(s, it)
      }
    }
    for (const s of order.slice(2)) {
      if (!item.count) return
      if (!inv.slots[s]) {
        const n = Math.min(item.count, item.stackSize)
        inv.updateSlot(s, copy(item, n))
        item.count -= n
      }
    }
    drop(player, item)
  }

  // a block window: `record` is { block (its name), position, slots (a table's) | box }
  function openWindow (player, record, inventoryType, windowTitle) {
    closeContainer(player, true)
    const id = ((player.windowId || 0) % 100) + 1 // shared with flying-squid's chest windows
    player.windowId = id
    player.windowType = record.block
    player.windowPos = record.position
    player._pepaTable = { ...record, id, position: record.position.clone() }
    player._client.write('open_window', { windowId: id, inventoryType, windowTitle })
    player._client.write('window_items', {
      windowId: id,
      items: windowOf(player).read().map(it => Item.toNotch(it))
    })
    return id
  }

  function openTable (player, position) {
    openWindow(player, { block: 'crafting_table', position, slots: new Array(10).fill(null) }, INVENTORY_TYPE_CRAFTING, TITLE)
  }

  // Another plugin's container in a block (furnace.js, chests.js), with the clicks, cursor,
  // closing and reach of a crafting table. box = { block (its name), position,
  // type (1.16.5 menu id), title (JSON chat), size (its own slots; the player's
  // main inventory and hotbar follow), read() -> its items, write(slot, item),
  // accepts(slot, item), limit(slot, item), quickMove(slots, slot, item, merge)
  // for a shift-click out of `slot`, closed(player) }. Returns the window id.
  function openContainer (player, box) {
    return openWindow(player, { block: box.block, position: box.position, box }, box.type, box.title)
  }

  // vanilla Container.onContainerClosed: the cursor item drops; a crafting
  // grid goes back into the inventory (and what does not fit drops)
  function closeContainer (player, tellClient) {
    const table = player._pepaTable
    player._pepaDrag = null
    if (player._pepaCursor) {
      drop(player, player._pepaCursor)
      player._pepaCursor = null
    }
    if (table) {
      player._pepaTable = null
      if (tellClient) player._client.write('close_window', { windowId: table.id })
      if (table.box) table.box.closed(player)
      else for (let s = 1; s <= 9; s++) if (table.slots[s]) give(player, table.slots[s])
    } else {
      const grid = [1, 2, 3, 4].map(s => player.inventory.slots[s])
      player._pepaCommitting = true
      try {
        for (let s = 1; s <= 4; s++) if (player.inventory.slots[s]) player.inventory.updateSlot(s, null)
        if (player.inventory.slots[0]) player.inventory.updateSlot(0, null)
      } finally {
        player._pepaCommitting = false
      }
      for (const it of grid) if (it) give(player, it)
    }
  }

  return { windowOf, sendWindow, commit, drop, spill, give, openTable, openContainer, closeContainer }
}
