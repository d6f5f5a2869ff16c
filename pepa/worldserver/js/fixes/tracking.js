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
// the same place. Teleports go out at once.
//
// A mob's turns go out with its moves: entity.turn(yaw, pitch) (what the sandbox's mobs call,
// plugins/mobs.js) is told at the mob's next send, carried by its move (one
// entity_move_look, vanilla's MoveEntityPacket.PosRot) or, when it did not move, as a look of
// its own, with the head's yaw when that changed, to the players near. The sandbox wrote a look
// and a head turn to every player on the server for every turn of 4/256 of a circle: around 32
// idle bots, 662 packets a second of 1,491.
//
// A player's moves and turns go to the others every PLAYER_EVERY ticks, as vanilla's tracker
// sends a player's (its update interval is 2). flying-squid writes every position and look a
// client sends (mineflayer sends one a tick while it moves) to every player near as they come, a
// move and a look and a head turn apart: 3 packets a tick to each of 31 others for a bot of 32
// moving together (64 bots round one zombie, all attacking it, stalled the server 7-9 s; this cut
// did not end those stalls: docs/fleet.md). Everything the server does with a
// player's move is as before (its position, the plugins' `move` events: hunger, hazards); only
// what the others are told is gathered: the relative moves written in between are added up (exact:
// they are whole steps of 1/4096 or 1/32 of a block), the last look and head turn kept, and at the
// player's next due tick one packet carries the move and the look, with the head's turn when it
// changed; a sum too long for a relative move goes as a teleport to its knownPosition. Anything
// else about the player (a swing, a metadata change, a teleport) goes after what was gathered, in
// order; a player shown to someone between two sends is told first. tests/integration/worldserver/test_tracking.py.

const MOB_EVERY = 3 // ticks
const PLAYER_EVERY = 2 // ticks
const angle = (v) => (((Math.round(v) % 256) + 384) % 256) - 128 // a signed byte (the scenario's zombie turns 0-255)

module.exports.server = function (serv) {
  const unsent = new Map() // mob moved or turned since its last send -> its flush
  // a way shorter than the least relative move (1/32 or 1/4096 of a block) is no move: flying-squid
  // would send it as a move of 0
  const scale = serv.supportFeature('fixedPointDelta') ? 32 : 4096
  const unmoved = (from, to) => ['x', 'y', 'z'].every((k) => Math.floor((to[k] - from[k]) * scale) === 0)
  const limit = serv.supportFeature('fixedPointDelta') ? 127 : 32767 // a relative move's byte or short

  serv.on('newEntity', (entity) => {
    if (entity.type === 'mob' && typeof entity.sendPosition === 'function') paced(entity)
  })
  serv.on('newPlayer', gathered)

  function paced (entity) {
    const send = entity.sendPosition
    const spawnPacket = entity.getSpawnPacket
    const write = entity._writeOthersNearby
    let sentTick = -Infinity
    const told = { yaw: entity.yaw, pitch: entity.pitch, head: entity.headPitch } // as spawned
    const turned = () => entity.yaw !== told.yaw || entity.pitch !== told.pitch

    // a move carries the turn not yet told; a teleport carries the mob's yaw and pitch anyway
    entity._writeOthersNearby = (name, params) => {
      if (name === 'rel_entity_move' && turned()) {
        told.yaw = entity.yaw
        told.pitch = entity.pitch
        return write('entity_move_look', { ...params, yaw: angle(entity.yaw), pitch: angle(entity.pitch) })
      }
      if (name === 'entity_teleport') {
        told.yaw = params.yaw
        told.pitch = params.pitch
      }
      return write(name, params)
    }

    // after a send: the turn its move did not carry (or there was no move), and the head
    function sendTurn () {
      if (!serv.entities[entity.id]) return
      if (turned()) {
        told.yaw = entity.yaw
        told.pitch = entity.pitch
        write('entity_look', { entityId: entity.id, yaw: angle(entity.yaw), pitch: angle(entity.pitch), onGround: entity.onGround })
      }
      if (entity.headPitch !== told.head) { // flying-squid's spawn packet sends it as the head's yaw
        told.head = entity.headPitch
        write('entity_head_rotation', { entityId: entity.id, headYaw: angle(entity.headPitch) })
      }
    }

    entity.turn = (yaw, pitch = entity.pitch) => { // in 1/256 of a circle, as the packets carry them
      entity.yaw = yaw
      entity.pitch = pitch
      entity.headPitch = yaw
      unsent.set(entity, flush) // told after this tick: with its move, if it moves in it
    }

    entity.sendPosition = (position, onGround, teleport = false) => {
      if (entity.knownPosition === undefined) entity.knownPosition = entity.position // shown at its spawn
      if (teleport || serv.tickCount - sentTick >= MOB_EVERY) {
        sentTick = serv.tickCount
        unsent.delete(entity)
        return send(position, onGround, teleport).then((sent) => { sendTurn(); return sent })
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
      if (!serv.entities[entity.id]) return
      const at = entity.position
      sentTick = serv.tickCount
      if (entity.knownPosition === undefined || unmoved(entity.knownPosition, at)) return sendTurn()
      entity.position = entity.knownPosition
      send(at, entity.onGround).then(sendTurn)
    }

    if (typeof spawnPacket === 'function') {
      entity.getSpawnPacket = () => {
        const at = entity.position
        if (entity.knownPosition !== undefined) entity.position = entity.knownPosition
        try { return spawnPacket() } finally { entity.position = at }
      }
    }
  }

  function gathered (player) {
    const write = player._writeOthersNearby
    const spawnPacket = player.getSpawnPacket
    let sentTick = -Infinity
    let gone = null // what the others were not told yet: { dX, dY, dZ, moved, look, onGround, yaw, pitch, head }

    player._writeOthersNearby = (name, params) => {
      if (name === 'rel_entity_move' || name === 'entity_look' || name === 'entity_head_rotation') {
        gone ??= { dX: 0, dY: 0, dZ: 0, moved: false, look: false, head: null }
        if (name === 'rel_entity_move') {
          gone.dX += params.dX
          gone.dY += params.dY
          gone.dZ += params.dZ
          gone.moved = true
        } else if (name === 'entity_look') Object.assign(gone, { look: true, yaw: params.yaw, pitch: params.pitch })
        else gone.head = params.headYaw
        if (name !== 'entity_head_rotation') gone.onGround = params.onGround
        unsent.set(player, flush)
        return
      }
      if (name === 'entity_teleport' && gone) Object.assign(gone, { dX: 0, dY: 0, dZ: 0, moved: false, look: false })
      tell() // what was gathered goes first
      return write(name, params)
    }

    function flush () {
      if (serv.tickCount - sentTick < PLAYER_EVERY) return // not due yet
      unsent.delete(player)
      tell()
    }

    function tell () {
      if (!gone) return
      const { dX, dY, dZ, moved, look, onGround, head } = gone
      const yaw = look ? gone.yaw : player.yaw
      const pitch = look ? gone.pitch : player.pitch
      gone = null
      unsent.delete(player)
      sentTick = serv.tickCount
      if (!serv.entities[player.id]) return
      if (moved && [dX, dY, dZ].some((d) => Math.abs(d) > limit)) {
        const at = player.knownPosition
        const position = serv.supportFeature('fixedPointPosition') ? at.scaled(32).floored() : at
        write('entity_teleport', { entityId: player.id, x: position.x, y: position.y, z: position.z, yaw, pitch, onGround })
      } else if (moved && look) write('entity_move_look', { entityId: player.id, dX, dY, dZ, yaw, pitch, onGround })
      else if (moved) write('rel_entity_move', { entityId: player.id, dX, dY, dZ, onGround })
      else if (look) write('entity_look', { entityId: player.id, yaw, pitch, onGround })
      if (head !== null) write('entity_head_rotation', { entityId: player.id, headYaw: head })
    }

    if (typeof spawnPacket === 'function') { // shown to someone: the others are told first, so
      player.getSpawnPacket = () => { tell(); return spawnPacket() } // all have it at one place
    }
  }

  // after each tick's own work (the mobs' steps), in a callback of its own: nothing else runs
  // while a flushed mob's position is set back for its send
  let scheduled = false
  serv.on('tick', () => { // (whatever the tick's own microtasks gather goes out at its end too)
    if (scheduled) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      for (const flush of [...unsent.values()]) flush()
    })
  })
}
