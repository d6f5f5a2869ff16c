'use strict'
// Farming (flying-squid has none: a hoe did nothing, seeds placed nothing, nothing grew), by
// vanilla 1.16.5's HoeItem, CropsBlock and FarmlandBlock, with the rules of game/js/farming.js,
// which the bot's farming actions go by too:
//   - tilling: a hoe used on a face other than the bottom of grass_block, grass_path or dirt with
//     air above turns it into farmland (moisture 0), coarse_dirt into dirt; in survival the hoe
//     loses 1 durability and breaks when used up. The use is the client's block_place
//     (mineflayer's activateBlock), within 8 blocks of the player (vanilla's handleUseItemOn);
//   - planting: wheat_seeds, carrot, potato and beetroot_seeds used on a block put their crop
//     (age 0) in the cell in front of the face clicked, when it is air over farmland with raw
//     light >= 8 or the sky in sight; in survival one item is used. The wheat item plants
//     nothing (flying-squid placed a wheat block, the item's namesake);
//   - farmland: on a random tick, with water within 4 blocks across at its level or one above it
//     goes to moisture 7, without it dries by 1, and dry with no crop on it turns to dirt; a
//     solid block (a collision box; not a fence gate, carpet or snow layer) put on it turns it
//     to dirt on the next tick; a landing on it from a fall tramples it (FarmlandBlock.fallOn: rand <
//     fallDistance - 0.5; players, and mobs of width² × height > 0.512 while mob griefing is on:
//     the hazards plugin's player falls and the mobs' own, told as 'pepa_landed');
//   - growth: on a random tick, with raw light >= 9 at it (sky light or block light, the life's
//     light model: night does not stop it), a crop short of ripe grows one age with probability
//     1 / (floor(25 / f) + 1), f from getGrowthChance; beetroots only on 2 random ticks in 3;
//   - a crop whose block below stops being farmland (broken, turned to dirt, trampled, blown up)
//     pops off with its loot, as if broken; what a broken crop drops is drops.js's (the loot
//     rules of farming.js: a ripe wheat 1 wheat and 1 + binomial(3, 0.5714) seeds).
//
// Random ticks: vanilla picks 3 random blocks of each 16³ section a game tick (randomTickSpeed 3),
// in chunks with a player within 128 blocks of their centre. Here the farmland and growing crops
// of the overworld are kept in a registry, each with its next random tick drawn from the same
// odds (3/4096 a game tick: a geometric wait), which costs nothing for the rest of the world.
// Crops follow the game clock: each server tick is `timeScale` game ticks (plugins/daynight.js),
// so a crop grows as much in a game day at ×24 as at ×1 — whether the sun moves or not (a clock
// stopped by set_time {cycle: false} stops only the sun, as vanilla's doDaylightCycle).
// The registry is rebuilt from the world's blocks as each chunk column loads (from the region
// files after a restart, or made), so crops keep growing across restarts with no file of ours.
//
// Control ops: crops_scale {factor} (random ticks that many times faster, 0..10000), grow {x, y,
// z, age?} (a crop set to an age, its ripe one by default), crop_at {x, y, z} → {name, age,
// moisture, tracked}, crops_stats → {tracked, randomTicks, grown, hydrated, dried, reverted,
// trampled, tilled, planted, popped, last}
const { Vec3 } = require('vec3')
const { lifeOf } = require('../life/state')
const { overworld } = require('../life/overworld')
const blockView = require('../life/blocks')
const rules = require('../../../game/js/farming')

const REACH_SQ = 64 // vanilla handleUseItemOn: the block's centre within 8 blocks of the player
const NEAR_SQ = 128 * 128 // vanilla ChunkMap.noPlayersCloseForSpawning: a player this near a chunk's centre
const SCALE_MAX = 10000
const WATER_BLOCKS = new Set(['water', 'bubble_column', 'kelp', 'kelp_plant', 'seagrass', 'tall_seagrass'])
const PICKUP_MS = 500 // vanilla ItemEntity: 10 ticks before pickup
const DESPAWN_MS = 5 * 60 * 1000 // 6000 ticks
const key = (x, y, z) => `${x},${y},${z}`

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { registry } = serv
  const byState = registry.blocksByStateId
  const itemEntity = registry.entitiesByName.item.id
  const view = blockView(registry)
  const FARMLAND = registry.blocksByName.farmland
  const DIRT = registry.blocksByName.dirt.defaultState
  const AIR = registry.blocksByName.air.defaultState
  const cropOf = (b) => (b && rules.CROPS[b.name] ? b : null) // a crop's block: its state offset is its age
  // the states a column scan looks for: farmland and the crops
  const wanted = new Set()
  for (const b of [FARMLAND, ...Object.keys(rules.CROPS).map(n => registry.blocksByName[n])]) {
    for (let id = b.minStateId; id <= b.maxStateId; id++) wanted.add(id)
  }

  const cells = new Map() // 'x,y,z' -> {x, y, z, due}: farmland and growing crops, due their next random tick
  const pending = new Map() // farmland with something put on it: checked on the next tick
  let now = 0 // game ticks since start (random ticks' clock)
  let scale = 1
  const stats = { randomTicks: 0, grown: 0, hydrated: 0, dried: 0, reverted: 0, trampled: 0, tilled: 0, planted: 0, popped: 0, last: null }

  const world = overworld(serv, changed)
  const blockAt = (x, y, z) => { const id = world.get(x, y, z); return id === null ? null : byState[id] }
  const isFarmland = (id) => id !== null && id >= FARMLAND.minStateId && id <= FARMLAND.maxStateId
  const light = (x, y, z) => Math.max(view.skyLight(world.world, x, y, z), view.blockLight(world.world, x, y, z))
  // vanilla Material.isSolid, as the sandbox knows it: a collision box, but a fence gate's
  // (FarmlandBlock.canSurvive) and those of the non-solid materials (carpets, snow layers)
  const solid = (b) => !!b && b.boundingBox === 'block' && !/(_fence_gate|_carpet|^snow)$/.test(b.name)
  // the states that hold water (vanilla FluidTags.WATER: water, and the waterlogged)
  const watery = new Uint8Array(registry.blocksArray.reduce((n, b) => Math.max(n, b.maxStateId + 1), 0))
  for (const b of registry.blocksArray) {
    const logged = (b.states || []).findIndex(s => s.name === 'waterlogged')
    for (let id = b.minStateId; id <= b.maxStateId; id++) {
      let rest = id - b.minStateId
      let wet = WATER_BLOCKS.has(b.name)
      for (let i = b.states ? b.states.length - 1 : -1; i >= 0 && !wet; i--) {
        if (i === logged) wet = rest % b.states[i].num_values === 0 // a bool's index 0 is true
        rest = Math.floor(rest / b.states[i].num_values)
      }
      watery[id] = wet ? 1 : 0
    }
  }
  const isWater = (x, y, z) => { const id = world.get(x, y, z); return id !== null && watery[id] === 1 }

  // --- the registry ---------------------------------------------------------------------------
  function track (x, y, z, id) {
    const k = key(x, y, z)
    const b = id === null ? null : byState[id]
    const crop = cropOf(b)
    if (isFarmland(id) || (crop && id - crop.minStateId < rules.CROPS[crop.name].ripe)) {
      if (!cells.has(k)) cells.set(k, { x, y, z, due: now + rules.ticksToRandomTick(life.random) })
    } else cells.delete(k)
  }

  // every block change in the overworld: the registry follows, and the rules of what lies above
  // and below it (called inside the world's own setBlock: it never throws into it)
  function changed (x, y, z) {
    try { follow(x, y, z) } catch (err) { serv.err(`crops: the change at ${key(x, y, z)} failed: ${err && err.stack}`) }
  }
  function follow (x, y, z) {
    const id = world.get(x, y, z)
    if (id === null) return
    track(x, y, z, id)
    if (isFarmland(world.get(x, y - 1, z)) && solid(byState[id])) pending.set(key(x, y - 1, z), [x, y - 1, z])
    if (isFarmland(id) && solid(blockAt(x, y + 1, z))) pending.set(key(x, y, z), [x, y, z]) // made under a block
    if (!isFarmland(id)) {
      const above = blockAt(x, y + 1, z)
      if (cropOf(above)) pop(x, y + 1, z, above, world.get(x, y + 1, z))
    }
  }

  // the columns loaded: their farmland and crops (a section's palette tells which can hold any)
  function scan (cx, cz) {
    const column = world.world.sync.getColumn(cx, cz)
    if (!column || !column.sections) return
    column.sections.forEach((section, sy) => {
      if (!section || (section.palette && !section.palette.some(id => wanted.has(id)))) return
      for (let y = sy * 16; y < sy * 16 + 16; y++) {
        for (let z = 0; z < 16; z++) {
          for (let x = 0; x < 16; x++) {
            const id = world.get(cx * 16 + x, y, cz * 16 + z)
            if (wanted.has(id)) track(cx * 16 + x, y, cz * 16 + z, id)
          }
        }
      }
    })
  }
  serv.once('pluginsReady', () => {
    if (!world.ready()) return
    for (const c of world.world.getColumns()) scan(Number(c.chunkX), Number(c.chunkZ))
    world.world.on('chunkColumnLoad', (corner) => {
      try { scan(corner.x >> 4, corner.z >> 4) } catch (err) { serv.err(`crops: scanning the column at ${corner} failed: ${err && err.stack}`) }
    })
  })

  // --- what happens to blocks ---------------------------------------------------------------
  function drop (x, y, z, item, count) {
    // vanilla Block.popResource: within a quarter block of the centre; the sideways push halved
    // for flying-squid's item physics, as drops.js does
    serv.spawnObject(itemEntity, world.world, new Vec3(x + 0.25 + Math.random() * 0.5, y + 0.25 + Math.random() * 0.5, z + 0.25 + Math.random() * 0.5), {
      velocity: new Vec3(Math.random() * 2 - 1, 4, Math.random() * 2 - 1),
      itemId: registry.itemsByName[item].id,
      itemCount: count,
      pickupTime: PICKUP_MS,
      deathTime: DESPAWN_MS
    })
  }

  // the crop at (x, y, z) off its farmland: gone, with what breaking it drops
  function pop (x, y, z, crop, id) {
    const age = id - crop.minStateId
    world.set(x, y, z, AIR)
    const loot = rules.cropLoot(crop.name, age, Math.random)
    for (const [item, count] of loot) drop(x, y, z, item, count)
    stats.popped++
    stats.last = { event: 'popped', at: { x, y, z }, crop: crop.name, age, drops: loot }
  }

  function toDirt (x, y, z, why) {
    world.set(x, y, z, DIRT) // the crop on it pops (changed)
    stats[why]++
    stats.last = { event: why, at: { x, y, z } }
  }

  function randomTick (c) {
    const id = world.get(c.x, c.y, c.z)
    if (id === null) return
    stats.randomTicks++
    if (isFarmland(id)) {
      const moisture = id - FARMLAND.minStateId
      if (rules.hydrated(c.x, c.y, c.z, isWater)) {
        if (moisture < rules.MAX_MOISTURE) { world.set(c.x, c.y, c.z, FARMLAND.minStateId + rules.MAX_MOISTURE); stats.hydrated++ }
      } else if (moisture > 0) {
        world.set(c.x, c.y, c.z, id - 1)
        stats.dried++
      } else {
        const above = blockAt(c.x, c.y + 1, c.z)
        if (!above || !rules.UNDER_CROPS.has(above.name)) toDirt(c.x, c.y, c.z, 'reverted')
      }
      return
    }
    const crop = cropOf(byState[id])
    if (!crop) return
    const age = id - crop.minStateId
    if (age >= rules.CROPS[crop.name].ripe || light(c.x, c.y, c.z) < rules.GROW_LIGHT) return
    if (crop.name === 'beetroots' && life.int(3) === 0) return // BeetrootBlock.randomTick
    const read = (x, y, z) => {
      const b = blockAt(x, y, z)
      return b && { name: b.name, moisture: b.name === 'farmland' ? world.get(x, y, z) - FARMLAND.minStateId : 0 }
    }
    const f = rules.growthChance(crop.name, c.x, c.y, c.z, read)
    if (life.int(rules.growthBound(f)) !== 0) return
    world.set(c.x, c.y, c.z, id + 1)
    stats.grown++
  }

  // a player within 128 blocks of the centre of the chunk of c (vanilla ticks no chunk farther)
  function near (c) {
    const cx = (c.x >> 4) * 16 + 8
    const cz = (c.z >> 4) * 16 + 8
    return serv.players.some(p => p.world === world.world && p.gameMode !== 3 &&
      (p.position.x - cx) ** 2 + (p.position.z - cz) ** 2 < NEAR_SQ)
  }

  function tick () {
    for (const [k, [x, y, z]] of pending) {
      pending.delete(k)
      if (isFarmland(world.get(x, y, z)) && solid(blockAt(x, y + 1, z))) toDirt(x, y, z, 'reverted')
    }
    now += life.timeScale * scale
    for (const [k, c] of cells) {
      if (c.due > now) continue
      if (!near(c)) { c.due = now + rules.ticksToRandomTick(life.random); continue } // missed: none ran
      while (c.due <= now && cells.get(k) === c) {
        c.due += rules.ticksToRandomTick(life.random)
        randomTick(c)
      }
    }
  }
  serv.on('tick', () => {
    if (!world.ready()) return
    try { tick() } catch (err) { serv.err(`crops: tick failed: ${err && err.stack}`) }
  })

  // --- a hoe ------------------------------------------------------------------------------------
  const slotOf = (p, hand) => (hand === 1 ? 45 : 36 + p.heldItemSlot)
  const within = (p, pos) => (p.position.x - pos.x - 0.5) ** 2 + (p.position.y - pos.y - 0.5) ** 2 + (p.position.z - pos.z - 0.5) ** 2 < REACH_SQ

  function till (p, { location, direction, hand }) {
    const slot = slotOf(p, hand)
    const hoe = p.inventory.slots[slot]
    if (!hoe || !rules.HOE.test(hoe.name) || p.gameMode >= 2 || direction <= 0) return // DOWN is 0, none -1
    if (!world.ready() || p.world !== world.world || !within(p, location)) return
    const { x, y, z } = location
    const target = blockAt(x, y, z)
    const above = blockAt(x, y + 1, z)
    const becomes = target && rules.TILLS[target.name]
    if (!becomes || !above || !rules.AIR.has(above.name)) return
    world.set(x, y, z, registry.blocksByName[becomes].defaultState) // farmland: moisture 0
    serv.playSound('item.hoe.till', p.world, new Vec3(x + 0.5, y + 0.5, z + 0.5), {})
    if (p.gameMode === 0) wear(p, slot, hoe)
    stats.tilled++
    stats.last = { event: 'tilled', player: p.username, item: hoe.name, at: { x, y, z }, block: becomes, durabilityUsed: p.inventory.slots[slot] ? hoe.durabilityUsed : null }
  }

  // vanilla ItemStack.hurtAndBreak(1): used up, the tool breaks
  function wear (p, slot, tool) {
    const used = (tool.durabilityUsed || 0) + 1
    if (used >= tool.maxDurability) {
      p.inventory.updateSlot(slot, null)
      serv.playSound('entity.item.break', p.world, p.position, {})
      return
    }
    tool.durabilityUsed = used
    p.inventory.updateSlot(slot, tool)
  }

  serv.on('newPlayer', (p) => {
    p._client.on('block_place', (packet) => {
      try { till(p, packet) } catch (err) { serv.err(`crops: tilling for ${p.username} failed: ${err && err.stack}`) }
    })
  })

  // --- seeds ------------------------------------------------------------------------------------
  // flying-squid's placeBlock.js asks for the block an item places (placedPosition: in front of
  // the face clicked), uses one item in survival and sets it; {} places nothing
  function plant (crop, { player, referencePosition, placedPosition }) {
    if (!world.ready() || player.world !== world.world || !within(player, referencePosition)) return {}
    const { x, y, z } = placedPosition
    const cell = blockAt(x, y, z)
    if (!cell || !rules.AIR.has(cell.name) || !isFarmland(world.get(x, y - 1, z))) return {}
    if (light(x, y, z) < rules.PLANT_LIGHT && !view.canSeeSky(world.world, x, y, z)) return {}
    stats.planted++
    stats.last = { event: 'planted', player: player.username, at: { x, y, z }, crop }
    return { id: registry.blocksByName[crop].id, data: 0 }
  }
  serv.once('asap', () => {
    for (const [seed, crop] of Object.entries(rules.PLANTS)) serv.onItemPlace(seed, (data) => plant(crop, data))
    serv.onItemPlace('wheat', () => ({})) // the item, not the crop
  })

  // --- a fall -----------------------------------------------------------------------------------
  // told by the hazards plugin (a player's fall) and the mobs' (a mob's), inside their own ticks
  function landed ({ world: w, position, distance, player, width, height }) {
    if (w !== world.world || !world.ready()) return
    const x = Math.floor(position.x); const y = Math.floor(position.y - 0.2); const z = Math.floor(position.z) // Entity.getOnPos
    if (!isFarmland(world.get(x, y, z))) return
    if (!rules.tramples(distance, Math.random(), { player, mobGriefing: !!life.explosionsBreakBlocks, width, height })) return
    toDirt(x, y, z, 'trampled')
  }
  serv.on('pepa_landed', (landing) => {
    try { landed(landing) } catch (err) { serv.err(`crops: a landing failed: ${err && err.stack}`) }
  })

  // --- control ops ------------------------------------------------------------------------------
  const cellOf = (a) => {
    const [x, y, z] = [a.x, a.y, a.z].map(Number)
    if (![x, y, z].every(Number.isInteger)) throw new Error(`x, y and z must be whole numbers, not ${JSON.stringify([a.x, a.y, a.z])}`)
    if (!world.ready() || world.get(x, y, z) === null) throw new Error(`${key(x, y, z)} is not loaded`)
    return [x, y, z]
  }
  life.ops.crops_scale = ({ factor = 1 }) => {
    const n = Number(factor)
    if (factor === null || typeof factor === 'boolean' || !Number.isFinite(n)) throw new Error(`factor must be a finite number, not ${JSON.stringify(factor)}`)
    scale = Math.max(0, Math.min(SCALE_MAX, n))
    return { factor: scale }
  }
  life.ops.grow = (a) => {
    const [x, y, z] = cellOf(a)
    const crop = cropOf(blockAt(x, y, z))
    if (!crop) throw new Error(`no crop at ${key(x, y, z)}: ${blockAt(x, y, z).name}`)
    const ripe = rules.CROPS[crop.name].ripe
    const age = a.age === undefined || a.age === null ? ripe : Number(a.age)
    if (!Number.isInteger(age) || age < 0 || age > ripe) throw new Error(`${crop.name}'s age is 0 to ${ripe}, not ${JSON.stringify(a.age)}`)
    world.set(x, y, z, crop.minStateId + age)
    return { name: crop.name, age }
  }
  life.ops.crop_at = (a) => {
    const [x, y, z] = cellOf(a)
    const id = world.get(x, y, z)
    const b = byState[id]
    return {
      name: b.name,
      age: cropOf(b) ? id - b.minStateId : null,
      moisture: isFarmland(id) ? id - FARMLAND.minStateId : null,
      tracked: cells.has(key(x, y, z))
    }
  }
  life.ops.crops_stats = () => ({ tracked: cells.size, factor: scale, ...stats })
}
