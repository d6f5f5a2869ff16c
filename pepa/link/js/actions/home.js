'use strict'
// A home: site — where to build one; build — a blueprint's cells put up there.
// Every function takes the bot's context first (context.js) and its action id next.
const { vxyz } = require('../plain')
const { createBuilder } = require('../build')

const WATERS = 64 // water sources weighed by a site

// the water sources within `radius` of the bot that a site is weighed against
const watersNear = (ctx, radius) => ctx.finder.findBlocks({ matching: (b) => b && b.name === 'water' && b.metadata === 0, maxDistance: radius, count: WATERS })

// site(id, width, depth, radius): the flattest open ground within radius of the bot for a
// width x depth footprint (build.js chooseSite); done with its origin (the north-west corner of
// the cells the builder stands in), or ok false when none is fit
function site (ctx, id, width, depth, radius) {
  const { bot, done } = ctx
  const fail = (error) => done(id, false, { action: 'site', error })
  try {
    const waters = watersNear(ctx, radius + 24)
    const best = createBuilder(ctx).chooseSite(bot.entity.position, width, depth, radius, waters)
    if (!best) fail(`no open, flat ground for ${width}x${depth} within ${radius} blocks`)
    else done(id, true, { action: 'site', origin: { x: best.x, y: best.y, z: best.z }, earth: best.earth, wood: best.wood, spread: best.spread, water: best.water })
  } catch (e) {
    fail(String(e && e.message))
  }
  return true
}

// build(id, x, y, z, cells): clear the site and place the cells (build.js) from the origin
// x, y, z; done with what was placed and dug, or ok false naming what is missing
function build (ctx, id, x, y, z, cells) {
  const { bot, done, Vec3 } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  const builder = createBuilder(ctx)
  bot.pathfinder.setGoal(null)
  builder.build(new Vec3(x, y, z), cells, stopped).then(
    (r) => done(id, !r.missing.length, { action: 'build', ...r, error: r.missing.length ? `${r.missing.length} cells with nothing to hold them` : undefined, position: vxyz(bot.entity.position) }),
    (e) => done(id, false, { action: 'build', error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message), position: vxyz(bot.entity.position) }))
  return true
}

// settle(id, radius, cells): site() for the cells' footprint within radius of the bot, then
// build() there; done with the origin and, when the cells hold a door, the home set at it
function settle (ctx, id, radius, cells) {
  const { bot, done, Vec3 } = ctx
  const epoch = ctx.epoch
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  const fail = (error, extra = {}) => done(id, false, { action: 'settle', error: epoch !== ctx.epoch ? 'stopped' : error, ...extra, position: vxyz(bot.entity.position) })
  const builder = createBuilder(ctx)
  const width = Math.max(...cells.map(c => c[0])) + 1
  const depth = Math.max(...cells.map(c => c[2])) + 1
  const waters = watersNear(ctx, radius + 24)
  const best = builder.chooseSite(bot.entity.position, width, depth, radius, waters)
  if (!best) { fail(`no open, flat ground for ${width}x${depth} within ${radius} blocks`); return true }
  const origin = new Vec3(best.x, best.y, best.z)
  bot.pathfinder.setGoal(null)
  builder.build(origin, cells, stopped).then((r) => {
    const door = cells.find(c => c[3].some(n => n.endsWith('_door')))
    const home = door && !r.missing.length ? ctx.home.set(origin.x + door[0], origin.y + door[1], origin.z + door[2]) : null
    const chests = cells.filter(c => c[3].includes('chest')).map(c => ({ x: origin.x + c[0], y: origin.y + c[1], z: origin.z + c[2] }))
    done(id, !r.missing.length, {
      action: 'settle', ...r, origin: vxyz(origin), water: best.water, home: home ? { door: vxyz(home.door), room: home.room } : null, chests,
      error: r.missing.length ? `${r.missing.length} cells with nothing to hold them` : undefined, position: vxyz(bot.entity.position)
    })
  }, (e) => fail(String(e && e.message), { origin: vxyz(origin) }))
  return true
}

// setHome(x, y, z): the home is the room behind the door at, above or beside x, y, z (home.js);
// false when no door is there
function setHome (ctx, x, y, z) {
  return ctx.home.set(x, y, z) !== null
}

// goHome(id): into the home, through its door (done at once when inside)
function goHome (ctx, id) {
  return crossing(ctx, id, 'go_home', true)
}

// leaveHome(id): out of the home, through its door, the door shut behind (done at once when out)
function leaveHome (ctx, id) {
  return crossing(ctx, id, 'leave_home', false)
}

function crossing (ctx, id, action, inwards) {
  const { bot, done, goals } = ctx
  const wanted = ctx.home.wanted()
  if (!ctx.home.resolve() && !wanted) { done(id, false, { action, error: 'no home known' }); return false }
  const run = (async () => {
    if (!ctx.home.resolve()) { // far off, its chunk not loaded: near it first
      await bot.pathfinder.goto(new goals.GoalNear(wanted.x, wanted.y, wanted.z, 3))
      if (!ctx.home.resolve()) throw new Error(`no door at the home ${wanted}`)
    }
    if (ctx.home.isInside(bot.entity.position) !== inwards) await ctx.home.cross(inwards)
  })()
  run.then(
    () => done(id, true, { action, inside: ctx.home.isInside(bot.entity.position), position: vxyz(bot.entity.position) }),
    (e) => done(id, false, { action, error: String(e && e.message), position: vxyz(bot.entity.position) }))
  return true
}

build.holdsShield = true
settle.holdsShield = true
goHome.holdsShield = true
leaveHome.holdsShield = true

module.exports = { site, build, settle, setHome, goHome, leaveHome }
