'use strict'
// The survival sandbox: inventory clicks and crafting, as a 1.16.5 server does them.
//
// flying-squid 1.12 has no crafting and a broken click handler: it feeds the
// client's packet item straight into prismarine-windows, never answers the
// 1.16 `transaction` that every click waits for (mineflayer gives up after
// 5 s), and ignores shift-clicks. In the sandbox this plugin replaces that
// handler and owns every window click:
//   - the player inventory window (id 0): result 0, 2x2 grid 1-4, armour 5-8,
//     main 9-35, hotbar 36-44, offhand 45 (the grid lives in player.inventory);
//   - a crafting table (right-click a crafting_table block): window type
//     minecraft:crafting, result 0, 3x3 grid 1-9, then the player's main
//     inventory 10-36 and hotbar 37-45;
//   - clicks of every 1.16 mode: pick up / place (0), shift (1), hotbar swap
//     (2), throw (4), drag (5), double-click gather (6); creative clone (3) is
//     a no-op in survival;
//   - the result is looked up among minecraft-data's recipes (shaped at any
//     offset and mirrored, as vanilla matches them; shapeless as a multiset);
//     taking it uses one of each ingredient and leaves vanilla's remainders
//     (a bucket from milk, a bottle from honey);
//   - closing a window puts the grid back into the inventory (what does not
//     fit falls to the ground) and drops the item on the cursor, as vanilla;
//   - other plugins' block containers (furnace.js) open through
//     serv.pepaContainers and get the same clicks, their own slot rules.
//
// Keeping the client in step: every click is answered with
// `transaction {accepted: true}` and a `set_slot` for every slot it changed -
// the others before the answer, the clicked slot after it - and, after any
// click but a plain one, the whole window. A client that predicted the click
// (the vanilla client at once, mineflayer when the answer arrives) ends with
// the server's truth. A click that cannot be right (a window that
// is not open, a slot out of range) is refused (`accepted: false`) and the
// whole window is sent again, as vanilla does.

const { Vec3 } = require('vec3')

const INVENTORY_TYPE_CRAFTING = 11 // 1.16.5 menu registry: minecraft:crafting
const TITLE = JSON.stringify({ translate: 'container.crafting' })
const REACH = 8 // vanilla closes a container farther than 8 blocks away
const THROW_PICKUP_MS = 2000 // vanilla: a thrown item waits 40 ticks before pickup
const DESPAWN_MS = 5 * 60 * 1000 // 6000 ticks
// vanilla Item.getContainerItem(): what stays in the grid after crafting
const REMAINDER = {
  milk_bucket: 'bucket',
  water_bucket: 'bucket',
  lava_bucket: 'bucket',
  honey_bottle: 'glass_bottle',
  dragon_breath: 'glass_bottle'
}
const ARMOUR = { 5: ['helmet', 'carved_pumpkin', '_head', 'skull'], 6: ['chestplate', 'elytra'], 7: ['leggings'], 8: ['boots'] }

module.exports.server = function (serv) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const recipes = indexRecipes(registry)
  const itemEntity = (registry.entitiesByName.item || registry.entitiesByName.Item).id // Item: up to 1.10
  const transactions = registry.supportFeature('transactionPacketExists')

  const copy = (item, count = item.count) => new Item(item.type, count, item.metadata, item.nbt)
  const same = (a, b) => !!a && !!b && a.type === b.type && a.metadata === b.metadata &&
    JSON.stringify(a.nbt || null) === JSON.stringify(b.nbt || null)
  const equal = (a, b) => (!a && !b) || (same(a, b) && a.count === b.count)

  // --- recipes --------------------------------------------------------------

  // the result for the items of a w x h grid (row by row), or null
  function craft (grid, w) {
    let minX = w; let maxX = -1; let minY = w; let maxY = -1
    grid.forEach((it, i) => {
      if (!it) return
      const x = i % w
      const y = Math.floor(i / w)
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y)
    })
    if (maxX < 0) return null
    const rows = []
    for (let y = minY; y <= maxY; y++) {
      const row = []
      for (let x = minX; x <= maxX; x++) row.push(grid[y * w + x] ? grid[y * w + x].type : null)
      rows.push(row)
    }
    const found = recipes.shaped.get(shapeKey(rows)) ||
      recipes.shapeless.get(grid.filter(Boolean).map(it => it.type).sort((a, b) => a - b).join(','))
    return found ? new Item(found.id, found.count) : null
  }

  // --- windows ----------------------------------------------------------------

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

  // vanilla Container.mergeItemStack: top up matching stacks, then the first
  // empty slot, scanning [start, end) forwards or backwards
  function merge (slots, item, start, end, reverse, accepts = () => true) {
    const order = []
    for (let s = start; s < end; s++) order.push(s)
    if (reverse) order.reverse()
    for (const s of order) {
      if (!item.count) break
      const it = slots[s]
      if (it && same(it, item) && it.count < it.stackSize) {
        const n = Math.min(item.count, it.stackSize - it.count)
        it.count += n
        item.count -= n
      }
    }
    for (const s of order) {
      if (!item.count) break
      if (!slots[s] && accepts(s, item)) {
        const n = Math.min(item.count, item.stackSize)
        slots[s] = copy(item, n)
        item.count -= n
      }
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

  // --- one click ----------------------------------------------------------------

  function click (player, win, slots, packet) {
    const { slot, mouseButton: button, mode } = packet
    const resultSlot = win.grid ? 0 : -1 // the crafting result; a container's slots have their own rules
    const limit = win.limit || ((s, item) => (win.kind === 'inventory' && s >= 5 && s <= 8 ? 1 : item.stackSize))
    const accepts = win.accepts || ((s, item) => {
      if (s === 0) return false // the result slot takes nothing
      if (win.kind === 'inventory' && s >= 5 && s <= 8) return ARMOUR[s].some(k => item.name.includes(k))
      return true
    })
    const grid = () => win.grid.map(s => slots[s])
    const refresh = () => { if (win.grid) slots[0] = craft(grid(), win.width) }
    const inInventory = (s) => s >= win.invStart && s < win.invEnd
    let cursor = player._pepaCursor ? copy(player._pepaCursor) : null
    const leftovers = [] // remainders that found no room in the grid

    // taking the result: one of each ingredient goes, remainders stay
    function consume () {
      for (const s of win.grid) {
        const it = slots[s]
        if (!it) continue
        const rest = REMAINDER[it.name] && registry.itemsByName[REMAINDER[it.name]]
        it.count -= 1
        if (it.count <= 0) slots[s] = rest ? new Item(rest.id, 1) : null
        else if (rest) leftovers.push(new Item(rest.id, 1))
      }
      refresh()
    }

    if (mode !== 5) player._pepaDrag = null
    refresh()
    if (mode === 0) { // pick up / put down
      if (slot === -999) {
        if (cursor) {
          const n = button === 0 ? cursor.count : 1
          drop(player, copy(cursor, n))
          cursor.count -= n
        }
      } else if (slot === resultSlot) {
        const result = slots[0]
        if (result) {
          if (!cursor) { cursor = copy(result); consume() } else if (same(cursor, result) && cursor.count + result.count <= cursor.stackSize) {
            cursor.count += result.count
            consume()
          }
        }
      } else {
        const it = slots[slot]
        if (!it) {
          if (cursor && accepts(slot, cursor)) {
            const n = Math.min(button === 0 ? cursor.count : 1, limit(slot, cursor))
            slots[slot] = copy(cursor, n)
            cursor.count -= n
          }
        } else if (!cursor) {
          const n = button === 0 ? it.count : Math.ceil(it.count / 2)
          cursor = copy(it, n)
          it.count -= n
          if (!it.count) slots[slot] = null
        } else if (accepts(slot, cursor)) {
          if (same(it, cursor)) {
            const n = Math.min(button === 0 ? cursor.count : 1, limit(slot, cursor) - it.count)
            if (n > 0) { it.count += n; cursor.count -= n }
          } else if (cursor.count <= limit(slot, cursor)) {
            slots[slot] = cursor
            cursor = it
          }
        } else if (same(it, cursor) && it.count + cursor.count <= cursor.stackSize) {
          // a slot that takes nothing (a furnace's output) tops up a matching cursor
          cursor.count += it.count
          slots[slot] = null
        }
      }
    } else if (mode === 1) { // shift-click
      const it = slots[slot]
      if (slot === resultSlot) {
        // craft again and again while the same result comes out and fits
        for (let n = 0; n < 64 && slots[0]; n++) {
          const result = slots[0]
          const trial = slots.map(s => (s ? copy(s) : null))
          const moving = copy(result)
          merge(trial, moving, win.invStart, win.invEnd, true)
          if (moving.count) break
          merge(slots, copy(result), win.invStart, win.invEnd, true)
          consume()
          if (!slots[0] || slots[0].type !== result.type) break
        }
      } else if (it) {
        const moving = copy(it)
        if (win.quickMove) {
          win.quickMove(slots, slot, moving, merge)
        } else if (!inInventory(slot)) {
          merge(slots, moving, win.invStart, win.invEnd, false)
        } else if (win.kind === 'table') {
          // vanilla 1.16 WorkbenchContainer: into the grid first, then main <-> hotbar
          merge(slots, moving, 1, 10, false)
          if (moving.count) {
            if (slot < win.hotbar) merge(slots, moving, win.hotbar, win.invEnd, false)
            else merge(slots, moving, win.invStart, win.hotbar, false)
          }
        } else {
          const armour = [5, 6, 7, 8].find(s => accepts(s, it) && !slots[s])
          if (armour !== undefined) merge(slots, moving, armour, armour + 1, false, accepts)
          else if (it.name === 'shield' && !slots[45]) merge(slots, moving, 45, 46, false)
          else if (slot < win.hotbar) merge(slots, moving, win.hotbar, win.invEnd, false)
          else merge(slots, moving, win.invStart, win.hotbar, false)
        }
        if (moving.count !== it.count) slots[slot] = moving.count ? moving : null
      }
    } else if (mode === 2) { // number key: swap with a hotbar slot
      const target = button === 40 && win.kind === 'inventory' ? 45 : (button <= 8 ? win.hotbar + button : -1)
      if (target >= 0 && target !== slot) {
        const it = slots[slot]
        const other = slots[target]
        if (slot === resultSlot) {
          if (it && !other) { slots[target] = copy(it); consume() }
        } else if (!other || (accepts(slot, other) && other.count <= limit(slot, other))) {
          slots[slot] = other
          slots[target] = it
        }
      }
    } else if (mode === 4) { // Q over a slot: throw one, or the stack with ctrl
      const it = slots[slot]
      if (!cursor && slot >= 0 && it) {
        if (slot === resultSlot) {
          drop(player, copy(it))
          consume()
        } else {
          const n = button === 0 ? 1 : it.count
          drop(player, copy(it, n))
          it.count -= n
          if (!it.count) slots[slot] = null
        }
      }
    } else if (mode === 5) { // drag: start, add slots, end
      const stage = button & 3
      const type = (button >> 2) & 3 // 0 split evenly, 1 one each, 2 creative clone
      const drag = player._pepaDrag
      if (stage === 0) {
        player._pepaDrag = cursor && type !== 2 ? { type, slots: [] } : null
      } else if (stage === 1 && drag && cursor && slot >= 0 && slot < win.size) {
        const it = slots[slot]
        if (accepts(slot, cursor) && (!it || same(it, cursor)) && cursor.count > drag.slots.length &&
          !drag.slots.includes(slot)) drag.slots.push(slot)
      } else if (stage === 2 && drag && cursor) {
        player._pepaDrag = null
        if (drag.slots.length === 1) {
          return click(player, win, slots, { slot: drag.slots[0], mouseButton: drag.type, mode: 0 })
        }
        const each = drag.type === 0 ? Math.floor(cursor.count / Math.max(1, drag.slots.length)) : 1
        for (const s of drag.slots) {
          if (!cursor.count) break
          const have = slots[s] ? slots[s].count : 0
          const n = Math.min(each, limit(s, cursor) - have, cursor.count)
          if (n <= 0) continue
          slots[s] = copy(cursor, have + n)
          cursor.count -= n
        }
      }
    } else if (mode === 6) { // double click: gather items like the cursor's
      if (cursor && slot >= 0) {
        const order = []
        for (let s = 0; s < win.size; s++) if (s !== resultSlot) order.push(s)
        if (button !== 0) order.reverse()
        for (const fullOnes of [false, true]) {
          for (const s of order) {
            const it = slots[s]
            if (cursor.count >= cursor.stackSize) break
            if (!it || !same(it, cursor) || (!fullOnes && it.count >= it.stackSize)) continue
            const n = Math.min(cursor.stackSize - cursor.count, it.count)
            cursor.count += n
            it.count -= n
            if (!it.count) slots[s] = null
          }
        }
      }
    } // mode 3 (middle click) clones in creative only: nothing in survival

    refresh()
    if (cursor && cursor.count <= 0) cursor = null
    player._pepaCursor = cursor
    return leftovers
  }

  function onClick (player, packet) {
    const win = windowOf(player)
    const { windowId, slot, mode, action } = packet
    // from 1.17 a click has no answer (no transaction packet: the set_slots are the answer);
    // the sandbox is 1.16.5 only, but the plugin also runs in a plain world at any version
    // (the scenario's load_plugin op)
    const answer = (accepted) => transactions && player._client.write('transaction', { windowId, action, accepted })
    if (slot === -1 && windowId === win.id) return answer(true) // a click on the window's background
    const valid = windowId === win.id && mode >= 0 && mode <= 6 &&
      (slot === -999 ? (mode === 0 || mode === 5 || mode === 4) : slot >= 0 && slot < win.size)
    if (!valid) {
      answer(false)
      if (windowId === win.id) sendWindow(player, win, win.read(), player._pepaCursor)
      return
    }
    const before = win.read()
    const after = win.read()
    const leftovers = click(player, win, after, packet)
    // Vanilla's order: what the client cannot guess (a new crafting result, a
    // consumed grid) before the answer, so a client knows it as soon as its
    // click is through; the clicked slot after it, because mineflayer applies
    // its own guess at the clicked slot when the answer arrives.
    commit(player, win, before, after, (s) => s !== slot)
    answer(true)
    commit(player, win, before, after, (s) => s === slot)
    for (const item of leftovers) give(player, item)
    // A client's own guess at a shift-click, a swap, a drag or a double-click
    // may have moved items to other slots than this server did, and set_slot
    // only corrects the slots the server changed: send the whole window. So
    // after any click in a container, whose slot rules (a furnace's fuel slot)
    // a client such as mineflayer may not know.
    if (mode !== 0 || win.accepts) sendWindow(player, win, win.read(), player._pepaCursor)
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

  // --- opening and closing ----------------------------------------------------

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

  // Another plugin's container in a block (furnace.js), with the clicks, cursor,
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

  serv.once('asap', () => {
    serv.onBlockInteraction('crafting_table', ({ block, player }) => {
      // vanilla: sneaking with an item in hand uses the item (places a block) instead
      if (player.crouching && player.inventory.slots[36 + player.heldItemSlot]) return false
      openTable(player, block.position)
      return true
    })
  })

  serv.on('newPlayer', (player) => {
    // flying-squid's own window_click handler (inventory.js) would apply every
    // click a second time, wrongly; this plugin answers clicks instead
    for (const fn of player._client.listeners('window_click')) {
      if (String(fn).includes('inventory.acceptClick')) player._client.removeListener('window_click', fn)
    }
    player._pepaCursor = null
    player._pepaTable = null
    player._pepaCloseContainer = () => closeContainer(player, false)
    player._client.on('window_click', (packet) => {
      try { onClick(player, packet) } catch (err) { serv.err(`crafting: window click failed: ${err && err.stack}`) }
    })
    player._client.on('close_window', ({ windowId }) => {
      const open = player._pepaTable ? player._pepaTable.id : 0
      if (windowId === open) closeContainer(player, false)
    })
    player.inventory.on('updateSlot', (slot, oldItem, newItem) => {
      const table = player._pepaTable
      // the table window shows the player's inventory too: keep it in step
      if (table && slot >= 9 && slot <= 44) {
        const offset = (table.box ? table.box.size : 10) - 9
        player._client.write('set_slot', { windowId: table.id, slot: slot + offset, item: Item.toNotch(newItem) })
      }
      // the 2x2 grid changed from outside a click (a plugin, an operation): new result
      if (!player._pepaCommitting && slot >= 1 && slot <= 4) {
        const result = craft([1, 2, 3, 4].map(s => player.inventory.slots[s]), 2)
        if (!equal(result, player.inventory.slots[0])) player.inventory.updateSlot(0, result)
      }
    })
  })

  // a table farther than 8 blocks, or one that is gone, closes (vanilla canInteractWith)
  let ticks = 0
  serv.on('tick', () => {
    if (++ticks % 20) return
    for (const player of serv.players) {
      const table = player._pepaTable
      if (!table) continue
      const far = player.position.distanceTo(table.position.offset(0.5, 0.5, 0.5)) > REACH
      player.world.getBlock(table.position).then((block) => {
        if (player._pepaTable !== table) return
        if (far || !block || block.name !== table.block || player.health <= 0) closeContainer(player, true)
      }, () => {})
    }
  })

  serv.pepaCraft = craft // for tests and other plugins: craft(items, width)
  // for other plugins' containers: open(player, box) -> window id; close(player)
  serv.pepaContainers = { open: openContainer, close: (player) => closeContainer(player, true) }
}

module.exports.player = function (player) {
  // Registered before flying-squid's own logout handler, which saves the
  // player: vanilla closes the open container first, so grid items go back
  // into the inventory instead of being lost (the save keeps no grid).
  player._client.on('end', () => {
    try { player._pepaCloseContainer?.() } catch (e) {}
  })
}

// --- recipe index -------------------------------------------------------------

function idOf (cell) {
  if (cell === null || cell === undefined) return null
  const id = typeof cell === 'object' ? cell.id : cell
  return id === -1 || id === undefined ? null : id
}

function trim (rows) {
  let r = rows.map(row => row.map(idOf))
  while (r.length && r[0].every(c => c === null)) r = r.slice(1)
  while (r.length && r[r.length - 1].every(c => c === null)) r = r.slice(0, -1)
  const width = Math.max(0, ...r.map(row => row.length))
  r = r.map(row => [...row, ...new Array(width - row.length).fill(null)])
  while (r.length && r.every(row => row[0] === null)) r = r.map(row => row.slice(1))
  while (r.length && r.every(row => row[row.length - 1] === null)) r = r.map(row => row.slice(0, -1))
  return r
}

function shapeKey (rows) {
  return rows.map(row => row.map(c => (c === null ? '_' : c)).join(',')).join('/')
}

function indexRecipes (registry) {
  const shaped = new Map()
  const shapeless = new Map()
  const mirrored = []
  for (const list of Object.values(registry.recipes || {})) {
    for (const recipe of list) {
      if (recipe.inShape) {
        const rows = trim(recipe.inShape)
        const key = shapeKey(rows)
        if (!shaped.has(key)) shaped.set(key, recipe.result)
        mirrored.push([shapeKey(rows.map(row => [...row].reverse())), recipe.result])
      } else if (recipe.ingredients) {
        const key = recipe.ingredients.map(idOf).filter(id => id !== null).sort((a, b) => a - b).join(',')
        if (!shapeless.has(key)) shapeless.set(key, recipe.result)
      }
    }
  }
  // vanilla also matches a shaped recipe mirrored left to right
  for (const [key, result] of mirrored) if (!shaped.has(key)) shaped.set(key, result)
  return { shaped, shapeless }
}
