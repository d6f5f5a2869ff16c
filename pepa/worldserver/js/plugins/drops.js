'use strict'
// The survival sandbox: what breaking a block gives, picking items up, and
// where players appear.
//
// flying-squid 1.12 drops every loot entry minecraft-data lists for a block,
// whatever the player holds: stone broken by hand gives cobblestone, and oak
// leaves give leaves, a sapling, a stick and an apple every time. Picking up
// adds one item per item entity, whatever its stack, and may put it into the
// crafting grid or an armour slot. Bedrock breaks. Here, as in vanilla 1.16.5:
//   - a block that needs a tool (minecraft-data `harvestTools`: stone and the
//     ores need a pickaxe, iron ore a stone one) drops nothing without it;
//   - the drop follows the vanilla loot table without fortune or silk touch:
//     stone -> cobblestone, grass block -> dirt, coal ore -> 1 coal, leaves ->
//     a sapling 1 in 20 (jungle 1 in 40), 1-2 sticks 1 in 50, an apple 1 in
//     200 (oak, dark oak), the leaves themselves only with shears; gravel ->
//     flint 1 in 10; crops by their age (game/js/farming.js: a ripe wheat 1
//     wheat and 1 + binomial(3, 0.5714) seeds, a younger one 1 seed); and so
//     on (`VANILLA` below, minecraft-data otherwise);
//   - a tool loses 1 durability per block with hardness > 0 (a sword 2) and
//     breaks when used up (a wooden pickaxe lasts 59 blocks);
//   - blocks that cannot be broken (bedrock, water) stay, and the client is
//     told so;
//   - an item entity is picked up whole, into the held slot's stack, the
//     offhand, any matching stack, then the first empty hotbar or main slot;
//     what does not fit stays on the ground with the rest of its stack.
// The dig time is the client's business (mineflayer computes vanilla's from
// hardness and tool); flying-squid accepts any, and so does this plugin.
//
// Spawn: flying-squid drops new players at a random column in 0..30 from
// y 81 down to the first block that is not air - on top of a tree if there is
// one. The sandbox's players appear on the ground at the generator's spawn
// point (generator.js terrain().spawn(): four dry, tree-free columns of one
// height nearest to the origin; in a vanilla world vanilla/index.js's: four
// columns of open grass in plains or a forest), the same point for the same seed.
const { Vec3 } = require('vec3')
const { terrain } = require('../generator.js')
const { vanillaTerrain } = require('../vanilla/index.js')
const farming = require('../../../game/js/farming')

// vanilla 1.16.5 loot tables (no fortune, no silk touch): [item, chance, min, max]
const LEAVES = (sapling, chance, apple) => [[sapling, chance, 1, 1], ['stick', 1 / 50, 1, 2],
  ...(apple ? [['apple', 1 / 200, 1, 1]] : [])]
const VANILLA = {
  coal_ore: [['coal', 1, 1, 1]],
  diamond_ore: [['diamond', 1, 1, 1]],
  emerald_ore: [['emerald', 1, 1, 1]],
  lapis_ore: [['lapis_lazuli', 1, 4, 9]],
  redstone_ore: [['redstone', 1, 4, 5]],
  nether_quartz_ore: [['quartz', 1, 1, 1]],
  nether_gold_ore: [['gold_nugget', 1, 2, 6]],
  gravel: [['flint', 1 / 10, 1, 1, 'gravel']], // else gravel
  grass: [['wheat_seeds', 1 / 8, 1, 1]],
  fern: [['wheat_seeds', 1 / 8, 1, 1]],
  glowstone: [['glowstone_dust', 1, 2, 4]],
  clay: [['clay_ball', 1, 4, 4]],
  bookshelf: [['book', 1, 3, 3]],
  melon: [['melon_slice', 1, 3, 7]],
  cobweb: [['string', 1, 1, 1]],
  oak_leaves: LEAVES('oak_sapling', 1 / 20, true),
  dark_oak_leaves: LEAVES('dark_oak_sapling', 1 / 20, true),
  birch_leaves: LEAVES('birch_sapling', 1 / 20),
  spruce_leaves: LEAVES('spruce_sapling', 1 / 20),
  acacia_leaves: LEAVES('acacia_sapling', 1 / 20),
  jungle_leaves: LEAVES('jungle_sapling', 1 / 40)
}
// what shears give the block itself for
const SHEARABLE = /(_leaves|^grass|^fern|^cobweb|^vine|^dead_bush)$/
const PICKUP_MS = 500 // vanilla: a dropped block waits 10 ticks before pickup
const BREAK_EXHAUSTION = 0.005 // vanilla Player.causeFoodExhaustion for each block broken
const DESPAWN_MS = 5 * 60 * 1000 // 6000 ticks

module.exports.server = function (serv, settings) {
  const { registry } = serv
  const kind = (this.settings && this.settings.terrain) || 'gentle' // the terrain the world was made with (server.js)
  const Item = require('prismarine-item')(registry)
  const itemEntity = registry.entitiesByName.item.id

  // --- spawn on the ground ------------------------------------------------------
  // world.js reads the seed from level.dat (an existing world keeps its own)
  let seed = null
  let spawn = null
  serv.on('seed', (s) => { seed = s; spawn = null })
  serv.once('asap', () => {
    const flyingSquids = serv.getSpawnPoint
    serv.getSpawnPoint = async (world) => {
      if (world !== serv.overworld || seed === null) return flyingSquids(world)
      if (!spawn) {
        const s = kind === 'vanilla' ? vanillaTerrain(seed, { registry }).spawn() : terrain(seed).spawn()
        spawn = new Vec3(s.x, s.y, s.z)
      }
      return spawn.clone()
    }
  })

  // --- what a block drops -----------------------------------------------------
  function rand (min, max) { return min + Math.floor(Math.random() * (max - min + 1)) }

  // [[itemName, count]] for breaking `block` with `held` (an Item or null)
  function dropsFor (block, held) {
    if (block.harvestTools && !(held && block.harvestTools[held.type])) return []
    if (held && held.name === 'shears' && SHEARABLE.test(block.name)) return [[block.name, 1]]
    if (farming.CROPS[block.name]) return farming.cropLoot(block.name, block.stateId - registry.blocksByName[block.name].minStateId, Math.random)
    const table = VANILLA[block.name]
    if (table) {
      const out = []
      for (const [item, chance, min, max, otherwise] of table) {
        if (Math.random() < chance) out.push([item, rand(min, max)])
        else if (otherwise) out.push([otherwise, 1])
      }
      return out
    }
    const loot = registry.blockLoot && registry.blockLoot[block.name]
    if (!loot) return block.drops && block.drops.length ? [[registry.items[block.drops[0]]?.name, 1]] : []
    const out = []
    for (const drop of loot.drops) {
      if (drop.silkTouch) continue // silk touch only (glass, ice, the ore blocks themselves)
      // minecraft-data halves the chance of each side of a silk-touch choice; the side without it always drops
      const chance = drop.noSilkTouch ? 1 : drop.dropChance
      const [min, max] = (drop.stackSizeRange || [1, 1]).map(n => n ?? 1)
      if (Math.random() < chance) out.push([drop.item, min === max ? min : rand(min, max)])
    }
    return out
  }

  // --- picking up -----------------------------------------------------------------
  // vanilla PlayerInventory.addItemStackToInventory; returns what did not fit
  function store (player, type, count, metadata) {
    const inv = player.inventory
    const order = [36 + player.heldItemSlot, 45]
    for (let s = 36; s < 45; s++) order.push(s)
    for (let s = 9; s < 36; s++) order.push(s)
    for (const s of order) {
      const it = inv.slots[s]
      if (!count) return 0
      if (it && it.type === type && !it.nbt && it.count < it.stackSize) {
        const n = Math.min(count, it.stackSize - it.count)
        it.count += n
        count -= n
        inv.updateSlot(s, it)
      }
    }
    for (const s of order.slice(2)) {
      if (!count) return 0
      if (!inv.slots[s]) {
        const item = new Item(type, 1, metadata)
        const n = Math.min(count, item.stackSize)
        item.count = n
        count -= n
        inv.updateSlot(s, item)
      }
    }
    return count
  }

  function collect (player, entity) {
    if (entity._pepaTaken || player.health <= 0 || player.gameMode === 3) return
    const count = entity.itemCount || 1
    const left = store(player, entity.itemId, count, entity.itemDamage)
    if (left === count) return
    entity._writeOthersNearby('collect', {
      collectedEntityId: entity.id,
      collectorEntityId: player.id,
      pickupItemCount: count - left
    })
    serv.playSound('entity.item.pickup', player.world, entity.position, { pitch: 1.4, volume: 0.2 })
    if (left === 0) {
      entity._pepaTaken = true
      entity.destroy()
      return
    }
    // part of the stack stays on the ground
    entity.itemCount = left
    const meta = entity.metadata.find(m => m.type === 6)
    if (meta) {
      meta.value = { ...meta.value, itemCount: left }
      entity._writeOthersNearby('entity_metadata', { entityId: entity.id, metadata: [meta] })
    }
  }

  serv.on('newPlayer', (player) => {
    player.collect = (entity) => collect(player, entity)
  })

  serv.pepaDropsFor = dropsFor // for tests and other plugins

  // --- breaking blocks ----------------------------------------------------------------
  serv.on('newPlayer', (player) => {
    // flying-squid's digging.js asks `dug_cancel` listeners before it breaks a
    // block and spawns `data.drops` after: the drops are rewritten in place
    player.on('dug_cancel', (data, cancel) => {
      if (!Array.isArray(data.drops)) return // creative: no drops anyway
      const block = data.block
      if (!block || block.diggable === false) {
        cancel(false) // flying-squid's own undo sends the block id as a state id
        player.sendBlock(data.position, block ? block.stateId : 0)
        return
      }
      const held = player.inventory.slots[36 + player.heldItemSlot]
      const centre = data.position.offset(0.5, 0.5, 0.5)
      data.drops.length = 0
      for (const [name, count] of dropsFor(block, held)) {
        const item = registry.itemsByName[name]
        if (!item || count <= 0) continue
        data.drops.push({
          // vanilla Block.spawnAsEntity: within a quarter block of the centre, up to 0.1
          // blocks/tick sideways, 0.2 up. flying-squid's item physics brakes less than
          // vanilla's (which loses ~40 % a tick on the ground), so the sideways push is
          // halved to keep vanilla's landing spread of about half a block.
          blockDropPosition: centre.offset(Math.random() * 0.5 - 0.25, Math.random() * 0.5 - 0.25 - 0.125, Math.random() * 0.5 - 0.25),
          blockDropWorld: player.world,
          blockDropVelocity: new Vec3(Math.random() * 2 - 1, 4, Math.random() * 2 - 1),
          blockDropId: item.id,
          blockDropDamage: 0,
          blockDropCount: count,
          blockDropPickup: PICKUP_MS,
          blockDropDeath: DESPAWN_MS
        })
      }
    })
    player.on('dug', (data, cancelled) => {
      if (cancelled || !Array.isArray(data.drops) || player.gameMode !== 0) return
      wear(player, data.block)
      const life = serv.pepaLife
      if (life && life.exhaust) life.exhaust(player, BREAK_EXHAUSTION) // vanilla Block.playerDestroy
    })
  })

  // vanilla: a tool loses 1 durability per block with hardness > 0, a sword 2
  function wear (player, block) {
    const slot = 36 + player.heldItemSlot
    const held = player.inventory.slots[slot]
    if (!held || !held.maxDurability || !(block.hardness > 0)) return
    const used = (held.durabilityUsed || 0) + (held.name.endsWith('_sword') ? 2 : 1)
    if (used >= held.maxDurability) {
      player.inventory.updateSlot(slot, null)
      serv.playSound('entity.item.break', player.world, player.position, {})
      return
    }
    held.durabilityUsed = used
    player.inventory.updateSlot(slot, held)
  }
}
