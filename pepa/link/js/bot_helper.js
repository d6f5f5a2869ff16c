'use strict'
// bot_helper.js — the only JS module Python talks to (through JSPyBridge).
// Rules it follows (measured in docs/notes/world-prototype.md):
//  * Python gets ONE callback; every event is a plain JSON-able object {type, ...}
//    (no Vec3/Entity instances: those would arrive in Python as proxies, and keys
//    named `ffid` or a truthy `r` are special to JSPyBridge's serializer).
//  * Reads are whole-object: snapshot() builds everything in JS and returns a
//    JSON *string* (a JS object return value would come back as a proxy whose
//    every field access is another round trip).
//  * Long actions return at once and report {type:'actionDone', id, ok, error}.
//  * Modules are loaded by absolute path from the repository's node_modules
//    (installed by `npm ci`; PEPA_NODE_MODULES overrides the folder).
const path = require('path')
const { performance } = require('perf_hooks')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', '..', 'node_modules')
const mineflayer = require(path.join(NM, 'mineflayer'))
const { pathfinder, Movements, goals } = require(path.join(NM, 'mineflayer-pathfinder'))
const armorManager = require(path.join(NM, 'mineflayer-armor-manager'))
const { createWorkshop, GRAVITY, FURNITURE, SIDES, AROUND } = require('./workshop')
const { createClimb } = require('./climb')

// The node process that loads this module (JSPyBridge's, for the worker) ends with its
// parent: a worker killed with SIGKILL (supervision, tests) left it running, still
// holding the daemon's output pipe (seen: a test waited 18 minutes on that pipe)
const PARENT = process.ppid
setInterval(() => { if (process.ppid !== PARENT) process.exit(0) }, 1000).unref()

const { Vec3 } = require(path.join(NM, 'vec3'))
const coverModule = require('./cover')
const { createMelee } = require('./melee')
const { createFirstBlow } = require('./firstblow')
const { createDeathWatch } = require('./death_cause')
const breath = require('./breath')
const { parseChat, chatPattern, NIL_UUID } = require('./chat_line')
const { memoizeMinecraftData, memoizeRequires, restingPhysics } = require('./rest')
const { cachedBlocks, cachedCosts, cachedPhysicsReads } = require('./pathcache')
const { withGoto } = require('./goto')
const { reachGoal } = require('./reach')
const GoalReachBlock = reachGoal(goals) // a dig's goal, its reach from the eyes (reach.js)
const { createFinder } = require('./find')
const { peekingSplitter, readDirect, directConnect } = require('../../base/js/frames')
const prismarineBlock = require(path.join(NM, 'prismarine-block'))
const { OctahedronIterator } = require(path.join(NM, 'prismarine-world')).iterators
memoizeMinecraftData(require.resolve('minecraft-data', { paths: [path.join(NM, 'prismarine-physics')] }))
memoizeRequires(require.resolve('prismarine-physics', { paths: [path.join(NM, 'mineflayer')] })) // after: it keeps what it got
const WEAPONS = ['netherite_sword', 'diamond_sword', 'iron_sword', 'stone_sword', 'golden_sword', 'wooden_sword',
  'netherite_axe', 'diamond_axe', 'iron_axe', 'stone_axe', 'golden_axe', 'wooden_axe']
const WORN_SLOTS = [5, 6, 7, 8, 45] // player window: head, torso, legs, feet, off-hand
// blocks a shelter is built of, in this order (never sand or gravel: they fall); dirt
// before cobblestone, which the tools need
const SHELTER_BLOCKS = ['dirt', 'cobblestone', 'stone', 'oak_planks', 'spruce_planks', 'birch_planks',
  'jungle_planks', 'acacia_planks', 'dark_oak_planks', 'netherrack', 'grass_block', 'coarse_dirt', 'andesite',
  'diorite', 'granite']
// items one piece of fuel smelts: burn ticks / 200 (vanilla 1.16.5 AbstractFurnaceTileEntity.getBurnTimes)
const fuelSmelts = (name) => (name === 'coal' || name === 'charcoal' ? 8 : 1.5)
const CREEPER_STATE = 15 // the creeper's swell-direction metadata index in 1.16.5
const SIGHT_RADIUS = 24 // hostiles this close are marked with whether they see the bot (cover.js)
const THREAT_RADIUS = 16 // pepa.world.view.THREAT_RADIUS
const COVER_SETTLE_MS = 450 // over two of perception's snapshot intervals (0.2 s)
const r1 = (v) => Math.round(v * 10) / 10
const r2 = (v) => Math.round(v * 100) / 100
const vxyz = (p) => (p ? { x: r2(p.x), y: r2(p.y), z: r2(p.z) } : null)

const hostile = (e) => e.type === 'hostile' || e.kind === 'Hostile mobs'
// minecraft-data's categories and mineflayer's types of what is not a creature: items on the
// ground, experience orbs, arrows, boats and minecarts, paintings, falling blocks
const THINGS = new Set(['Drops', 'Projectiles', 'Vehicles', 'Immobile', 'Blocks'])
const THING_TYPES = new Set(['object', 'orb', 'projectile', 'other', 'global'])
// What the snapshot and the entities events tell Python of: players, hostiles and other
// creatures (pepa.world.view.Entity reads nothing else). Things are left out: with bots at
// work, items came and went several times a second, an event and a snapshot each.
const creature = (e) => e.type === 'player' || hostile(e) || !(THINGS.has(e.kind) || THING_TYPES.has(e.type))

function entityInfo (e, from) {
  return {
    id: e.id,
    name: e.name || e.username || null,
    username: e.username || null,
    type: e.type || null, // 'player' | 'hostile' | 'passive' | 'mob' | 'object' | ...
    kind: e.kind || null, // minecraft-data category, e.g. 'Hostile mobs'
    distance: from && e.position ? r1(from.distanceTo(e.position)) : null,
    position: vxyz(e.position),
    // a creeper's fuse: metadata 15 is its swell direction (vanilla 1.16.5 CreeperEntity.STATE: -1 idle, 1 lit)
    swelling: e.name === 'creeper' ? !!(e.metadata && e.metadata[CREEPER_STATE] === 1) : undefined
  }
}

// Bots sharing this Node process (a fleet worker hosts several, docs/fleet.md) share one
// event loop, and path searches are what fills it: mineflayer-pathfinder computes a path in
// slices of tickTimeout ms on every physics tick, and a loop that falls behind runs each
// bot's missed physics ticks in a row (mineflayer catches up), each with its slice: with
// four bots planning at once the loop ran 400-900 ms late and every reaction waited as long.
// So all the searches of the process share one budget of PATH_BUDGET_MS per 50 ms: each
// slice is what is left of it, and what a slice took is spent (a bot alone keeps the
// pathfinder's own 40 ms slices, untouched). A search that gets less time per tick takes
// longer, so its total (thinkTimeout) grows with the number of bots, up to 30 s.
const TICK_MS = 50
const SLICE_MS = 40
const PATH_BUDGET_MS = 20
const THINK_MS = 5000
const live = new Set()
let tickStart = 0
let spent = 0
// a fleet on one machine divides its path search among its processes (createBot's pathBudgetMs,
// pepa.fleet.supervisor.path_budget): with 4 processes on 2 cores, 10 ms each
let pathBudget = PATH_BUDGET_MS
const budget = () => live.size > 1 ? pathBudget : SLICE_MS
function shareSlices () {
  const think = Math.min(30000, Math.round(THINK_MS * Math.max(1, live.size * SLICE_MS / budget())))
  for (const b of live) if (b.pathfinder) b.pathfinder.thinkTimeout = think
}
const AStar = require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'astar'))
// a search's block reads, remembered per Movements while each cell's block stays the same: the
// same paths, searched about three times as fast (pathcache.js, tests/test_pathcache.py)
cachedBlocks(Movements, Vec3)
// and its dig labour per block state, its entities per cell by a number (pathcache.js)
cachedCosts(Movements, require(require.resolve('prismarine-nbt', { paths: [path.join(NM, 'mineflayer-pathfinder')] })))
cachedPhysicsReads(require(path.join(NM, 'mineflayer-pathfinder', 'lib', 'physics')), Vec3) // its movement checks' reads
const computeSlice = AStar.prototype.compute
AStar.prototype.compute = function () {
  if (live.size <= 1) return computeSlice.call(this) // alone: the pathfinder's own slices
  const start = performance.now()
  if (start - tickStart >= TICK_MS) { tickStart = start; spent = 0 }
  this.tickTimeout = Math.max(0, Math.min(SLICE_MS, budget() - spent))
  try { return computeSlice.call(this) } finally { spent += performance.now() - start }
}

// the frames of each connection split without a thrown exception for a partial length, and
// read past the decompressor and deserializer streams (frames.js)
peekingSplitter(require(require.resolve('minecraft-protocol/src/transforms/framing', { paths: [path.join(NM, 'mineflayer')] })))

// The pathfinder's GoalFollow, moved with its entity once it is a block away from the goal's
// cell (GoalFollow waits until it is `range` away: a bot sent to a player who then stood still
// within that range of the first cell could stop up to twice `range` from them)
class GoalNearEntity extends goals.GoalFollow {
  hasChanged () {
    const p = this.entity.position.floored()
    const dx = this.x - p.x
    const dy = this.y - p.y
    const dz = this.z - p.z
    if (dx * dx + dy * dy + dz * dz <= 1) return false
    this.x = p.x
    this.y = p.y
    this.z = p.z
    return true
  }
}

// One bot per account in a bridge. A createBot whose call timed out on the Python side (a
// saturated machine) still makes its bot here, and the link's next attempt makes another: the
// newer one replaces the older, which quits in silence (its events would read as the new one's).
const byName = new Map()

function createBot (opts, onEvent) {
  const o = Object.assign({ host: '127.0.0.1', port: 25565, username: 'pepa_bot', respawn: true, entityRadius: 32 }, opts || {})
  if (Number(o.pathBudgetMs) > 0) pathBudget = Math.min(SLICE_MS, Number(o.pathBudgetMs)) // the process's
  let replaced = false
  const before = byName.get(o.username)
  if (before) before.replace()

  // Call Python. The call is async on the JS side (it returns a Promise that
  // settles when the Python callback returns); never await it here. A callback
  // that fails must not become an unhandled rejection (Node would exit on it).
  function emit (ev) {
    if (replaced) return
    ev.ts = Date.now()
    ev.hr = performance.timeOrigin + performance.now()
    let p
    try { p = onEvent(ev) } catch (e) { return }
    Promise.resolve(p).catch(() => {})
  }

  const bot = mineflayer.createBot({
    host: o.host,
    port: o.port,
    username: o.username,
    version: o.version || false, // false = auto-detect via server ping
    // 'offline', or 'microsoft' through prismarine-auth: its token cache in profilesFolder
    // (the state folder's auth/, private), its device-code prompt sent on as a signIn event
    auth: o.auth === 'microsoft' ? 'microsoft' : 'offline',
    profilesFolder: o.auth === 'microsoft' ? o.profilesFolder : undefined,
    onMsaCode: (data) => emit({
      type: 'signIn',
      uri: String((data && (data.verification_uri || data.verificationUri)) || 'https://www.microsoft.com/link'),
      code: String((data && (data.user_code || data.userCode)) || ''),
      expiresIn: Number((data && (data.expires_in || data.expiresIn)) || 0)
    }),
    respawn: false, // death_cause.js respawns once the death event is out (o.respawn)
    hideErrors: true,
    connect: directConnect(o.host, o.port), // its socket read without a stream (frames.js)
    checkTimeoutInterval: o.checkTimeoutInterval || 30000,
    // no ajv check of minecraft-protocol's own plugin-channel types at each join (a quarter of
    // a second of a core; server.js says the same to the world)
    validateChannelProtocol: false,
    logErrors: false
  })
  // flying-squid sends world packets (dig animations, entity statuses) to a player still logging
  // in, and mineflayer's handlers read bot.world or bot.entity, which the login packet makes: a
  // TypeError there ends the Node process with every bot of its group. In the protocol the login
  // packet is the first of the play state, so whatever comes before it is dropped (but a kick,
  // which flying-squid sends there for a name already connected, and keepalives).
  const client = bot._client
  readDirect(client)
  const emitPacket = client.emit
  let joined = false
  client.emit = function (name, data, meta, ...rest) {
    if (!joined && meta && meta.state === 'play' && typeof meta.name === 'string') {
      if (meta.name === 'login') {
        joined = true
        // from here on every event goes straight through (4 events a packet, 100 packets a second)
        if (client.emit === guardedEmit) client.emit = emitPacket
      } else if (meta.name !== 'kick_disconnect' && meta.name !== 'keep_alive') return false
    }
    return emitPacket.call(this, name, data, meta, ...rest)
  }
  const guardedEmit = client.emit
  // bot.blockAt before the login (our own calls too) finds no world: null, not a TypeError. The
  // blocks plugin assigns bot.blockAt when it is injected, after createBot has returned, so the
  // property keeps the guard and takes whatever is assigned as the function it guards.
  let blockAt = bot.blockAt
  const guarded = (point, extraInfos) => bot.world && blockAt ? blockAt(point, extraInfos) : null
  Object.defineProperty(bot, 'blockAt', {
    configurable: true,
    enumerable: true,
    get: () => guarded,
    set: (fn) => { blockAt = fn }
  })
  bot.on('login', () => restingPhysics(bot)) // once its physics plugin is in (rest.js)
  bot.loadPlugin(withGoto(pathfinder)) // a goto that waits for a search to end (goto.js)
  live.add(bot)
  shareSlices()
  bot.once('end', () => { live.delete(bot); shareSlices() })
  const leave = () => { try { bot.quit('replaced by a new connection') } catch (e) {} }
  // quit at once, and again at its login if it had not connected yet (a quit before the
  // socket is open leaves the login to go on)
  const entry = { replace () { replaced = true; leave(); bot.once('login', leave) } }
  byName.set(o.username, entry)
  bot.once('end', () => { if (byName.get(o.username) === entry) byName.delete(o.username) })
  // armour picked up is put on when better (mineflayer-armor-manager). Not
  // loaded: mineflayer-pvp (its attack replaces the pathfinder's movements, so
  // the danger areas, and its stop may wait 5 s: no instant pre-emption) and
  // mineflayer-tool (it chooses tools for blocks only; bestTool/bestWeapon here)
  bot.loadPlugin(armorManager)
  const cover = coverModule(bot, Vec3)
  const finder = createFinder(bot, { prismarineBlock, OctahedronIterator }) // findBlocks without a Block per cell (find.js)
  // swings (a crit jump after the first) and the off-hand shield (melee.js)
  const melee = createMelee(bot, { hostile, sees: (e) => cover.seesBot(e), bestWeapon })
  // the first blow at a hostile the reflex armed for, struck here the moment it comes in reach
  // (firstblow.js): the swing the reflex would make, with what ran stopped first
  const firstBlow = createFirstBlow(bot, { hostile, melee, strike: (id) => api.attack(id, true), emit })

  // ---- entity spawn/gone batching: one event per event-loop turn ----------
  let pendingSpawn = []
  let pendingGone = []
  let flushQueued = false
  function queueFlush () {
    if (flushQueued) return
    flushQueued = true
    setImmediate(() => {
      flushQueued = false
      if (!pendingSpawn.length && !pendingGone.length) return
      const me = bot.entity && bot.entity.position
      const spawned = pendingSpawn.filter(e => bot.entities[e.id]).map(e => entityInfo(e, me))
      const gone = pendingGone
      pendingSpawn = []
      pendingGone = []
      emit({ type: 'entities', spawned, gone })
    })
  }

  bot.once('login', () => emit({ type: 'login', version: bot.version, username: bot.username, entityId: bot.entity && bot.entity.id }))
  // Danger areas [[x, z, radius], ...]: stepping inside costs DANGER_COST more, so
  // the pathfinder goes around them when it can (the watchdog remembers them).
  let danger = []
  const DANGER_COST = 30
  const dangerCost = (block) => {
    // a block in a chunk not loaded yet is a stand-in with no position (Movements.getBlock):
    // reading it threw inside the pathfinder's tick and took the whole bridge down
    if (!block || !block.position) return 0
    for (const [x, z, r] of danger) {
      const dx = block.position.x - x
      const dz = block.position.z - z
      if (dx * dx + dz * dz <= r * r) return DANGER_COST
    }
    return 0
  }
  bot.on('spawn', () => {
    if (!bot.pathfinder.movements) bot.pathfinder.setMovements(new Movements(bot))
    bot.pathfinder.movements.exclusionAreasStep = [dangerCost]
    emit({ type: 'spawn', position: vxyz(bot.entity.position), hp: bot.health, food: bot.food })
  })
  bot.on('health', () => emit({ type: 'health', hp: bot.health, food: bot.food, saturation: bot.foodSaturation }))
  // A path begun around a death or a respawn would never settle (the world is
  // reloaded under it): drop the goal so the pending action reports failure.
  const dropGoal = () => { if (bot.pathfinder && bot.pathfinder.goal) bot.pathfinder.setGoal(null) }
  bot.on('death', dropGoal)
  bot.on('respawn', dropGoal)
  // the death event with its cause (once the server's death message is in), then the respawn
  createDeathWatch(bot, { emit, Vec3, respawn: o.respawn, hostile })
  bot.on('kicked', (reason, loggedIn) => emit({ type: 'kicked', reason: typeof reason === 'string' ? reason : JSON.stringify(reason), loggedIn }))
  bot.on('end', (reason) => emit({ type: 'end', reason: String(reason) }))
  bot.on('error', (err) => emit({ type: 'error', message: String(err && err.message), code: (err && err.code) || null }))
  bot.on('entitySpawn', (e) => { if (e !== bot.entity && creature(e)) { pendingSpawn.push(e); queueFlush() } })
  bot.on('entityGone', (e) => { if (creature(e)) { pendingGone.push(e.id); queueFlush() } })
  bot.on('entityDead', (e) => emit({ type: 'entityDead', id: e.id, name: e.name || e.username || null }))
  bot.on('entityHurt', (e) => { if (e === bot.entity) emit({ type: 'hurt', hp: bot.health }) })
  bot.on('goal_reached', () => emit({ type: 'goalReached' }))

  // The player list, as names and accounts, whenever it changes (one event per
  // event-loop turn): Python binds operator names to their first account.
  const accountOf = (p) => (p && p.uuid && !NIL_UUID.test(String(p.uuid)) ? String(p.uuid) : null)
  let listed = ''
  let listQueued = false
  function queuePlayers () {
    if (listQueued) return
    listQueued = true
    setImmediate(() => {
      listQueued = false
      const players = Object.values(bot.players).map(p => ({ name: p.username, uuid: accountOf(p) }))
      const text = JSON.stringify(players)
      if (text === listed) return
      listed = text
      emit({ type: 'players', players })
    })
  }
  bot.on('playerJoined', queuePlayers)
  bot.on('playerUpdated', queuePlayers)
  bot.on('playerLeft', queuePlayers)

  // Chat with the real sender (chat_line.js: player chat, whispers, system lines of
  // the form "<name> text", the operator's --chat-pattern). Every line says whether its
  // sender is on the player list, and its account.
  const pattern = chatPattern(o.chatPattern)
  const onList = (name) => Object.prototype.hasOwnProperty.call(bot.players, name)
  const nameOf = (uuid) => { const p = Object.values(bot.players).find(p => p.uuid === uuid); return p ? p.username : null }
  bot.on('message', (msg, position, sender) => {
    const line = msg.toString()
    const args = Array.isArray(msg.with) ? msg.with.map(w => (w && typeof w.toString === 'function' ? w.toString() : String(w))) : null
    const said = parseChat({ line, position, sender, translate: msg.translate, args, onList, nameOf, pattern })
    if (said.from && said.from === bot.username) return // our own echo
    const entry = said.from != null && onList(said.from) ? bot.players[said.from] : null
    const packetUuid = sender && !NIL_UUID.test(String(sender)) ? String(sender) : null
    emit({
      type: 'chat',
      // a line naming nobody: 'system' (or 'game_info', the action bar), whatever its position
      kind: said.kind !== 'system' ? said.kind : position && position !== 'chat' ? position : 'system',
      from: said.from,
      text: said.text,
      senderSource: said.source,
      senderUuid: said.kind === 'system' ? null : accountOf(entry) || packetUuid,
      onList: !!entry
    })
  })

  // ---------------------------------------------------------------- reads --
  function snapshotObj () {
    const me = bot.entity
    const pos = me && me.position
    const ents = []
    if (pos) {
      for (const id in bot.entities) {
        const e = bot.entities[id]
        if (e === me || !e.position || !creature(e)) continue
        const d = pos.distanceTo(e.position)
        if (d > o.entityRadius) continue
        const info = entityInfo(e, pos)
        // sight: whether it sees the bot's eyes (a skeleton shoots only then); 6-19 us a mob
        if (d <= SIGHT_RADIUS && hostile(e)) info.sight = cover.seesBot(e)
        ents.push(info)
      }
      ents.sort((a, b) => a.distance - b.distance)
    }
    const counts = {}
    const items = []
    const worn = []
    let empty = 0
    const inv = bot.inventory
    if (inv) {
      for (let s = inv.inventoryStart; s < inv.inventoryEnd; s++) {
        const it = inv.slots[s]
        if (!it) { empty++; continue }
        counts[it.name] = (counts[it.name] || 0) + it.count
        items.push({ slot: s, name: it.name, count: it.count })
      }
      // worn armour and the off-hand count as held too (a milestone's chestplate is worn)
      for (const s of WORN_SLOTS) {
        const it = inv.slots[s]
        if (it) { counts[it.name] = (counts[it.name] || 0) + it.count; worn.push(it.name) }
      }
    }
    return {
      t: Date.now(),
      enclosure: pos ? enclosure(pos) : null,
      beds: pos && bot.time && !bot.time.isDay ? nearbyBeds(pos, 16) : [],
      connected: !!(bot._client && bot._client.socket && !bot._client.socket.destroyed && bot.entity),
      username: bot.username,
      alive: bot.isAlive,
      hp: bot.health,
      food: bot.food,
      saturation: bot.foodSaturation,
      position: vxyz(pos),
      yaw: me ? r2(me.yaw) : null,
      dimension: bot.game ? bot.game.dimension : null,
      gameMode: bot.game ? bot.game.gameMode : null,
      timeOfDay: bot.time ? bot.time.timeOfDay : null,
      isDay: bot.time ? bot.time.isDay : null,
      moving: bot.pathfinder ? bot.pathfinder.isMoving() : false,
      sleeping: !!bot.isSleeping,
      air: breath.airOf(bot),
      headInWater: breath.headInWater(bot),
      heldItem: bot.heldItem ? bot.heldItem.name : null,
      entities: ents,
      inventory: { counts, items, emptySlots: empty },
      worn
    }
  }

  // Can the bot walk away from where it stands? Counts the four sides it can
  // step onto: feet and head blocks free, or a one-block step up with room to
  // jump (two free blocks above the step and one above the bot's head); and
  // whether the column above is open.
  function enclosure (pos) {
    const feet = pos.floored()
    const free = (p) => cover.open(p.x, p.y, p.z) // no Block made for each of its 15 cells
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

  function nearbyBeds (pos, radius) {
    const ids = bot.registry.blocksArray.filter(b => b.name.endsWith('_bed')).map(b => b.id)
    return finder.findBlocks({ matching: ids, maxDistance: radius, count: 8 })
      .map(p => ({ x: p.x, y: p.y, z: p.z, distance: r1(pos.distanceTo(p)) }))
  }

  function bestWeapon () {
    const items = bot.inventory.items()
    for (const name of WEAPONS) {
      const it = items.find(i => i.name === name)
      if (it) return it
    }
    return null
  }

  // ------------------------------------------------- gathering and crafting --
  // stop() bumps the epoch; a long action that sees it changed gives up at
  // its next step instead of fighting the pre-empting action for the pathfinder
  let cancelEpoch = 0
  const loadedFurnaces = new Set() // furnaces this bot put something in: the only ones it takes from
  let crafting = Promise.resolve() // the last craft action, settled: crafts never overlap
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
  // by a table): a walk that must not open a wall or climb into view. The normal
  // movements come back after, or at stop() (a pre-empting action must not inherit these)
  let gentle = null // { moves, normal } while such a walk is under way
  function endGentle () {
    if (gentle && bot.pathfinder.movements === gentle.moves) bot.pathfinder.setMovements(gentle.normal)
    gentle = null
  }
  function gotoGently (goal, ms) {
    endGentle()
    const moves = new Movements(bot)
    moves.canDig = false
    moves.allow1by1towers = false
    moves.allowParkour = false
    moves.exclusionAreasStep = [dangerCost]
    const mine = { moves, normal: bot.pathfinder.movements }
    gentle = mine
    bot.pathfinder.setMovements(moves)
    return gotoWithin(goal, ms).finally(() => { if (gentle === mine) endGentle() })
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

  // ----------------------------------------------------- armour and nights --
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
  // Digging two blocks down from `feet` is safe: both diggable solid blocks that
  // are not furniture and quick to dig with the best held tool (DIG_DOWN_MS), solid
  // ground under them, no water or lava beside them or beside the feet
  const DIG_DOWN_MS = 1500
  function canDigDown (feet) {
    for (const dy of [1, 2]) {
      const b = bot.blockAt(feet.offset(0, -dy, 0))
      if (!b || b.boundingBox !== 'block' || !b.diggable || FURNITURE.test(b.name)) return false
      const tool = bestTool(b)
      if (b.digTime(tool ? tool.type : null, false, false, false, [], {}) > DIG_DOWN_MS) return false
    }
    if ([0, 1, 2].some(dy => SIDES.some(([dx, dz]) => liquid(feet.offset(dx, -dy, dz))))) return false
    return solid(feet.offset(0, -3, 0))
  }
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
  // the carried table and furnace (workshop.js): placed where the bot stands, dug back after
  const workshop = createWorkshop(bot, { Vec3, goals, findBlock: finder.findBlock, bestTool, waitFor, countOf, solid, liquid, gotoGently, groundSpot, placeNear, placeOverhead, fill })
  const climb = createClimb(bot, { Vec3, bestTool, waitFor, liquid, blocks: SHELTER_BLOCKS, centre, sealedCell: workshop.sealedCell })
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
  async function mineUnderCover (wanted, held, count, epoch) {
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
      if (epoch !== cancelEpoch) return { error: 'stopped', dug }
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
          for (const p of cells) { await dig(p); if (epoch !== cancelEpoch) return { error: 'stopped', dug } }
          await gotoWithin(new goals.GoalBlock(next.x, next.y, next.z), 4000).catch(() => {})
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

  // ----------------------------------------------------------------- flight --
  // Where to run: FLEE_HEADINGS directions around the bot, each scored by the
  // open ground along it (feet and head free, solid ground, a step of one block
  // up or down, no water or lava, never within FLEE_MOB_GAP of a hostile) and by
  // how straight it points away from the hostiles' centre. Pure reads of the
  // loaded world: 16 headings x 16 blocks is ~1000 block reads, well under 1 ms.
  const FLEE_HEADINGS = 16
  const FLEE_MOB_GAP = 2.5
  const passable = (b) => !b || b.boundingBox === 'empty'
  const wet = (b) => !!b && (b.name === 'water' || b.name === 'lava')
  // blocks of walkable ground from `from` along unit (dx, dz), at most `max`, stopping short of any mob
  function openRun (from, dx, dz, max, mobs) {
    let y = Math.floor(from.y)
    let run = 0
    for (let i = 1; i <= max; i++) {
      const x = from.x + dx * i
      const z = from.z + dz * i
      if (mobs.some(m => Math.hypot(m.x - x, m.z - z) < FLEE_MOB_GAP)) break
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
  // the best heading away from `mobs` ([{x, z}]): { dx, dz, run }
  function fleeHeading (pos, mobs, max) {
    let ax = 0
    let az = 0
    for (const m of mobs) { ax += pos.x - m.x; az += pos.z - m.z }
    const norm = Math.hypot(ax, az)
    if (norm < 1e-6) { ax = 1; az = 0 } else { ax /= norm; az /= norm }
    let best = null
    for (let k = 0; k < FLEE_HEADINGS; k++) {
      const a = (k / FLEE_HEADINGS) * 2 * Math.PI
      const dx = Math.cos(a)
      const dz = Math.sin(a)
      const away = dx * ax + dz * az // 1 straight away, 0 sideways, -1 toward them
      if (away < 0) continue
      const run = openRun(pos, dx, dz, max, mobs)
      const score = run * (0.25 + 0.75 * away)
      if (!best || score > best.score) best = { dx, dz, run, score }
    }
    return best
  }
  // The y of the highest ground block over the head at `pos` (not a tree's leaves
  // or wood), where a bot dug into the ground stands once it is out; null under open sky
  function roofOver (pos) {
    const top = (bot.game.minY || 0) + (bot.game.height || 256) - 1
    const x = Math.floor(pos.x)
    const z = Math.floor(pos.z)
    for (let y = top; y >= Math.floor(pos.y) + 2; y--) {
      const b = bot.blockAt(new Vec3(x, y, z))
      if (b && b.boundingBox === 'block' && !/leaves|_log$|_wood$|_stem$|_hyphae$/.test(b.name)) return y
    }
    return null
  }
  const hostilesNear = (pos, radius) => Object.values(bot.entities)
    .filter(e => e !== bot.entity && e.position && hostile(e) && e.position.distanceTo(pos) <= radius)
    .map(e => ({ x: e.position.x, z: e.position.z }))

  // --------------------------------------------------------------- actions --
  // The actions in SUSPENDING walk, dig, place or open a block: each holds the shield
  // down, and the guard from turning the bot, from its call until it reports done
  // (melee.hold, counted: they overlap). The guard's lookAt at an archer would steer
  // centre()'s hand-held walk or a placement toward it, and its stop for an arrow would
  // halt a tower or a walk to cover.
  const SUSPENDING = ['goto', 'sleep', 'escape', 'gather', 'craft', 'cover', 'place', 'smelt', 'shelter', 'surface']
  const running = new Map() // action id -> ends its suspension
  function settle (id) { const end = running.get(id); if (end) { running.delete(id); end() } }
  function suspending (action) {
    return (id, ...args) => {
      settle(id) // an id used again: the earlier one's suspension must not outlive it
      running.set(id, melee.hold())
      try { return action(id, ...args) } catch (e) { settle(id); throw e }
    }
  }
  bot.on('death', () => { for (const id of [...running.keys()]) settle(id) })
  function done (id, ok, extra) { settle(id); emit(Object.assign({ type: 'actionDone', id, ok }, extra || {})) }
  // a goto's or gotoPlayer's walk that failed: why, and where the bot stands
  const gotoFailed = (id) => (e) => done(id, false, { action: 'goto', error: String(e && e.message), position: vxyz(bot.entity && bot.entity.position) })

  // a walk to within `range` (default 1) of x, y, z: goto's and charge's
  function walkNear (id, x, y, z, range) {
    const reach = range == null ? 1 : Number(range)
    const target = new Vec3(Number(x), Number(y), Number(z))
    const goal = new goals.GoalNear(target.x, target.y, target.z, reach)
    bot.pathfinder.goto(goal).then(
      () => {
        // the pathfinder may settle for the closest spot it found: say so
        const off = bot.entity.position.distanceTo(target)
        if (off > reach + 1.5) done(id, false, { action: 'goto', error: `stopped ${r1(off)} blocks short`, position: vxyz(bot.entity.position) })
        else done(id, true, { action: 'goto', position: vxyz(bot.entity.position) })
      },
      gotoFailed(id))
    return true
  }

  const api = {
    bot, // raw access, only for the attribute-walk benchmark / debugging
    snapshot: () => JSON.stringify(snapshotObj()),
    ping: () => 1, // the cheapest round trip, for the bridge benchmark
    // Every action takes its id first and returns at once; it later reports
    // {type:'actionDone', id, ok, error?, position}.
    goto: walkNear, // goto(id,x,y,z[,range])
    // charge(id,x,y,z[,range]): goto's walk with the guard on (not in SUSPENDING): closing in
    // on an archer, the shield comes up and the walk stops while it draws (melee.js)
    charge: walkNear,
    // gotoPlayer(id,name[,range]): walk to that player, wherever they are by then: the goal
    // follows them while the bot walks (planned again once they are a block away from where it
    // was planned to), and the walk ends within `range` of that cell
    gotoPlayer (id, name, range) {
      const p = bot.players[name] && bot.players[name].entity
      if (!p) { done(id, false, { action: 'goto', error: `cannot see ${name}` }); return false }
      const goal = new GoalNearEntity(p, range == null ? 2 : Number(range))
      // where the pathfinder stops for a goal (its own two cells): the walk is over there
      const arrived = (at) => goal.isEnd(at.floored()) || goal.isEnd(at.floored().offset(0, 1, 0))
      bot.pathfinder.goto(goal, arrived).then(
        () => done(id, true, { action: 'goto', position: vxyz(bot.entity.position) }),
        gotoFailed(id))
      return true
    },
    // follow(id,name[,range]): keep within range of that player until stop(); done only on failure
    follow (id, name, range) {
      const p = bot.players[name] && bot.players[name].entity
      if (!p) { done(id, false, { action: 'follow', error: `cannot see ${name}` }); return false }
      bot.pathfinder.setGoal(new goals.GoalFollow(p, range == null ? 2 : Number(range)), true)
      return true
    },
    stop (id) { cancelEpoch++; melee.cancel(); bot.clearControlStates(); bot.pathfinder.stop(); bot.pathfinder.setGoal(null); endGentle(); if (bot.targetDigBlock) bot.stopDigging(); if (id != null) done(id, true, { action: 'stop' }); return true },
    // attack(entityId[, stopFirst]): one swing; returns false if the entity is unknown. The
    // first at a target is at once, a later one a crit jump when it can be (melee.js). The
    // best weapon is equipped after the swing, for the next one: the first hit must not wait
    // for an inventory round trip. stopFirst: stop() first, in the same call (a swing that
    // pre-empts a walk or a dig does not wait for a round trip of its own to stop it).
    attack (entityId, stopFirst) {
      if (stopFirst) api.stop()
      return melee.attack(entityId)
    },
    // eat(id, name): hold that food and eat it (the server ends eating with entity_status 9)
    eat (id, name) {
      const it = bot.inventory.items().find(i => i.name === name)
      if (!it) { done(id, false, { action: 'eat', error: `no ${name}` }); return false }
      melee.suspend(bot.equip(it, 'hand').then(() => bot.consume())).then( // the shield down: eating uses the hand
        () => done(id, true, { action: 'eat', food: bot.food }),
        (e) => done(id, false, { action: 'eat', error: String(e && e.message) }))
      return true
    },
    // sleep(id, x, y, z): walk next to the bed, then lie down
    sleep (id, x, y, z) {
      const bed = bot.blockAt(new Vec3(x, y, z))
      if (!bed) { done(id, false, { action: 'sleep', error: 'no bed there' }); return false }
      bot.pathfinder.goto(new goals.GoalNear(x, y, z, 2))
        .then(() => bot.sleep(bot.blockAt(new Vec3(x, y, z))))
        .then(() => done(id, true, { action: 'sleep' }), (e) => done(id, false, { action: 'sleep', error: String(e && e.message) }))
      return true
    },
    // escape(id, reach, mode): get at least `reach` blocks away from here.
    // mode 'up': pillar up on dirt/cobblestone, no digging; 'dig': dig with
    // the best tool, no pillaring; 'surface': from down a mine (the highest
    // ground block over the head more than a head above it: roofOver) up to
    // that block's level, digging and pillaring, and as 'any' when that fails
    // or from a shelter's own hole; anything else: whatever the pathfinder finds.
    escape (id, reach, mode) {
      const epoch = cancelEpoch
      const p = bot.entity.position.clone()
      const roof = mode === 'surface' ? roofOver(p) : null
      const deep = roof !== null && roof > Math.floor(p.y) + 2
      endGentle() // a no-dig walk still under way must not become the movements restored after
      const normal = bot.pathfinder.movements
      const moves = new Movements(bot) // no danger costs: getting out comes first
      if (mode === 'up') moves.canDig = false
      if (mode === 'dig') moves.allow1by1towers = false
      bot.pathfinder.setMovements(moves)
      const stopped = () => { if (epoch !== cancelEpoch) throw new Error('stopped') }
      const failed = [] // why each way up before the last one failed: the report says
      const run = async () => {
        if (deep) {
          try { await bot.pathfinder.goto(new goals.GoalY(roof)); return 'path up' } catch (e) {
            stopped() // stopped: no second try
            failed.push(`path up: ${e && e.message}`)
          }
          await bot.waitForTicks(1) // the failed search ends before the next begins
          try { await climb.climbTo(roof, stopped); return 'climb' } catch (e) { // by hand
            stopped()
            failed.push(`climb: ${e && e.message}`)
          }
        }
        await bot.pathfinder.goto(new goals.GoalInvert(new goals.GoalNear(p.x, p.y, p.z, reach || 3)))
        return 'away'
      }
      const why = () => failed.length ? failed : undefined
      melee.suspend(run().finally(() => bot.pathfinder.setMovements(normal))).then(
        (way) => done(id, true, { action: 'escape', way, failed: why(), position: vxyz(bot.entity.position) }),
        (e) => done(id, false, { action: 'escape', error: String(e && e.message), failed: why(), position: vxyz(bot.entity.position) }))
      return true
    },
    // gather(id, names, count, radius, drops, underCover): dig the nearest block whose name is in
    // `names` and pick up its drop, until the inventory holds `count` of any of
    // `drops` (default: the names). The best harvesting tool is equipped first;
    // a block the held tools cannot harvest is skipped (it would drop nothing).
    // underCover: only down and along from here, under the roof (mineUnderCover).
    gather (id, names, count, radius, drops, underCover) {
      const wanted = new Set(names)
      const yields = new Set(drops && drops.length ? drops : names)
      const held = () => bot.inventory.items().filter(i => yields.has(i.name)).reduce((n, i) => n + i.count, 0)
      const skipped = new Set()
      const key = (v) => `${v.x},${v.y},${v.z}`
      let dug = 0
      const epoch = cancelEpoch
      const stopped = () => { if (epoch !== cancelEpoch) throw new Error('stopped') }
      const collect = () => workshop.collect(stopped).catch(() => 0) // its table first (workshop.js)
      if (underCover) {
        collect().then(() => mineUnderCover(wanted, held, count, epoch)).then(
          (r) => done(id, !r.error, { action: 'gather', error: r.error || undefined, dug: r.dug, held: held(), position: vxyz(bot.entity.position) }),
          (e) => done(id, false, { action: 'gather', error: String(e && e.message), held: held() }))
        return true
      }
      const step = async () => {
        await collect()
        while (held() < count) {
          if (epoch !== cancelEpoch) return 'stopped'

          const block = finder.findBlock({
            matching: (b) => b && wanted.has(b.name),
            maxDistance: radius || 48,
            where: (p) => !skipped.has(key(p))
          })
          if (!block) return `no ${[...wanted].join('/')} within ${radius || 48} blocks (have ${held()}/${count})`
          const tool = bestTool(block)
          if (block.harvestTools && !tool) return `no tool can harvest ${block.name}`
          try {
            await reachBlock(block.position, wanted)
            if (epoch !== cancelEpoch) return 'stopped'
            if (tool) await bot.equip(tool, 'hand')
            const fresh = bot.blockAt(block.position)
            if (!fresh || !wanted.has(fresh.name)) continue
            const before = held()
            await bot.dig(fresh, true)
            dug++
            if (epoch !== cancelEpoch) return 'stopped' // pre-empted while digging: hands off the pathfinder
            // walk onto the spot, then to the drop if it rolled away, so it is picked up. Not onto a
            // spot over the bot's head (a log up the trunk): no cell is within 1 of it, and the search
            // for one ran to its time limit. That drop falls to the ground, by the bot, in some 16 ticks.
            const overhead = block.position.y > Math.floor(bot.entity.position.y) + 1
            if (!overhead) {
              await gotoWithin(new goals.GoalNear(block.position.x, block.position.y, block.position.z, 1), 10000).catch(() => {})
            }
            if (!await waitFor(() => held() > before || held() >= count, overhead ? 1500 : 600) && epoch === cancelEpoch) {
              const spot = overhead ? bot.entity.position : block.position
              const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(spot) < 4)
              if (drop) await gotoWithin(new goals.GoalNear(drop.position.x, drop.position.y, drop.position.z, 0.5), 8000).catch(() => {})
            }
          } catch (e) {
            if (epoch !== cancelEpoch) return 'stopped'
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
    },
    // craft(id, item, times, underCover): craft `times` crafts of `item` by its recipe,
    // at a crafting table when the recipe needs one (workshop.reachTable: one in reach,
    // else the held one placed beside the bot — in the sealed pocket under cover —
    // else one within 32 blocks walked to); a table it placed is dug back up after.
    craft (id, item, times, underCover) {
      const info = bot.registry.itemsByName[item]
      if (!info) { done(id, false, { action: 'craft', error: `no such item ${item}` }); return false }
      const epoch = cancelEpoch
      const run = async () => {
        // mineflayer's bot.craft cannot be stopped and keeps one table window for all
        // crafts: one a pre-emption left running must end before the next clicks
        await crafting
        if (epoch !== cancelEpoch) throw new Error('stopped')
        let recipe = bot.recipesFor(info.id, null, 1, null)[0]
        let table = null
        if (!recipe) {
          table = await workshop.reachTable(!!underCover)
        }
        try {
          if (epoch !== cancelEpoch) throw new Error('stopped')
          if (table) recipe = bot.recipesFor(info.id, null, 1, table)[0]
          if (!recipe) throw new Error(`no recipe for ${item} with this inventory`)
          await bot.craft(recipe, times || 1, table)
        } finally { // the table goes back into the bag, for the next craft wherever it is
          if (table && epoch === cancelEpoch) await workshop.takeBack(table.position, () => {}).catch(() => false)
        }
        if (/_(helmet|chestplate|leggings|boots)$|^shield$/.test(item)) await wearBest()
      }
      const running = run()
      crafting = running.catch(() => {})
      running.then(
        () => done(id, true, { action: 'craft', item, held: countOf(item) }),
        (e) => done(id, false, { action: 'craft', item, error: String(e && e.message) }))
      return true
    },
    // hunt(id, names, radius): kill the nearest animal named in `names` with the
    // best weapon, then walk over its drops; 30 s at most
    hunt (id, names, radius) {
      const wanted = new Set(names)
      const before = bot.inventory.items().reduce((n, i) => n + i.count, 0)
      const epoch = cancelEpoch
      const run = async () => {
        const target = bot.nearestEntity(e => wanted.has(e.name) && e.position.distanceTo(bot.entity.position) <= (radius || 32))
        if (!target) throw new Error(`no ${names.join('/')} within ${radius || 32} blocks`)
        const weapon = bestWeapon()
        if (weapon) await bot.equip(weapon, 'hand')
        const until = Date.now() + 30000
        let last = target.position.clone()
        while (bot.entities[target.id] && Date.now() < until) {
          if (epoch !== cancelEpoch) throw new Error('stopped')
          last = target.position.clone()
          if (bot.entity.position.distanceTo(target.position) > 2.8) {
            bot.pathfinder.setGoal(new goals.GoalFollow(target, 1.5), true)
            await waitFor(() => !bot.entities[target.id] || bot.entity.position.distanceTo(target.position) <= 2.8, 1000)
            continue
          }
          bot.pathfinder.setGoal(null)
          await bot.lookAt(target.position.offset(0, (target.height || 1) / 2, 0), true)
          bot.attack(target)
          await waitFor(() => !bot.entities[target.id], 650)
        }
        if (epoch !== cancelEpoch) throw new Error('stopped') // the pre-empting action owns the pathfinder
        bot.pathfinder.setGoal(null)
        if (bot.entities[target.id]) throw new Error(`could not kill the ${target.name} in 30 s`)
        await gotoWithin(new goals.GoalNear(last.x, last.y, last.z, 0.5), 10000).catch(() => {})
        await waitFor(() => bot.inventory.items().reduce((n, i) => n + i.count, 0) > before, 1500)
        return target.name
      }
      run().then(
        (name) => done(id, true, { action: 'hunt', killed: name }),
        (e) => {
          if (epoch === cancelEpoch) bot.pathfinder.setGoal(null) // never clear another action's goal
          done(id, false, { action: 'hunt', error: String(e && e.message) })
        })
      return true
    },
    // flee(id, from, distance): sprint `distance` blocks away from the points
    // `from` ([[x, z], ...], the hostiles when the decision was made), in legs:
    // each leg runs along the best heading of fleeHeading (from the hostiles seen
    // now), jumping steps up; a leg ends at its open run's end or when blocked
    // for 1 s; four legs at most. No heading open: the pathfinder's way instead.
    flee (id, from, distance) {
      const epoch = cancelEpoch
      const want = Number(distance) || 16
      const start = bot.entity.position.clone()
      const seen = (from || []).map(p => ({ x: Number(p[0]), z: Number(p[1]) }))
      const off = () => { bot.setControlState('forward', false); bot.setControlState('sprint', false); bot.setControlState('jump', false) }
      const run = async () => {
        for (let leg = 0; leg < 4; leg++) {
          const pos = bot.entity.position
          const moved = start.distanceTo(pos)
          if (moved >= want) return { moved, legs: leg }
          const live = hostilesNear(pos, 24)
          const heading = fleeHeading(pos, live.length ? live : seen, Math.ceil(want - moved) + 2)
          if (!heading || heading.run < 2) {
            if (leg > 0) return { moved, legs: leg } // cornered after a run: the chain decides again
            const a = live.length ? live : seen
            const cx = a.reduce((n, m) => n + m.x, 0) / Math.max(1, a.length)
            const cz = a.reduce((n, m) => n + m.z, 0) / Math.max(1, a.length)
            const len = Math.hypot(pos.x - cx, pos.z - cz) || 1
            const to = pos.offset((pos.x - cx) / len * want, 0, (pos.z - cz) / len * want)
            await gotoWithin(new goals.GoalNear(to.x, to.y, to.z, 2), 15000)
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
                const over = epoch !== cancelEpoch || !bot.entity.isValid || bot.health <= 0 || teleported ||
                  legStart.distanceTo(here) >= heading.run - 0.5 || start.distanceTo(here) >= want ||
                  Date.now() - lastMove > 1000
                if (over) { bot.removeListener('physicsTick', tick); resolve() }
              } catch (e) { bot.removeListener('physicsTick', tick); resolve() }
            }
            bot.on('physicsTick', tick)
          })
          if (epoch !== cancelEpoch) throw new Error('stopped') // stop() let go of the keys
          off()
        }
        return { moved: start.distanceTo(bot.entity.position), legs: 4 }
      }
      bot.pathfinder.setGoal(null) // the legs steer by hand
      melee.suspend(run()).then( // no shield in a flight: blocking slows the player
        (r) => done(id, true, Object.assign({ action: 'flee', position: vxyz(bot.entity.position) }, r, { moved: r1(r.moved) })),
        (e) => { if (epoch === cancelEpoch) off(); done(id, false, { action: 'flee', error: String(e && e.message), position: vxyz(bot.entity && bot.entity.position) }) })
      return true
    },
    // cover(id, from, radius, avoid): walk to the nearest cell within `radius` where no
    // archer at the feet positions `from` ([[x, y, z], ...]) sees the bot's eyes, never
    // within 4 blocks of the hostiles at `avoid` ([[x, z], ...]) (cover.js findCover); an
    // empty list: the ones in view now (a hostile spotted before any snapshot has no position)
    cover (id, from, radius, avoid) {
      const live = cover.liveHostiles(THREAT_RADIUS)
      const archers = from && from.length ? from.map(p => ({ x: Number(p[0]), y: Number(p[1]), z: Number(p[2]) })) : live.archers
      const others = avoid && avoid.length ? avoid.map(p => ({ x: Number(p[0]), z: Number(p[1]) })) : live.others
      if (!archers.length) { done(id, false, { action: 'cover', error: 'no archer to hide from' }); return false }
      const t0 = performance.now()
      const found = cover.findCover(archers, Number(radius) || 6, others)
      const ms = r2(performance.now() - t0)
      if (!found.cell) { done(id, false, { action: 'cover', error: `no cover within ${Number(radius) || 6} blocks (${found.tried} cells)`, ms }); return false }
      const c = found.cell
      // done only after COVER_SETTLE_MS at the cell: the snapshots Python takes meanwhile
      // (5 a second) show the bot hidden before it decides on what to do next. Ok only
      // when then no archer in range sees it from where it stands now (Python remembers
      // the bot hidden on an ok). The walk neither digs nor towers: no wall opened, no
      // climb into view.
      const epoch = cancelEpoch
      gotoGently(new goals.GoalBlock(c.x, c.y, c.z), 10000)
        .then(() => new Promise((resolve) => setTimeout(resolve, COVER_SETTLE_MS)))
        .then(() => {
          if (epoch !== cancelEpoch) throw new Error('stopped')
          if (cover.seenBy(THREAT_RADIUS).length) throw new Error('seen at the cover cell')
        }).then(
          () => done(id, true, { action: 'cover', cell: { x: c.x, y: c.y, z: c.z }, ms, position: vxyz(bot.entity.position) }),
          (e) => done(id, false, { action: 'cover', error: epoch !== cancelEpoch ? 'stopped' : String(e && e.message), cell: { x: c.x, y: c.y, z: c.z }, ms, position: vxyz(bot.entity && bot.entity.position) }))
      return true
    },
    // sightCost(n): milliseconds n sight checks of every hostile in SIGHT_RADIUS take (benchmark)
    sightCost (n) {
      const mobs = Object.values(bot.entities).filter(e => e !== bot.entity && e.position && hostile(e) &&
        e.position.distanceTo(bot.entity.position) <= SIGHT_RADIUS)
      const t0 = performance.now()
      for (let i = 0; i < n; i++) for (const e of mobs) cover.seesBot(e)
      return JSON.stringify({ mobs: mobs.length, ms: performance.now() - t0 })
    },
    // place(id, item): put one `item` (a block) on the ground next to the bot
    place (id, item) {
      placeNear(item).then(
        (pos) => done(id, true, { action: 'place', item, position: vxyz(pos) }),
        (e) => done(id, false, { action: 'place', item, error: String(e && e.message) }))
      return true
    },
    // smelt(id, input, count, fuel): smelt `count` of `input` in a furnace within
    // 32 blocks — one this bot loaded before (what it left there comes back first)
    // or an empty one: never someone else's — or one placed from the inventory
    // (workshop.place: beside the bot, in the sealed pocket under cover, or above its
    // head down a shaft) and dug back up after; underCover: never walks,
    // burning `fuel` (only the pieces the smelts need); each output is taken as it
    // comes (vanilla: 10 s an item)
    smelt (id, input, count, fuel, underCover) {
      const epoch = cancelEpoch
      const stopped = () => { if (epoch !== cancelEpoch) throw new Error('stopped') }
      let made = 0
      // a furnace near by this bot may use, open; null when none (at most 3 looked into)
      const openUsable = async () => {
        const mine = (p) => loadedFurnaces.has(p.toString())
        const spots = finder.findBlocks({ matching: bot.registry.blocksByName.furnace.id, maxDistance: 32, count: 8 })
          .sort((a, b) => mine(b) - mine(a))
        for (const at of spots.slice(0, 3)) {
          stopped()
          if (bot.entity.position.distanceTo(at) > 3.5) {
            if (underCover) continue // never walks out of the pocket
            if (!await gotoWithin(new goals.GoalNear(at.x, at.y, at.z, 2), 20000).then(() => true, () => false)) continue
          }
          stopped()
          const furnace = await bot.openFurnace(bot.blockAt(at))
          if (mine(at) || (!furnace.inputItem() && !furnace.outputItem() && !furnace.fuelItem())) return { at, furnace }
          furnace.close() // someone else's smelting: hands off
        }
        return null
      }
      const run = async () => {
        let usable = await openUsable()
        if (!usable) { // the held one: beside the bot, in the pocket under cover, above its head down a shaft
          const block = bot.blockAt(await workshop.place('furnace', !!underCover))
          stopped()
          usable = { at: block.position, furnace: await bot.openFurnace(block) }
        }
        const { at, furnace } = usable
        try {
          if (furnace.outputItem()) await furnace.takeOutput()
          if (furnace.inputItem()) await furnace.takeInput()
          if (furnace.fuelItem() && furnace.fuelItem().name !== fuel) await furnace.takeFuel()
          const n = Math.min(Number(count), countOf(input))
          if (!n) throw new Error(`no ${input} to smelt`)
          loadedFurnaces.add(at.toString())
          const inSlot = furnace.fuelItem() ? furnace.fuelItem().count : 0
          const pieces = Math.min(Math.ceil(n / fuelSmelts(fuel)) - inSlot, countOf(fuel))
          if (pieces > 0) await furnace.putFuel(bot.registry.itemsByName[fuel].id, null, pieces)
          if (!furnace.fuelItem() && !furnace.fuel) throw new Error(`no ${fuel} to burn`)
          await furnace.putInput(bot.registry.itemsByName[input].id, null, n)
          const until = Date.now() + n * 10000 + 20000
          while (made < n) {
            stopped()
            const out = furnace.outputItem()
            if (out) { made += out.count; await furnace.takeOutput(); continue }
            if (Date.now() > until) throw new Error(`only ${made} of ${n} smelted in time`)
            await waitFor(() => !!furnace.outputItem() || epoch !== cancelEpoch, 1000)
          }
        } finally {
          furnace.close()
        }
        // our own furnace goes back into the bag for the next smelt
        if (await workshop.takeBack(at, stopped)) loadedFurnaces.delete(at.toString())
      }
      run().then(
        () => done(id, true, { action: 'smelt', made, furnace: countOf('furnace') }),
        (e) => done(id, false, { action: 'smelt', error: epoch !== cancelEpoch ? 'stopped' : String(e && e.message), made }))
      return true
    },
    // shelter(id): wall the bot in for the night. Where digging down is safe
    // (canDigDown) it digs the two blocks under its feet and drops into the hole;
    // then every open side at feet and head level and the block above the head is
    // filled with held blocks (SHELTER_BLOCKS), with one support block beside the
    // roof when nothing holds it; a torch goes on a wall when held. On flat
    // ground that is 2 blocks in the ground (the dug ones come back as drops), 10
    // on the spot. Done when no side is open and a block is above the head.
    shelter (id) {
      const epoch = cancelEpoch
      const stopped = () => { if (epoch !== cancelEpoch) throw new Error('stopped') }
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
        if (!walled && canDigDown(start)) { // already in a hole (or a shelter): close what is open
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
        (e) => done(id, false, { action: 'shelter', error: epoch !== cancelEpoch ? 'stopped' : String(e && e.message), position: vxyz(bot.entity.position) }))
      return true
    },
    // surface(id): swim up for air until the head is out and the air full (breath.js)
    surface (id) {
      const epoch = cancelEpoch
      const stopped = () => { if (epoch !== cancelEpoch) throw new Error('stopped') }
      bot.pathfinder.setGoal(null) // not stop(): with no path under way its flag would fail the next goto
      breath.surface(bot, stopped).then(
        (up) => done(id, true, { action: 'surface', air: up.air, position: vxyz(up.position) }),
        (e) => done(id, false, { action: 'surface', error: String(e && e.message), position: vxyz(bot.entity && bot.entity.position) }))
      return true
    },
    // wear(id): put on the best armour held and a shield in the off-hand
    wear (id) {
      wearBest().then(
        (worn) => done(id, true, { action: 'wear', worn }),
        (e) => done(id, false, { action: 'wear', error: String(e && e.message) }))
      return true
    },
    chat (text) { bot.chat(String(text)); return true },
    // arm([[name, reach], ...], hp, food): the hostiles to strike first the moment one comes
    // within reach, while health and food are these (firstblow.js; the reflex's arming,
    // pepa/policy/reflex/firstblow.py); [] disarms
    arm (pairs, hp, food) { return firstBlow.arm(pairs, hp, food) },
    // setDanger([[x, z, r], ...]): areas the pathfinder avoids from now on
    setDanger (areas) { danger = (areas || []).map(a => [Number(a[0]), Number(a[1]), Number(a[2])]); return danger.length },
    // lookAround(): turn the head somewhere else (idle behaviour), at once: a turn at
    // mineflayer's head speed is a look packet every tick for up to a second, each sent by the
    // server to every player near (32 idle bots: 880 look packets a second to each bridge of 8)
    lookAround () { bot.look(Math.random() * Math.PI * 2 - Math.PI, (Math.random() - 0.5) * 0.6, true).catch(() => {}); return true },
    quit (reason) { try { bot.quit(reason || 'bye') } catch (e) {} return true },
    end () { try { bot.end() } catch (e) {} return true }
  }
  for (const name of SUSPENDING) api[name] = suspending(api[name])
  return api
}

module.exports = { createBot }
