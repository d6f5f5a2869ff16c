'use strict'
// Gathering and digging: gather — the nearest blocks dug until enough is held, or under cover
// from the shelter's sealed pocket (mineUnderCover).
// Every function takes the bot's context first (context.js) and its action id next.
const { vxyz } = require('../plain')
const { FURNITURE, SIDES, AROUND } = require('../workshop')

// Mining under cover (a gather by night from a shelter): the dug space stays a
// sealed pocket under the shelter's roof. A cell is dug only when each of its
// six neighbours is solid or already part of the pocket (never into open air,
// water or lava: no way opens onto the surface), and the bot only moves down
// (a 1x1 shaft) or along (a 1x2 tunnel) toward a wanted block it sees within
// COVER_REACH blocks sideways of where it started; never up, never below
// COVER_FLOOR (bedrock reaches y 4 in the sandbox). Blocks are dug beside its
// feet or head or under its feet, where their drops fall to it.
const COVER_REACH = 6
const COVER_FLOOR = 6
const COVER_DIGS = 64 // blocks one run digs at most
async function mineUnderCover (ctx, wanted, held, count, epoch) {
  const { bot, finder, bestTool, waitFor, solid, liquid, fallsAbove } = ctx
  const start = bot.entity.position.floored()
  const pocket = new Set([start.toString(), start.offset(0, 1, 0).toString()])
  const skipped = new Set()
  let dug = 0
  const sealed = (p) => {
    const b = bot.blockAt(p)
    if (!b || b.boundingBox !== 'block' || !b.diggable || FURNITURE.test(b.name)) return false
    if (fallsAbove(p)) return false // sand or gravel over it would fall in and could open the way up
    return AROUND.every(([dx, dy, dz]) => { const q = p.offset(dx, dy, dz); return pocket.has(q.toString()) || (solid(q) && !liquid(q)) })
  }
  const dig = async (p) => {
    const b = bot.blockAt(p)
    const tool = bestTool(b)
    if (b.harvestTools && !tool) throw new Error(`no tool can harvest ${b.name}`)
    if (tool) await bot.equip(tool, 'hand')
    await bot.dig(b, true)
    pocket.add(p.toString())
    dug++
  }
  while (held() < count) {
    if (epoch !== ctx.epoch) return { error: 'stopped', dug }
    if (dug >= COVER_DIGS) return { error: `dug ${dug} blocks under cover (have ${held()}/${count})`, dug }
    await waitFor(() => bot.entity.onGround, 2000)
    const feet = bot.entity.position.floored()
    pocket.add(feet.toString()).add(feet.offset(0, 1, 0).toString())
    const under = feet.offset(0, -1, 0)
    const mine = [under, ...SIDES.flatMap(([dx, dz]) => [feet.offset(dx, 0, dz), feet.offset(dx, 1, dz)])]
      .find(p => { const b = bot.blockAt(p); return b && wanted.has(b.name) && sealed(p) })
    if (mine) { // in reach: dig it, its drop falls to the bot (or it falls onto it)
      const had = held()
      await dig(mine)
      await waitFor(() => held() > had, 1000)
      continue
    }
    const ore = finder.findBlock({
      matching: (b) => b && wanted.has(b.name),
      maxDistance: COVER_REACH + 2,
      where: (q) => !skipped.has(q.toString()) && q.y <= feet.y + 1 && Math.max(Math.abs(q.x - start.x), Math.abs(q.z - start.z)) <= COVER_REACH
    })
    const dx = ore ? Math.sign(ore.position.x - feet.x) : 0
    const dz = ore ? Math.sign(ore.position.z - feet.z) : 0
    const along = ore && (dx || dz) && !(ore.position.y < feet.y && Math.abs(ore.position.x - feet.x) + Math.abs(ore.position.z - feet.z) <= 1)
    if (along) { // a step of tunnel toward it, on the longer axis
      const [sx, sz] = Math.abs(ore.position.x - feet.x) >= Math.abs(ore.position.z - feet.z) ? [dx, 0] : [0, dz]
      const next = feet.offset(sx, 0, sz)
      const cells = [next.offset(0, 1, 0), next].filter(p => !pocket.has(p.toString()))
      if (cells.every(sealed) && solid(next.offset(0, -1, 0))) {
        for (const p of cells) { await dig(p); if (epoch !== ctx.epoch) return { error: 'stopped', dug } }
        await ctx.gotoWithin(new ctx.goals.GoalBlock(next.x, next.y, next.z), 4000).catch(() => {})
        if (bot.entity.position.floored().equals(next)) continue
      }
      skipped.add(ore.position.toString()) // no sealed way to it
      continue
    }
    // nothing in reach: a block deeper
    if (under.y <= COVER_FLOOR) return { error: `no ${[...wanted].join('/')} above y ${COVER_FLOOR} under cover (have ${held()}/${count})`, dug }
    if (!sealed(under) || !solid(under.offset(0, -1, 0))) return { error: `cannot dig down at ${under} without opening the cover (have ${held()}/${count})`, dug }
    await dig(under)
    await waitFor(() => bot.entity.onGround && bot.entity.position.y < feet.y - 0.5, 3000)
  }
  return { error: null, dug }
}

// gather(id, names, count, radius, drops, underCover): dig the nearest block whose name is in
// `names` and pick up its drop, until the inventory holds `count` of any of
// `drops` (default: the names); with none within radius, up to SEARCHES walks of about radius
// blocks into new ground to look again. The best harvesting tool is equipped first;
// a block the held tools cannot harvest is skipped (it would drop nothing).
// underCover: only down and along from here, under the roof (mineUnderCover).
function gather (ctx, id, names, count, radius, drops, underCover) {
  const { bot, done, finder, bestTool, waitFor } = ctx
  const wanted = new Set(names)
  const yields = new Set(drops && drops.length ? drops : names)
  const held = () => bot.inventory.items().filter(i => yields.has(i.name)).reduce((n, i) => n + i.count, 0)
  const skipped = new Set()
  const key = (v) => `${v.x},${v.y},${v.z}`
  let dug = 0
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  const collect = () => ctx.workshop.collect(stopped).catch(() => 0) // its table first (workshop.js)
  if (underCover) {
    collect().then(() => mineUnderCover(ctx, wanted, held, count, epoch)).then(
      (r) => done(id, !r.error, { action: 'gather', error: r.error || undefined, dug: r.dug, held: held(), position: vxyz(bot.entity.position) }),
      (e) => done(id, false, { action: 'gather', error: String(e && e.message), held: held() }))
    return true
  }
  let searches = 0
  const step = async () => {
    await collect()
    while (held() < count) {
      if (epoch !== ctx.epoch) return 'stopped'

      const block = finder.findBlock({
        matching: (b) => b && wanted.has(b.name),
        maxDistance: radius || 48,
        where: (p) => !skipped.has(key(p))
      })
      if (!block && searches < SEARCHES) { // none in sight: a walk into new ground, then again
        searches++
        await lookFarther(ctx, radius || 48)
        continue
      }
      if (!block) return `no ${[...wanted].join('/')} within ${radius || 48} blocks, after ${searches} walks to look farther (have ${held()}/${count})`
      const tool = bestTool(block)
      if (block.harvestTools && !tool) return `no tool can harvest ${block.name}`
      try {
        await ctx.reachBlock(block.position, wanted)
        if (epoch !== ctx.epoch) return 'stopped'
        if (tool) await bot.equip(tool, 'hand')
        const fresh = bot.blockAt(block.position)
        if (!fresh || !wanted.has(fresh.name)) continue
        const before = held()
        await bot.dig(fresh, true)
        dug++
        if (epoch !== ctx.epoch) return 'stopped' // pre-empted while digging: hands off the pathfinder
        // walk onto the spot, then to the drop if it rolled away, so it is picked up. Not onto a
        // spot over the bot's head (a log up the trunk): no cell is within 1 of it, and the search
        // for one ran to its time limit. That drop falls to the ground, by the bot, in some 16 ticks.
        const overhead = block.position.y > Math.floor(bot.entity.position.y) + 1
        if (!overhead) {
          await ctx.gotoWithin(new ctx.goals.GoalNear(block.position.x, block.position.y, block.position.z, 1), 10000).catch(() => {})
        }
        if (!await waitFor(() => held() > before || held() >= count, overhead ? 1500 : 600) && epoch === ctx.epoch) {
          const spot = overhead ? bot.entity.position : block.position
          const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(spot) < 4)
          if (drop) await ctx.gotoWithin(new ctx.goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 8000).catch(() => {})
        }
      } catch (e) {
        if (epoch !== ctx.epoch) return 'stopped'
        skipped.add(key(block.position))
        if (skipped.size > 8) return `gave up after ${skipped.size} unreachable blocks: ${e && e.message}`
      }
    }
    return null
  }
  step().then(
    (error) => done(id, !error, { action: 'gather', error: error || undefined, dug, held: held(), position: vxyz(bot.entity.position) }),
    (e) => done(id, false, { action: 'gather', error: String(e && e.message), dug, held: held() }))
  return true
}

// Walk about `radius` blocks one way (a random one; the next if the walk fails), for a search
// in ground the bot has not seen: trees chopped bare round it, grass dug up
const SEARCHES = 3
async function lookFarther (ctx, radius) {
  const { bot, goals } = ctx
  const from = bot.entity.position
  const start = Math.random() * 2 * Math.PI
  for (let i = 0; i < 4; i++) {
    const a = start + i * Math.PI / 2
    const x = Math.floor(from.x + Math.cos(a) * radius)
    const z = Math.floor(from.z + Math.sin(a) * radius)
    try {
      await ctx.gotoWithin(new goals.GoalNearXZ(x, z, 4), 30000)
      return
    } catch (e) {
      if (!bot.entity) return
    }
  }
}

gather.holdsShield = true // walks and digs: the shield down, the guard off (bot_helper.js)

module.exports = { gather }
