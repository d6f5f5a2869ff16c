// The carried workshop: a crafting table or furnace the bot places where it
// stands to craft or smelt, then digs back up into its bag, so the next craft
// never walks back to where the last one was and a night's shelter can be a
// workshop too. Only blocks this bot placed are ever taken (their positions are
// remembered here); under cover (by night, in the shelter) the block goes into
// the sealed pocket: a free cell beside the feet with a floor, or a wall cell
// beside the feet dug out for it when each of that cell's other five
// neighbours is solid and not water or lava (the pocket never opens onto the
// surface), refilled with a held block once the table or furnace is back in the
// bag. Nothing here walks when under cover.
'use strict'

const SIDES = [[1, 0], [-1, 0], [0, 1], [0, -1]]
const AROUND = [[0, 1, 0], [0, -1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1]]
const REACH = 4.5 // blocks to a table or furnace the bot uses without walking
const FURNITURE = /bedrock|table|furnace|chest|_bed$/
// blocks that fall when the block under them goes: one over a dug cell drops into the
// pocket and leaves a hole that can open it to the sky
const GRAVITY = /^(sand|red_sand|gravel|\w+_concrete_powder)$/
const TAKE_MS = 3000 // a dug table's or furnace's drop reaching the bag

// h: { Vec3, goals, findBlock (find.js), bestTool, waitFor, countOf, solid, liquid, gotoGently, groundSpot, placeNear, placeOverhead, fill }
function createWorkshop (bot, h) {
  const placed = new Map() // tables and furnaces this bot placed and has not taken back: key → position
  const covered = new Set() // those of them placed under cover: their drops are waited for, never walked to
  const dugFor = new Set() // wall cells dug out under cover for them: refilled when they are taken back

  // A cell that can be dug without opening the pocket: diggable, not furniture, no
  // sand or gravel above it, each neighbour solid and dry or the bot's own feet or head cell
  function sealedCell (p) {
    const feet = bot.entity.position.floored()
    const head = feet.offset(0, 1, 0)
    const b = bot.blockAt(p)
    if (!b || b.boundingBox !== 'block' || !b.diggable || FURNITURE.test(b.name) || h.liquid(p)) return false
    const above = bot.blockAt(p.offset(0, 1, 0))
    if (above && GRAVITY.test(above.name)) return false
    return AROUND.every(([dx, dy, dz]) => {
      const q = p.offset(dx, dy, dz)
      return q.equals(feet) || q.equals(head) || (h.solid(q) && !h.liquid(q))
    })
  }
  const digTime = (p) => { const b = bot.blockAt(p); const t = h.bestTool(b); return b.digTime(t ? t.type : null, false, false, false, [], {}) }
  // The wall cell beside the feet quickest to dig without opening the pocket
  function wallCell () {
    const feet = bot.entity.position.floored()
    return SIDES.map(([dx, dz]) => feet.offset(dx, 0, dz)).filter(sealedCell).sort((a, b) => digTime(a) - digTime(b))[0] || null
  }
  async function digOut (p) {
    const b = bot.blockAt(p)
    const tool = h.bestTool(b)
    if (b.harvestTools && !tool) throw new Error(`no tool can dig ${b.name} for the workshop`)
    if (tool) await bot.equip(tool, 'hand')
    await bot.dig(b, true)
  }

  // A free cell beside the feet with solid ground under it (inside the pocket when sealed in)
  function freeCell () {
    const feet = bot.entity.position.floored()
    return SIDES.map(([dx, dz]) => feet.offset(dx, 0, dz)).find(p => {
      const b = bot.blockAt(p)
      return b && b.boundingBox === 'empty' && !h.liquid(p) && h.solid(p.offset(0, -1, 0))
    }) || null
  }

  const bagCount = () => bot.inventory.items().reduce((n, i) => n + i.count, 0)
  const airAt = (p) => { const b = bot.blockAt(p); return !!b && b.boundingBox === 'empty' }

  async function putAt (item, cell) {
    const it = bot.inventory.items().find(i => i.name === item)
    if (!it) throw new Error(`no ${item} to place`)
    await bot.equip(it, 'hand')
    await bot.placeBlock(bot.blockAt(cell.offset(0, -1, 0)), new h.Vec3(0, 1, 0))
    return cell
  }

  // Place a held `item` (crafting_table, furnace) beside the bot and remember it:
  // on free ground beside it, else (by day, down a shaft) above its head, else in a
  // wall cell dug for it. underCover: only in the pocket (a free cell, else a wall
  // cell dug for it, after a step down when walled in on the surface).
  async function place (item, underCover) {
    let at = null
    if (!underCover && h.groundSpot()) at = await h.placeNear(item)
    if (!at) {
      const free = freeCell()
      if (free) at = await putAt(item, free)
    }
    if (!at && !underCover) at = await h.placeOverhead(item).catch(() => null) // down a shaft by day
    if (!at && underCover && !wallCell()) { // walled in on the surface: a step down first
      const feet = bot.entity.position.floored()
      const under = feet.offset(0, -1, 0)
      if (sealedCell(under) && h.solid(under.offset(0, -1, 0))) {
        await digOut(under)
        await h.waitFor(() => bot.entity.onGround && bot.entity.position.y < feet.y - 0.5, 3000)
      }
    }
    if (!at) {
      const wall = wallCell()
      if (wall) {
        const had = bagCount()
        await digOut(wall)
        dugFor.add(wall.toString())
        // the cell is air and the drop in the bag (it would be picked up again off the table)
        await h.waitFor(() => airAt(wall) && bagCount() > had, 1500)
        at = await putAt(item, wall)
      }
    }
    if (!at) throw new Error(`no room for a ${item} in the shelter`)
    placed.set(at.toString(), at)
    if (underCover) covered.add(at.toString())
    return at
  }

  // Dig a table or furnace this bot placed back into the bag (a no-op for any
  // other block); refill the wall cell it stood in when one was dug for it
  async function takeBack (at, stopped) {
    const block = bot.blockAt(at)
    if (!block || !placed.has(at.toString()) || !/^(crafting_table|furnace)$/.test(block.name)) return false
    const had = h.countOf(block.name)
    const tool = h.bestTool(block)
    if (block.harvestTools && !tool) return false // a furnace needs a pickaxe to drop itself
    stopped()
    if (tool) await bot.equip(tool, 'hand')
    await bot.dig(block, true)
    placed.delete(at.toString())
    const back = () => h.countOf(block.name) > had
    if (covered.delete(at.toString())) {
      await h.waitFor(back, TAKE_MS) // in the sealed pocket the drop comes to the bot: never walk out
    } else if (!await h.waitFor(back, 1000)) {
      stopped()
      const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(at) < 4)
      if (drop) await h.gotoGently(new h.goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 8000).catch(() => {})
      await h.waitFor(back, 1500)
    }
    if (dugFor.delete(at.toString())) await h.fill(at).catch(() => false) // the pocket's wall again
    return true
  }

  // Take back every table or furnace this bot placed that is within reach (one a
  // pre-empted craft or smelt left behind): before the bot walks off or shelters.
  // The planner counts only what the bag holds: a table left in the world would
  // send the bot for wood to make another.
  async function collect (stopped) {
    let n = 0
    for (const [key, at] of [...placed]) {
      const b = bot.blockAt(at)
      if (!b || !/^(crafting_table|furnace)$/.test(b.name)) { placed.delete(key); continue }
      if (bot.entity.position.distanceTo(at.offset(0.5, 0.5, 0.5)) > REACH) continue
      if (await takeBack(at, stopped)) n++
    }
    return n
  }

  // The table to craft at: one within reach; else the held one, placed; else
  // (by day) one within 32 blocks, walked to. A held table is placed rather
  // than walking to a far one: placing and digging it back takes a few seconds.
  async function reachTable (underCover) {
    const id = bot.registry.blocksByName.crafting_table.id
    const near = h.findBlock({ matching: id, maxDistance: REACH })
    if (near) return near
    if (h.countOf('crafting_table') > 0) return bot.blockAt(await place('crafting_table', underCover))
    if (underCover) throw new Error('no crafting table held or in reach under cover')
    const far = h.findBlock({ matching: id, maxDistance: 32 })
    if (!far) throw new Error('no crafting table held or within 32 blocks')
    await bot.pathfinder.goto(new h.goals.GoalNear(far.position.x, far.position.y, far.position.z, 2))
    return bot.blockAt(far.position)
  }

  return { placed, place, takeBack, collect, reachTable, sealedCell, REACH }
}

module.exports = { createWorkshop, GRAVITY, FURNITURE, SIDES, AROUND }
