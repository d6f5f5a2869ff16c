'use strict'
// bot_helper.js — the only JS module Python talks to (through JSPyBridge): it makes the bot,
// turns its events into plain ones for Python, and dispatches Python's calls to the actions
// (actions/index.js: one family module each for movement, flight, gathering, crafting, combat,
// building, the body and gear; each takes the bot's context, context.js, first).
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

// The node process that loads this module (JSPyBridge's, for the worker) ends with its
// parent: a worker killed with SIGKILL (supervision, tests) left it running, still
// holding the daemon's output pipe (seen: a test waited 18 minutes on that pipe)
const PARENT = process.ppid
setInterval(() => { if (process.ppid !== PARENT) process.exit(0) }, 1000).unref()

const { Vec3 } = require(path.join(NM, 'vec3'))
const { createDeathWatch } = require('./death_cause')
const { parseChat, chatPattern, NIL_UUID } = require('./chat_line')
const { memoizeMinecraftData, memoizeRequires, restingPhysics } = require('./rest')
const { cachedBlocks, cachedCosts, cachedPhysicsReads } = require('./pathcache')
const { withGoto } = require('./goto')
const { peekingSplitter, readDirect, directConnect } = require('../../base/js/frames')
const prismarineBlock = require(path.join(NM, 'prismarine-block'))
const { OctahedronIterator } = require(path.join(NM, 'prismarine-world')).iterators
memoizeMinecraftData(require.resolve('minecraft-data', { paths: [path.join(NM, 'prismarine-physics')] }))
memoizeRequires(require.resolve('prismarine-physics', { paths: [path.join(NM, 'mineflayer')] })) // after: it keeps what it got
const { createContext } = require('./context')
const { snapshot, sightCost } = require('./snapshot')
const { vxyz, hostile, creature, entityInfo } = require('./plain')
const { ACTIONS } = require('./actions')

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
// same paths, searched about three times as fast (pathcache.js, tests/fast/link/test_pathcache.py)
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
  // mineflayer-tool (it chooses tools for blocks only; bestTool/bestWeapon in context.js)
  bot.loadPlugin(armorManager)
  // the bot's context: the state its actions share and their helpers (context.js); with
  // cover.js's sight, find.js's block search, melee.js's swings and shield, firstblow.js's
  // first blow (struck the moment an armed-for hostile comes in reach: the swing the reflex
  // would make, with what ran stopped first)
  const ctx = createContext(bot, { emit, Vec3, goals, Movements, prismarineBlock, OctahedronIterator })

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
  bot.on('spawn', () => {
    if (!bot.pathfinder.movements) bot.pathfinder.setMovements(new Movements(bot))
    // a danger area (setDanger, the watchdog's) costs more to step in: the pathfinder goes around
    bot.pathfinder.movements.exclusionAreasStep = [ctx.dangerCost]
    // the home's blocks are never broken for a path (home.js)
    bot.pathfinder.movements.exclusionAreasBreak = [ctx.home.keepCost]
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

  // ------------------------------------------------------------- dispatch --
  // The actions whose holdsShield is set walk, dig, place or open a block: each holds the
  // shield down, and the guard from turning the bot, from its call until it reports done
  // (melee.hold, counted: they overlap). The guard's lookAt at an archer would steer
  // centre()'s hand-held walk or a placement toward it, and its stop for an arrow would
  // halt a tower or a walk to cover.
  const running = new Map() // action id -> ends its suspension
  function settle (id) { const end = running.get(id); if (end) { running.delete(id); end() } }
  function suspending (action) {
    return (id, ...args) => {
      settle(id) // an id used again: the earlier one's suspension must not outlive it
      running.set(id, ctx.melee.hold())
      try { return action(id, ...args) } catch (e) { settle(id); throw e }
    }
  }
  bot.on('death', () => { for (const id of [...running.keys()]) settle(id) })
  // an action ends: {type:'actionDone', id, ok, error?, ...what it did}
  ctx.done = function done (id, ok, extra) { settle(id); emit(Object.assign({ type: 'actionDone', id, ok }, extra || {})) }

  const api = {
    bot, // raw access, only for the attribute-walk benchmark / debugging
    snapshot: () => JSON.stringify(snapshot(ctx, o.entityRadius)),
    ping: () => 1, // the cheapest round trip, for the bridge benchmark
    sightCost: (n) => sightCost(ctx, n), // the snapshot's sight checks, timed (benchmark)
    quit (reason) { try { bot.quit(reason || 'bye') } catch (e) {} return true },
    end () { try { bot.end() } catch (e) {} return true }
  }
  // Every action of the registry, by name: one with an id takes it first, returns at once and
  // later reports {type:'actionDone', id, ok, ...}; an instant call returns its answer
  for (const [name, { fn, holdsShield }] of Object.entries(ACTIONS)) {
    const call = (...args) => fn(ctx, ...args)
    api[name] = holdsShield ? suspending(call) : call
  }
  ctx.api = api
  return api
}

module.exports = { createBot, ACTIONS }
