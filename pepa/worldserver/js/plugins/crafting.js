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
//   - other plugins' block containers (furnace.js, chests.js) open through
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
//
// Its parts, in ../crafting/ (helpers, not plugins): recipes.js (the recipe index and the
// grid's result), stacks.js (copies, stacking, vanilla's merge), click.js (one click of each
// mode on the window's slots), windows.js (the windows as slot lists, opening, closing,
// giving and dropping items).

const { crafter } = require('../crafting/recipes')
const stacks = require('../crafting/stacks')
const clicker = require('../crafting/click')
const windows = require('../crafting/windows')

const REACH = 8 // vanilla closes a container farther than 8 blocks away

module.exports.server = function (serv) {
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const kit = { serv, registry, Item, craft: crafter(registry, Item), ...stacks(Item) }
  Object.assign(kit, windows(kit)) // windowOf, sendWindow, commit, drop, give, open..., closeContainer
  const click = clicker(kit)
  const { craft, equal, windowOf, sendWindow, commit, give, spill, openTable, openContainer, closeContainer } = kit
  const transactions = registry.supportFeature('transactionPacketExists')

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
  // for other plugins' containers: open(player, box) -> window id; close(player); spill(world,
  // pos, item): a broken container's item dropped in its block
  serv.pepaContainers = { open: openContainer, close: (player) => closeContainer(player, true), spill }
}

module.exports.player = function (player) {
  // Registered before flying-squid's own logout handler, which saves the
  // player: vanilla closes the open container first, so grid items go back
  // into the inventory instead of being lost (the save keeps no grid).
  player._client.on('end', () => {
    try { player._pepaCloseContainer?.() } catch (e) {}
  })
}
