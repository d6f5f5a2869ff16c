'use strict'
// The context of one bot: the state its actions share and the helpers they have in common,
// passed explicitly to every action as its first argument (actions/index.js).
//
// State (mutable, read through ctx at each use):
//   ctx.epoch           stop() bumps it; a long action that sees it changed gives up at its
//                       next step instead of fighting the pre-empting action for the pathfinder
//   ctx.danger          [[x, z, radius], ...]: areas the pathfinder goes around (setDanger)
//   ctx.hazards         {below, inside, touching}: block id → the cost of a step on, into or
//                       against one (setHazards: the lessons' block types)
//   ctx.gentle          { moves, normal } while a walk with no digging is under way (gotoGently)
//   ctx.crafting        the last craft, settled: crafts never overlap (mineflayer's bot.craft
//                       cannot be stopped)
//   ctx.loadedFurnaces  furnaces this bot put something in: the only ones it takes from
// Parts: ctx.bot, ctx.emit, ctx.cover (cover.js), ctx.finder (find.js), ctx.melee (melee.js),
//   ctx.firstBlow (firstblow.js), ctx.workshop (workshop.js), ctx.climb (climb.js), ctx.home
//   (home.js); and the
//   libraries ctx.Vec3, ctx.goals, ctx.Movements.
// Set by bot_helper.js's dispatcher: ctx.api (the functions Python calls) and ctx.done(id, ok,
//   extra), which ends an action with its actionDone event.
const { createWorkshop, GRAVITY } = require('./workshop')
const { createClimb } = require('./climb')
const coverModule = require('./cover')
const { createMelee } = require('./melee')
const { createFirstBlow } = require('./firstblow')
const { createFinder } = require('./find')
const { reachGoal } = require('./reach')
const { hostile } = require('./plain')
const { createHome } = require('./home')

const WEAPONS = ['netherite_sword', 'diamond_sword', 'iron_sword', 'stone_sword', 'golden_sword', 'wooden_sword',
  'netherite_axe', 'diamond_axe', 'iron_axe', 'stone_axe', 'golden_axe', 'wooden_axe']
const WORN_SLOTS = [5, 6, 7, 8, 45] // player window: head, torso, legs, feet, off-hand
// blocks a shelter is built of, in this order (never sand or gravel: they fall); dirt
// before cobblestone, which the tools need
const SHELTER_BLOCKS = ['dirt', 'cobblestone', 'stone', 'oak_planks', 'spruce_planks', 'birch_planks',
  'jungle_planks', 'acacia_planks', 'dark_oak_planks', 'netherrack', 'grass_block', 'coarse_dirt', 'andesite',
  'diorite', 'granite']
// stepping inside a danger area costs this much more, so the pathfinder goes around it when
// it can (the watchdog remembers them)
const DANGER_COST = 30
// a cell beside a block type a lesson keeps the bot out of costs at most this much more: the
// path keeps a block's margin when the way round is short, and passes close when it must
const MARGIN_COST = 20

// lib: { emit, Vec3, goals, Movements, prismarineBlock, OctahedronIterator }
function createContext (bot, lib) {
  const { Vec3, goals, Movements } = lib
  const GoalReachBlock = reachGoal(goals) // a dig's goal, its reach from the eyes (reach.js)
  const ctx = {
    bot,
    emit: lib.emit,
    Vec3,
    goals,
    Movements,
    epoch: 0,
    danger: [],
    hazards: { below: new Map(), inside: new Map(), touching: new Map() },
    gentle: null,
    crafting: Promise.resolve(),
    loadedFurnaces: new Set(),
    api: null,
    done: null
  }
  ctx.cover = coverModule(bot, Vec3)
  ctx.finder = createFinder(bot, { prismarineBlock: lib.prismarineBlock, OctahedronIterator: lib.OctahedronIterator }) // findBlocks without a Block per cell (find.js)
  // swings (a crit jump after the first) and the off-hand shield (melee.js)
  ctx.melee = createMelee(bot, { hostile, sees: (e) => ctx.cover.seesBot(e), bestWeapon })
  // the first blow at a hostile the reflex armed for, struck here the moment it comes in reach
  // (firstblow.js): the swing the reflex would make, with what ran stopped first
  ctx.firstBlow = createFirstBlow(bot, { hostile, melee: ctx.melee, strike: (id) => ctx.api.attack(id, true), emit: lib.emit })

  // a cell the pathfinder steps through (the feet's, then the head's) costs DANGER_COST more
  // inside a danger area, and what the lessons' block types ask (hazardCost)
  ctx.dangerCost = (block) => {
    // a block in a chunk not loaded yet is a stand-in with no position (Movements.getBlock):
    // reading it threw inside the pathfinder's tick and took the whole bridge down
    if (!block || !block.position) return 0
    const cost = hazardCost(block)
    for (const [x, z, r] of ctx.danger) {
      const dx = block.position.x - x
      const dz = block.position.z - z
      if (dx * dx + dz * dz <= r * r) return cost + DANGER_COST
    }
    return cost
  }
  // the cost of a cell by the block types lessons name (setHazards): the block itself (walked
  // into), the one under it (stood on: for the head's cell, the feet's), the four beside it
  // (brushed against; and, at up to MARGIN_COST, one the bot must not be in: its 0.6-wide box
  // reaches 0.3 past its cell as it walks and cuts corners). Nothing is read while no lesson
  // names a block.
  const SIDES = [[1, 0], [-1, 0], [0, 1], [0, -1]]
  const near = new Vec3(0, 0, 0)
  const typeAt = (p, dx, dy, dz) => {
    near.x = p.x + dx; near.y = p.y + dy; near.z = p.z + dz
    const b = bot.blockAt(near, false)
    return b ? b.type : -1
  }
  function hazardCost (block) {
    const h = ctx.hazards
    if (!h.below.size && !h.inside.size && !h.touching.size) return 0
    const p = block.position
    let cost = h.inside.get(block.type) || 0
    if (h.below.size) cost += h.below.get(typeAt(p, 0, -1, 0)) || 0
    if (h.touching.size || h.inside.size) {
      for (const [dx, dz] of SIDES) {
        const side = typeAt(p, dx, 0, dz)
        cost += (h.touching.get(side) || 0) + Math.min(MARGIN_COST, h.inside.get(side) || 0)
      }
    }
    return cost
  }
  const countOf = (name) => bot.inventory.items().filter(i => i.name === name).reduce((n, i) => n + i.count, 0)
  const waitFor = (test, ms) => new Promise((resolve) => {
    if (test()) return resolve(true)
    const started = Date.now()
    const timer = setInterval(() => {
      if (test() || Date.now() - started > ms) { clearInterval(timer); resolve(test()) }
    }, 50)
  })
  // The fastest held tool that can harvest `block` (null when bare hands do or none can)
  function bestTool (block) {
    const tools = block.harvestTools ? Object.keys(block.harvestTools).map(Number) : null
    let best = null
    let bestTime = Infinity
    for (const item of bot.inventory.items()) {
      if (tools && !tools.includes(item.type)) continue
      const t = block.digTime(item.type, false, false, false, [], {})
      if (t < bestTime) { bestTime = t; best = item }
    }
    if (!tools && best && block.digTime(null, false, false, false, [], {}) <= bestTime) return null
    return best
  }
  function bestWeapon () {
    const items = bot.inventory.items()
    for (const name of WEAPONS) {
      const it = items.find(i => i.name === name)
      if (it) return it
    }
    return null
  }
  // pathfinder.goto, given up after `ms` (a goal that cannot be reached may never settle)
  function gotoWithin (goal, ms) {
    let timer
    const limit = new Promise((resolve, reject) => {
      timer = setTimeout(() => { bot.pathfinder.setGoal(null); reject(new Error(`not there within ${ms / 1000} s`)) }, ms)
    })
    return Promise.race([bot.pathfinder.goto(goal), limit]).finally(() => clearTimeout(timer))
  }
  // to a cell from which the block at `at` can be dug; given up at once (a GoalChanged) when
  // the block turns into anything not `wanted` on the way (another player dug it: a goal that
  // can never be met was searched to the time limit)
  function reachBlock (at, wanted) {
    const changed = `blockUpdate:${at}`
    const check = (before, after) => { if (!after || !wanted.has(after.name)) bot.pathfinder.setGoal(null) }
    bot.on(changed, check)
    return gotoWithin(new GoalReachBlock(at, bot.world), 60000).finally(() => bot.off(changed, check))
  }
  // gotoWithin with Movements that neither dig nor tower nor jump gaps (to cover, to a drop
  // by a table): a walk that must not open a wall or climb into view; `tune(moves)`, if given,
  // changes them further (a farm's walk places no block and keeps out of its water). The normal
  // movements come back after, or at stop() (a pre-empting action must not inherit these)
  function endGentle () {
    if (ctx.gentle && bot.pathfinder.movements === ctx.gentle.moves) bot.pathfinder.setMovements(ctx.gentle.normal)
    ctx.gentle = null
  }
  function gotoGently (goal, ms, tune) {
    endGentle()
    const moves = new Movements(bot)
    moves.canDig = false
    moves.allow1by1towers = false
    moves.allowParkour = false
    moves.exclusionAreasStep = [ctx.dangerCost]
    moves.exclusionAreasBreak = [ctx.home.keepCost]
    if (tune) tune(moves)
    const mine = { moves, normal: bot.pathfinder.movements }
    ctx.gentle = mine
    bot.pathfinder.setMovements(moves)
    return gotoWithin(goal, ms).finally(() => { if (ctx.gentle === mine) endGentle() })
  }
  // A free spot on the ground next to the bot for a block
  function groundSpot () {
    const p = bot.entity.position.floored()
    for (const [dx, dz] of [[1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, -1], [1, -1], [-1, 1]]) {
      const at = p.offset(dx, 0, dz)
      const here = bot.blockAt(at)
      const below = bot.blockAt(at.offset(0, -1, 0))
      if (here && here.name === 'air' && below && below.boundingBox === 'block') return below
    }
    return null
  }
  async function placeNear (item) {
    const it = bot.inventory.items().find(i => i.name === item)
    if (!it) throw new Error(`no ${item} to place`)
    const below = groundSpot()
    if (!below) throw new Error('no free ground next to me')
    await bot.equip(it, 'hand')
    await bot.placeBlock(below, new Vec3(0, 1, 0))
    return below.position.offset(0, 1, 0)
  }
  // Put one `item` in the free cell right above the bot's head, against a wall beside it
  async function placeOverhead (item) {
    const it = bot.inventory.items().find(i => i.name === item)
    if (!it) throw new Error(`no ${item} to place`)
    const cell = bot.entity.position.floored().offset(0, 2, 0)
    const here = bot.blockAt(cell)
    if (!here || here.boundingBox !== 'empty') throw new Error('no room next to me or above me')
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const wall = bot.blockAt(cell.offset(dx, 0, dz))
      if (!wall || wall.boundingBox !== 'block') continue
      await bot.equip(it, 'hand')
      await bot.placeBlock(wall, new Vec3(-dx, 0, -dz))
      return cell
    }
    throw new Error('no free ground next to me and nothing to hold a block above me')
  }
  // Put on every held armour piece better than the one worn and a shield in the
  // off-hand (mineflayer-armor-manager's equipAll); how many of those slots changed
  async function wearBest () {
    const worn = () => WORN_SLOTS.map(s => (bot.inventory.slots[s] ? bot.inventory.slots[s].name : null))
    const before = worn()
    await bot.armorManager.equipAll()
    return worn().filter((name, i) => name !== before[i]).length
  }
  const solid = (p) => { const b = bot.blockAt(p); return !!b && b.boundingBox === 'block' }
  const liquid = (p) => { const b = bot.blockAt(p); return !!b && (b.name === 'water' || b.name === 'lava') }
  const fallsAbove = (p) => { const b = bot.blockAt(p.offset(0, 1, 0)); return !!b && GRAVITY.test(b.name) }
  // Stand in the middle of the block (sneaking, so no overshoot): a bot over a
  // block's edge also stands on its neighbour and would not drop into a hole dug
  // under its feet. The hitbox is 0.6 wide: within 0.15 of the centre it is inside
  async function centre () {
    const c = bot.entity.position.floored().offset(0.5, 0, 0.5)
    const off = () => Math.hypot(bot.entity.position.x - c.x, bot.entity.position.z - c.z)
    if (off() <= 0.15) return
    await bot.lookAt(new Vec3(c.x, bot.entity.position.y + bot.entity.height, c.z), true)
    bot.setControlState('sneak', true)
    bot.setControlState('forward', true)
    try {
      await waitFor(() => off() <= 0.15, 2000)
    } finally {
      bot.setControlState('forward', false)
      bot.setControlState('sneak', false)
    }
  }
  // Put a held shelter block at `cell`, against any solid neighbour; false when none holds
  async function fill (cell) {
    const item = SHELTER_BLOCKS.map(n => bot.inventory.items().find(i => i.name === n)).find(i => i)
    if (!item) throw new Error('no blocks left to build with')
    for (const [dx, dy, dz] of [[0, -1, 0], [1, 0, 0], [-1, 0, 0], [0, 0, 1], [0, 0, -1], [0, 1, 0]]) {
      const ref = bot.blockAt(cell.offset(dx, dy, dz))
      if (!ref || ref.boundingBox !== 'block') continue
      await bot.equip(item, 'hand')
      await bot.placeBlock(ref, new Vec3(-dx, -dy, -dz))
      return true
    }
    return false
  }
  // Can the bot walk away from where it stands? Counts the four sides it can
  // step onto: feet and head blocks free, or a one-block step up with room to
  // jump (two free blocks above the step and one above the bot's head); and
  // whether the column above is open.
  function enclosure (pos) {
    const feet = pos.floored()
    const free = (p) => ctx.cover.open(p.x, p.y, p.z) // no Block made for each of its 15 cells
    const canJump = free(feet.offset(0, 2, 0))
    let openSides = 0
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const level = free(feet.offset(dx, 0, dz))
      const head = free(feet.offset(dx, 1, dz))
      if (head && (level || (canJump && free(feet.offset(dx, 2, dz))))) openSides++
    }
    let ceiling = null
    for (let dy = 2; dy <= 6; dy++) {
      if (!free(feet.offset(0, dy, 0))) { ceiling = dy; break }
    }
    return { openSides, ceiling }
  }
  Object.assign(ctx, {
    countOf, waitFor, bestTool, bestWeapon, gotoWithin, reachBlock, endGentle, gotoGently, groundSpot,
    placeNear, placeOverhead, wearBest, solid, liquid, fallsAbove, centre, fill, enclosure
  })
  // the carried table and furnace (workshop.js): placed where the bot stands, dug back after
  ctx.workshop = createWorkshop(bot, { Vec3, goals, findBlock: ctx.finder.findBlock, bestTool, waitFor, countOf, solid, liquid, gotoGently, groundSpot, placeNear, placeOverhead, fill })
  // the home (home.js): its blocks are never broken for a path, its door is walked through
  ctx.home = createHome(ctx)
  ctx.climb = createClimb(bot, { Vec3, bestTool, waitFor, liquid, blocks: SHELTER_BLOCKS, centre, sealedCell: ctx.workshop.sealedCell })
  return ctx
}

module.exports = { createContext, WORN_SLOTS }
