'use strict'
// A bot's packet reading (pepa/base/js/frames.js) against minecraft-protocol's own streams.
//   node frames.js check|socket|encrypted|all VERSION SEED   (all: the three, by name)
//   node frames.js bench VERSION PACKETS ROUNDS
// Two clients of mineflayer's minecraft-protocol get the same bytes, as a server sends them:
// one reads through its streams (the stock reading, with frames.js's splitter, which only
// peeks lengths), the other with readDirect.
// check: the login state with compression switched on and the switch to play in mid-chunk (as
// mineflayer's handlers do it), then play packets of many kinds (small ones, and large ones
// that are compressed), frames that do not parse or inflate, and more packets; written into
// the splitters in chunks of random sizes. socket: the same sent by a TCP server on loopback,
// the direct client connected by directConnect (read with onread); encrypted: both encrypted.
// Prints JSON: sent (the packets that parse), packets and direct_packets (each client's packet
// events), names, same (identical, in order), errors, direct_errors, first_difference.
// bench: a child process (serve) sends PACKETS play packets of an idle bot's mix (other
// entities' moves, looks, head turns, velocities, now and then a large one) over loopback to a
// stream client and a direct one in turn, ROUNDS times each. Prints JSON: per round the
// client's CPU microseconds per packet, streams_us and direct_us.
const path = require('path')
const crypto = require('crypto')
const net = require('net')
const zlib = require('zlib')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const SERVER_JS = path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js') // the world server's
const mcp = path.dirname(require.resolve('minecraft-protocol/package.json', { paths: [path.join(NM, 'mineflayer')] }))
const { Client } = require(mcp)
const { createSerializer } = require(path.join(mcp, 'src', 'transforms', 'serializer'))
const framing = require(path.join(mcp, 'src', 'transforms', 'framing'))
const { peekingSplitter, readDirect, directConnect } = require(path.resolve(__dirname, '..', '..', 'pepa', 'base', 'js', 'frames.js'))
const { seeded } = require(path.join(SERVER_JS, 'life', 'state.js'))

peekingSplitter(framing)
const [mode, version] = [process.argv[2], process.argv[3] || '1.16.5']
const THRESHOLD = 256

function varint (n) {
  const out = []
  do { let b = n & 0x7F; n >>>= 7; if (n) b |= 0x80; out.push(b) } while (n)
  return Buffer.from(out)
}
const frame = (payload) => Buffer.concat([varint(payload.length), payload])
// a packet as a server writes it: compressed at the threshold once compression is on
function wire (buf, compressed) {
  if (!compressed) return frame(buf)
  if (buf.length >= THRESHOLD) return frame(Buffer.concat([varint(buf.length), zlib.deflateSync(buf)]))
  return frame(Buffer.concat([varint(0), buf]))
}

const mcData = require(require.resolve('minecraft-data', { paths: [mcp] }))(version)
const protocol = mcData.protocol
const loginOut = createSerializer({ state: 'login', isServer: true, version })
const playOut = createSerializer({ state: 'play', isServer: true, version })
const play = (name, params) => playOut.createPacketBuffer({ name, params })
// the fields of a version's packets that the mix uses and that versions differ in
const fields = (name) => protocol.play.toClient.types[`packet_${name}`][1].map((f) => f.name)
const TICKS = fields('update_time').includes('tickDayTime') ? { tickDayTime: true } : {}
const CONFIGURED = !!protocol.configuration // 1.20.2 on: login, configuration, then play
const success = { uuid: '00000000-0000-0000-0000-000000000001', username: 'pepa', properties: [] }
// a message long enough to be compressed
const longChat = (text) => protocol.play.toClient.types.packet_system_chat
  ? play('system_chat', { content: { type: 'compound', name: '', value: { text: { type: 'string', value: text } } }, isActionBar: false })
  : play('chat', { message: JSON.stringify({ text }), position: 0, sender: '00000000-0000-0000-0000-000000000000' })
const MOVE_ID = play('rel_entity_move', { entityId: 1, dX: 0, dY: 0, dZ: 0, onGround: true }).subarray(0, 1)

// an idle bot's packets: the moves of the animals and bots around it, and now and then a large one
function idleMix (count, rnd) {
  const out = []
  for (let i = 0; i < count; i++) {
    const entityId = 100 + Math.floor(rnd() * 40)
    const r = rnd()
    if (r < 0.45) out.push(play('rel_entity_move', { entityId, dX: 12, dY: 0, dZ: -40, onGround: true }))
    else if (r < 0.65) out.push(play('entity_look', { entityId, yaw: 12, pitch: 0, onGround: true }))
    else if (r < 0.85) out.push(play('entity_head_rotation', { entityId, headYaw: 12 }))
    else if (r < 0.93) out.push(play('entity_velocity', { entityId, velocity: { x: 10, y: -600, z: 0 } }))
    else if (r < 0.97) out.push(play('entity_move_look', { entityId, dX: 1, dY: 0, dZ: 2, yaw: 3, pitch: 4, onGround: true }))
    else if (r < 0.99) out.push(play('update_time', { age: [0, 1000 + i], time: [0, 6000 + i], ...TICKS }))
    else out.push(longChat('x'.repeat(300 + (i % 200))))
  }
  return out
}

// bytes cut into chunks: random sizes (check) or whole frames, 1 to 6 of them (bench)
function chunksOf (bytes, rnd, maxSize) {
  const out = []
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(rnd() * maxSize)
    out.push(bytes.subarray(at, at + size))
    at += size
  }
  return out
}
function frameChunks (frames, rnd) {
  const out = []
  for (let i = 0; i < frames.length;) {
    const n = 1 + Math.floor(rnd() * 6)
    out.push(Buffer.concat(frames.slice(i, i + n)))
    i += n
  }
  return out
}

// a client in the play state with compression on, or (login) as it starts, switched on by the
// packets as mineflayer's handlers switch it; its packet events and errors recorded
function client (direct, login) {
  const c = new Client(false, version, undefined, true)
  if (direct) readDirect(c)
  c.seen = []
  c.errors = []
  c.on('packet', (data, meta) => c.seen.push([meta.state, meta.name, data]))
  c.on('error', (e) => c.errors.push(String(e.message).slice(0, 200)))
  if (login) {
    c.state = 'login'
    c.on('compress', (p) => { c.compressionThreshold = p.threshold })
    c.on('success', () => { c.state = CONFIGURED ? 'configuration' : 'play' })
    c.on('finish_configuration', () => { c.state = 'play' })
  } else {
    c.state = 'play'
    c.compressionThreshold = THRESHOLD
  }
  return c
}

const settle = () => new Promise((resolve) => setImmediate(resolve))
const bigints = (k, v) => typeof v === 'bigint' ? String(v) : v

// what a server sends in the check: login, compression, play packets, bad frames among them
function checkBytes (rnd) {
  return Buffer.concat([
    frame(loginOut.createPacketBuffer({ name: 'compress', params: { threshold: THRESHOLD } })),
    wire(loginOut.createPacketBuffer({ name: 'success', params: success }), true),
    ...(CONFIGURED ? [wire(createSerializer({ state: 'configuration', isServer: true, version }).createPacketBuffer({ name: 'finish_configuration', params: {} }), true)] : []),
    ...idleMix(400, rnd).map((b) => wire(b, true)),
    wire(Buffer.concat([MOVE_ID, Buffer.alloc(12, 0xff)]), true), // an entity id too long to read
    frame(Buffer.concat([varint(500), Buffer.from('not deflated at all')])), // does not inflate
    wire(play('rel_entity_move', { entityId: 1, dX: 1, dY: 2, dZ: 3, onGround: true }).subarray(0, 4), true), // cut short
    ...idleMix(100, rnd).map((b) => wire(b, true))
  ])
}
const GOOD = 2 + (CONFIGURED ? 1 : 0) + 400 + 100 // the packets of checkBytes that parse

// the two clients' packet events compared
function compared (streams, direct, extra) {
  const a = streams.seen.map((p) => JSON.stringify(p, bigints))
  const b = direct.seen.map((p) => JSON.stringify(p, bigints))
  const firstDiff = a.findIndex((x, i) => x !== b[i])
  return Object.assign({
    sent: GOOD,
    packets: a.length,
    direct_packets: b.length,
    names: [...new Set(streams.seen.map(([state, name]) => `${state}.${name}`))],
    same: a.length === b.length && firstDiff === -1,
    first_difference: firstDiff === -1 ? null : [a[firstDiff], b[firstDiff]],
    errors: streams.errors,
    direct_errors: direct.errors
  }, extra)
}

// check: the bytes written straight into each client's splitter, in chunks of random sizes
async function check () {
  const rnd = seeded(Number(process.argv[4] || 1))
  const chunks = chunksOf(checkBytes(rnd), rnd, 300)
  const streams = client(false, true)
  const direct = client(true, true)
  for (const chunk of chunks) { streams.splitter.write(chunk); direct.splitter.write(chunk) }
  for (let i = 0; i < 20; i++) await settle()
  return compared(streams, direct, { chunks: chunks.length })
}

// socket / encrypted: the bytes sent by a TCP server on loopback, a write of a random size per
// turn of its loop, to a client on a stream socket and one connected by directConnect (read
// with onread); encrypted: both connections encrypted from their first byte (aes-128-cfb8, as
// minecraft-protocol's setEncryption), as online servers do after the login's key exchange
async function checkSocket (encrypted) {
  const seed = Number(process.argv[4] || 1)
  const bytes = checkBytes(seeded(seed))
  const secret = Buffer.alloc(16, 7)
  const server = net.createServer((sock) => {
    sock.setNoDelay(true)
    const cipher = encrypted ? crypto.createCipheriv('aes-128-cfb8', secret, secret) : null
    const chunks = chunksOf(bytes, seeded(seed + 1), 300)
    let i = 0
    const next = () => {
      if (i >= chunks.length || sock.destroyed) return
      const chunk = chunks[i++]
      sock.write(cipher ? cipher.update(chunk) : chunk)
      setImmediate(next)
    }
    next()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = server.address().port
  const streams = client(false, true)
  const direct = client(true, true)
  streams.setSocket(net.connect(port, '127.0.0.1'))
  directConnect('127.0.0.1', port)(direct)
  if (encrypted) { streams.setEncryption(secret); direct.setEncryption(secret) }
  const deadline = Date.now() + 20000
  while ((streams.seen.length < GOOD || direct.seen.length < GOOD) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  for (const c of [streams, direct]) c.socket.destroy()
  server.close()
  return compared(streams, direct, { encrypted })
}

// bench: a child process serves the packets (serve), the clients read them over loopback
async function bench () {
  const [count, rounds] = [Number(process.argv[4] || 20000), Number(process.argv[5] || 5)]
  const child = require('child_process').spawn(process.execPath, [__filename, 'serve', version, count], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))))
  const out = { packets: count, streams_us: [], direct_us: [] }
  const read = async (side) => {
    const c = client(side === 'direct', false)
    const t = process.cpuUsage()
    if (side === 'direct') directConnect('127.0.0.1', port)(c)
    else c.setSocket(net.connect(port, '127.0.0.1'))
    while (c.seen.length < count) await new Promise((resolve) => setTimeout(resolve, 5))
    const used = process.cpuUsage(t)
    c.socket.destroy()
    out[`${side}_us`].push((used.user + used.system) / count)
  }
  await read('streams'); await read('direct') // warm both
  for (let i = 0; i < rounds; i++) { await read('streams'); await read('direct') }
  out.streams_us.splice(0, 1); out.direct_us.splice(0, 1)
  child.kill()
  return out
}

// serve: to each connection, PACKETS play packets of an idle bot's mix as a server sends them
// (compressed at the threshold, Nagle off), in writes of 1-6 frames, 2 writes a millisecond
// (a read each for the client, as on an idle bridge, where packets come one by one)
async function serve () {
  const count = Number(process.argv[4] || 20000)
  const rnd = seeded(7)
  const chunks = frameChunks(idleMix(count, rnd).map((b) => wire(b, true)), rnd)
  const server = net.createServer((sock) => {
    sock.setNoDelay(true)
    let i = 0
    const timer = setInterval(() => {
      for (let k = 0; k < 2 && i < chunks.length; k++) sock.write(chunks[i++])
      if (i >= chunks.length) clearInterval(timer)
    }, 1)
    sock.on('error', () => {})
    sock.on('close', () => clearInterval(timer))
  })
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
  await new Promise(() => {}) // until killed
}

const checks = { check, socket: () => checkSocket(false), encrypted: () => checkSocket(true) }
// all: the three checks in one process, their reports by name
async function all () {
  const out = {}
  for (const [name, run] of Object.entries(checks)) out[name] = await run()
  return out
}

;({ bench, serve, all, ...checks })[mode]().then(
  (report) => { process.stdout.write(JSON.stringify(report)); process.exit(0) },
  (e) => { process.stderr.write(String(e && e.stack)); process.exit(1) })
