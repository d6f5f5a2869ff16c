'use strict'
// What the scripts that start the embedded world in their own process share (glance.js,
// teleport_chunks.js, spawn_metadata.js, tracking.js): the world (flat, no control channel, at
// 1.16.5 or the version given) in a temporary folder, its console kept off stdout, waits, and
// the end: the scenario's clean-up, the world closed and its folder removed, then its report as
// one JSON line on stdout (exit 0), or the error on stderr (exit 1).
//   require('./one_world').run('pepa-name-', async ({ serv, port, atEnd }) => report[, { version }])
// and, for scripts that watch what the server sends: plain minecraft-protocol clients joined
// (plainClients), a marker that tells each has everything sent before (everythingSent), a zombie
// that spawns at any version (zombieType).
const fs = require('fs')
const os = require('os')
const path = require('path')

const root = path.resolve(__dirname, '..', '..')
const modules = process.env.PEPA_NODE_MODULES || path.join(root, 'node_modules')
const { startServer } = require(path.join(root, 'pepa', 'worldserver', 'js', 'server.js'))

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

const MARKER = 2147483000 // an entity id no entity has
const SPAWNS = new Set(['spawn_entity', 'spawn_entity_living']) // the packets that show an entity

// Plain minecraft-protocol clients, one per name, once the server's login of each is done:
// { clients, players } (each client counts the markers it got; players: theirs on the server).
// confirming: the clients confirm the server's teleports, as a client that moves must (the test
// plugin drops its moves until it has).
async function plainClients ({ serv, port, names, version, atEnd, confirming = false }) {
  const mc = require(path.join(modules, 'minecraft-protocol'))
  const clients = names.map((username) => {
    const client = mc.createClient({ host: '127.0.0.1', port, username, version, validateChannelProtocol: false })
    atEnd(() => client.end())
    client.markers = 0
    if (confirming) client.on('position', ({ teleportId }) => client.write('teleport_confirm', { teleportId }))
    // flying-squid's login ends when the client sends a look after its health (mineflayer's spawn)
    client.once('update_health', () => client.write('look', { yaw: 0, pitch: 0, onGround: true }))
    client.on('packet', (data, meta) => {
      if (meta.name === 'entity_status' && data.entityId === MARKER) client.markers++
    })
    return client
  })
  const players = () => names.map((n) => serv.getPlayer(n))
  if (!await until(() => players().every((p) => p && p._pepaReady))) throw new Error('the clients never joined')
  await Promise.all(players().map((p) => p._pepaReady))
  return { clients, players: players() }
}

// A marker packet to each player, and back once every client has it: TCP keeps the order, so a
// client then has everything the server wrote to it before
async function everythingSent (clients, players) {
  const want = clients.map((c) => c.markers + 1)
  for (const p of players) p._client.write('entity_status', { entityId: MARKER, entityStatus: 0 })
  if (!await until(() => clients.every((c, i) => c.markers >= want[i]))) throw new Error('a marker never came')
}

// the zombie's entity type, registered where flying-squid's spawnMob looks it up (as spawn_mob does)
function zombieType (serv) {
  const type = serv.registry.entitiesByName.zombie
  if (!serv.registry.mobs[type.id]) serv.registry.mobs[type.id] = type
  return type
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

module.exports = { root, modules, sleep, until, run, plainClients, everythingSent, zombieType, SPAWNS }
