'use strict'
// A packet told to many players is built once. flying-squid writes what one player does (a
// swing, a dig's crack stage, a move) to each player near on its own: 31 serializations, 31
// compression stages and 31 frames for the same bytes when 32 bots work together. In a CPU
// profile of the world with 32 working bots (docs/fleet.md), the packet stages under those
// writes were a fifth of its busy time. Here the frame is built once (serialized, compressed
// or marked uncompressed, length-prefixed: what the client's own streams make of the packet)
// and written to each player's socket as it is (corked.js's pepaWriteFrame).
//
// Only where nothing could tell the difference:
// - packets in SHARED, which no pepa plugin rewrites per player (entity_teleport is rewritten
//   for new versions in teleport_packet.js, and stays on the players' own streams);
// - players in play, with no encryption (an online-mode server ciphers each connection), a
//   writable serializer, and nothing waiting in their serializer, compressor or framer: the
//   frame would otherwise pass packets written before it. Any other player gets the packet
//   through its own client.write, as before.
// A packet that fails to serialize fails on each player's own stream, as before.

const zlib = require('zlib')
const [, writeVarInt, sizeOfVarInt] = require('protodef').types.varint

const SHARED = new Set([
  'animation', 'block_break_animation', 'rel_entity_move', 'entity_look', 'entity_move_look',
  'entity_head_rotation', 'entity_velocity', 'entity_status', 'entity_metadata', 'entity_destroy',
  'entity_equipment', 'block_change', 'collect'
])

module.exports.server = function (serv) {
  const each = serv._writeArray
  serv._writeArray = (name, params, players) => {
    if (players.length < 2 || !SHARED.has(name)) return each(name, params, players)
    const built = [] // { proto, threshold, frame } for each kind of stream met (one, in practice)
    for (const player of players) {
      const client = player._client
      const frame = direct(client) ? frameFor(built, client, name, params) : null
      if (frame) client.pepaWriteFrame(frame)
      else client.write(name, params)
    }
  }
}

// whether a frame written straight to the client's socket arrives where client.write's would
function direct (client) {
  const socket = client.socket
  return client.state === 'play' && client.cipher == null &&
    typeof client.pepaWriteFrame === 'function' && socket && !socket.destroyed && socket.writable &&
    client.serializer.writable && idle(client.serializer) && idle(client.framer) &&
    (client.compressor == null || idle(client.compressor))
}

function idle (stream) {
  return stream.writableLength === 0 && stream.readableLength === 0
}

function frameFor (built, client, name, params) {
  const proto = client.serializer.proto
  const threshold = client.compressor == null ? null : client.compressor.compressionThreshold
  let entry = built.find((b) => b.proto === proto && b.threshold === threshold)
  if (!entry) {
    let frame = null
    try {
      frame = frameOf(client.serializer.createPacketBuffer({ name, params }), threshold)
    } catch (err) {} // the client's own stream meets the same error, as before
    entry = { proto, threshold, frame }
    built.push(entry)
  }
  return entry.frame
}

// the bytes minecraft-protocol's compressor (when there is one) and framer make of a packet
function frameOf (packet, threshold) {
  const body = threshold == null ? packet : compressed(packet, threshold)
  const frame = Buffer.alloc(sizeOfVarInt(body.length) + body.length)
  body.copy(frame, writeVarInt(body.length, frame, 0))
  return frame
}

function compressed (packet, threshold) {
  const data = packet.length >= threshold ? zlib.deflateSync(packet) : packet
  const length = packet.length >= threshold ? packet.length : 0
  const out = Buffer.alloc(sizeOfVarInt(length) + data.length)
  data.copy(out, writeVarInt(length, out, 0))
  return out
}
