'use strict'
// The bot's own JS module (pepa/link/js/bot_helper.js) as a test client: its
// actions run exactly as Python runs them, driven by JSON lines on stdin.
//   node helper_bot.js HOST PORT USERNAME
//   stdin:  {"id":1,"op":"smelt","args":["iron_ore",1,"coal"]}  (an action; its id goes first)
//           {"op":"stop","args":[]}  (an instant call: no id)
//           {"id":2,"op":"snapshot"} | {"id":3,"op":"digging"} | {"op":"quit"}
//           {"id":4,"op":"goal"} (the pathfinder's goal: its class and block) | {"op":"think","ms":N}
//           {"id":5,"op":"block","x":X,"y":Y,"z":Z} (the block's name as the client knows it)
//           {"id":13,"op":"state","x":X,"y":Y,"z":Z} (its state's properties as the client knows them)
//           {"id":6,"op":"toss","name":"dirt"} (throw a stack on the ground) | {"id":7,"op":"watch"}
//           {"id":8,"op":"use","x":X,"y":Y,"z":Z} (look at the point, then use the held item)
//           {"id":9,"op":"click","x":X,"y":Y,"z":Z,"face":[0,1,0],"use":true} (a click on that face
//           of the block: block_place; with use, use_item at once after it, as a vanilla client)
//           {"id":10,"op":"place","item":"red_bed","x":X,"y":Y,"z":Z,"face":[0,1,0]} (hold the item and
//           place it against that face of the block: mineflayer's placeBlock, which looks at the face)
//           {"id":11,"op":"dig","x":X,"y":Y,"z":Z,"item":"wooden_axe"?} (dig the block: bot.dig, the item
//           held first when named)
//           {"id":12,"op":"walk","x":X,"z":Z,"ms":N} (look level toward x, z and hold forward until the
//           feet are within 0.2 of it or N ms have passed: the client's own physics)
//           {"id":10,"op":"interact","entity":ID} (a right click on the entity with the held item:
//           use_entity, mineflayer's activateEntity)
//   stdout: every event bot_helper emits ({"type":"spawn"|"actionDone"|...}),
//           {"type":"ready"} once the server has ended the login,
//           {"type":"snapshot","id":2,"value":{..}}, {"type":"goal","id":4,"value":{..}|null},
//           {"type":"block","id":5,"value":"oak_log"|null}, {"type":"state","id":13,"value":{..}|null}, {"type":"toss","id":6,"value":true},
//           {"type":"watch","id":7,"value":true}, then {"type":"seen","entity":{id,name,kind,type}}
//           for every entity the client is told of (what bot_helper.js reports is the question),
//           {"type":"use","id":8,"value":true}, {"type":"click","id":9,"value":true},
//           {"type":"place"|"dig","id":..,"value":true|"error"},
//           {"type":"walk","id":12,"value":{"x":..,"y":..,"z":..}} (where the feet ended)
//           {"type":"interact","id":10,"value":true}
const path = require('path')
const readline = require('readline')
const { Vec3 } = require('vec3')
const { createBot } = require(path.join(__dirname, '..', '..', 'pepa', 'link', 'js', 'bot_helper.js'))

const [host, port, username] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const api = createBot({ host, port: Number(port), username, version: '1.16.5', respawn: true }, out)
const bot = api.bot

bot.once('spawn', () => {
  // flying-squid ends a login only when the client looks or moves (see crafter.js)
  const nudge = () => bot.look(bot.entity.yaw + 0.1, bot.entity.pitch, true)
  const nudging = setInterval(nudge, 500)
  bot.once('forcedMove', () => { clearInterval(nudging); out({ type: 'ready' }) })
  nudge()
})
bot.on('end', () => process.exit(0))

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const c = JSON.parse(line)
  if (c.op === 'quit') { api.quit('bye'); setTimeout(() => process.exit(0), 500); return }
  if (c.op === 'snapshot') { out({ type: 'snapshot', id: c.id, value: JSON.parse(api.snapshot()) }); return }
  if (c.op === 'think') { bot.pathfinder.thinkTimeout = Number(c.ms); return } // a search's time limit
  if (c.op === 'goal') {
    const g = bot.pathfinder.goal
    out({ type: 'goal', id: c.id, value: g && { name: g.constructor.name, pos: g.pos ? { x: g.pos.x, y: g.pos.y, z: g.pos.z } : null } })
    return
  }
  if (c.op === 'block') { // the block the bot's client knows at a cell (null: not loaded)
    const b = bot.blockAt(new Vec3(c.x, c.y, c.z))
    out({ type: 'block', id: c.id, value: b && b.name })
    return
  }
  if (c.op === 'toss') {
    const stack = bot.inventory.items().find((i) => i.name === c.name)
    if (!stack) { out({ type: 'toss', id: c.id, value: `no ${c.name}` }); return }
    bot.tossStack(stack).then(() => out({ type: 'toss', id: c.id, value: true }),
      (e) => out({ type: 'toss', id: c.id, value: String(e && e.message) }))
    return
  }
  if (c.op === 'watch') {
    bot.on('entitySpawn', (e) => out({ type: 'seen', entity: { id: e.id, name: e.name, kind: e.kind, type: e.type } }))
    out({ type: 'watch', id: c.id, value: true })
    return
  }
  if (c.op === 'use') { // the look goes out with the next physics tick; the use after it
    bot.lookAt(new Vec3(c.x, c.y, c.z), true)
      .then(() => new Promise((resolve) => { let n = 2; const t = () => { if (--n <= 0) { bot.off('physicsTick', t); resolve() } }; bot.on('physicsTick', t) }))
      .then(() => { bot.activateItem(); bot.usingHeldItem = false; out({ type: 'use', id: c.id, value: true }) },
        (e) => out({ type: 'use', id: c.id, value: String(e && e.message) }))
    return
  }
  if (c.op === 'click') {
    const face = new Vec3(...c.face)
    const cursor = new Vec3(0.5, 0.5, 0.5).plus(face.scaled(0.5))
    bot.activateBlock(bot.blockAt(new Vec3(c.x, c.y, c.z)), face, cursor).then(() => {
      if (c.use) { bot.activateItem(); bot.usingHeldItem = false }
      out({ type: 'click', id: c.id, value: true })
    }, (e) => out({ type: 'click', id: c.id, value: String(e && e.message) }))
    return
  }
  if (c.op === 'place') {
    const item = bot.inventory.items().find((i) => i.name === c.item)
    if (!item) { out({ type: 'place', id: c.id, value: `no ${c.item}` }); return }
    bot.equip(item, 'hand')
      .then(() => bot.placeBlock(bot.blockAt(new Vec3(c.x, c.y, c.z)), new Vec3(...c.face)))
      .then(() => out({ type: 'place', id: c.id, value: true }), (e) => out({ type: 'place', id: c.id, value: String(e && e.message) }))
    return
  }
  if (c.op === 'state') {
    const b = bot.blockAt(new Vec3(c.x, c.y, c.z))
    out({ type: 'state', id: c.id, value: b && b.getProperties() })
    return
  }
  if (c.op === 'dig') {
    const tool = c.item && bot.inventory.items().find((i) => i.name === c.item)
    if (c.item && !tool) { out({ type: 'dig', id: c.id, value: `no ${c.item}` }); return }
    ;(tool ? bot.equip(tool, 'hand') : Promise.resolve())
      .then(() => bot.dig(bot.blockAt(new Vec3(c.x, c.y, c.z)), true))
      .then(() => out({ type: 'dig', id: c.id, value: true }), (e) => out({ type: 'dig', id: c.id, value: String(e && e.message) }))
    return
  }
  if (c.op === 'walk') {
    const goal = new Vec3(c.x, bot.entity.position.y, c.z)
    const off = () => Math.hypot(bot.entity.position.x - c.x, bot.entity.position.z - c.z)
    const started = Date.now()
    bot.lookAt(goal.offset(0, bot.entity.height * 0.9, 0), true).then(() => {
      bot.setControlState('forward', true)
      const step = () => {
        if (off() > 0.2 && Date.now() - started < c.ms) return
        bot.removeListener('physicsTick', step)
        bot.setControlState('forward', false)
        const p = bot.entity.position
        out({ type: 'walk', id: c.id, value: { x: p.x, y: p.y, z: p.z } })
      }
      bot.on('physicsTick', step)
    })
    return
  }
  if (c.op === 'interact') {
    const e = bot.entities[c.entity]
    if (!e) { out({ type: 'interact', id: c.id, value: `no entity ${c.entity}` }); return }
    bot.activateEntity(e).then(() => out({ type: 'interact', id: c.id, value: true }),
      (err) => out({ type: 'interact', id: c.id, value: String(err && err.message) }))
    return
  }
  if (c.op === 'digging') { out({ type: 'digging', id: c.id, value: !!bot.targetDigBlock }); return }
  try {
    if (c.id == null) api[c.op](...(c.args || [])) // an instant call: its answer is not asked for
    else api[c.op](String(c.id), ...(c.args || []))
  } catch (e) {
    out({ type: 'actionDone', id: String(c.id), ok: false, error: String(e && e.message) })
  }
})
