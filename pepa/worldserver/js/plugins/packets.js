'use strict'
// The survival sandbox: a player's packets take effect in the order they came,
// as on a vanilla server (one game thread handles them one after another).
//
// flying-squid handles packets with async listeners, and a burst of packets
// read at once is emitted in one go: each packet's handler runs up to its first
// await before the one before it has done its work, so a later packet can
// overtake an earlier one. A bot that finishes digging a cell and places a
// block in it a millisecond later (a crafting table in its shelter's wall) had
// the placement land first and then the dig's air over it: the table gone from
// the world and from the bag, and the bot, never told (the digger gets no block
// update for its own dig), clicking a table that was not there. Likewise a
// block_place and the held_item_slot after it: the wrong item placed.
//
// So every play packet of a player is handled in a callback of its own, and the
// microtasks its listeners queued (what they chain on promises; a world's loaded
// chunks are read and written without waiting for I/O) run before the next packet
// is handled. A packet that comes while the last one's may still be running waits
// in a queue, with an immediate of its own: Node runs the immediates queued before
// its check phase one by one, each followed by the microtasks it queued, so a
// burst of packets read in one turn of the event loop is handled, in order, by the
// end of that turn. A packet alone, the usual case, is handled at once, as before.
// Packets still queued when the player leaves are dropped, as vanilla drops a
// closed connection's.
//
// (The first version handled one queued packet per turn of the event loop. A turn
// of a busy server takes tens of milliseconds, and a bot sends some 20 packets a
// second: at 32 bots the queues grew without end, keepalive answers waited in them
// past the 10 s the server allows (bots kicked every half minute) and swings were
// handled seconds after they were sent.)

module.exports.player = function (player, serv) {
  const client = player._client
  const types = serv.registry.protocol?.play?.toServer?.types || {}
  const packets = new Set(Object.keys(types).filter(k => k.startsWith('packet_')).map(k => k.slice('packet_'.length)))
  if (!packets.size) return
  module.exports.inOrder(client, packets)
}

// client.emit of the names in `packets` made to handle them one callback each, in order
module.exports.inOrder = function (client, packets) {
  const emit = client.emit
  const queue = [] // [name, args] of packets waiting for their immediate
  let busy = false // a packet was handled in this callback: its microtasks may still run

  function settled () { busy = false }
  function next () {
    const head = queue.shift() // none: dropped at the end of the connection
    if (head !== undefined) emit.call(client, head[0], ...head[1])
  }

  client.emit = function (name, ...args) {
    if (!packets.has(name)) return emit.call(this, name, ...args)
    if (!busy && !queue.length) {
      busy = true
      setImmediate(settled)
      return emit.call(this, name, ...args)
    }
    queue.push([name, args])
    setImmediate(next)
    return this.listenerCount(name) > 0
  }
  client.once('end', () => { queue.length = 0 })
}
