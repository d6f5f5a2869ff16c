'use strict'
// One window click, as a 1.16.5 server applies it to the slots of the open window (a copy the
// caller commits): pick up / place (mode 0), shift (1), hotbar swap (2), throw (4), drag (5),
// double-click gather (6); creative clone (3) does nothing in survival. The player's cursor
// item is player._pepaCursor, a drag in progress player._pepaDrag.

// vanilla Item.getContainerItem(): what stays in the grid after crafting
const REMAINDER = {
  milk_bucket: 'bucket',
  water_bucket: 'bucket',
  lava_bucket: 'bucket',
  honey_bottle: 'glass_bottle',
  dragon_breath: 'glass_bottle'
}
// what each armour slot of the inventory window takes (a part of the item's name)
const ARMOUR = { 5: ['helmet', 'carved_pumpkin', '_head', 'skull'], 6: ['chestplate', 'elytra'], 7: ['leggings'], 8: ['boots'] }

// kit: { registry, Item, craft, copy, same, merge, drop(player, item) }
module.exports = function clicker (kit) {
  const { registry, Item, craft, copy } = kit

  // the click's state: the slots, the cursor (c.cursor, replaced as the click goes) and the
  // window's rules
  function clickState (player, win, slots) {
    const c = {
      player,
      win,
      slots,
      cursor: player._pepaCursor ? copy(player._pepaCursor) : null,
      leftovers: [], // remainders that found no room in the grid
      resultSlot: win.grid ? 0 : -1, // the crafting result; a container's slots have their own rules
      limit: win.limit || ((s, item) => (win.kind === 'inventory' && s >= 5 && s <= 8 ? 1 : item.stackSize)),
      accepts: win.accepts || ((s, item) => {
        if (s === 0) return false // the result slot takes nothing
        if (win.kind === 'inventory' && s >= 5 && s <= 8) return ARMOUR[s].some(k => item.name.includes(k))
        return true
      }),
      inInventory: (s) => s >= win.invStart && s < win.invEnd,
      refresh: () => { if (win.grid) slots[0] = craft(win.grid.map(s => slots[s]), win.width) },
      // taking the result: one of each ingredient goes, remainders stay
      consume () {
        for (const s of win.grid) {
          const it = slots[s]
          if (!it) continue
          const rest = REMAINDER[it.name] && registry.itemsByName[REMAINDER[it.name]]
          it.count -= 1
          if (it.count <= 0) slots[s] = rest ? new Item(rest.id, 1) : null
          else if (rest) c.leftovers.push(new Item(rest.id, 1))
        }
        c.refresh()
      }
    }
    return c
  }

  const MODES = { 0: pickUp, 1: shiftClick, 2: swap, 4: throwOut, 5: drag, 6: gather }

  // The click's remainders that found no room in the grid (to give the player)
  function click (player, win, slots, packet) {
    const c = clickState(player, win, slots)
    if (packet.mode !== 5) player._pepaDrag = null
    c.refresh()
    const mode = MODES[packet.mode] // mode 3 (middle click) clones in creative only: nothing in survival
    if (mode) {
      const again = mode(c, packet.slot, packet.mouseButton)
      if (again) return click(player, win, slots, again) // a drag over one slot: a plain click there
    }
    c.refresh()
    if (c.cursor && c.cursor.count <= 0) c.cursor = null
    player._pepaCursor = c.cursor
    return c.leftovers
  }

  // mode 0: pick up / put down
  function pickUp (c, slot, button) {
    const { slots, player, accepts, limit } = c
    const { drop, same } = kit
    if (slot === -999) {
      if (c.cursor) {
        const n = button === 0 ? c.cursor.count : 1
        drop(player, copy(c.cursor, n))
        c.cursor.count -= n
      }
    } else if (slot === c.resultSlot) {
      const result = slots[0]
      if (result) {
        if (!c.cursor) { c.cursor = copy(result); c.consume() } else if (same(c.cursor, result) && c.cursor.count + result.count <= c.cursor.stackSize) {
          c.cursor.count += result.count
          c.consume()
        }
      }
    } else {
      const it = slots[slot]
      if (!it) {
        if (c.cursor && accepts(slot, c.cursor)) {
          const n = Math.min(button === 0 ? c.cursor.count : 1, limit(slot, c.cursor))
          slots[slot] = copy(c.cursor, n)
          c.cursor.count -= n
        }
      } else if (!c.cursor) {
        const n = button === 0 ? it.count : Math.ceil(it.count / 2)
        c.cursor = copy(it, n)
        it.count -= n
        if (!it.count) slots[slot] = null
      } else if (accepts(slot, c.cursor)) {
        if (same(it, c.cursor)) {
          const n = Math.min(button === 0 ? c.cursor.count : 1, limit(slot, c.cursor) - it.count)
          if (n > 0) { it.count += n; c.cursor.count -= n }
        } else if (c.cursor.count <= limit(slot, c.cursor)) {
          slots[slot] = c.cursor
          c.cursor = it
        }
      } else if (same(it, c.cursor) && it.count + c.cursor.count <= c.cursor.stackSize) {
        // a slot that takes nothing (a furnace's output) tops up a matching cursor
        c.cursor.count += it.count
        slots[slot] = null
      }
    }
  }

  // mode 1: shift-click
  function shiftClick (c, slot) {
    const { slots, win, accepts } = c
    const { merge } = kit
    const it = slots[slot]
    if (slot === c.resultSlot) {
      // craft again and again while the same result comes out and fits
      for (let n = 0; n < 64 && slots[0]; n++) {
        const result = slots[0]
        const trial = slots.map(s => (s ? copy(s) : null))
        const moving = copy(result)
        merge(trial, moving, win.invStart, win.invEnd, true)
        if (moving.count) break
        merge(slots, copy(result), win.invStart, win.invEnd, true)
        c.consume()
        if (!slots[0] || slots[0].type !== result.type) break
      }
    } else if (it) {
      const moving = copy(it)
      if (win.quickMove) {
        win.quickMove(slots, slot, moving, merge)
      } else if (!c.inInventory(slot)) {
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
  }

  // mode 2: number key: swap with a hotbar slot
  function swap (c, slot, button) {
    const { slots, win, accepts, limit } = c
    const target = button === 40 && win.kind === 'inventory' ? 45 : (button <= 8 ? win.hotbar + button : -1)
    if (target >= 0 && target !== slot) {
      const it = slots[slot]
      const other = slots[target]
      if (slot === c.resultSlot) {
        if (it && !other) { slots[target] = copy(it); c.consume() }
      } else if (!other || (accepts(slot, other) && other.count <= limit(slot, other))) {
        slots[slot] = other
        slots[target] = it
      }
    }
  }

  // mode 4: Q over a slot: throw one, or the stack with ctrl
  function throwOut (c, slot, button) {
    const { slots, player } = c
    const it = slots[slot]
    if (!c.cursor && slot >= 0 && it) {
      if (slot === c.resultSlot) {
        kit.drop(player, copy(it))
        c.consume()
      } else {
        const n = button === 0 ? 1 : it.count
        kit.drop(player, copy(it, n))
        it.count -= n
        if (!it.count) slots[slot] = null
      }
    }
  }

  // mode 5: drag: start, add slots, end. Over one slot: the packet of the plain click there
  function drag (c, slot, button) {
    const { slots, win, player, accepts, limit } = c
    const { same } = kit
    const stage = button & 3
    const type = (button >> 2) & 3 // 0 split evenly, 1 one each, 2 creative clone
    const dragging = player._pepaDrag
    if (stage === 0) {
      player._pepaDrag = c.cursor && type !== 2 ? { type, slots: [] } : null
    } else if (stage === 1 && dragging && c.cursor && slot >= 0 && slot < win.size) {
      const it = slots[slot]
      if (accepts(slot, c.cursor) && (!it || same(it, c.cursor)) && c.cursor.count > dragging.slots.length &&
        !dragging.slots.includes(slot)) dragging.slots.push(slot)
    } else if (stage === 2 && dragging && c.cursor) {
      player._pepaDrag = null
      if (dragging.slots.length === 1) return { slot: dragging.slots[0], mouseButton: dragging.type, mode: 0 }
      const each = dragging.type === 0 ? Math.floor(c.cursor.count / Math.max(1, dragging.slots.length)) : 1
      for (const s of dragging.slots) {
        if (!c.cursor.count) break
        const have = slots[s] ? slots[s].count : 0
        const n = Math.min(each, limit(s, c.cursor) - have, c.cursor.count)
        if (n <= 0) continue
        slots[s] = copy(c.cursor, have + n)
        c.cursor.count -= n
      }
    }
    return null
  }

  // mode 6: double click: gather items like the cursor's
  function gather (c, slot, button) {
    const { slots, win } = c
    const cursor = c.cursor
    if (!cursor || slot < 0) return
    const order = []
    for (let s = 0; s < win.size; s++) if (s !== c.resultSlot) order.push(s)
    if (button !== 0) order.reverse()
    for (const fullOnes of [false, true]) {
      for (const s of order) {
        const it = slots[s]
        if (cursor.count >= cursor.stackSize) break
        if (!it || !kit.same(it, cursor) || (!fullOnes && it.count >= it.stackSize)) continue
        const n = Math.min(cursor.stackSize - cursor.count, it.count)
        cursor.count += n
        it.count -= n
        if (!it.count) slots[s] = null
      }
    }
  }

  return click
}
