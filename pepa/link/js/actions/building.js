'use strict'
// Shelter and building: shelter, place — walls and a roof for the night, a block put down.
// Every function takes the bot's context first (context.js) and its action id next.
const { vxyz } = require('../plain')
const { FURNITURE, SIDES } = require('../workshop')

// Digging two blocks down from `feet` is safe: both diggable solid blocks that
// are not furniture and quick to dig with the best held tool (DIG_DOWN_MS), solid
// ground under them, no water or lava beside them or beside the feet
const DIG_DOWN_MS = 1500
function canDigDown (ctx, feet) {
  const { bot, bestTool, solid, liquid } = ctx
  for (const dy of [1, 2]) {
    const b = bot.blockAt(feet.offset(0, -dy, 0))
    if (!b || b.boundingBox !== 'block' || !b.diggable || FURNITURE.test(b.name)) return false
    const tool = bestTool(b)
    if (b.digTime(tool ? tool.type : null, false, false, false, [], {}) > DIG_DOWN_MS) return false
  }
  if ([0, 1, 2].some(dy => SIDES.some(([dx, dz]) => liquid(feet.offset(dx, -dy, dz))))) return false
  return solid(feet.offset(0, -3, 0))
}

// shelter(id): wall the bot in for the night. Where digging down is safe
// (canDigDown) it digs the two blocks under its feet and drops into the hole;
// then every open side at feet and head level and the block above the head is
// filled with held blocks (context.js SHELTER_BLOCKS), with one support block beside the
// roof when nothing holds it; a torch goes on a wall when held. On flat
// ground that is 2 blocks in the ground (the dug ones come back as drops), 10
// on the spot. Done when no side is open and a block is above the head.
function shelter (ctx, id) {
  const { bot, done, Vec3, workshop, waitFor, centre, solid, bestTool, enclosure, fill } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  const run = async () => {
    bot.pathfinder.setGoal(null)
    await workshop.collect(stopped).catch(() => 0) // a table it left beside it comes along
    stopped()
    await waitFor(() => bot.entity.onGround, 2000)
    await centre()
    stopped()
    await waitFor(() => bot.entity.onGround, 2000)
    const start = bot.entity.position.floored()
    const walled = SIDES.every(([dx, dz]) => solid(start.offset(dx, 0, dz)) && solid(start.offset(dx, 1, dz)))
    let dug = 0
    if (!walled && canDigDown(ctx, start)) { // already in a hole (or a shelter): close what is open
      for (const dy of [1, 2]) {
        const b = bot.blockAt(start.offset(0, -dy, 0))
        const tool = bestTool(b)
        if (tool) await bot.equip(tool, 'hand')
        await bot.dig(b, true)
        stopped()
        await waitFor(() => bot.entity.onGround && bot.entity.position.y < start.y - dy + 0.5, 3000)
        dug++
      }
    }
    const closed = () => { const e = enclosure(bot.entity.position); return e.openSides === 0 && e.ceiling === 2 }
    let feet = null
    // a bot still falling or jumping stands lower than it seems: build from where it
    // lands, and once more if it then stands lower still
    for (let pass = 0; pass < 2 && !closed(); pass++) {
      await waitFor(() => bot.entity.onGround, 2000)
      feet = bot.entity.position.floored()
      const walls = SIDES.flatMap(([dx, dz]) => [feet.offset(dx, 0, dz), feet.offset(dx, 1, dz)])
      for (const cell of walls) {
        stopped()
        if (!solid(cell) && !await fill(cell)) throw new Error(`nothing to place a block against at ${cell}`)
      }
      const roof = feet.offset(0, 2, 0)
      if (!solid(roof) && !await fill(roof)) {
        stopped()
        await fill(feet.offset(1, 2, 0)) // a support on the east wall, then the roof against it
        await fill(roof)
      }
      await waitFor(closed, 500)
    }
    // a torch on the wall at head height (a server refuses a block in the cell of the feet)
    const torch = bot.inventory.items().find(i => i.name === 'torch')
    if (torch && feet) {
      await bot.equip(torch, 'hand')
      const [dx, dz] = SIDES[0]
      await bot.placeBlock(bot.blockAt(feet.offset(dx, 1, dz)), new Vec3(-dx, 0, -dz)).catch(() => {})
    }
    const e = enclosure(bot.entity.position)
    if (!closed()) throw new Error(`still open: ${e.openSides} sides, ceiling ${e.ceiling}`)
    return dug
  }
  run().then(
    (dug) => done(id, true, { action: 'shelter', dug, position: vxyz(bot.entity.position) }),
    (e) => done(id, false, { action: 'shelter', error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message), position: vxyz(bot.entity.position) }))
  return true
}

// place(id, item): put one `item` (a block) on the ground next to the bot
function place (ctx, id, item) {
  const { done } = ctx
  ctx.placeNear(item).then(
    (pos) => done(id, true, { action: 'place', item, position: vxyz(pos) }),
    (e) => done(id, false, { action: 'place', item, error: String(e && e.message) }))
  return true
}

// each digs or places blocks: the shield down, the guard off (bot_helper.js)
shelter.holdsShield = true
place.holdsShield = true

module.exports = { shelter, place }
