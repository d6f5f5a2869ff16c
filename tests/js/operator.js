'use strict'
// A human stand-in for tests: a mineflayer client driven by JSON lines on stdin,
// reporting JSON lines on stdout.
//   node operator.js HOST PORT USERNAME [VERSION (default 1.16.5)]
//   stdin:  {"op":"chat","text":"pepa_bot come"} | {"op":"quit"}
//   stdout: {"type":"spawn","position":{x,y,z}} | {"type":"chat","from":..,"text":..}
//           {"type":"position","position":{..}} (answer to {"op":"where"}) | {"type":"end"}
const path = require('path')
const readline = require('readline')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const mineflayer = require(path.join(NM, 'mineflayer'))
const { Vec3 } = require(path.join(NM, 'vec3'))

const [host, port, username, version] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const xyz = (p) => ({ x: p.x, y: p.y, z: p.z })
// flying-squid can send a block break animation (the bot digging) before this client's
// login packet, which a busy machine makes likely; mineflayer then reads a world it has not
// made yet and the client dies. A block of no world yet is an unknown block: null.
const worldGuard = (bot) => {
  const blockAt = bot.blockAt
  bot.blockAt = (...args) => (bot.world ? blockAt(...args) : null)
}
const bot = mineflayer.createBot({ host, port: Number(port), username, version: version || '1.16.5', auth: 'offline', hideErrors: true, validateChannelProtocol: false, plugins: { worldGuard } })

// flying-squid ends a login by putting the player back where it joined, once the client
// sends a 'flying' or 'look' packet (which an idle mineflayer may never do): coming later, it
// would undo a test's teleport. So report the spawn only once the server has done that, as
// crafter.js does; the server may not listen yet for the first packet on a busy machine, so
// it goes again every half second.
bot.once('spawn', () => {
  let told = false
  const spawned = () => {
    if (told) return
    told = true
    clearInterval(nudging)
    clearTimeout(cap)
    out({ type: 'spawn', position: xyz(bot.entity.position) })
  }
  // from 1.21.2 the packet carries `flags` instead (as mineflayer's physics.js writes both):
  // `onGround` alone failed to serialize and the client lost its connection
  const nudge = () => bot._client.write('flying', {
    onGround: bot.entity.onGround,
    flags: { onGround: bot.entity.onGround, hasHorizontalCollision: false }
  })
  const nudging = setInterval(nudge, 500)
  const cap = setTimeout(spawned, 15000) // a server that never puts it back: report all the same
  bot.once('forcedMove', spawned)
  nudge()
})
bot.on('forcedMove', () => out({ type: 'moved', position: xyz(bot.entity.position) }))
bot.on('message', (msg, position) => {
  const line = msg.toString()
  const m = /^<(\w{1,16})> (.*)$/s.exec(line)
  if (m && m[1] === username) return
  out({ type: 'chat', from: m ? m[1] : null, text: m ? m[2] : line, position })
})
bot.on('end', (reason) => { out({ type: 'end', reason: String(reason) }); process.exit(0) })
bot.on('error', (err) => out({ type: 'error', message: String(err && err.message) }))

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let cmd
  try { cmd = JSON.parse(line) } catch (e) { return out({ type: 'error', message: 'bad json' }) }
  if (cmd.op === 'chat') bot.chat(String(cmd.text))
  else if (cmd.op === 'where') out({ type: 'position', position: bot.entity ? xyz(bot.entity.position) : null })
  else if (cmd.op === 'quit') bot.quit()
  else if (survival[cmd.op]) survival[cmd.op](cmd).catch((err) => out({ type: 'failed', op: cmd.op, error: String(err && err.message) }))
}).on('close', () => bot.quit())

// --- survival sandbox (tests/integration/worldserver/test_sandbox_life.py) --------------------------
//   stdin:  {"op":"eat","item":"bread"} | {"op":"attack","name":"cow"} | {"op":"sleep"} | {"op":"use_bed"}
//           {"op":"control","state":"jump","on":true} | {"op":"inventory"}
//           {"op":"shield","name":"skeleton"} | {"op":"unshield"} | {"op":"look","name":"enderman"} | {"op":"look","at":{x,y,z}}
//   stdout: {"type":"health","health","food","saturation"} on every update_health,
//           {"type":"ate"|"attacked"|"slept"|"wake"|"death"}, {"type":"inventory","items":[..]},
//           {"type":"breath","oxygen"} (0..20) on every air supply update, {"type":"shield"|"unshield"},
//           {"type":"failed","op","error"}
bot.on('health', () => out({ type: 'health', health: bot.health, food: bot.food, saturation: bot.foodSaturation }))
bot.on('wake', () => out({ type: 'wake' }))
bot.on('death', () => out({ type: 'death' }))
bot.on('breath', () => out({ type: 'breath', oxygen: bot.oxygenLevel }))
// What a world op has just made (a mob, a bed) may not have reached this client yet:
// the test's op and this client are separate sockets. Wait for it, on `event`.
function arrival (find, event, missing, ms = 10000) {
  const now = find()
  if (now) return Promise.resolve(now)
  return new Promise((resolve, reject) => {
    const check = () => { const found = find(); if (found) { done(); resolve(found) } }
    const timer = setTimeout(() => { done(); reject(new Error(missing)) }, ms)
    const done = () => { clearTimeout(timer); bot.removeListener(event, check) }
    bot.on(event, check)
  })
}
const sighted = (name) => arrival(() => bot.nearestEntity((e) => e.name === name), 'entitySpawn', `no ${name} in sight`)
const nearBed = () => arrival(() => bot.findBlock({ matching: (b) => bot.isABed(b), maxDistance: 4 }),
  'blockUpdate', 'no bed within 4 blocks')
const survival = {
  async eat ({ item }) {
    const food = bot.inventory.items().find((i) => i.name === item)
    if (!food) throw new Error(`no ${item}`)
    await bot.equip(food, 'hand')
    await bot.consume()
    out({ type: 'ate', item, food: bot.food, saturation: bot.foodSaturation })
  },
  // look at a mob's eyes (an enderman's: vanilla EnderMan.getStandingEyeHeight), or at a point
  async look ({ name, at }) {
    const point = name ? (await sighted(name)).position.offset(0, name === 'enderman' ? 2.55 : 1.6, 0) : new Vec3(at.x, at.y, at.z)
    await bot.lookAt(point, true)
    bot._client.write('look', { yaw: bot.entity.yaw, pitch: bot.entity.pitch, onGround: bot.entity.onGround }) // told at once
    out({ type: 'looked', name: name || null })
  },
  async attack ({ name }) {
    const target = await sighted(name)
    await bot.lookAt(target.position.offset(0, target.height / 2, 0), true)
    bot.attack(target)
    out({ type: 'attacked', id: target.id, name })
  },
  async sleep () {
    const bed = await nearBed()
    await bot.sleep(bed)
    out({ type: 'slept' })
  },
  // right-click the nearest bed without mineflayer's own checks: the server decides
  async use_bed () {
    const bed = await nearBed()
    await bot.activateBlock(bed)
    out({ type: 'used_bed' })
  },
  async control ({ state, on }) { bot.setControlState(state, !!on) },
  // raise the shield held in the off hand, facing the nearest `name` (tests/integration/worldserver/test_sandbox_damage.py)
  async shield ({ name }) {
    const target = await sighted(name)
    await bot.lookAt(target.position.offset(0, target.height / 2, 0), true)
    bot.activateItem(true)
    out({ type: 'shield', id: target.id })
  },
  async unshield () { bot.deactivateItem(); out({ type: 'unshield' }) },
  async inventory () {
    out({ type: 'inventory', items: bot.inventory.items().map((i) => ({ name: i.name, count: i.count })) })
  }
}
