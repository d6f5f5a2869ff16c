'use strict'
// What the scripts that start the embedded world in their own process share (glance.js,
// teleport_chunks.js, spawn_metadata.js, tracking.js): the world (flat, no control channel, at
// 1.16.5 or the version given) in a temporary folder, its console kept off stdout, waits, and
// the end: the scenario's clean-up, the world closed and its folder removed, then its report as
// one JSON line on stdout (exit 0), or the error on stderr (exit 1).
//   require('./one_world').run('pepa-name-', async ({ serv, port, atEnd }) => report[, { version }])
const fs = require('fs')
const os = require('os')
const path = require('path')

const root = path.resolve(__dirname, '..', '..')
const modules = process.env.PEPA_NODE_MODULES || path.join(root, 'node_modules')
const { startServer } = require(path.join(root, 'pepa', 'world', 'js', 'server.js'))

const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))
const print = process.stdout.write.bind(process.stdout)
process.stdout.write = () => true // flying-squid's console prompt

const WITHIN_MS = 20000

// Whether test() came true within `within` ms (looked at every 20 ms).
async function until (test, within = WITHIN_MS) {
  const deadline = Date.now() + within
  while (!test()) {
    if (Date.now() > deadline) return false
    await sleep(20)
  }
  return true
}

// scenario({ serv, port, atEnd }): atEnd(fn) has fn run before the world closes (a bot's quit)
function run (prefix, scenario, { version } = {}) {
  const main = async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
    const { serv, port, close } = await startServer({ port: 0, worldDir: dir, controlPort: null, quiet: true, version })
    const ends = []
    try {
      return await scenario({ serv, port, atEnd: (fn) => ends.push(fn) })
    } finally {
      for (const end of ends) end()
      await close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  main().then(
    (report) => { print(JSON.stringify(report) + '\n'); process.exit(0) },
    (err) => { process.stderr.write(String(err && err.stack) + '\n'); process.exit(1) })
}

module.exports = { root, modules, sleep, until, run }
