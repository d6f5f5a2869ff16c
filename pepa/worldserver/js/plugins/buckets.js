'use strict'
// Buckets (flying-squid has none): vanilla 1.16.5's BucketItem.use, by the rules of
// game/js/buckets.js, which the bot aims by too.
//
// A use is the client's use_item (mineflayer's bot.activateItem) with a bucket, water_bucket
// or lava_bucket in that hand: a ray from the eyes (1.62 above the feet) along the player's
// last look, 5 blocks long. An empty bucket takes the first fluid source the ray meets before
// any solid block: the source becomes air, and in survival one bucket of the stack becomes a
// water_bucket or lava_bucket (in the hand when the stack was one, else in a free slot, or
// dropped when there is none). A full bucket's ray passes through fluids and stops at the first
// solid block; its fluid goes into the cell in front of the face hit when that cell takes one
// (air, a fluid, fire, a plant): water where a lava source is makes obsidian, where flowing lava
// is cobblestone; otherwise the fluid's source. In survival the hand then holds an empty bucket.
// Creative keeps the item as it was; adventure and spectator do nothing.
//
// A click on a block (block_place: mineflayer's activateBlock) with a bucket in that hand is the
// same use, aimed from the eyes at the point clicked (the block's position plus the cursor), and
// the use_item a vanilla client sends right after it (the same tick or the next) is not a
// second use. A click on a block with a use of its own (a chest, a table, a furnace, a bed, a
// door ...) is that block's, as vanilla's: flying-squid's placeBlock.js finds no block named
// like a bucket and places nothing.
//
// The cells change through the overworld's sync view (life/overworld.js): the fluids plugin
// sees the change, so poured water flows where fluids are on.
//
// Control op: bucket_stats → {uses, filled, poured, missed, echoes, last}; echoes: use_items
// taken as a click's own; `last`: the last use, {player, item, result ('filled' | 'poured' |
// 'missed'), at ({x, y, z} | null), block (what the cell became | null)}
const { lifeOf } = require('../life/state')
const { overworld } = require('../life/overworld')
const stacks = require('../crafting/stacks')
const windows = require('../crafting/windows')
const rules = require('../../../game/js/buckets')

const BUCKETS = new Set(['bucket', 'water_bucket', 'lava_bucket'])
// blocks whose own use a click with a bucket gets instead (vanilla: the block's use comes first)
const OWN_USE = /chest|crafting_table|furnace|smoker|barrel|shulker_box|_bed$|door|fence_gate|lever|_button$|repeater|comparator|anvil|lectern|enchanting_table|brewing_stand|hopper|dispenser|dropper|cake|beacon/

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const kit = { serv, registry, Item, ...stacks(Item) }
  const { give } = windows(kit)
  const world = overworld(serv, () => {}) // its own changes reach the fluids plugin's view
  const stats = { uses: 0, filled: 0, poured: 0, missed: 0, echoes: 0, last: null }

  function block (x, y, z) {
    const id = world.get(x, y, z)
    return id === null ? null : { id, state: registry.blocksByStateId[id] }
  }
  function kindAt (x, y, z) {
    const b = block(x, y, z)
    return b ? rules.kindOf(b.state.name, b.state.boundingBox, b.id - b.state.minStateId) : 'unknown'
  }
  const slotOf = (p, hand) => (hand === 1 ? 45 : 36 + p.heldItemSlot)
  const held = (p, hand) => {
    const item = p.inventory.slots[slotOf(p, hand)]
    return item && BUCKETS.has(item.name) ? item : null
  }
  function record (p, item, result, at, became) {
    stats[result]++
    stats.last = { player: p.username, item: item.name, result, at, block: became }
  }

  // one use of the bucket in `hand`, along `dir` from the eyes
  function use (p, hand, dir) {
    const item = held(p, hand)
    if (!item || p.gameMode >= 2 || !world.ready() || p.world !== world.world) return
    stats.uses++
    const eyes = { x: p.position.x, y: p.position.y + rules.EYE, z: p.position.z }
    const slot = slotOf(p, hand)
    if (item.name === 'bucket') {
      const at = rules.scoopAt(eyes, dir, kindAt)
      if (!at) return record(p, item, 'missed', null, null)
      const fluid = block(at.x, at.y, at.z).state.name
      world.set(at.x, at.y, at.z, registry.blocksByName.air.defaultState)
      if (p.gameMode === 0) {
        const full = new Item(registry.itemsByName[rules.FILLED[fluid]].id, 1)
        if (item.count <= 1) p.inventory.updateSlot(slot, full)
        else {
          item.count--
          p.inventory.updateSlot(slot, item)
          give(p, full) // a free slot, else dropped (vanilla Inventory.add, then drop)
        }
      }
      return record(p, item, 'filled', at, 'air')
    }
    const fluid = rules.FLUID_OF[item.name]
    const at = rules.pourAt(eyes, dir, kindAt)
    const cell = at && block(at.x, at.y, at.z)
    if (!cell || !rules.takesFluid(cell.state.name, cell.state.boundingBox, cell.state.material)) {
      return record(p, item, 'missed', at, null)
    }
    const became = rules.pourResult(fluid, cell.state.name, cell.id - cell.state.minStateId)
    world.set(at.x, at.y, at.z, registry.blocksByName[became].defaultState)
    if (p.gameMode === 0) p.inventory.updateSlot(slot, new Item(registry.itemsByName.bucket.id, 1))
    return record(p, item, 'poured', at, became)
  }

  serv.on('newPlayer', (p) => {
    let look = null // the client's own look, in degrees (flying-squid keeps 1/256ths of a turn)
    const seen = ({ yaw, pitch }) => { look = { yaw, pitch } }
    p._client.on('look', seen)
    p._client.on('position_look', seen)
    let clicked = -Infinity // the tick of the last click on a block with a bucket in hand
    p._client.on('use_item', ({ hand }) => {
      if (!held(p, hand)) return
      if (serv.tickCount - clicked <= 1) { stats.echoes++; return } // that click's own use_item
      const { yaw, pitch } = look || { yaw: (p.yaw || 0) * 360 / 256, pitch: (p.pitch || 0) * 360 / 256 }
      use(p, hand, rules.lookVector(yaw, pitch))
    })
    p._client.on('block_place', ({ location, direction, hand, cursorX, cursorY, cursorZ }) => {
      if (!held(p, hand) || direction === -1) return
      clicked = serv.tickCount
      const b = block(location.x, location.y, location.z)
      if (!b || OWN_USE.test(b.state.name)) return
      const eyes = p.position.offset(0, rules.EYE, 0)
      use(p, hand, { x: location.x + cursorX - eyes.x, y: location.y + cursorY - eyes.y, z: location.z + cursorZ - eyes.z })
    })
  })

  life.ops.bucket_stats = () => ({ ...stats })
}
