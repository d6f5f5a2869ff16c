'use strict'
// The test plugin's teleport (pepa_test_plugin.js, module.exports.player): a player teleported
// while a batch of chunks goes out to it still gets the chunks of its new place. flying-squid
// itself sends none after a teleport, and skips its own batches while one is going out; a client
// with no chunk under it runs no physics and sends no moves, so it waited there for ever.
//   node teleport_chunks.js
// Starts the embedded world (flat, no control channel) and one mineflayer client, holds the
// player's batches (its sendChunk waits on a gate), and twice: teleports it far, waits for the
// batch of that place to start (held), teleports it far again, marks the ground there, lets the
// batches go and waits for the client to see the mark. The login first: flying-squid sends the
// rest of a player's chunks, and any as it moves, only once it has ended.
// Prints JSON (alone: flying-squid's console is kept off stdout): loginSeconds (till the
// login's end, null if it had not ended in LOGIN_WITHIN_MS), rounds, one per round: {landed (the
// client saw the mark), seconds}.
const fs = require('fs')
const os = require('os')
const path = require('path')

const root = path.resolve(__dirname, '..', '..')
const modules = process.env.PEPA_NODE_MODULES || path.join(root, 'node_modules')
const { startServer } = require(path.join(root, 'pepa', 'world', 'js', 'server.js'))
const mineflayer = require(path.join(modules, 'mineflayer'))
const { Vec3 } = require(path.join(modules, 'vec3'))

const LOGIN_WITHIN_MS = 20000
const HOLD_MS = 1500 // the held batch goes on this long after the second teleport
const SEE_WITHIN_MS = 30000
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const print = process.stdout.write.bind(process.stdout)
process.stdout.write = () => true // flying-squid's console prompt

async function until (what, test, within) {
  const deadline = Date.now() + within
  while (!test()) {
    if (Date.now() > deadline) return false
    await sleep(20)
  }
  return true
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pepa-teleport-'))
  const { serv, port, close } = await startServer({ port: 0, worldDir: dir, controlPort: null, quiet: true })
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, username: 'probe', version: '1.16.5', logErrors: false })
  const report = { loginSeconds: null, rounds: [] }
  try {
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
    p.sendChunk = async (...args) => { if (gate) await gate.promise; return send.apply(p, args) }
    const gold = serv.registry.blocksByName.gold_block.defaultState
    const y = p.position.y
    for (const [a, b] of [[[300, 0], [600, 0]], [[600, 300], [300, 600]]]) {
      let release
      gate = { promise: new Promise(resolve => { release = resolve }) }
      await p.teleport(new Vec3(a[0] + 0.5, y, a[1] + 0.5))
      const held = await until('a batch for the first place', () => p.sendingChunks, SEE_WITHIN_MS)
      if (!held) throw new Error('no batch of chunks started after the first teleport')
      const there = new Vec3(b[0] + 0.5, y, b[1] + 0.5)
      await p.teleport(there) // while the batch for the first place is held
      const mark = there.floored().offset(0, -1, 0)
      await serv.setBlock(p.world, mark, gold)
      const marked = Date.now()
      await sleep(HOLD_MS)
      gate = null
      release()
      const landed = await until('the mark', () => bot.blockAt(mark)?.name === 'gold_block', SEE_WITHIN_MS)
      report.rounds.push({ landed, seconds: (Date.now() - marked) / 1000 })
    }
  } finally {
    bot.quit()
    await close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return report
}

main().then((report) => { print(JSON.stringify(report) + '\n'); process.exit(0) }, (err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
