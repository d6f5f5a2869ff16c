'use strict'
// Flight: escape, flee, cover — getting away from a pit, from hostiles, from archers' sight.
// Every function takes the bot's context first (context.js) and its action id next.
const { performance } = require('perf_hooks')
const { r1, r2, vxyz, hostile } = require('../plain')

const THREAT_RADIUS = 16 // pepa.world.view.THREAT_RADIUS
const COVER_SETTLE_MS = 450 // over two of perception's snapshot intervals (0.2 s)

// Where to run: FLEE_HEADINGS directions around the bot, each run along its
// open ground (feet and head free, solid ground, a step of one block up or
// down, no water or lava) while it stays clear of every hostile: FLEE_MOB_GAP
// plus FLEE_CHASE for each block run, the ground a mob at about half a
// sprinting player's speed covers meanwhile (a zombie walks 2.3 blocks a
// second, a sprint is 5.6), counted from the nearer of the mob's distance now
// and FLEE_MOB_GAP. A heading is scored by how far from the nearest hostile
// its run ends, and by the room to run on from there (the longest run away
// from them, at most FLEE_ROOM, over FLEE_ROOM_HEADINGS): straight away on
// open ground, and along a wall rather than into a corner (headings more than
// FLEE_BACK_COS round toward the hostiles' centre are never taken). Pure
// reads of the loaded world: 16 headings x (16 + 8 x 8) blocks, ~1300 block
// reads, about a millisecond.
const FLEE_HEADINGS = 16
const FLEE_MOB_GAP = 2.5
const FLEE_CHASE = 0.5
const FLEE_BACK_COS = -0.75
const FLEE_ROOM = 8
const FLEE_ROOM_HEADINGS = 8
const passable = (b) => !b || b.boundingBox === 'empty'
const wet = (b) => !!b && (b.name === 'water' || b.name === 'lava')
const nearest = (mobs, x, z) => mobs.reduce((d, m) => Math.min(d, Math.hypot(m.x - x, m.z - z)), Infinity)
// blocks of walkable ground from `from` along unit (dx, dz), at most `max`, while clear of the mobs
function openRun (ctx, from, dx, dz, max, mobs) {
  const { bot, Vec3 } = ctx
  let y = Math.floor(from.y)
  let run = 0
  for (let i = 1; i <= max; i++) {
    const x = from.x + dx * i
    const z = from.z + dz * i
    if (mobs.some(m => Math.hypot(m.x - x, m.z - z) < m.gap + FLEE_CHASE * i)) break
    const at = (dy) => bot.blockAt(new Vec3(Math.floor(x), y + dy, Math.floor(z)))
    let step = null
    for (const dy of [0, 1, -1]) { // level, a step up, a step down
      const ground = at(dy - 1)
      if (passable(at(dy)) && passable(at(dy + 1)) && !wet(at(dy)) && ground && ground.boundingBox === 'block' && !wet(ground)) { step = dy; break }
    }
    if (step === null) break
    y += step
    run = i
  }
  return run
}
// the best heading away from `mobs` ([{x, z}]): { dx, dz, run, score }
function fleeHeading (ctx, pos, mobs, max) {
  const from = (p) => mobs.map(m => ({ x: m.x, z: m.z, gap: Math.min(FLEE_MOB_GAP, Math.hypot(m.x - p.x, m.z - p.z)) }))
  const headings = (p, limit, count) => {
    let ax = 0
    let az = 0
    for (const m of mobs) { ax += p.x - m.x; az += p.z - m.z }
    const norm = Math.hypot(ax, az)
    if (norm < 1e-6) { ax = 1; az = 0 } else { ax /= norm; az /= norm }
    const out = []
    for (let k = 0; k < count; k++) {
      const a = (k / count) * 2 * Math.PI
      const dx = Math.cos(a)
      const dz = Math.sin(a)
      const away = dx * ax + dz * az // 1 straight away, 0 sideways, -1 toward them
      if (away >= limit) out.push({ dx, dz, away })
    }
    return out
  }
  const here = from(pos)
  let best = null
  for (const { dx, dz, away } of headings(pos, FLEE_BACK_COS, FLEE_HEADINGS)) {
    const run = openRun(ctx, pos, dx, dz, max, here)
    if (run < 1) continue
    const end = { x: pos.x + dx * run, y: pos.y, z: pos.z + dz * run }
    let room = 0
    const there = from(end)
    for (const h of headings(end, 0, FLEE_ROOM_HEADINGS)) {
      room = Math.max(room, openRun(ctx, end, h.dx, h.dz, FLEE_ROOM, there))
      if (room >= FLEE_ROOM) break
    }
    const score = nearest(mobs, end.x, end.z) + 0.5 * room + 0.1 * away
    if (!best || score > best.score) best = { dx, dz, run, score }
  }
  return best
}
// The y of the highest ground block over the head at `pos` (not a tree's leaves
// or wood), where a bot dug into the ground stands once it is out; null under open sky
function roofOver (ctx, pos) {
  const { bot, Vec3 } = ctx
  const top = (bot.game.minY || 0) + (bot.game.height || 256) - 1
  const x = Math.floor(pos.x)
  const z = Math.floor(pos.z)
  for (let y = top; y >= Math.floor(pos.y) + 2; y--) {
    const b = bot.blockAt(new Vec3(x, y, z))
    if (b && b.boundingBox === 'block' && !/leaves|_log$|_wood$|_stem$|_hyphae$/.test(b.name)) return y
  }
  return null
}
const hostilesNear = (bot, pos, radius) => Object.values(bot.entities)
  .filter(e => e !== bot.entity && e.position && hostile(e) && e.position.distanceTo(pos) <= radius)
  .map(e => ({ x: e.position.x, z: e.position.z }))

// escape(id, reach, mode): get at least `reach` blocks away from here.
// mode 'up': pillar up on dirt/cobblestone, no digging; 'dig': dig with
// the best tool, no pillaring; 'surface': from down a mine (the highest
// ground block over the head more than a head above it: roofOver) up to
// that block's level, digging and pillaring, and as 'any' when that fails
// or from a shelter's own hole; anything else: whatever the pathfinder finds.
function escape (ctx, id, reach, mode) {
  const { bot, goals, done } = ctx
  const epoch = ctx.epoch
  const p = bot.entity.position.clone()
  const roof = mode === 'surface' ? roofOver(ctx, p) : null
  const deep = roof !== null && roof > Math.floor(p.y) + 2
  ctx.endGentle() // a no-dig walk still under way must not become the movements restored after
  const normal = bot.pathfinder.movements
  const moves = new ctx.Movements(bot) // no danger costs: getting out comes first
  if (mode === 'up') moves.canDig = false
  if (mode === 'dig') moves.allow1by1towers = false
  bot.pathfinder.setMovements(moves)
  const stopped = () => { if (epoch !== ctx.epoch) throw new Error('stopped') }
  const failed = [] // why each way up before the last one failed: the report says
  const run = async () => {
    if (deep) {
      try { await bot.pathfinder.goto(new goals.GoalY(roof)); return 'path up' } catch (e) {
        stopped() // stopped: no second try
        failed.push(`path up: ${e && e.message}`)
      }
      await bot.waitForTicks(1) // the failed search ends before the next begins
      try { await ctx.climb.climbTo(roof, stopped); return 'climb' } catch (e) { // by hand
        stopped()
        failed.push(`climb: ${e && e.message}`)
      }
    }
    await bot.pathfinder.goto(new goals.GoalInvert(new goals.GoalNear(p.x, p.y, p.z, reach || 3)))
    return 'away'
  }
  const why = () => failed.length ? failed : undefined
  ctx.melee.suspend(run().finally(() => bot.pathfinder.setMovements(normal))).then(
    (way) => done(id, true, { action: 'escape', way, failed: why(), position: vxyz(bot.entity.position) }),
    (e) => done(id, false, { action: 'escape', error: String(e && e.message), failed: why(), position: vxyz(bot.entity.position) }))
  return true
}

// flee(id, sources, distance): sprint `distance` blocks away from the points
// `sources` ([[x, z], ...], the hostiles when the decision was made), in legs:
// each leg runs along the best heading of fleeHeading (from the hostiles seen
// now), jumping steps up; a leg ends at its open run's end or when blocked
// for 1 s; four legs at most. No heading open: the pathfinder's way instead.
function flee (ctx, id, sources, distance) {
  const { bot, done } = ctx
  const epoch = ctx.epoch
  const want = Number(distance) || 16
  const start = bot.entity.position.clone()
  const seen = (sources || []).map(p => ({ x: Number(p[0]), z: Number(p[1]) }))
  const off = () => { bot.setControlState('forward', false); bot.setControlState('sprint', false); bot.setControlState('jump', false) }
  const run = async () => {
    for (let leg = 0; leg < 4; leg++) {
      const pos = bot.entity.position
      const moved = start.distanceTo(pos)
      if (moved >= want) return { moved, legs: leg }
      const live = hostilesNear(bot, pos, 24)
      const heading = fleeHeading(ctx, pos, live.length ? live : seen, Math.ceil(want - moved) + 2)
      if (!heading || heading.run < 2) {
        if (leg > 0) return { moved, legs: leg } // cornered after a run: the chain decides again
        const a = live.length ? live : seen
        const cx = a.reduce((n, m) => n + m.x, 0) / Math.max(1, a.length)
        const cz = a.reduce((n, m) => n + m.z, 0) / Math.max(1, a.length)
        const len = Math.hypot(pos.x - cx, pos.z - cz) || 1
        const to = pos.offset((pos.x - cx) / len * want, 0, (pos.z - cz) / len * want)
        await ctx.gotoWithin(new ctx.goals.GoalNear(to.x, to.y, to.z, 2), 15000)
        return { moved: start.distanceTo(bot.entity.position), legs: 1, pathfinder: true }
      }
      await bot.look(Math.atan2(-heading.dx, -heading.dz), 0, true)
      const legStart = pos.clone()
      let last = pos.clone()
      let prev = pos.clone()
      let lastMove = Date.now()
      bot.setControlState('forward', true)
      bot.setControlState('sprint', true)
      await new Promise((resolve) => {
        const tick = () => {
          try {
            const here = bot.entity.position
            const ahead = bot.blockAt(here.offset(heading.dx * 0.8, 0, heading.dz * 0.8))
            bot.setControlState('jump', !passable(ahead)) // a step up
            if (here.distanceTo(last) > 0.1) { last = here.clone(); lastMove = Date.now() }
            const teleported = here.distanceTo(prev) > 3 // the server moved the bot
            prev = here.clone()
            const over = epoch !== ctx.epoch || !bot.entity.isValid || bot.health <= 0 || teleported ||
              legStart.distanceTo(here) >= heading.run - 0.5 || start.distanceTo(here) >= want ||
              Date.now() - lastMove > 1000
            if (over) { bot.removeListener('physicsTick', tick); resolve() }
          } catch (e) { bot.removeListener('physicsTick', tick); resolve() }
        }
        bot.on('physicsTick', tick)
      })
      if (epoch !== ctx.epoch) throw new Error('stopped') // stop() let go of the keys
      off()
    }
    return { moved: start.distanceTo(bot.entity.position), legs: 4 }
  }
  bot.pathfinder.setGoal(null) // the legs steer by hand
  ctx.melee.suspend(run()).then( // no shield in a flight: blocking slows the player
    (r) => done(id, true, Object.assign({ action: 'flee', position: vxyz(bot.entity.position) }, r, { moved: r1(r.moved) })),
    (e) => { if (epoch === ctx.epoch) off(); done(id, false, { action: 'flee', error: String(e && e.message), position: vxyz(bot.entity && bot.entity.position) }) })
  return true
}

// cover(id, sources, radius, avoid): walk to the nearest cell within `radius` where no
// archer at the feet positions `sources` ([[x, y, z], ...]) sees the bot's eyes, never
// within 4 blocks of the hostiles at `avoid` ([[x, z], ...]) (cover.js findCover); an
// empty list: the ones in view now (a hostile spotted before any snapshot has no position)
function cover (ctx, id, sources, radius, avoid) {
  const { bot, done } = ctx
  const sight = ctx.cover
  const live = sight.liveHostiles(THREAT_RADIUS)
  const archers = sources && sources.length ? sources.map(p => ({ x: Number(p[0]), y: Number(p[1]), z: Number(p[2]) })) : live.archers
  const others = avoid && avoid.length ? avoid.map(p => ({ x: Number(p[0]), z: Number(p[1]) })) : live.others
  if (!archers.length) { done(id, false, { action: 'cover', error: 'no archer to hide from' }); return false }
  const t0 = performance.now()
  const found = sight.findCover(archers, Number(radius) || 6, others)
  const ms = r2(performance.now() - t0)
  if (!found.cell) { done(id, false, { action: 'cover', error: `no cover within ${Number(radius) || 6} blocks (${found.tried} cells)`, ms }); return false }
  const c = found.cell
  // done only after COVER_SETTLE_MS at the cell: the snapshots Python takes meanwhile
  // (5 a second) show the bot hidden before it decides on what to do next. Ok only
  // when then no archer in range sees it from where it stands now (Python remembers
  // the bot hidden on an ok). The walk neither digs nor towers: no wall opened, no
  // climb into view.
  const epoch = ctx.epoch
  ctx.gotoGently(new ctx.goals.GoalBlock(c.x, c.y, c.z), 10000)
    .then(() => new Promise((resolve) => setTimeout(resolve, COVER_SETTLE_MS)))
    .then(() => {
      if (epoch !== ctx.epoch) throw new Error('stopped')
      if (sight.seenBy(THREAT_RADIUS).length) throw new Error('seen at the cover cell')
    }).then(
      () => done(id, true, { action: 'cover', cell: { x: c.x, y: c.y, z: c.z }, ms, position: vxyz(bot.entity.position) }),
      (e) => done(id, false, { action: 'cover', error: epoch !== ctx.epoch ? 'stopped' : String(e && e.message), cell: { x: c.x, y: c.y, z: c.z }, ms, position: vxyz(bot.entity && bot.entity.position) }))
  return true
}

// each walks or digs: the shield down, the guard off (bot_helper.js); flee holds it down itself
escape.holdsShield = true
cover.holdsShield = true

module.exports = { escape, flee, cover }
