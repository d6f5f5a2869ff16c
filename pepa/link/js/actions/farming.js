'use strict'
// Farming: farm — make or tend a square field round a water cell (till, plant, harvest the ripe
// crops, replant, pick the harvest up); till — one block tilled with a held hoe.
// Every function takes the bot's context first (context.js) and its action id next.
//
// What can be tilled and planted, and when a crop is ripe, are the rules the sandbox's server
// follows (game/js/farming.js). A hoe and seeds are used as a vanilla client uses them: a click on
// the block's top face (block_place, mineflayer's activateBlock); a crop is harvested by digging
// it. The field is one level: the water's. Every cell of a field of size 9 or less is within 4
// blocks of its centre, so the water keeps all of its farmland moist. The bot never tramples it:
// its walks there neither jump gaps nor tower nor dig, place no block (the water stays open),
// and keep out of the water; walking on farmland does no harm, only a fall does.
const { vxyz } = require('../plain')
const { EYE, REACH } = require('../reach')
const { pourInto } = require('../bucket')
const rules = require('../../../game/js/farming')

const USE_MS = 2000 // the server's answer to a click (the block changed) by then
const WALK_MS = 30000
const SPOT = 3 // cells from a target a standing spot is looked for
const NEAR_FIELD = 16 // blocks from the centre the bot must be before it reads the field
const SCAN = 24 // blocks above and below the bot the ground is looked for
const PICKUPS = 24 // walks to a dropped item, at most
const AVOID = 100 // the cost of a step into the field's water
const WATER_SEARCH = 24 // blocks from x, z a field's natural water is looked for
const WATERS = 48 // water sources weighed
const FIELD_MIN = 4 // cells to till round a natural water source, at least

class Stopped extends Error {}

// farm(id, x, z, size, seeds): the field of size x size cells centred on the water at x, z (a
// hole dug at the surface there and the held water bucket poured into it, when there is none;
// with no water bucket, the water source within WATER_SEARCH blocks with the most ground to till
// round it at its level), its tillable cells tilled with a held hoe, its ripe crops harvested and
// picked up, and its empty farmland planted with `seeds`. Done with {tilled, planted, harvested,
// ripe_left, growing, skipped} (ripe_left and growing: the crops in the field at the end;
// skipped: cells given up on); a field with crops growing and none harvested ends not ok, its
// error beginning `waiting` (time must pass: the curriculum rests the milestone meanwhile)
function farm (ctx, id, x, z, size, seeds) {
  const { bot, done } = ctx
  const counts = { tilled: 0, planted: 0, harvested: 0, ripe_left: 0, growing: 0, skipped: 0 }
  const finish = (ok, extra) => done(id, ok, { action: 'farm', ...counts, ...extra, position: vxyz(bot.entity && bot.entity.position) })
  if (!Number.isInteger(size) || size < 3 || size > 9 || size % 2 === 0) { finish(false, { error: `size must be odd, 3 to 9, not ${size}` }); return false }
  if (!rules.PLANTS[seeds]) { finish(false, { error: `${seeds} plants nothing; seeds are one of ${Object.keys(rules.PLANTS).join(', ')}` }); return false }
  const farmer = createFarmer(ctx, counts)
  farmer.tend(x, z, (size - 1) / 2, seeds).then(
    (r) => {
      const waiting = !r.error && !counts.harvested && counts.growing && !counts.ripe_left
      const error = r.error || (waiting ? `waiting: ${counts.growing} crops growing, none ripe` : undefined)
      finish(!error, { error, centre: r.centre })
    },
    (e) => finish(false, { error: e instanceof Stopped ? 'stopped' : String(e && e.message) }))
  return true
}

// till(id, x, y, z): the block at x, y, z tilled with a held hoe (grass, dirt or a path into
// farmland, coarse dirt into dirt), from a spot in reach; done with {block: what it became}
function till (ctx, id, x, y, z) {
  const { bot, done, Vec3 } = ctx
  const farmer = createFarmer(ctx, { tilled: 0 })
  const cell = new Vec3(x, y, z)
  farmer.tillOne(cell).then(
    (error) => done(id, !error, { action: 'till', error: error || undefined, block: bot.blockAt(cell)?.name, position: vxyz(bot.entity.position) }),
    (e) => done(id, false, { action: 'till', error: e instanceof Stopped ? 'stopped' : String(e && e.message) }))
  return true
}

// both walk, dig and click: the shield down, the guard off (bot_helper.js)
farm.holdsShield = true
till.holdsShield = true

function createFarmer (ctx, counts) {
  const { bot, Vec3, goals, waitFor } = ctx
  const epoch = ctx.epoch
  let water = null // the field's water cell, kept out of every walk
  const stopped = () => { if (epoch !== ctx.epoch) throw new Stopped('stopped') }
  const at = (p) => bot.blockAt(p)
  const key = (p) => `${p.x},${p.y},${p.z}`
  const held = (test) => bot.inventory.items().find(i => test(i.name)) || null
  const hoe = () => held(n => rules.HOE.test(n))
  const open = (b) => !!b && b.boundingBox === 'empty' && b.name !== 'water' && b.name !== 'lava'
  const isAir = (b) => !!b && rules.AIR.has(b.name)
  // a plant a click or a dig clears at once (grass, flowers): in the way of a hoe
  const weed = (b) => open(b) && !isAir(b) && !rules.CROPS[b.name] && b.diggable !== false && b.hardness === 0
  const crop = (b) => (b && rules.CROPS[b.name] ? { ripe: b.metadata >= rules.CROPS[b.name].ripe } : null)
  const eyes = () => bot.entity.position.offset(0, EYE, 0)
  const inReach = (p) => eyes().distanceTo(p.offset(0.5, 0.5, 0.5)) <= REACH - 0.3

  // the highest block of column x, z near the bot's level that is water or solid (not a tree's)
  function surface (x, z) {
    const y0 = Math.floor(bot.entity.position.y)
    for (let y = Math.min(255, y0 + SCAN); y >= Math.max(0, y0 - SCAN); y--) {
      const b = at(new Vec3(x, y, z))
      if (!b) return null
      if (b.name === 'water' || (b.boundingBox === 'block' && !/_(leaves|log|wood)$/.test(b.name))) return b.position
    }
    return null
  }

  function walk (goal) {
    const avoid = (block) => (water && block.position && block.position.x === water.x && block.position.z === water.z &&
      Math.abs(block.position.y - water.y) <= 1 ? AVOID : 0)
    return ctx.gotoGently(goal, WALK_MS, (moves) => {
      moves.scafoldingBlocks = [] // never a block put down: the water stays open
      moves.exclusionAreasStep.push(avoid)
    })
  }

  // to a spot from which `cell` is in reach, not in the water's column (where the bot stands, if
  // it is one); on the block itself too (a player may till or plant what it stands on)
  async function approach (cell) {
    const here = bot.entity.position
    const onWater = water && Math.floor(here.x) === water.x && Math.floor(here.z) === water.z
    if (inReach(cell) && !onWater) return
    const spots = []
    for (let dx = -SPOT; dx <= SPOT; dx++) {
      for (let dz = -SPOT; dz <= SPOT; dz++) {
        for (let dy = -1; dy <= 2; dy++) {
          const feet = cell.offset(dx, dy, dz)
          if (water && feet.x === water.x && feet.z === water.z) continue
          if (!open(at(feet)) || !open(at(feet.offset(0, 1, 0)))) continue
          const floor = at(feet.offset(0, -1, 0))
          if (!floor || floor.boundingBox !== 'block') continue
          const eye = feet.offset(0.5, EYE, 0.5)
          if (eye.distanceTo(cell.offset(0.5, 0.5, 0.5)) > REACH - 0.5) continue
          spots.push(new goals.GoalBlock(feet.x, feet.y, feet.z))
        }
      }
    }
    if (!spots.length) throw new Error(`no spot to stand on within reach of ${key(cell)}`)
    await walk(new goals.GoalCompositeAny(spots))
    stopped()
    await waitFor(() => bot.entity.onGround, 1000)
  }

  // a click on the top face of the block at `cell` with `item` in hand: whether it changed
  async function click (cell, item) {
    const before = at(cell.offset(0, 1, 0))?.stateId
    const block = at(cell)
    const own = block.stateId
    await bot.equip(item, 'hand')
    await bot.activateBlock(block, new Vec3(0, 1, 0), new Vec3(0.5, 1, 0.5))
    return waitFor(() => at(cell)?.stateId !== own || at(cell.offset(0, 1, 0))?.stateId !== before, USE_MS)
  }

  async function dig (cell) {
    const b = at(cell)
    const tool = ctx.bestTool(b)
    if (b.harvestTools && !tool) throw new Error(`no tool can dig ${b.name} at ${key(cell)}`)
    if (tool) await bot.equip(tool, 'hand')
    await bot.dig(b, true)
    stopped()
  }

  // till the block at `cell` (twice for coarse dirt); null when it is farmland, else why not
  async function tillOne (cell) {
    for (let tries = 0; tries < 3; tries++) {
      const b = at(cell)
      if (!b) return `${key(cell)} is not loaded`
      if (b.name === 'farmland') return null
      if (!rules.TILLS[b.name]) return `${key(cell)} holds ${b.name}, which a hoe does not till`
      const above = at(cell.offset(0, 1, 0))
      if (!isAir(above) && !weed(above)) return `${above ? above.name : 'nothing loaded'} above ${key(cell)}`
      const tool = hoe()
      if (!tool) return 'no hoe held'
      await approach(cell)
      if (weed(above)) await dig(cell.offset(0, 1, 0))
      if (!await click(cell, tool)) return `${key(cell)} stayed ${b.name}`
      stopped()
      if (at(cell).name === 'farmland') counts.tilled++
    }
    return `${key(cell)} is not farmland`
  }

  // one cell's work: a cell that fails (no spot in reach, a dig refused) is given up, counted
  // in `skipped`, and the field goes on; a stop ends it all. Its error, if any
  async function guarded (cell, work) {
    try {
      const error = await work()
      stopped()
      return error || null
    } catch (e) {
      if (e instanceof Stopped) throw e
      stopped()
      counts.skipped++
      return null
    }
  }

  // the cells of the field round `centre` (its water left out), row by row, each row the other
  // way from the last: one walk along the field
  function field (centre, r) {
    const cells = []
    for (let dx = -r; dx <= r; dx++) {
      for (let k = -r; k <= r; k++) {
        const dz = (dx + r) % 2 === 0 ? k : -k
        if (dx || dz) cells.push(centre.offset(dx, 0, dz))
      }
    }
    return cells
  }

  // the items on the ground round the field, walked to until they are picked up
  async function pickUp (centre, r) {
    const lying = () => Object.values(bot.entities).filter(e => e.name === 'item' && e.position &&
      Math.abs(e.position.x - centre.x - 0.5) <= r + 1.5 && Math.abs(e.position.z - centre.z - 0.5) <= r + 1.5 &&
      e.position.y >= centre.y - 1 && e.position.y <= centre.y + 3)
    const tried = new Map() // item entity id -> walks to it (two at most)
    await waitFor(() => lying().length > 0, 1000) // the drops of the last dig come
    for (let walks = 0; walks < PICKUPS; walks++) {
      stopped()
      const me = bot.entity.position
      const items = lying().filter(e => (tried.get(e.id) || 0) < 2)
        .sort((a, b) => a.position.distanceTo(me) - b.position.distanceTo(me))
      if (!items.length) return
      const item = items[0]
      tried.set(item.id, (tried.get(item.id) || 0) + 1)
      const p = item.position.floored()
      await walk(new goals.GoalNear(p.x, centre.y + 1, p.z, 1)).catch(() => {})
      // picked up once it may be (10 ticks after it fell) and the bot is within 1.75 blocks
      await waitFor(() => !bot.entities[item.id], 1500)
    }
  }

  // the water source near `from` with the most ground round it (within r, at its level) to till
  // or already farmland; null when none has FIELD_MIN
  function naturalWater (from, r) {
    const sources = ctx.finder.findBlocks({
      matching: (b) => b && b.name === 'water' && b.metadata === 0,
      point: from,
      maxDistance: WATER_SEARCH,
      count: WATERS
    })
    let best = null
    for (const s of sources) {
      if (!isAir(at(s.offset(0, 1, 0)))) continue // under water or ice: not a field's level
      const land = field(s, r).filter((c) => {
        const b = at(c)
        const above = at(c.offset(0, 1, 0))
        return b && (b.name === 'farmland' || rules.TILLS[b.name]) && (isAir(above) || weed(above) || crop(above))
      }).length
      if (land >= FIELD_MIN && (!best || land > best.land)) best = { at: s, land }
    }
    return best && best.at
  }

  async function tend (x, z, r, seeds) {
    const start = bot.entity.position
    if (Math.hypot(start.x - x - 0.5, start.z - z - 0.5) > NEAR_FIELD) {
      await walk(new goals.GoalNearXZ(x, z, 3))
      stopped()
    }
    const ground = surface(x, z)
    if (!ground) return { error: `the ground at ${x}, ${z} is not loaded` }
    let centre = ground
    if (at(centre).name !== 'water' && !held(n => n === 'water_bucket')) {
      centre = naturalWater(ground, r) || centre // a lake's or a river's edge
    }
    water = centre
    if (at(centre).name !== 'water') {
      const bucket = held(n => n === 'water_bucket')
      if (!bucket) return { error: `no water at ${key(centre)} and no water bucket held`, centre: vxyz(centre) }
      const above = at(centre.offset(0, 1, 0))
      if (!isAir(above) && !weed(above)) return { error: `${above ? above.name : 'nothing loaded'} above the field's centre ${key(centre)}`, centre: vxyz(centre) }
      await approach(centre)
      if (weed(at(centre.offset(0, 1, 0)))) await dig(centre.offset(0, 1, 0))
      await dig(centre)
      const error = await pourInto(ctx, centre)
      stopped()
      if (error) return { error: `the water: ${error}`, centre: vxyz(centre) }
    }
    const cells = field(centre, r)
    if (hoe()) {
      for (const cell of cells) {
        const b = at(cell)
        const above = at(cell.offset(0, 1, 0))
        if (!b || !rules.TILLS[b.name] || !(isAir(above) || weed(above)) || !hoe()) continue
        if (await guarded(cell, () => tillOne(cell))) counts.skipped++ // left as it is
      }
    }
    for (const cell of cells) { // the ripe crops
      const top = cell.offset(0, 1, 0)
      if (at(cell)?.name !== 'farmland' || !crop(at(top))?.ripe) continue
      await guarded(top, async () => { await approach(top); await dig(top); counts.harvested++ })
    }
    if (counts.harvested) await pickUp(centre, r)
    const seed = () => held(n => n === seeds)
    for (const cell of cells) { // and every empty farmland planted, while seeds last
      if (at(cell)?.name !== 'farmland' || !isAir(at(cell.offset(0, 1, 0)))) continue
      if (!seed()) break
      await guarded(cell, async () => {
        await approach(cell)
        if (await click(cell, seed()) && crop(at(cell.offset(0, 1, 0)))) counts.planted++
      })
    }
    for (const cell of cells) {
      const c = crop(at(cell.offset(0, 1, 0)))
      if (c && c.ripe) counts.ripe_left++
      else if (c) counts.growing++
    }
    if (!hoe() && !cells.some(c => at(c)?.name === 'farmland')) return { error: 'no hoe held and no farmland in the field', centre: vxyz(centre) }
    return { error: null, centre: vxyz(centre) }
  }

  return { tend, tillOne }
}

module.exports = { farm, till }
