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

const { Vec3 } = require(path.join(NM, 'vec3'))
const WEAPONS = ['netherite_sword', 'diamond_sword', 'iron_sword', 'stone_sword', 'golden_sword', 'wooden_sword',
  'netherite_axe', 'diamond_axe', 'iron_axe', 'stone_axe', 'golden_axe', 'wooden_axe']
const NIL_UUID = /^0{8}-0{4}-0{4}-0{4}-0{12}$|^0$/
const CHAT_RE = /^<(\w{1,16})> (.*)$/s
const r1 = (v) => Math.round(v * 10) / 10
const r2 = (v) => Math.round(v * 100) / 100
const vxyz = (p) => (p ? { x: r2(p.x), y: r2(p.y), z: r2(p.z) } : null)

function entityInfo (e, from) {
  return {
    id: e.id,
    name: e.name || e.username || null,
    username: e.username || null,
    type: e.type || null, // 'player' | 'hostile' | 'passive' | 'mob' | 'object' | ...
    kind: e.kind || null, // minecraft-data category, e.g. 'Hostile mobs'
    distance: from && e.position ? r1(from.distanceTo(e.position)) : null,
    position: vxyz(e.position)
  }
}

function createBot (opts, onEvent) {
  const o = Object.assign({ host: '127.0.0.1', port: 25565, username: 'pepa_bot', respawn: true, entityRadius: 32 }, opts || {})

  // Call Python. The call is async on the JS side (it returns a Promise that
  // settles when the Python callback returns); never await it here. A callback
  // that fails must not become an unhandled rejection (Node would exit on it).
  function emit (ev) {
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
    auth: 'offline',
    respawn: o.respawn,
    hideErrors: true,
    checkTimeoutInterval: o.checkTimeoutInterval || 30000,
    logErrors: false
  })
  bot.loadPlugin(pathfinder)

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
  bot.on('death', () => { dropGoal(); emit({ type: 'death', position: vxyz(bot.entity && bot.entity.position) }) })
  bot.on('respawn', () => { dropGoal(); emit({ type: 'respawn' }) })
  bot.on('kicked', (reason, loggedIn) => emit({ type: 'kicked', reason: typeof reason === 'string' ? reason : JSON.stringify(reason), loggedIn }))
  bot.on('end', (reason) => emit({ type: 'end', reason: String(reason) }))
  bot.on('error', (err) => emit({ type: 'error', message: String(err && err.message), code: (err && err.code) || null }))
  bot.on('entitySpawn', (e) => { if (e !== bot.entity) { pendingSpawn.push(e); queueFlush() } })
  bot.on('entityGone', (e) => { pendingGone.push(e.id); queueFlush() })
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

  // Chat with the real sender. Order of trust:
  //  1. packet sender UUID (vanilla 1.16 sends it; flying-squid sends 0) → bot.players
  //  2. vanilla translate key chat.type.text: sender is the with[0] component
  //  3. "<name> text" on the flattened line (flying-squid's format)
  // A 'chat' position line with a real sender UUID is a player's even when no
  // name can be found: it is never a server message (AuthMe listens to those).
  // Every line says whether its sender is on the player list, and its account.
  bot.on('message', (msg, position, sender) => {
    const line = msg.toString()
    if (position !== 'chat') {
      emit({ type: 'chat', kind: position || 'system', from: null, text: line, senderSource: null, senderUuid: null, onList: false })
      return
    }
    const packetUuid = sender && !NIL_UUID.test(String(sender)) ? String(sender) : null
    let from = null
    let text = null
    let source = null
    if (packetUuid) {
      const p = Object.values(bot.players).find(p => p.uuid === packetUuid)
      if (p) { from = p.username; source = 'uuid' }
    }
    if (msg.translate && msg.translate.startsWith('chat.type.text') && msg.with && msg.with.length >= 2) {
      if (!from && !packetUuid) { from = msg.with[0].toString(); source = 'translate' }
      text = msg.with[1].toString()
    }
    const m = CHAT_RE.exec(line)
    if (text == null && m) { text = m[2]; if (!from && !packetUuid) { from = m[1]; source = 'regex' } }
    if (from && from === bot.username) return // our own echo
    const entry = from != null && Object.prototype.hasOwnProperty.call(bot.players, from) ? bot.players[from] : null
    emit({
      type: 'chat',
      kind: from || packetUuid ? 'player' : 'system',
      from,
      text: text != null ? text : line,
      senderSource: source,
      senderUuid: accountOf(entry) || packetUuid,
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
        if (e === me || !e.position) continue
        const d = pos.distanceTo(e.position)
        if (d <= o.entityRadius) ents.push(entityInfo(e, pos))
      }
      ents.sort((a, b) => a.distance - b.distance)
    }
    const counts = {}
    const items = []
    let empty = 0
    const inv = bot.inventory
    if (inv) {
      for (let s = inv.inventoryStart; s < inv.inventoryEnd; s++) {
        const it = inv.slots[s]
        if (!it) { empty++; continue }
        counts[it.name] = (counts[it.name] || 0) + it.count
        items.push({ slot: s, name: it.name, count: it.count })
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
      heldItem: bot.heldItem ? bot.heldItem.name : null,
      entities: ents,
      inventory: { counts, items, emptySlots: empty }
    }
  }

  // Can the bot walk away from where it stands? Counts the four sides it can
  // step onto: feet and head blocks free, or a one-block step up with room to
  // jump (two free blocks above the step and one above the bot's head); and
  // whether the column above is open.
  function enclosure (pos) {
    const feet = pos.floored()
    const free = (p) => { const b = bot.blockAt(p); return !b || b.boundingBox === 'empty' }
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
    return bot.findBlocks({ matching: ids, maxDistance: radius, count: 8 })
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
  async function reachTable () {
    let table = bot.findBlock({ matching: bot.registry.blocksByName.crafting_table.id, maxDistance: 32 })
    if (!table) {
      const at = await placeNear('crafting_table')
      table = bot.blockAt(at)
    }
    if (bot.entity.position.distanceTo(table.position) > 3.5) {
      await bot.pathfinder.goto(new goals.GoalNear(table.position.x, table.position.y, table.position.z, 2))
    }
    return bot.blockAt(table.position)
  }

  // --------------------------------------------------------------- actions --
  function done (id, ok, extra) { emit(Object.assign({ type: 'actionDone', id, ok }, extra || {})) }

  const api = {
    bot, // raw access, only for the attribute-walk benchmark / debugging
    snapshot: () => JSON.stringify(snapshotObj()),
    ping: () => 1, // the cheapest round trip, for the bridge benchmark
    // Every action takes its id first and returns at once; it later reports
    // {type:'actionDone', id, ok, error?, position}.
    goto (id, x, y, z, range) {
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
        (e) => done(id, false, { action: 'goto', error: String(e && e.message), position: vxyz(bot.entity && bot.entity.position) }))
      return true
    },
    // gotoPlayer(id,name[,range]): walk to where that player stands now
    gotoPlayer (id, name, range) {
      const p = bot.players[name] && bot.players[name].entity
      if (!p) { done(id, false, { action: 'goto', error: `cannot see ${name}` }); return false }
      return api.goto(id, p.position.x, p.position.y, p.position.z, range == null ? 2 : range)
    },
    // follow(id,name[,range]): keep within range of that player until stop(); done only on failure
    follow (id, name, range) {
      const p = bot.players[name] && bot.players[name].entity
      if (!p) { done(id, false, { action: 'follow', error: `cannot see ${name}` }); return false }
      bot.pathfinder.setGoal(new goals.GoalFollow(p, range == null ? 2 : Number(range)), true)
      return true
    },
    stop (id) { cancelEpoch++; bot.pathfinder.stop(); bot.pathfinder.setGoal(null); if (id != null) done(id, true, { action: 'stop' }); return true },
    // attack(entityId): one swing, at once; returns false if the entity is unknown.
    // The best weapon is equipped after the swing, for the next one: the first
    // hit must not wait for an inventory round trip.
    attack (entityId) {
      const e = bot.entities[entityId]
      if (!e) return false
      bot.attack(e)
      const weapon = bestWeapon()
      if (weapon && (!bot.heldItem || bot.heldItem.name !== weapon.name)) bot.equip(weapon, 'hand').catch(() => {})
      return true
    },
    // eat(id, name): hold that food and eat it (the server ends eating with entity_status 9)
    eat (id, name) {
      const it = bot.inventory.items().find(i => i.name === name)
      if (!it) { done(id, false, { action: 'eat', error: `no ${name}` }); return false }
      bot.equip(it, 'hand').then(() => bot.consume()).then(
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
    // the best tool, no pillaring; anything else: whatever the pathfinder finds.
    escape (id, reach, mode) {
      const p = bot.entity.position
      const goal = new goals.GoalInvert(new goals.GoalNear(p.x, p.y, p.z, reach || 3))
      const normal = bot.pathfinder.movements
      const moves = new Movements(bot) // no danger costs: getting out comes first
      if (mode === 'up') moves.canDig = false
      if (mode === 'dig') moves.allow1by1towers = false
      bot.pathfinder.setMovements(moves)
      bot.pathfinder.goto(goal).finally(() => bot.pathfinder.setMovements(normal)).then(
        () => done(id, true, { action: 'escape', position: vxyz(bot.entity.position) }),
        (e) => done(id, false, { action: 'escape', error: String(e && e.message), position: vxyz(bot.entity.position) }))
      return true
    },
    // gather(id, names, count, radius): dig the nearest block whose name is in
    // `names` and pick up its drop, until the inventory holds `count` of any of
    // `drops` (default: the names). The best harvesting tool is equipped first;
    // a block the held tools cannot harvest is skipped (it would drop nothing).
    gather (id, names, count, radius, drops) {
      const wanted = new Set(names)
      const yields = new Set(drops && drops.length ? drops : names)
      const held = () => bot.inventory.items().filter(i => yields.has(i.name)).reduce((n, i) => n + i.count, 0)
      const skipped = new Set()
      const key = (v) => `${v.x},${v.y},${v.z}`
      let dug = 0
      const epoch = cancelEpoch
      const step = async () => {
        while (held() < count) {
          if (epoch !== cancelEpoch) return 'stopped'

          const block = bot.findBlock({
            matching: (b) => b && wanted.has(b.name),
            maxDistance: radius || 48,
            useExtraInfo: (b) => !skipped.has(key(b.position))
          })
          if (!block) return `no ${[...wanted].join('/')} within ${radius || 48} blocks (have ${held()}/${count})`
          const tool = bestTool(block)
          if (block.harvestTools && !tool) return `no tool can harvest ${block.name}`
          try {
            await bot.pathfinder.goto(new goals.GoalLookAtBlock(block.position, bot.world, { reach: 4 }))
            if (epoch !== cancelEpoch) return 'stopped'
            if (tool) await bot.equip(tool, 'hand')
            const fresh = bot.blockAt(block.position)
            if (!fresh || !wanted.has(fresh.name)) continue
            await bot.dig(fresh, true)
            dug++
            if (epoch !== cancelEpoch) return 'stopped' // pre-empted while digging: hands off the pathfinder
            // walk onto the spot, then to the drop if it rolled away, so it is picked up
            await bot.pathfinder.goto(new goals.GoalNear(block.position.x, block.position.y, block.position.z, 1)).catch(() => {})
            if (!await waitFor(() => held() >= count, 600) && epoch === cancelEpoch) {
              const drop = bot.nearestEntity(e => e.name === 'item' && e.position.distanceTo(block.position) < 4)
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
    // craft(id, item, times): craft `times` crafts of `item` by its recipe, at a
    // crafting table when the recipe needs one (walks to one within 32 blocks,
    // or places one from the inventory next to the bot).
    craft (id, item, times) {
      const info = bot.registry.itemsByName[item]
      if (!info) { done(id, false, { action: 'craft', error: `no such item ${item}` }); return false }
      const epoch = cancelEpoch
      const run = async () => {
        let recipe = bot.recipesFor(info.id, null, 1, null)[0]
        let table = null
        if (!recipe) {
          table = await reachTable()
          if (epoch !== cancelEpoch) throw new Error('stopped')
          recipe = bot.recipesFor(info.id, null, 1, table)[0]
          if (!recipe) throw new Error(`no recipe for ${item} with this inventory`)
        }
        await bot.craft(recipe, times || 1, table)
      }
      run().then(
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
    // place(id, item): put one `item` (a block) on the ground next to the bot
    place (id, item) {
      placeNear(item).then(
        (pos) => done(id, true, { action: 'place', item, position: vxyz(pos) }),
        (e) => done(id, false, { action: 'place', item, error: String(e && e.message) }))
      return true
    },
    chat (text) { bot.chat(String(text)); return true },
    // setDanger([[x, z, r], ...]): areas the pathfinder avoids from now on
    setDanger (areas) { danger = (areas || []).map(a => [Number(a[0]), Number(a[1]), Number(a[2])]); return danger.length },
    // lookAround(): turn the head somewhere else (idle behaviour)
    lookAround () { bot.look(Math.random() * Math.PI * 2 - Math.PI, (Math.random() - 0.5) * 0.6, false).catch(() => {}); return true },
    quit (reason) { try { bot.quit(reason || 'bye') } catch (e) {} return true },
    end () { try { bot.end() } catch (e) {} return true }
  }
  return api
}

module.exports = { createBot }
