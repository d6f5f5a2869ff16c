'use strict'
// The world's teleport and setBlock (pepa/worldserver/js/fixes/: teleport_chunks.js,
// teleport_confirm.js, set_block.js): a player teleported while a batch of chunks goes out to it
// still gets the chunks of its new place. flying-squid itself sends none after a teleport, and
// skips its own batches while one is going out; a client with no chunk under it runs no physics
// and sends no moves, so it waited there for ever.
//   node teleport_chunks.js
// Starts the embedded world (flat, no control channel) and one mineflayer client, holds the
// player's batches (its sendChunk waits on a gate), and twice: teleports it far, waits for the
// batch of that place to start (held), teleports it far again, marks the ground there, lets the
// batches go and waits for the client to see the mark. Then sets a block in the chunk a batch
// holds, letting the chunk go as flying-squid changes the world. The login first: flying-squid
// sends the rest of a player's chunks, and any as it moves, only once it has ended.
// Prints JSON (alone: flying-squid's console is kept off stdout): loginSeconds (till the
// login's end, null if it had not ended in LOGIN_WITHIN_MS), rounds, one per round: {landed (the
// client saw the mark), seconds}.
const path = require('path')
const { modules, sleep, until, run } = require('./one_world')
const mineflayer = require(path.join(modules, 'mineflayer'))
const { Vec3 } = require(path.join(modules, 'vec3'))

const LOGIN_WITHIN_MS = 20000
const HOLD_MS = 1500 // the held batch goes on this long after the second teleport
const SEE_WITHIN_MS = 30000

run('pepa-teleport-', async ({ serv, port, atEnd }) => {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'probe', version: '1.16.5', logErrors: false, validateChannelProtocol: false })
  atEnd(() => bot.quit())
  const report = { loginSeconds: null, rounds: [] }
  await new Promise((resolve, reject) => { bot.once('spawn', resolve); bot.once('end', reject) })
  const p = serv.getPlayer('probe')
  // the login's last move would undo an earlier teleport; a client that only sends `position`
  // packets (this one: it never looks round) finishes it too
  const started = Date.now()
  const login = await Promise.race([p._pepaReady.then(() => true), sleep(LOGIN_WITHIN_MS).then(() => false)])
  report.loginSeconds = login ? (Date.now() - started) / 1000 : null
  if (!login) return report
  const send = p.sendChunk
  let gate = null
  let held = null // the first chunk a gate held: [chunkX, chunkZ], and its send once let go
  p.sendChunk = async (...args) => {
    if (!gate) return send.apply(p, args)
    const sent = gate.promise.then(() => send.apply(p, args))
    if (!held) held = { chunk: args.slice(0, 2), sent }
    return sent
  }
  const gold = serv.registry.blocksByName.gold_block.defaultState
  const y = p.position.y
  for (const [a, b] of [[[300, 0], [600, 0]], [[600, 300], [300, 600]]]) {
    let release
    gate = { promise: new Promise(resolve => { release = resolve }) }
    await p.teleport(new Vec3(a[0] + 0.5, y, a[1] + 0.5))
    if (!await until(() => p.sendingChunks, SEE_WITHIN_MS)) {
      throw new Error('no batch of chunks started after the first teleport')
    }
    const there = new Vec3(b[0] + 0.5, y, b[1] + 0.5)
    await p.teleport(there) // while the batch for the first place is held
    const mark = there.floored().offset(0, -1, 0)
    await serv.setBlock(p.world, mark, gold)
    const marked = Date.now()
    await sleep(HOLD_MS)
    gate = null
    release()
    const landed = await until(() => bot.blockAt(mark)?.name === 'gold_block', SEE_WITHIN_MS)
    report.rounds.push({ landed, seconds: (Date.now() - marked) / 1000 })
  }
  // the last round: a block set while the chunk that holds it goes out to a client that has
  // not got it yet (the chunk is let go between flying-squid's block_change and its change
  // of the world, where the old setBlock had them a turn of the event loop apart)
  let release
  gate = { promise: new Promise(resolve => { release = resolve }) }
  held = null
  await p.teleport(new Vec3(900.5, y, 900.5))
  if (!await until(() => held !== null, SEE_WITHIN_MS)) throw new Error('no chunk sent after the teleport')
  const [chunkX, chunkZ] = held.chunk
  const mark = new Vec3(chunkX * 16 + 8, y - 1, chunkZ * 16 + 8)
  const world = p.world
  const change = world.setBlockStateId
  world.setBlockStateId = async (...args) => {
    world.setBlockStateId = change
    gate = null
    release()
    await held.sent // dumped and written
    return change.apply(world, args)
  }
  const marked = Date.now()
  await serv.setBlock(world, mark, gold)
  const landed = await until(() => bot.blockAt(mark)?.name === 'gold_block', SEE_WITHIN_MS)
  report.rounds.push({ landed, seconds: (Date.now() - marked) / 1000 })
  return report
})
