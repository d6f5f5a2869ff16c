'use strict'
// pepa test plugin for flying-squid 1.12 (loaded through settings.plugins with an
// absolute path; flying-squid's external.js does require.resolve(<key>)).
//
// Exposes server-side scenario operations over a line-based JSON TCP channel on
// 127.0.0.1 (see server.js).  Every op below uses only flying-squid's own API
// (serv.spawnMob, player.updateHealth/updateFood, player.takeDamage,
// serv.setTime, serv.setBlock, player.teleport, player.inventory.updateSlot, ...).
// Zombie "AI" (walk toward nearest player, melee once per second) is implemented
// here because flying-squid mobs have none; it is OFF unless {ai:true}.
const net = require('net')
const { performance } = require('perf_hooks')
const { Vec3 } = require('vec3')

const TELEPORT_SETTLE_MS = 500 // a teleport's chunks go out this long after it (see below)
const CHUNK_BATCH_POLL_MS = 50
const CONFIRM_WITHIN_MS = 10000 // a player's moves wait at most this long for its confirm
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

module.exports.server = function (serv, settings) {
  const me = serv.plugins[__filename] || {}
  const controlPort = me.settings ? me.settings.controlPort : null
  const { registry } = serv
  const Item = require('prismarine-item')(registry)
  const tracked = new Map() // entity id -> mob spawned by us (for death clean-up / ai)
  const spawnedAt = new Map() // entity id -> performance.now() at spawn (reaction benchmark)

  // flying-squid's login ends by putting the player back where it joined: wait
  // for that (see module.exports.player) before moving a player, at most 10 s
  const settled = (p) => Promise.race([p._pepaReady, new Promise(resolve => setTimeout(resolve, 10000))])
  const player = (name) => {
    const p = serv.getPlayer(name)
    if (!p) throw new Error(`no such player: ${name}`)
    return p
  }
  const num = (v, d) => (v === undefined || v === null ? d : Number(v))
  const blockState = (name) => {
    const b = registry.blocksByName[name]
    if (!b) throw new Error(`no such block: ${name}`)
    return b.defaultState
  }
  const vec = (o) => new Vec3(Number(o.x), Number(o.y), Number(o.z))
  // up to 1.10 minecraft-data names entities in CamelCase (Zombie, Item): found either way
  const entityNamed = (name) => registry.entitiesByName[name] ||
    registry.entitiesArray.find(e => e.name.toLowerCase() === String(name).toLowerCase())
  // the minecraft-data entity types of mobs ('mob' up to 1.16.5; then also these)
  const LIVING = new Set(['mob', 'hostile', 'passive', 'animal', 'ambient', 'water_creature'])
  const pos = (p) => ({ x: p.x, y: p.y, z: p.z })

  // flying-squid's setBlock tells the players first and changes the world an await later: a
  // chunk of that column sent in between (a batch going out) has the old block, and a client
  // that had dropped the block_change (it had no chunk there yet) never sees the new one. The
  // walled-in bot of test_survival.py saw 2 of its 4 walls and no roof. The world first, then
  // the players: a chunk sent before the change is followed by its block_change, one sent
  // after has the block (tests/js/teleport_chunks.js, the last round). Set on 'pluginsReady':
  // the world plugin defines setBlock after this runs.
  serv.once('pluginsReady', () => {
    serv.setBlock = async (world, position, stateId) => {
      await world.setBlockStateId(position, stateId)
      for (const p of serv.players) if (p.world === world) p.sendBlock(position, stateId)
      if (stateId === 0) serv.notifyNeighborsOfStateChange(world, position, serv.tickCount, serv.tickCount, true)
      else serv.updateBlock(world, position, serv.tickCount, serv.tickCount, true)
    }
  })

  function despawnDead (e) {
    // flying-squid's takeDamage sends entity_status 3 and deletes the mob from
    // serv.entities but never sends entity_destroy, so clients keep a corpse.
    if (e._pepaGone) return
    e._pepaGone = true
    serv._writeAll('entity_destroy', { entityIds: [e.id] })
    delete serv.entities[e.id]
    tracked.delete(e.id)
  }

  // --- zombie ai (opt-in) ---------------------------------------------------
  const ZOMBIE_SPEED = 2.3 // blocks / s
  const REACH = 2.0
  serv.on('tick', (delta) => {
    const now = Date.now()
    for (const e of tracked.values()) {
      if (e.health <= 0) {
        if (!e._deadAt) e._deadAt = now
        else if (now - e._deadAt > 1000) despawnDead(e)
        continue
      }
      // in the survival sandbox every mob lives by sandbox/plugins/mobs.js instead
      if (!e.pepaAi || serv.pepaLife) continue
      let best = null
      let bestD = 1e9
      for (const p of serv.players) {
        if (p.world !== e.world || p.health <= 0 || p.gameMode !== 0) continue
        const d = p.position.distanceTo(e.position)
        if (d < bestD) { bestD = d; best = p }
      }
      if (!best || bestD > 32) continue
      const dir = best.position.minus(e.position)
      dir.y = 0
      const flat = Math.sqrt(dir.x * dir.x + dir.z * dir.z)
      e.yaw = Math.round(((Math.atan2(-dir.x, dir.z) * 180 / Math.PI) / 360) * 256) & 255
      if (bestD > REACH && flat > 0.01) {
        const step = Math.min(flat - REACH * 0.8, ZOMBIE_SPEED * delta)
        if (step > 0) e.sendPosition(e.position.plus(dir.scaled(step / flat)), e.onGround)
      } else if (now - (e._lastHit || 0) >= 1000) {
        e._lastHit = now
        best.takeDamage({ damage: num(e.pepaDamage, 3), velocity: dir.scaled(1 / Math.max(flat, 0.01)).scaled(2) })
      }
    }
  })

  // flying-squid moves a mob by velocity × the tick's delta and tests only the block at the
  // end: on a loaded machine a tick of 0.5 s lets a falling zombie pass through the floor
  // into the void. Its physics in steps of at most a game tick stays on the ground.
  const PHYSICS_STEP = 0.05 // s
  function steppedPhysics (mob) {
    const whole = mob.calculatePhysics
    mob.calculatePhysics = async (delta) => {
      const from = mob.position
      let result = { position: from, onGround: mob.onGround }
      try {
        for (let left = delta; left > 1e-6; left -= PHYSICS_STEP) {
          result = await whole(Math.min(PHYSICS_STEP, left))
          mob.position = result.position // the next step starts where this one ended
        }
      } finally {
        mob.position = from // sendPosition moves it, from where the clients last saw it
      }
      return result
    }
  }

  // --- operations -----------------------------------------------------------
  const ops = {
    ping: () => ({ pong: true, time: serv.time, tick: serv.tickCount }),
    // stall {ms}: the server's thread busy for ms (at most 5 s), as on a loaded machine
    stall: (a) => {
      const ms = Math.min(num(a.ms, 500), 5000)
      const until = performance.now() + ms
      while (performance.now() < until);
      return { stalled: ms }
    },

    players: () => serv.players.map(p => ({
      username: p.username, id: p.id, position: pos(p.position), health: p.health, food: p.food,
      foodSaturation: p.foodSaturation, gameMode: p.gameMode, xp: p.xp
    })),

    entities: ({ name } = {}) => Object.values(serv.entities)
      .filter(e => e.type !== 'player' && (!name || String(e.name).toLowerCase() === String(name).toLowerCase()))
      .map(e => ({ id: e.id, name: e.name, health: e.health, position: pos(e.position) })),

    // spawn_mob {player, name='zombie', dx=2, dy=0, dz=0, count=1, spacing=1, ai=false, damage=3}
    spawn_mob: (a) => {
      const p = player(a.player)
      const name = a.name || 'zombie'
      const type = entityNamed(name)
      if (!type || !LIVING.has(type.type)) throw new Error(`not a mob: ${name}`)
      // from 1.17.1 minecraft-data types a zombie 'hostile' (a cow 'animal', ...), and
      // registry.mobs, where flying-squid's spawnMob looks its name up, keeps the few of
      // type 'mob' only: spawnMob threw on every other. Registered there, it spawns.
      if (!registry.mobs[type.id]) registry.mobs[type.id] = type
      const count = num(a.count, 1)
      const spacing = num(a.spacing, 1)
      const side = Math.ceil(Math.sqrt(count))
      const ids = []
      for (let i = 0; i < count; i++) {
        const off = new Vec3(num(a.dx, 2) + (i % side) * spacing, num(a.dy, 0), num(a.dz, 0) + Math.floor(i / side) * spacing)
        // before the spawn, which writes it to the players near: stamped after, a busy server's
        // bots had it up to 150 ms before the stamp, and the reaction read that much short
        const spawning = performance.now()
        const mob = serv.spawnMob(type.id, p.world, p.position.plus(off), {})
        steppedPhysics(mob)
        mob.pepaAi = a.ai === undefined ? undefined : !!a.ai // explicit false: the sandbox keeps it still
        mob.pepaDamage = a.damage
        spawnedAt.set(mob.id, spawning)
        tracked.set(mob.id, mob)
        ids.push(mob.id)
      }
      return { ids, name }
    },

    remove_mobs: ({ name } = {}) => {
      const gone = Object.values(serv.entities).filter(e => e.type === 'mob' && (!name || e.name === name))
      for (const e of gone) despawnDead(e)
      return { removed: gone.length }
    },

    remove_mob: ({ mob }) => { const e = serv.entities[mob]; if (e && e.type === 'mob') despawnDead(e); return { removed: e ? 1 : 0 } },

    set_ai: ({ mob, ai = true }) => { const e = serv.entities[mob]; if (!e) throw new Error('no entity'); e.pepaAi = !!ai; return {} },

    // set_health {player, hp}; flying-squid sends update_health, no regen/hunger simulation
    set_health: (a) => { const p = player(a.player); p.updateHealth(num(a.hp, 20)); return { health: p.health } },
    set_food: (a) => {
      const p = player(a.player)
      if (a.saturation !== undefined) p.foodSaturation = Number(a.saturation)
      p.updateFood(num(a.food, 20))
      return { food: p.food, saturation: p.foodSaturation }
    },
    damage: (a) => { const p = player(a.player); p.takeDamage({ damage: num(a.amount, 1) }); return { health: p.health } },
    kill: (a) => { const p = player(a.player); p.takeDamage({ damage: Math.max(p.health, 1) }); return { health: p.health } },
    // set_difficulty {level}: 0 peaceful .. 3 hard (damage scaling, starvation's floor)
    set_difficulty: (a) => {
      const level = num(a.level, 1)
      if (![0, 1, 2, 3].includes(level)) throw new Error(`difficulty is 0 to 3, not ${a.level}`)
      serv.difficulty = level
      return { difficulty: serv.difficulty }
    },
    set_xp: (a) => { const p = player(a.player); p.setXp(num(a.xp, 0)); return { xp: p.xp, level: p.level } },
    gamemode: (a) => { const p = player(a.player); p.setGameMode(num(a.mode, 0)); return { gameMode: p.gameMode } },

    // give {player, item:'bread', count=1, slot?}  slot = window slot (36..44 hotbar, 9..35 main)
    give: (a) => {
      const p = player(a.player)
      const it = registry.itemsByName[a.item]
      if (!it) throw new Error(`no such item: ${a.item}`)
      const slot = a.slot !== undefined ? Number(a.slot) : p.inventory.firstEmptyInventorySlot()
      if (slot === null || slot === undefined) throw new Error('inventory full')
      p.inventory.updateSlot(slot, new Item(it.id, num(a.count, 1)))
      return { slot, item: it.name, count: num(a.count, 1) }
    },
    // inventory {player} → {item name: count}, as the server holds it
    inventory: (a) => {
      const counts = {}
      for (const it of player(a.player).inventory.items()) counts[it.name] = (counts[it.name] || 0) + it.count
      return counts
    },
    clear_inventory: (a) => {
      const p = player(a.player)
      for (let s = 0; s < p.inventory.slots.length; s++) if (p.inventory.slots[s]) p.inventory.updateSlot(s, null)
      return {}
    },

    set_time: (a) => {
      if (a.cycle !== undefined) serv.doDaylightCycle = !!a.cycle
      serv.setTime(num(a.time, 1000))
      return { time: serv.time, cycle: serv.doDaylightCycle }
    },

    teleport: async (a) => {
      const p = player(a.player)
      await settled(p)
      await p.teleport(vec(a)) // the chunks round the new place follow (module.exports.player)
      return { position: pos(p.position) }
    },

    set_block: async (a) => {
      const p = a.player ? player(a.player) : null
      await serv.setBlock(p ? p.world : serv.overworld, vec(a), blockState(a.block || 'stone'))
      return {}
    },

    // fill {x1,y1,z1,x2,y2,z2, block}
    fill: async (a) => {
      const st = blockState(a.block || 'stone')
      let n = 0
      const w = a.player ? player(a.player).world : serv.overworld
      for (let x = Math.min(a.x1, a.x2); x <= Math.max(a.x1, a.x2); x++) {
        for (let y = Math.min(a.y1, a.y2); y <= Math.max(a.y1, a.y2); y++) {
          for (let z = Math.min(a.z1, a.z2); z <= Math.max(a.z1, a.z2); z++) {
            await serv.setBlock(w, new Vec3(x, y, z), st)
            n++
          }
        }
      }
      return { blocks: n }
    },

    // wall_in {player, block='stone', height=3}: 3x3 ring of blocks around the player's feet column + roof
    wall_in: async (a) => {
      const p = player(a.player)
      const st = blockState(a.block || 'stone')
      await settled(p) // the login's last teleport would put the player back elsewhere
      const f = p.position.floored()
      const h = num(a.height, 2)
      let n = 0
      for (let dy = 0; dy < h; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          for (let dz = -1; dz <= 1; dz++) {
            if (dx === 0 && dz === 0) continue
            await serv.setBlock(p.world, f.offset(dx, dy, dz), st); n++
          }
        }
      }
      if (a.roof !== false) { await serv.setBlock(p.world, f.offset(0, h, 0), st); n++ }
      return { blocks: n, feet: pos(f) }
    },

    // pit {player, depth=3}: digs a 1x1 shaft under the player (air) and lines it with `block`, player falls in
    pit: async (a) => {
      const p = player(a.player)
      await settled(p) // a shaft dug before the login ends would be undone with the teleport below
      const f = p.position.floored()
      const depth = num(a.depth, 3)
      const st = blockState(a.block || 'stone')
      const air = blockState('air')
      for (let d = 1; d <= depth; d++) {
        for (let dx = -1; dx <= 1; dx++) {
          for (let dz = -1; dz <= 1; dz++) {
            await serv.setBlock(p.world, f.offset(dx, -d, dz), (dx === 0 && dz === 0) ? air : st)
          }
        }
      }
      await serv.setBlock(p.world, f.offset(0, -depth - 1, 0), st)
      // flying-squid has no server-side player physics: the client falls by itself,
      // but only if its 0.6-wide box is inside the 1x1 shaft: centre it first.
      await p.teleport(new Vec3(f.x + 0.5, p.position.y, f.z + 0.5))
      return { bottom: pos(f.offset(0, -depth, 0)) }
    },

    block_at: async (a) => {
      const w = a.player ? player(a.player).world : serv.overworld
      const b = await w.getBlock(vec(a))
      return { name: b && b.name, stateId: b && b.stateId }
    },

    say: (a) => { serv.broadcast(String(a.text)); return {} },
    // chat_as {player, text}: as if `player` had typed it (same code path as a real client chat packet)
    chat_as: (a) => {
      const p = player(a.player)
      const obj = serv._createJsonChat('<' + p.username + '> ')
      if (!obj.extra) obj.extra = []
      obj.extra.push(serv._createJsonChat(String(a.text)))
      serv.broadcast(obj)
      return {}
    },
    command: async (a) => { await serv.handleCommand(String(a.text)); return {} },
    kick: (a) => { player(a.player).kick(a.reason || 'kicked by test'); return {} }
  }
  // place_bed {player?, x, y, z, facing='north', color='red'}: foot at x,y,z, head one block towards `facing`
  ops.place_bed = async (a) => {
    const Block = require('prismarine-block')(registry)
    const facing = a.facing || 'north'
    const name = `${a.color || 'red'}_bed`
    const toward = { north: [0, -1], south: [0, 1], west: [-1, 0], east: [1, 0] }[facing]
    if (!toward) throw new Error(`bad facing: ${facing}`)
    const w = a.player ? player(a.player).world : serv.overworld
    const foot = vec(a)
    const state = (part) => Block.fromProperties(name, { facing, part, occupied: false }, 0).stateId
    await serv.setBlock(w, foot, state('foot'))
    await serv.setBlock(w, foot.offset(toward[0], 0, toward[1]), state('head'))
    return { foot: pos(foot), head: pos(foot.offset(toward[0], 0, toward[1])) }
  }
  // load_plugin {name}: one of the survival sandbox's plugins (sandbox/plugins/<name>.js,
  // e.g. crafting) added to this running world through flying-squid's own serv.addPlugin,
  // for the players who join after (bench/versions.py crafts in a plain world at any
  // version with it). Its start-up hooks ('asap', long past) run at once.
  ops.load_plugin = ({ name }) => {
    if (!/^[a-z_]+$/.test(String(name))) throw new Error(`not a plugin name: ${name}`)
    const file = require('path').join(__dirname, 'plugins', `${name}.js`)
    if (serv.plugins[file]) return { loaded: false }
    const once = serv.once
    serv.once = function (event, fn) {
      if (event === 'asap') { fn(); return this }
      return once.call(this, event, fn)
    }
    try {
      serv.addPlugin(file, require(file), {})
    } finally {
      serv.once = once
    }
    return { loaded: true }
  }
  serv.pepaOps = ops

  // --- eating, with vanilla numbers: 32 ticks, minecraft-data's foods ------
  const EAT_MS = 1600
  const ALWAYS_EDIBLE = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit', 'milk_bucket', 'potion'])
  // reaction {mob}: ms from spawning entity `mob` to the first attack packet on it
  // (op arguments never use `id`: that field is the request's own id)
  const firstHit = new Map()
  ops.reaction = ({ mob }) => {
    const hitAt = firstHit.get(mob)
    if (hitAt === undefined || !spawnedAt.has(mob)) return { hit: false }
    return { hit: true, ms: hitAt - spawnedAt.get(mob) }
  }
  // flying-squid 1.12.0 (spawn.js) describes a dropped item right at 1.13 and 1.15 to 1.16
  // only: at 1.12.2 its metadata types are 1.13's (the item goes as a boolean), at 1.14 it
  // sends the item at key 6 alone where clients read key 7, from 1.17 at key 7 where they
  // read key 8, and from 1.20.2 no metadata at all. mineflayer then reads no item, and a
  // bot that picks the drop up crashes (mineflayer-armor-manager: Item.fromNotch(undefined)).
  // At the other versions drops go out with one entry: the item, at the version's key,
  // metadata type and slot format.
  const at = (v) => registry.version['>='](v)
  const dropsBroken = !((at('1.13') && !at('1.14')) || (at('1.15') && !at('1.17')))
  const itemEntry = dropsBroken ? droppedItemEntry(registry, Item) : null
  serv.on('newPlayer', (p) => {
    if (itemEntry) {
      const spawnEntity = p.spawnEntity
      p.spawnEntity = (entity) => {
        if (entity.type !== 'object' || entity.itemId === undefined) return spawnEntity(entity)
        p._client.write(entity.spawnPacketName, entity.getSpawnPacket())
        p._client.write('entity_metadata', { entityId: entity.id, metadata: [itemEntry(entity)] })
      }
    }
    p._client.on('use_entity', ({ mouse, target } = {}) => {
      if (mouse === 1 && !firstHit.has(target)) firstHit.set(target, performance.now())
    })
    p._client.on('use_item', () => {
      const slot = 36 + p.heldItemSlot
      const item = p.inventory.slots[slot]
      const food = item && registry.foodsByName[item.name]
      if (!food || (p.food >= 20 && !ALWAYS_EDIBLE.has(item.name))) return
      clearTimeout(p._pepaEating)
      p._pepaEating = setTimeout(() => {
        const now = p.inventory.slots[slot]
        if (!now || now.type !== item.type || p.health <= 0) return
        const level = Math.min(20, p.food + food.foodPoints)
        p.foodSaturation = Math.min(level, (p.foodSaturation || 0) + food.saturation)
        p.updateFood(level)
        now.count -= 1
        p.inventory.updateSlot(slot, now.count > 0 ? now : null)
        p._client.write('entity_status', { entityId: p.id, entityStatus: 9 })
      }, EAT_MS)
    })

    // --- beds: lie down at night when no monster is near; all asleep → morning
    p._client.on('block_place', async (packet) => {
      const at = new Vec3(packet.location.x, packet.location.y, packet.location.z)
      const block = await p.world.getBlock(at)
      if (!block || !block.name.endsWith('_bed')) return
      const t = serv.time % 24000
      if (t < 12541 || t > 23458) return p.chat('You can only sleep at night')
      if (p.position.distanceTo(at) > 3.5) return p.chat('You may not rest now; the bed is too far away')
      const monster = Object.values(serv.entities).some(e => e.type === 'mob' && e.health > 0 &&
        registry.entitiesByName[e.name]?.category === 'Hostile mobs' &&
        Math.abs(e.position.x - at.x) <= 8 && Math.abs(e.position.z - at.z) <= 8 && Math.abs(e.position.y - at.y) <= 5)
      if (monster) return p.chat('You may not rest now; there are monsters nearby')
      p._pepaSleeping = Date.now()
      const lie = [{ key: 6, type: 18, value: 2 }]
      p._client.write('entity_metadata', { entityId: p.id, metadata: lie })
      p._writeOthersNearby('entity_metadata', { entityId: p.id, metadata: lie })
    })
  })
  serv.on('tick', () => {
    const awake = serv.players.filter(pl => pl.gameMode === 0 && pl.health > 0 && !pl._pepaSleeping)
    const sleepers = serv.players.filter(pl => pl._pepaSleeping)
    if (!sleepers.length || awake.length) return
    if (Date.now() - Math.max(...sleepers.map(pl => pl._pepaSleeping)) < 5000) return // 100 ticks
    serv.setTime(0)
    for (const pl of sleepers) {
      pl._pepaSleeping = null
      const stand = [{ key: 6, type: 18, value: 0 }]
      pl._client.write('entity_metadata', { entityId: pl.id, metadata: stand })
      pl._client.write('animation', { entityId: pl.id, animation: 2 })
      pl._writeOthersNearby('animation', { entityId: pl.id, animation: 2 })
    }
  })

  // --- an AuthMe stand-in: /register and /login as a protected server has them
  const auth = new Map() // username -> password
  const authLog = []
  ops.auth_log = () => authLog.slice()
  serv.commands.add({
    base: 'register',
    info: 'register a password (AuthMe stand-in)',
    usage: '/register <password> <password>',
    parse: (str) => str.split(' '),
    action (args, ctx) {
      const p = ctx.player
      if (!p) return
      authLog.push({ player: p.username, command: 'register', ok: !auth.has(p.username) && args[0] === args[1] })
      if (auth.has(p.username)) return p.chat('You already have registered this username!')
      if (!args[0] || args[0] !== args[1]) return p.chat('Passwords do not match')
      auth.set(p.username, args[0])
      p.chat('Successfully registered!')
    }
  })
  serv.commands.add({
    base: 'login',
    info: 'log in (AuthMe stand-in)',
    usage: '/login <password>',
    parse: (str) => str.split(' '),
    action (args, ctx) {
      const p = ctx.player
      if (!p) return
      const ok = auth.get(p.username) === args[0]
      authLog.push({ player: p.username, command: 'login', ok })
      p.chat(ok ? 'Successful login!' : 'Wrong password!')
    }
  })

  // --- control channel ------------------------------------------------------
  if (controlPort === null || controlPort === undefined || controlPort < 0) return
  const sockets = new Set()
  const srv = net.createServer((sock) => {
    sockets.add(sock)
    sock.setEncoding('utf8')
    let buf = ''
    sock.on('close', () => sockets.delete(sock))
    sock.on('error', () => {})
    sock.on('data', async (chunk) => {
      buf += chunk
      if (buf.length > 1 << 20) { sock.destroy(); return }
      let i
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim()
        buf = buf.slice(i + 1)
        if (!line) continue
        let req
        try { req = JSON.parse(line) } catch (e) {
          sock.write(JSON.stringify({ ok: false, error: 'bad json' }) + '\n'); continue
        }
        const fn = ops[req.op]
        try {
          if (!fn) throw new Error(`unknown op: ${req.op}`)
          const result = await fn(req)
          sock.write(JSON.stringify({ id: req.id, ok: true, result }) + '\n')
        } catch (e) {
          sock.write(JSON.stringify({ id: req.id, ok: false, error: String(e && e.message) }) + '\n')
        }
      }
    })
  })
  serv.pepaControl = {
    listening: new Promise((resolve, reject) => {
      srv.once('error', reject)
      srv.listen(controlPort, '127.0.0.1', () => resolve(srv.address().port))
    }),
    close: () => new Promise(resolve => { for (const s of sockets) s.destroy(); srv.close(() => resolve()) })
  }
  serv.on('close', () => { try { serv.pepaControl.close() } catch (e) {} })
}

module.exports.player = function (player, serv) {
  // From 1.20.2 one spawn_entity packet spawns players too, and its `type` must say player;
  // flying-squid makes players with no entity type (login.js: initEntity('player', null,
  // ...)), so other clients got an entity of type 0 and never saw the player: a bot told
  // to come waited to see its operator for ever
  if (serv.supportFeature('unifiedPlayerAndEntitySpawnPacket') && player.entityType == null) {
    player.entityType = serv.registry.entitiesByName.player.id
  }
  // From 1.21.2 entity_teleport carries a velocity, yaw and pitch in degrees (f32) and
  // relative-move flags; flying-squid (updatePositions.js) still writes the 1.21.1 fields, the
  // missing flags fail to serialize and the server drops the client that should have seen
  // the move: the bot lost its connection whenever a player or mob nearby moved over 3
  // blocks in a tick (a teleport). Written in the new form, with the angles converted.
  if (teleportHasFlags(serv.registry)) {
    const write = player._client.write
    const degrees = (angle) => ((Number(angle) || 0) * 360) / 256
    player._client.write = function (name, params) {
      if (name === 'entity_teleport' && params && params.flags === undefined) {
        params = { ...params, dx: 0, dy: 0, dz: 0, yaw: degrees(params.yaw), pitch: degrees(params.pitch), flags: 0 }
      }
      return write.call(this, name, params)
    }
  }
  // A move the client sent before it took the server's teleport is stale: vanilla ignores a
  // client's moves from a teleport until the client confirms it (teleport_confirm, from 1.9).
  // flying-squid takes them, asynchronously, after the teleport and its echo: the echo, equal
  // to the position already set, is skipped, and the stale moves that follow put the player
  // back where it was. Its client, with no chunk at the new place, then sent no move again:
  // server and client kept two places (tests/js/teleport_chunks.js, the first round). So moves
  // are cancelled while a teleport is unconfirmed (flying-squid writes every teleport with id 1:
  // they are counted), for at most CONFIRM_WITHIN_MS after the last one (a client that never
  // confirms is not frozen). When the client has confirmed them all, the player emits
  // 'pepa_teleports_confirmed' with the last position sent (the sandbox's fall damage measures
  // the next moves from there).
  if (serv.registry.protocol.play.toServer.types.packet_teleport_confirm) {
    let unconfirmed = 0
    let teleportedAt = 0
    let sent = null
    const write = player._client.write
    player._client.write = function (name, params) {
      if (name === 'position') {
        unconfirmed++
        teleportedAt = Date.now()
        sent = new Vec3(params.x, params.y, params.z)
      }
      return write.call(this, name, params)
    }
    player._client.on('teleport_confirm', () => {
      if (unconfirmed === 0) return
      if (--unconfirmed === 0) player.emit('pepa_teleports_confirmed', sent)
    })
    player.on('move_cancel', ({ teleport }, cancel) => {
      if (teleport || unconfirmed === 0) return
      if (Date.now() - teleportedAt > CONFIRM_WITHIN_MS) { unconfirmed = 0; return }
      cancel(false) // dropped, no correction sent: the teleport itself is the correction
    })
  }
  // flying-squid sends chunks only when the player's own move packets take it 16 blocks
  // from where the last batch was sent, and not while a batch goes out. A client with no
  // chunk under it runs no physics and sends no moves, so a player teleported far (by the
  // control channel, /tp or a plugin) waited for ever for the chunks of its new place. The
  // test world's walled-in bot did so when a batch for its last place (a walk, the last
  // teleport) was still going out: it stood in air it could not see, its walls never came
  // (tests/js/teleport_chunks.js). So half a second on (the client has taken the teleport;
  // sending at once raced it) and once any batch going out has ended, the chunks round the
  // new place go out (a batch skips those the client has).
  // (wrapped on 'asap': flying-squid's updatePositions defines teleport after this runs)
  let teleports = 0
  let following = false
  player.once('asap', () => {
    const teleport = player.teleport
    player.teleport = async (position) => {
      await teleport(position)
      teleports++
      if (!following) {
        following = true
        chunksAfterTeleports().finally(() => { following = false })
      }
    }
  })
  async function chunksAfterTeleports () {
    let served = 0
    while (served < teleports) { // a teleport during a batch gets a batch of its own after it
      served = teleports
      await sleep(TELEPORT_SETTLE_MS)
      while (player.sendingChunks && !player._client.ended) await sleep(CHUNK_BATCH_POLL_MS)
      if (player._client.ended || !(player.health > 0)) return
      await player.worldSendRestOfChunks().catch(() => {})
    }
  }
  // flying-squid finishes a login (the rest of the chunks, then the player put
  // back at its spawn) on the client's first `flying` or `look` packet; an idle
  // mineflayer client may only send `position` packets, and its login then hangs,
  // with only the first chunks, and no chunks sent as it moves, until it looks round. Vanilla
  // counts any movement packet. Counted from 'spawned', when flying-squid starts to wait: the
  // client's answer to the login's position comes before it, and a `flying` made of that
  // answer was heard by nobody (the login then waited for the bot's first look round).
  player.once('spawned', () => {
    const moved = () => {
      player._client.removeListener('position', moved)
      player._client.removeListener('position_look', moved)
      player._client.emit('flying', { onGround: true })
    }
    player._client.on('position', moved)
    player._client.on('position_look', moved)
  })
  // flying-squid's login ends, after the remaining chunks are sent (which can
  // take a while), by putting the player back at its login position. A
  // teleport before that is silently undone; `teleport` waits for this.
  player._pepaReady = new Promise((resolve) => {
    player.once('spawned', () => {
      const original = player.sendSelfPosition
      player.sendSelfPosition = (newPosition) => {
        original(newPosition)
        if (newPosition) { player.sendSelfPosition = original; resolve() }
      }
    })
  })

  // flying-squid 1.12.0 login.js: _sendPlayerList(toPlayer) writes the full
  // player list to everybody *except* the player who just joined, so a
  // newcomer never learns the names of those already online and mineflayer
  // drops their named_entity_spawn: they stay invisible. Send the newcomer the
  // list, then spawn the nearby entities for it once more.
  player.once('spawned', () => {
    const add = serv.supportFeature('playerInfoActionIsBitfield') ? { add_player: true } : 'add_player'
    const bitfield = typeof add !== 'string'
    player._client.write('player_info', {
      action: add,
      data: serv.players.map((other) => bitfield
        ? { uuid: other.uuid, player: { name: other.username, properties: other.profileProperties }, gamemode: other.gameMode, latency: other._client.latency }
        : { uuid: other.uuid, name: other.username, properties: other.profileProperties, gamemode: other.gameMode, ping: other._client.latency })
    })
    player.nearbyEntities = []
    player.updateAndSpawn()
  })

  // flying-squid 1.12.0 respawn.js compares client_command's actionId with 0, but
  // minecraft-data >= 3.x maps that field to the enum string 'perform_respawn' for
  // 1.16.5, so a dead client never respawns (stays at hp<=0). Same steps as
  // respawn.js, plus vanilla's reset of food and position to the spawn point.
  player._client.on('client_command', (data) => {
    const a = data.actionId !== undefined ? data.actionId : data.payload
    if (a !== 'perform_respawn') return
    if (player.health > 0) return
    player.behavior('requestRespawn', {}, () => {
      player._sendRespawn()
      player.food = 20
      player.foodSaturation = 5
      player.sendSelfPosition(player.spawnPoint ? player.spawnPoint.clone() : player.position)
      player.updateHealth(20)
      player.nearbyEntities = []
      player.updateAndSpawn()
      // A 1.16 respawn packet makes the client drop every chunk (vanilla resends
      // them; flying-squid does not): without them mineflayer's physics and
      // pathfinder stand still forever. Forget what was sent and send it again
      // (the server-side use counters stay up, so no column is unloaded here).
      for (const id of Object.keys(player.loadedChunks || {})) delete player.loadedChunks[id]
      player.worldSendRestOfChunks()
    })
  })
}

// The entity_metadata entry of a dropped item entity at this registry's version: its key
// (minecraft-data's metadataIxOfItem), the slot's metadata type (a number up to 1.20.1, the
// name item_stack after) and the item in the version's slot format (prismarine-item).
function droppedItemEntry (registry, Item) {
  const types = registry.protocol.types
  const key = registry.supportFeature('metadataIxOfItem')
  let type = null
  if (/"item_stack"/.test(JSON.stringify(types.entityMetadataEntry || types.entityMetadata))) {
    type = 'item_stack'
  } else {
    const fields = types.entityMetadataItem[1].fields
    for (const [code, kind] of Object.entries(fields)) if (kind === 'slot') type = Number(code)
  }
  if (type === null) throw new Error(`no slot metadata type at ${registry.version.minecraftVersion}`)
  return (entity) => ({
    key,
    type,
    value: Item.toNotch(new Item(entity.itemId, entity.itemCount || 1, entity.itemDamage || 0))
  })
}

// Whether this version's entity_teleport has the relative-move flags (1.21.2 and later).
function teleportHasFlags (registry) {
  const packet = registry.protocol.play.toClient.types.packet_entity_teleport
  return /"flags"/.test(JSON.stringify(packet || []))
}
