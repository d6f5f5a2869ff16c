'use strict'
// A mob's moves are sent to the players near it every MOB_EVERY ticks, as vanilla's entity
// tracker sends them (ServerEntity.sendChanges: a mob's EntityType updates every 3 ticks; the
// client moves it smoothly in between). flying-squid 1.12 sends a packet for every tick a mob
// moves, to every player near: mobs' moves were a third of all the packets the sandbox wrote
// around a group of bots (32 idle bots standing together, a benchmark's zombies included: 1,050
// mob moves a second of 3,090 packets), and each is a socket write on the server and a read, a
// parse and mineflayer's handlers in every bot near.
//
// Between two sends the server moves the mob as before (its position, for the server's own
// logic) but tells no one; the next send carries the whole way since the last (flying-squid's
// knownPosition is what the players were told: the difference from it goes out as one
// relative move, or a teleport when it is too far for one). A mob that stops between two sends
// is sent where it stopped at its next due tick. A mob shown to a player between two sends is
// shown where the others see it (its knownPosition), so the next move brings every player to
// the same place. Teleports go out at once. Players' own moves are not paced here.
// tests/test_tracking.py.

const MOB_EVERY = 3 // ticks

module.exports.server = function (serv) {
  const unsent = new Map() // mob moved since its last send -> its flush

  serv.on('newEntity', (entity) => {
    if (entity.type === 'mob' && typeof entity.sendPosition === 'function') paced(entity)
  })

  function paced (entity) {
    const send = entity.sendPosition
    const spawnPacket = entity.getSpawnPacket
    let sentTick = -Infinity

    entity.sendPosition = (position, onGround, teleport = false) => {
      if (entity.knownPosition === undefined) entity.knownPosition = entity.position // shown at its spawn
      if (teleport || serv.tickCount - sentTick >= MOB_EVERY) {
        sentTick = serv.tickCount
        unsent.delete(entity)
        return send(position, onGround, teleport)
      }
      entity.position = position // between sends: moved for the server, told at the next send
      entity.onGround = onGround
      unsent.set(entity, flush)
      return Promise.resolve(true)
    }

    // flying-squid's send skips a position equal to entity.position: to send the way a mob
    // went before it stopped, the send starts from what the players were told (its
    // `position` is set back by the send itself, within this callback's microtasks)
    function flush () {
      if (serv.entities[entity.id] && serv.tickCount - sentTick < MOB_EVERY) return // not due yet
      unsent.delete(entity)
      const at = entity.position
      if (!serv.entities[entity.id] || entity.knownPosition.equals(at)) return
      sentTick = serv.tickCount
      entity.position = entity.knownPosition
      send(at, entity.onGround)
    }

    if (typeof spawnPacket === 'function') {
      entity.getSpawnPacket = () => {
        const at = entity.position
        if (entity.knownPosition !== undefined) entity.position = entity.knownPosition
        try { return spawnPacket() } finally { entity.position = at }
      }
    }
  }

  // after each tick's own work (the mobs' steps), in a callback of its own: nothing else runs
  // while a flushed mob's position is set back for its send
  let scheduled = false
  serv.on('tick', () => {
    if (scheduled || unsent.size === 0) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      for (const flush of [...unsent.values()]) flush()
    })
  })
}
