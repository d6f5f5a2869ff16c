'use strict'
// Buckets: scoop — an empty bucket filled at the nearest water source; pour — the held water
// bucket emptied into a cell (on lava: obsidian or cobblestone; on fire: out).
// Every function takes the bot's context first (context.js) and its action id next.
//
// A bucket is used as a vanilla client uses it: the bot looks, then sends use_item
// (bot.activateItem), and the server casts a ray from its eyes along that look. Where to look
// comes from the same rules the sandbox's server follows (game/js/buckets.js): the bot casts
// the ray itself through the blocks it knows, and looks only where it takes the source it
// wants, or puts the water into the cell it wants.
const { vxyz } = require('../plain')
const { REACH, key, reader, eyesAt, far, scoopAim, drySpots, pourInto, scoopFrom } = require('../bucket')

const SOURCES = 32 // water sources weighed, nearest first
const WALK_MS = 60000

// scoop(id, radius): walk to a dry spot by the nearest water source within `radius` that has
// one (else to the nearest source), look at it and use an empty bucket; done when one more
// water_bucket is held
function scoop (ctx, id, radius) {
  const { bot, done, finder, goals, countOf, waitFor, gotoWithin } = ctx
  const { kindAt } = reader(ctx)
  const epoch = ctx.epoch
  const fail = (error, extra = {}) => done(id, false, { action: 'scoop', error, ...extra })
  const bucket = bot.inventory.items().find(i => i.name === 'bucket')
  if (!bucket) { fail('no bucket held'); return false }
  const run = async () => {
    const sources = finder.findBlocks({
      matching: (b) => b && b.name === 'water' && b.metadata === 0,
      maxDistance: radius,
      count: SOURCES
    })
    if (!sources.length) return { error: `no water source within ${radius} blocks` }
    const mine = eyesAt(bot.entity.position)
    let source = sources.find(s => far(mine, s) <= REACH && scoopAim(mine, s, kindAt)) || null
    if (!source) { // a walk: to a dry spot by the nearest source that has one, else near the nearest
      let spots = []
      for (const s of sources) {
        spots = drySpots(s, kindAt)
        if (spots.length) { source = s; break }
      }
      const goal = spots.length
        ? new goals.GoalCompositeAny(spots.map(p => new goals.GoalBlock(p.x, p.y, p.z)))
        : new goals.GoalNear((source = sources[0]).x, source.y, source.z, 2)
      try {
        await gotoWithin(goal, WALK_MS)
      } catch (e) {
        return { error: epoch !== ctx.epoch ? 'stopped' : `not reached: the water at ${key(source)} (${e && e.message})`, source }
      }
      if (epoch !== ctx.epoch) return { error: 'stopped', source }
      await waitFor(() => bot.entity.onGround || bot.entity.isInWater, 2000)
    }
    return { error: await scoopFrom(ctx, source), source }
  }
  run().then(
    (r) => done(id, !r.error, { action: 'scoop', error: r.error || undefined, source: vxyz(r.source), held: countOf('water_bucket'), position: vxyz(bot.entity.position) }),
    (e) => fail(String(e && e.message), { held: countOf('water_bucket') }))
  return true
}

// pour(id, x, y, z): empty the held water bucket into the cell x, y, z, from where the bot
// stands (within 4.5 blocks of its eyes), aimed at the face toward it of a solid block beside
// it; done when the cell has become what the water makes of it (water; on a lava source
// obsidian, on flowing lava cobblestone)
function pour (ctx, id, x, y, z) {
  const { bot, done, Vec3 } = ctx
  const cell = { x, y, z }
  const before = bot.blockAt(new Vec3(x, y, z))
  pourInto(ctx, cell).then(
    (error) => done(id, !error, { action: 'pour', error: error || undefined, at: vxyz(cell), before: before?.name, block: bot.blockAt(new Vec3(x, y, z))?.name }),
    (e) => done(id, false, { action: 'pour', error: String(e && e.message), at: vxyz(cell) }))
  return true
}

// each turns the bot to aim, and scoop walks: the shield down, the guard off (its look at an
// archer would turn the aim away; bot_helper.js)
scoop.holdsShield = true
pour.holdsShield = true

module.exports = { scoop, pour }
