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
// So every play packet of a player is handled in a turn of the event loop of
// its own: a packet that comes while one was handled in this turn waits in a
// queue for the next turn, by when the work of the one before is done (what
// its listeners chain on promises runs before the next turn; a world's loaded
// chunks are read and written without waiting for I/O). A packet alone, the
// usual case, is handled at once, as before. Packets still queued when the
// player leaves are dropped, as vanilla drops a closed connection's.

module.exports.player = function (player, serv) {
  const client = player._client
  const types = serv.registry.protocol?.play?.toServer?.types || {}
  const packets = new Set(Object.keys(types).filter(k => k.startsWith('packet_')).map(k => k.slice('packet_'.length)))
  if (!packets.size) return
  const emit = client.emit
  const queue = [] // [name, args] of packets waiting for a turn of their own
  let busy = false // a packet was handled in this turn: the next waits for the next turn

  function handle (name, args) {
    busy = true
    setImmediate(next)
    return emit.call(client, name, ...args)
  }
  function next () {
    busy = false
    if (queue.length) {
      const [name, args] = queue.shift()
      handle(name, args)
    }
  }

  client.emit = function (name, ...args) {
    if (!packets.has(name)) return emit.call(this, name, ...args)
    if (!busy && !queue.length) return handle(name, args)
    queue.push([name, args])
    return this.listenerCount(name) > 0
  }
  client.once('end', () => { queue.length = 0 })
}
