'use strict'
// broadcast.js on minecraft-protocol's own server-side clients over loopback sockets
// (tests/fast/worldserver/test_broadcast.py): three players are told packets through serv._writeArray with the
// plugin, and each reference connection gets the same packets through its client's own
// client.write, with no plugin. Each player must read the bytes its reference reads.
//   node broadcast.js VERSION
// Prints {"same": [bool x3], "framed": [n x3], "bytes": [n x3]}: framed is how many frames went
// straight to each player's socket.
const net = require('net')
const path = require('path')

const root = path.resolve(__dirname, '..', '..')
const modules = process.env.PEPA_NODE_MODULES || path.join(root, 'node_modules')
const mc = require(path.join(modules, 'minecraft-protocol'))
const plugins = path.join(root, 'pepa', 'worldserver', 'js', 'fixes')
const { corking } = require(path.join(plugins, 'corked.js'))
const broadcast = require(path.join(plugins, 'broadcast.js'))

const version = process.argv[2]
const THRESHOLD = 256 // flying-squid's: packets this long or longer are compressed

const server = net.createServer()
const accepted = []
server.on('connection', (socket) => accepted.push(socket))

// a server-side client in play on a loopback connection, and what its other end read
async function connection () {
  const reader = net.connect(server.address().port, '127.0.0.1')
  await new Promise((resolve) => reader.once('connect', resolve))
  while (accepted.length === 0) await new Promise((resolve) => setImmediate(resolve))
  const client = new mc.Client(true, version)
  client.setSocket(accepted.shift())
  client.state = mc.states.PLAY
  client.compressionThreshold = THRESHOLD
  const read = []
  reader.on('data', (data) => read.push(data))
  return { client, reader, read: () => Buffer.concat(read) }
}

async function main () {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const players = []
  const references = []
  const told = [] // what each player was told, in order: its reference is told the same
  const framed = []
  for (let i = 0; i < 3; i++) {
    const player = await connection()
    corking(player.client, () => false)
    const writeFrame = player.client.pepaWriteFrame
    framed.push(0)
    player.client.pepaWriteFrame = (frame) => { framed[i]++; return writeFrame(frame) }
    players.push(player)
    references.push(await connection())
    told.push([])
  }
  const serv = {
    _writeArray: (name, params, to) => to.forEach((p) => p._client.write(name, params))
  }
  broadcast.server(serv)
  const everyone = players.map((p) => ({ _client: p.client }))
  const tell = (name, params, to = [0, 1, 2]) => {
    for (const i of to) told[i].push([name, params])
    serv._writeArray(name, params, to.map((i) => everyone[i]))
  }

  tell('animation', { entityId: 7, animation: 0 }) // shared, small: uncompressed
  tell('entity_destroy', { entityIds: Array.from({ length: 200 }, (_, i) => i + 1) }) // compressed
  tell('update_health', { health: 20, food: 20, foodSaturation: 5 }) // not shared
  tell('entity_head_rotation', { entityId: 7, headYaw: 12 }, [2]) // to one: its own stream
  // player 1 has a packet waiting in its framer: the next broadcast must not pass it
  players[1].client.framer.cork()
  told[1].push(['animation', { entityId: 8, animation: 0 }])
  players[1].client.write('animation', { entityId: 8, animation: 0 })
  tell('animation', { entityId: 9, animation: 0 })
  players[1].client.framer.uncork()
  tell('block_break_animation', { entityId: 10, location: { x: 1, y: 64, z: -3 }, destroyStage: 4 })

  for (let i = 0; i < 3; i++) {
    for (const [name, params] of told[i]) references[i].client.write(name, params)
  }
  const deadline = Date.now() + 15000
  const done = () => players.every((p, i) => {
    const want = references[i].read().length
    return want > 0 && p.read().length >= want
  })
  while (!done()) {
    if (Date.now() > deadline) throw new Error('not everything was read in 15 s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const report = {
    same: players.map((p, i) => p.read().equals(references[i].read())),
    framed,
    bytes: players.map((p) => p.read().length)
  }
  process.stdout.write(JSON.stringify(report) + '\n')
  process.exit(0)
}

main().catch((err) => { console.error(err); process.exit(1) })
