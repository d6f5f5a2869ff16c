'use strict'
// Item stacks as a 1.16.5 server moves them: copies, the test of two stacks that stack, and
// vanilla's merge into a run of slots.

module.exports = function stacks (Item) {
  const copy = (item, count = item.count) => new Item(item.type, count, item.metadata, item.nbt)
  const same = (a, b) => !!a && !!b && a.type === b.type && a.metadata === b.metadata &&
    JSON.stringify(a.nbt || null) === JSON.stringify(b.nbt || null)
  const equal = (a, b) => (!a && !b) || (same(a, b) && a.count === b.count)

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

  return { copy, same, equal, merge }
}
