'use strict'
// The scenario's players: what they have (health, food, experience, items) and where they are.
//
//   players                               → [{username, id, position, health, food, ...,
//                                            sendingChunks}]
//   set_health {player, hp=20}, damage {player, amount=1}, kill {player} → {health}
//   set_food {player, food=20, saturation?} → {food, saturation}
//   set_xp {player, xp=0}                 → {xp, level}
//   gamemode {player, mode=0}             → {gameMode}
//   give {player, item, count=1, slot?}   → {slot, item, count}; slot = window slot
//                                            (36..44 hotbar, 9..35 main), else the first empty
//   inventory {player}                    → {item name: count}, as the server holds it
//   clear_inventory {player}              → {}
//   teleport {player, x, y, z}            → {position}
//   chat_as {player, text}                → {}: as if `player` had typed it
//   kick {player, reason?}                → {}
const { num, vec, pos } = require('./context')

module.exports = function playerOps (ctx) {
  const { serv, registry, Item, player, settled } = ctx
  return {
    players: () => serv.players.map(p => ({
      username: p.username, id: p.id, position: pos(p.position), health: p.health, food: p.food,
      foodSaturation: p.foodSaturation, gameMode: p.gameMode, xp: p.xp,
      sendingChunks: !!p.sendingChunks // a batch of chunks is going out to it (after a respawn)
    })),

    // flying-squid's own updateHealth and updateFood: the client is told at once
    set_health: (a) => { const p = player(a.player); p.updateHealth(num(a.hp, 20)); return { health: p.health } },
    set_food: (a) => {
      const p = player(a.player)
      if (a.saturation !== undefined) p.foodSaturation = Number(a.saturation)
      p.updateFood(num(a.food, 20))
      return { food: p.food, saturation: p.foodSaturation }
    },
    damage: (a) => { const p = player(a.player); p.takeDamage({ damage: num(a.amount, 1) }); return { health: p.health } },
    kill: (a) => { const p = player(a.player); p.takeDamage({ damage: Math.max(p.health, 1) }); return { health: p.health } },
    set_xp: (a) => { const p = player(a.player); p.setXp(num(a.xp, 0)); return { xp: p.xp, level: p.level } },
    gamemode: (a) => { const p = player(a.player); p.setGameMode(num(a.mode, 0)); return { gameMode: p.gameMode } },

    give: (a) => {
      const p = player(a.player)
      const it = registry.itemsByName[a.item]
      if (!it) throw new Error(`no such item: ${a.item}`)
      const slot = a.slot !== undefined ? Number(a.slot) : p.inventory.firstEmptyInventorySlot()
      if (slot === null || slot === undefined) throw new Error('inventory full')
      p.inventory.updateSlot(slot, new Item(it.id, num(a.count, 1)))
      return { slot, item: it.name, count: num(a.count, 1) }
    },
    inventory: (a) => {
      const counts = {}
      for (const it of player(a.player).inventory.items()) counts[it.name] = (counts[it.name] || 0) + it.count
      return counts
    },
    clear_inventory: (a) => {
      const p = player(a.player)
      for (let s = 0; s < p.inventory.slots.length; s++) if (p.inventory.slots[s]) p.inventory.updateSlot(s, null)
      return {}
    },

    teleport: async (a) => {
      const p = player(a.player)
      await settled(p)
      await p.teleport(vec(a)) // the chunks round the new place follow (fixes/teleport_chunks.js)
      return { position: pos(p.position) }
    },

    // the same code path as a real client's chat packet
    chat_as: (a) => {
      const p = player(a.player)
      const obj = serv._createJsonChat('<' + p.username + '> ')
      if (!obj.extra) obj.extra = []
      obj.extra.push(serv._createJsonChat(String(a.text)))
      serv.broadcast(obj)
      return {}
    },
    kick: (a) => { player(a.player).kick(a.reason || 'kicked by test'); return {} }
  }
}
