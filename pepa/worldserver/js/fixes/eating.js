'use strict'
// Eating, with vanilla numbers: 32 ticks, minecraft-data's food points and saturation.
//
// flying-squid 1.12 has no eating: a client's use_item with food in hand does nothing, and a
// hungry player starves with bread in its hotbar. Here, as vanilla: food is eaten when the
// player is hungry (some items, such as a golden apple, at any time), 1.6 s after use_item
// if the item is still in the hand and the player alive; the food level and saturation go up
// by the food's figures (saturation never above the food level), one item is used, and the
// client is told it ate (entity_status 9). The sandbox's hunger (plugins/hunger.js) drains
// what this fills.

const EAT_MS = 1600
const ALWAYS_EDIBLE = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit', 'milk_bucket', 'potion'])

module.exports.server = function (serv) {
  const { registry } = serv
  serv.on('newPlayer', (p) => {
    p._client.on('use_item', () => {
      const slot = 36 + p.heldItemSlot
      const item = p.inventory.slots[slot]
      const food = item && registry.foodsByName[item.name]
      if (!food || (p.food >= 20 && !ALWAYS_EDIBLE.has(item.name))) return
      clearTimeout(p._pepaEating)
      p._pepaEating = setTimeout(() => {
        const now = p.inventory.slots[slot]
        if (!now || now.type !== item.type || p.health <= 0) return
        const level = Math.min(20, p.food + food.foodPoints)
        p.foodSaturation = Math.min(level, (p.foodSaturation || 0) + food.saturation)
        p.updateFood(level)
        now.count -= 1
        p.inventory.updateSlot(slot, now.count > 0 ? now : null)
        p._client.write('entity_status', { entityId: p.id, entityStatus: 9 })
      }, EAT_MS)
    })
  })
}
