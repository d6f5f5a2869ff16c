'use strict'
// Deep mining: down to a level by a staircase, then 1x2 tunnels toward the ores the bot knows
// of, under the rules that keep a miner alive (docs/mining.md). Every function takes the bot's
// context first (context.js) and its action id next.
//
// The rules, each one switched off by naming it in `off` (the tests show each one matters):
//   liquid   a block is dug only when none of its other five neighbours holds water or lava:
//            what is behind, above or beside it stays where it is (the block is left as a
//            wall and the tunnel goes round)
//   cave     a dig that opens onto air the miner did not dig (a cave, a ravine, a mineshaft)
//            closes the opening with a held block: nothing walks in out of the dark, the way
//            back stays one tunnel
//   fall     the miner never digs the block under its feet to stand lower (the staircase
//            goes down and along), and never steps into a cell whose floor is not solid: it
//            puts a block there first, or turns
//   torch    a torch on the wall every TORCH_SPACING cells, while torches are held
//   retreat  low health, low food or a full inventory ends the run: back to where it began,
//            through the tunnel it dug
//   water    lava that gets into the tunnel within reach, or fire on the miner, gets the held
//            water bucket: lava hardens (obsidian, cobblestone), fire goes out (the water is
//            poured at the feet and scooped back up)
const { vxyz, onFire } = require('../plain')
const { EYE, REACH } = require('../reach')
const { GRAVITY, AROUND, FURNITURE } = require('../workshop')
const { pourInto, scoopFrom } = require('../bucket')

// A torch gives block light 14 in its cell (vanilla Blocks.TORCH), one less a block away; in
// 1.16.5 a monster spawns where the light is at most random(8), 7 at most. A torch on the wall
// at head height is 2 blocks from the floor cell beside it, so a floor cell k cells along the
// tunnel has light 14 - 2 - k: at least 8 while k <= 4. Torches 2 * 4 + 1 cells apart leave no
// floor cell of the tunnel dark enough.
const TORCH_LIGHT = 14
const SPAWN_DARK = 7
const TORCH_SPACING = 2 * (TORCH_LIGHT - 2 - (SPAWN_DARK + 1)) + 1
const RETREAT_HEALTH = 8 // of 20: one more fall or fight can kill, and the way back is long
const RETREAT_FOOD = 6 // vanilla stops healing below 18 and sprinting at 6
const MAX_DIGS = 600 // blocks one run digs at most (an iron pickaxe: about 8 minutes of stone)
const BEDROCK_SAFE = 5 // never below: bedrock reaches y 4
const EXPLORE = 16 // cells a branch goes on with no ore in sight before it turns
const DIRS = [[1, 0], [0, 1], [-1, 0], [0, -1]]
const ORE_BAND = [-4, 6] // ores sought this far below and above the level
const STALLS = 12 // moves that bring the bot no nearer an ore before it is given up

class Stopped extends Error {}

// mine(id, names, count, level, drops, radius, off): dig down to feet at y `level` by a
// staircase, then tunnel toward the nearest block in `names` within `radius` blocks of the bot
// and dig it, until the inventory holds `count` of any of `drops` (default: the names); then
// walk back to where it began. `off` names rules to leave out (tests only).
function mine (ctx, id, names, count, level, drops, radius, off) {
  const { bot, done } = ctx
  const miner = createMiner(ctx, { names, count, drops, level, radius, off: new Set(off || []) })
  miner.run().then(
    (r) => done(id, !r.error, { action: 'mine', ...r, held: miner.held(), position: vxyz(bot.entity.position) }),
    (e) => done(id, false, {
      action: 'mine',
      error: e instanceof Stopped ? 'stopped' : String(e && e.message),
      ...miner.stats,
      held: miner.held(),
      position: vxyz(bot.entity.position)
    }))
  return true
}
mine.holdsShield = true // walks and digs: the shield down, the guard off (bot_helper.js)

function createMiner (ctx, { names, count, drops, level, radius, off }) {
  const { bot, Vec3, waitFor } = ctx
  const rule = (name) => !off.has(name)
  const wanted = new Set(names)
  const yields = new Set(drops && drops.length ? drops : names)
  const held = () => bot.inventory.items().filter(i => yields.has(i.name)).reduce((n, i) => n + i.count, 0)
  const epoch = ctx.epoch
  const start = bot.entity.position.floored()
  const open = new Map() // cells this run dug, walked or means to dig (key → cell): never sealed, never feared
  const skipped = new Set() // ores given up on
  const unsealed = new Set() // openings a block would not go into: a failed placement costs 5 s
  const nearest = new Map() // ore -> the nearest the bot has been to it
  const stalls = new Map() // ore -> moves that brought the bot no nearer
  const key = (p) => `${p.x},${p.y},${p.z}`
  const stats = { dug: 0, refused: 0, sealed: 0, floored: 0, torches: 0, cells: 0, doused: 0, digMs: 0, walkMs: 0 }
  let sinceTorch = TORCH_SPACING - (TORCH_SPACING - 1) / 2 // the first torch lights the start too

  const stopped = () => { if (epoch !== ctx.epoch) throw new Stopped('stopped') }
  const fluid = (b) => !!b && (b.name === 'water' || b.name === 'lava')
  const airAt = (p) => { const b = bot.blockAt(p); return !!b && b.boundingBox === 'empty' && !fluid(b) }
  const feet = () => bot.entity.position.floored()
  const mark = (p) => open.set(key(p), p)
  const inReach = (p) => bot.entity.position.offset(0, EYE, 0).distanceTo(p.offset(0.5, 0.5, 0.5)) <= REACH

  // the liquid a dig at p would let in: a neighbour of p holding water or lava
  function behind (p) {
    for (const [dx, dy, dz] of AROUND) {
      const q = p.offset(dx, dy, dz)
      if (!open.has(key(q)) && ctx.liquid(q)) return bot.blockAt(q).name
    }
    return null
  }
  // put a held block into cell q, against any solid neighbour
  async function block (q) {
    try { return await ctx.fill(q) } catch (e) { return false }
  }
  // the cave rule: close every opening beside p into air this run did not make
  async function seal (p) {
    if (!rule('cave')) return
    for (const [dx, dy, dz] of AROUND) {
      const q = p.offset(dx, dy, dz)
      if (open.has(key(q)) || unsealed.has(key(q)) || !airAt(q)) continue
      if (q.floored().equals(feet()) || q.equals(feet().offset(0, 1, 0))) continue
      if (await block(q)) stats.sealed++
      else unsealed.add(key(q))
      stopped()
    }
  }
  // clear cell p (dig it, and what falls into it); false when a rule keeps it whole
  async function clear (p) {
    mark(p)
    for (let tries = 0; tries < 8; tries++) {
      stopped()
      const b = bot.blockAt(p)
      if (!b) return false
      if (fluid(b)) return !rule('liquid') // walking into a liquid is what the rule avoids
      if (b.boundingBox === 'empty') { await seal(p); return true }
      if (!b.diggable || FURNITURE.test(b.name)) return false // bedrock, and what a player keeps
      if (rule('liquid') && behind(p)) { stats.refused++; open.delete(key(p)); return false }
      if (stats.dug >= MAX_DIGS) throw new Error(`dug ${stats.dug} blocks (have ${held()}/${count})`)
      const tool = ctx.bestTool(b)
      const began = Date.now()
      if (tool && bot.heldItem !== tool) await bot.equip(tool, 'hand')
      const falls = GRAVITY.test((bot.blockAt(p.offset(0, 1, 0)) || {}).name || '')
      try {
        await bot.dig(b, true)
        stats.digMs += Date.now() - began
      } catch (e) {
        stopped()
        if (/aborted/i.test(String(e && e.message))) continue // a dig left over from before ended it
        throw e
      }
      stats.dug++
      if (falls) await waitFor(() => ctx.solid(p), 1000) // gravel or sand above comes down into it
    }
    return false
  }
  // the fall rule: the floor under cell g holds, or is made to
  async function floor (g) {
    const under = g.offset(0, -1, 0)
    if (ctx.solid(under)) return true
    if (!rule('fall')) return true
    if (await block(under)) { stats.floored++; return ctx.solid(under) }
    return false
  }
  // walk from the cell the bot stands in to the neighbouring cell g (one up, down or level),
  // on until the middle of it: the rock ahead stops the bot there (no sneaking back to the middle)
  async function stepTo (g) {
    const began = Date.now()
    const c = g.offset(0.5, 0, 0.5)
    const up = g.y > feet().y
    const fromMiddle = () => Math.hypot(bot.entity.position.x - c.x, bot.entity.position.z - c.z)
    await bot.lookAt(new Vec3(c.x, bot.entity.position.y + 1.6, c.z), true)
    bot.setControlState('forward', true)
    if (up) bot.setControlState('jump', true)
    try {
      await waitFor(() => { const f = feet(); return f.x === g.x && f.z === g.z && fromMiddle() < 0.3 }, 3000)
    } finally {
      bot.setControlState('forward', false)
      bot.setControlState('jump', false)
    }
    await waitFor(() => bot.entity.onGround, 3000)
    stats.walkMs += Date.now() - began
    stopped()
    const at = feet()
    if (!(at.x === g.x && at.z === g.z)) return false
    mark(at); mark(at.offset(0, 1, 0))
    stats.cells++
    sinceTorch++
    return true
  }
  // one move in direction d: 'level', 'down' (a stair down) or 'up' (a stair up)
  async function move (d, how) {
    const f = feet()
    const ahead = f.offset(d[0], 0, d[1])
    let cells, dest
    if (how === 'down') {
      if (f.y - 1 < BEDROCK_SAFE) return false
      cells = [ahead.offset(0, 1, 0), ahead, ahead.offset(0, -1, 0)]
      dest = ahead.offset(0, -1, 0)
    } else if (how === 'up') {
      cells = [f.offset(0, 2, 0), ahead.offset(0, 2, 0), ahead.offset(0, 1, 0)]
      dest = ahead.offset(0, 1, 0)
    } else {
      cells = [ahead.offset(0, 1, 0), ahead]
      dest = ahead
    }
    for (const p of cells) mark(p) // the cells of this move are no cave to seal
    for (const p of cells) {
      if (!await clear(p)) { for (const q of cells) if (!airAt(q)) open.delete(key(q)); return false }
    }
    if (!await floor(dest)) return false
    if (!await stepTo(dest)) return false
    last = d
    await torch(d)
    return true
  }
  // the torch rule: one on a side wall at head height once the last is TORCH_SPACING cells back
  async function torch (d, end = false) {
    if (!rule('torch') || sinceTorch < (end ? (TORCH_SPACING + 1) / 2 : TORCH_SPACING)) return
    const it = bot.inventory.items().find(i => i.name === 'torch')
    if (!it) return
    const head = feet().offset(0, 1, 0)
    for (const [sx, sz] of [[d[1], d[0]], [-d[1], -d[0]]]) {
      const wall = bot.blockAt(head.offset(sx, 0, sz))
      if (!wall || wall.boundingBox !== 'block') continue
      try {
        await bot.equip(it, 'hand')
        await bot.placeBlock(wall, new Vec3(-sx, 0, -sz))
        stats.torches++
        sinceTorch = 0
        return
      } catch (e) { /* the next wall, or the next cell */ }
    }
  }
  // the water rule: the held water bucket on lava in the tunnel within reach, then on the miner
  // itself when it burns (poured at its feet, scooped back up)
  async function douse () {
    if (!rule('water') || !ctx.countOf('water_bucket')) return
    const eyes = bot.entity.position.offset(0, EYE, 0)
    const lava = [...open.values()].filter(p => (bot.blockAt(p) || {}).name === 'lava' && inReach(p))
      .sort((a, b) => eyes.distanceTo(a) - eyes.distanceTo(b))
    for (const p of lava) {
      if (!await pourInto(ctx, p)) { stats.doused++; return }
      stopped()
    }
    if (!onFire(bot.entity) || (bot.blockAt(feet()) || {}).name === 'water') return
    const at = feet()
    if (!await pourInto(ctx, at)) {
      stats.doused++
      await waitFor(() => !onFire(bot.entity), 1000)
      await scoopFrom(ctx, at).catch(() => {})
    }
  }
  // the retreat rule: why the run must end now, or null
  function mustRetreat () {
    if (!rule('retreat')) return null
    if (bot.health <= RETREAT_HEALTH) return `health ${Math.round(bot.health)}`
    if (bot.food <= RETREAT_FOOD) return `food ${bot.food}`
    if (bot.inventory.emptySlotCount() === 0) return 'a full inventory'
    return null
  }
  // back to where the run began, through what it dug (no digging, no towering); digging round
  // what has closed the way since (lava hardened in the tunnel)
  async function goBack () {
    if (feet().equals(start)) return true
    const goal = new ctx.goals.GoalBlock(start.x, start.y, start.z)
    try {
      await ctx.gotoGently(goal, 90000)
      return true
    } catch (e) {
      stopped()
      await douse()
      return ctx.gotoWithin(goal, 90000).then(() => true, () => false)
    }
  }
  // the wanted block nearest the bot within the band round the level, not given up on
  function nearestOre () {
    const f = feet()
    return ctx.finder.findBlock({
      matching: (b) => b && wanted.has(b.name),
      maxDistance: radius,
      where: (q) => !skipped.has(key(q)) && q.y >= Math.max(BEDROCK_SAFE, level + ORE_BAND[0]) &&
        q.y <= level + ORE_BAND[1] && Math.abs(q.y - f.y) <= radius
    })
  }
  // dig ore o from here when it touches the tunnel and the eyes reach it; true when dug
  async function take (o) {
    const p = o.position
    const touches = AROUND.some(([dx, dy, dz]) => open.has(key(p.offset(dx, dy, dz))) && airAt(p.offset(dx, dy, dz)))
    if (!touches || !inReach(p)) return false
    if (p.equals(feet().offset(0, -1, 0)) && rule('fall') && !ctx.solid(p.offset(0, -1, 0))) {
      skipped.add(key(p)); return true // under the feet, with nothing under it
    }
    const before = held()
    if (!await clear(p)) { skipped.add(key(p)); return true }
    if (!await waitFor(() => held() > before, 800)) {
      const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(p) < 3)
      if (drop) {
        await ctx.gotoGently(new ctx.goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 6000).catch(() => {})
        await waitFor(() => held() > before, 800)
      }
    }
    return true
  }
  // the staircase: the side whose first steps hold the least liquid and open air
  function stairSide () {
    const f = feet()
    const risk = ([dx, dz]) => {
      let n = 0
      for (let i = 1; i <= 6; i++) {
        for (let dy = -i - 1; dy <= -i + 2; dy++) {
          for (const [ex, ez] of [[0, 0], [dz, dx], [-dz, -dx]]) {
            const b = bot.blockAt(f.offset(dx * i + ex, dy, dz * i + ez))
            if (!b) n += 5
            else if (fluid(b)) n += 20
            else if (b.boundingBox === 'empty') n += 1
          }
        }
      }
      return n
    }
    return DIRS.slice().sort((a, b) => risk(a) - risk(b))
  }

  async function descend () {
    let sides = stairSide()
    let fails = 0
    while (feet().y > level) {
      stopped()
      await douse()
      const why = mustRetreat()
      if (why) return why
      if (await move(sides[0], 'down')) { fails = 0; continue }
      if (++fails >= sides.length * 2) throw new Error(`no safe way down from ${feet()} (have ${held()}/${count})`)
      sides = [...sides.slice(1), sides[0]]
    }
    return null
  }

  let last = DIRS[0] // the direction of the last move
  async function tunnel () {
    let heading = DIRS[0]
    let along = 0
    let turns = 0
    while (held() < count) {
      stopped()
      await douse()
      const why = mustRetreat()
      if (why) return why
      const ore = nearestOre()
      if (ore && await take(ore)) continue
      const f = feet()
      let tries
      if (ore) {
        const dx = ore.position.x - f.x
        const dz = ore.position.z - f.z
        const how = ore.position.y < f.y - 1 && f.y > level + ORE_BAND[0] ? 'down' : ore.position.y > f.y + 2 ? 'up' : 'level'
        const first = Math.abs(dx) >= Math.abs(dz) ? [Math.sign(dx), 0] : [0, Math.sign(dz)]
        const second = Math.abs(dx) >= Math.abs(dz) ? [0, Math.sign(dz)] : [Math.sign(dx), 0]
        // toward it on the longer axis, then the shorter, then a step aside round what the rules
        // keep whole (the next step tries the longer axis again from the new row)
        tries = [[first, how], [first, 'level']]
        if (second[0] || second[1]) tries.push([second, how], [second, 'level'])
        const aside = [[first[1], first[0]], [-first[1], -first[0]]]
        tries.push(...aside.filter(d => !(d[0] === second[0] && d[1] === second[1])).map(d => [d, 'level']))
        const k = key(ore.position)
        const far = ore.position.distanceTo(f)
        if (far >= (nearest.get(k) ?? Infinity)) stalls.set(k, (stalls.get(k) || 0) + 1)
        else nearest.set(k, far)
        if ((stalls.get(k) || 0) > STALLS) { skipped.add(k); continue }
      } else {
        if (along >= EXPLORE) { heading = [heading[1] * (turns % 2 ? 1 : -1), heading[0] * (turns % 2 ? -1 : 1)]; along = 0; turns++ }
        tries = [[heading, f.y > level ? 'down' : f.y < level ? 'up' : 'level']]
        tries.push([heading, 'level'], [[heading[1], heading[0]], 'level'], [[-heading[1], -heading[0]], 'level'])
      }
      let moved = false
      for (const [d, how] of tries) {
        if (d[0] === 0 && d[1] === 0) continue
        if (await move(d, how)) { moved = true; heading = d; break }
      }
      if (moved) { along++; continue }
      if (ore) { stalls.set(key(ore.position), STALLS + 1); continue }
      heading = [-heading[0], -heading[1]]
      along = 0
      if (++turns > 8) throw new Error(`walled in at ${feet()} (have ${held()}/${count})`)
    }
    return null
  }

  async function run () {
    if (bot.targetDigBlock) bot.stopDigging() // nothing dug for an action of before
    await waitFor(() => bot.entity.onGround, 2000)
    mark(start); mark(start.offset(0, 1, 0))
    const why = (await descend()) || (await tunnel())
    if (!why) await torch(last, true) // the tunnel's end: lit as if the next torch were due
    const back = await goBack()
    if (why) return { error: `retreated: ${why}`, retreated: true, back, ...stats }
    return { error: back ? null : `not back at ${start}`, back, ...stats }
  }

  return { held, stats, run }
}

module.exports = { mine }
