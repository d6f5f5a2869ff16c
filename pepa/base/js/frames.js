'use strict'
// How a bridge's bots read the server's packets (tests/fast/base/test_frames.py, bench/packet_read.py).
//
// minecraft-protocol reads a connection through a socket stream and three more, one stage each:
// socket -> splitter (frames) -> decompressor -> deserializer -> the client's packet events.
// Every read and every frame goes through stream machinery (a push, a 'data' event, a write, a
// transform, each with its state checks and buffering): an idle bot gets some 100 packets a
// second (other entities' moves), mostly one to a read. Here the socket is read with `onread`
// (directConnect: the read handed to a callback) and split at once, and readDirect(client)
// does the rest in one synchronous call per frame: the same decompression
// (Decompressor._transform), the same parse (FullPacketParser.parsePacketBuffer), the same
// packet handed to the deserializer's 'data' listener, which is the client's own (bundles,
// metadata, the four events). The client's deserializer and decompressor are looked up for
// every frame: a state change or compression switched on in a packet's handler applies to
// the next frame, as through the streams. The streams stay piped, idle. Measured over loopback
// (bench/packet_read.py): some 20 % less CPU a packet.

const dns = require('dns')
const net = require('net')
const zlib = require('zlib')

// protodef's readVarInt, returning null where it throws a PartialReadError (both mean: wait);
// a length over 64 bits is a broken stream, thrown as protodef does
function peekVarInt (buffer, offset) {
  let value = 0
  let shift = 0
  let cursor = offset
  while (true) {
    if (cursor >= buffer.length) return null
    const byte = buffer[cursor]
    value |= (byte & 0x7F) << shift
    cursor++
    if (!(byte & 0x80)) return { value, size: cursor - offset }
    shift += 7
    if (shift > 64) throw new Error(`varint is too big: ${shift}`)
  }
}

// minecraft-protocol's frame splitter reads the next frame's length at the end of every TCP
// chunk, and a length not in yet is a thrown PartialReadError with its stack trace captured
// (twice): with 4 idle bots that was 13 % of a bridge's JS time. The same frames, split the
// same way, with the length peeked instead: no exception when it is not there. A splitter
// with a `direct` function hands each frame to it instead of pushing it down the streams.
// (framing: mineflayer's own copy of minecraft-protocol's transforms/framing, wherever npm put it)
function peekingSplitter (framing) {
  const Splitter = Object.getPrototypeOf(framing.createSplitter())
  if (Splitter.pepaPeeking) return
  const splitThrowing = Splitter._transform
  Splitter._transform = function (chunk, enc, cb) {
    if (this.recognizeLegacyPing) return splitThrowing.call(this, chunk, enc, cb) // a server's
    split(this, chunk)
    return cb()
  }
  Splitter.pepaPeeking = true
}
const EMPTY = Buffer.alloc(0)

// the frames of `chunk` after what `splitter` kept of the chunks before, each pushed down its
// streams or handed to its `direct` function; what is left of a frame is kept for the next
function split (splitter, chunk) {
  const buffer = splitter.buffer.length ? Buffer.concat([splitter.buffer, chunk]) : chunk
  const frames = []
  let offset = 0
  let next = peekVarInt(buffer, offset)
  while (next && buffer.length >= offset + next.size + next.value) {
    frames.push(buffer.subarray(offset + next.size, offset + next.size + next.value))
    offset += next.size + next.value
    next = peekVarInt(buffer, offset)
  }
  // kept before any frame is handed on: a handler that throws leaves no frame to read twice
  splitter.buffer = offset === buffer.length ? EMPTY : buffer.subarray(offset)
  const direct = splitter.direct
  for (const frame of frames) {
    if (direct) direct(frame)
    else splitter.push(frame)
  }
}

// Read `client`'s frames without the decompressor and deserializer streams (above)
function readDirect (client) {
  client.splitter.direct = (frame) => readFrame(client, frame)
}

// createClient's `connect` option: the connection tcp_dns.js makes (a name on the default port
// looked up as an SRV record first), its socket read with `onread`: Node hands each read to
// a callback, with no stream push, 'data' event and pipe write for it (most of a bridge's reads
// are one small packet). A read is copied out of the socket's buffer, which the next read
// reuses, and goes where the socket's pipe would have taken it: to the decipher once the
// connection is encrypted (online servers), else to the splitter, split at once.
const READ_BUFFER = 64 * 1024
function directConnect (host = 'localhost', port = 25565) {
  return (client) => {
    const open = (p, h) => client.setSocket(net.connect({
      port: p,
      host: h,
      onread: { buffer: Buffer.allocUnsafe(READ_BUFFER), callback: (n, buf) => { take(client, Buffer.from(buf.subarray(0, n))) } }
    }))
    if (port !== 25565 || net.isIP(host) !== 0 || host === 'localhost') return open(port, host)
    dns.resolveSrv('_minecraft._tcp.' + host, (err, addresses) => {
      if (!err && addresses && addresses.length > 0) open(addresses[0].port, addresses[0].name)
      else open(port, host)
    })
  }
}
function take (client, chunk) {
  if (client.decipher) client.decipher.write(chunk)
  else split(client.splitter, chunk)
}

function readFrame (client, frame) {
  let buf = frame
  const decompressor = client.decompressor // set once the server switched compression on
  if (decompressor) {
    const head = peekVarInt(frame, 0)
    if (!head) return client.emit('error', new Error('a compressed frame without its length'))
    if (head.value === 0) buf = frame.subarray(head.size)
    else {
      try {
        buf = zlib.unzipSync(frame.subarray(head.size), { finishFlush: 2 })
      } catch (e) {
        return // dropped, as the Decompressor does (it logs only without hideErrors)
      }
    }
  }
  const deserializer = client.deserializer
  let packet
  try {
    packet = deserializer.parsePacketBuffer(buf)
  } catch (e) {
    if (e.partialReadError) return // dropped, as FullPacketParser does
    // as the stream raises it: an errored stream is unpiped from its source, and the client's
    // listener pipes it again, names the packet and state and re-emits it as its own 'error'
    e.buffer = buf
    ;(decompressor || client.splitter).unpipe(deserializer)
    deserializer.emit('error', e)
    return
  }
  deserializer.emit('data', packet)
}

module.exports = { peekingSplitter, readDirect, directConnect }
