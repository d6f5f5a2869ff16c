'use strict'
// A player's moves are taken from a teleport on only once its client has confirmed it.
//
// A move the client sent before it took the server's teleport is stale: vanilla ignores a
// client's moves from a teleport until the client confirms it (teleport_confirm, from 1.9).
// flying-squid takes them, asynchronously, after the teleport and its echo: the echo, equal
// to the position already set, is skipped, and the stale moves that follow put the player
// back where it was. Its client, with no chunk at the new place, then sent no move again:
// server and client kept two places (tests/js/teleport_chunks.js, the first round). So moves
// are cancelled while a teleport is unconfirmed (flying-squid writes every teleport with id 1:
// they are counted), for at most CONFIRM_WITHIN_MS after the last one (a client that never
// confirms is not frozen). When the client has confirmed them all, the player emits
// 'pepa_teleports_confirmed' with the last position sent (the sandbox's fall damage measures
// the next moves from there: plugins/hazards.js).
const { Vec3 } = require('vec3')

const CONFIRM_WITHIN_MS = 10000 // a player's moves wait at most this long for its confirm

module.exports.player = function (player, serv) {
  if (!serv.registry.protocol.play.toServer.types.packet_teleport_confirm) return
  let unconfirmed = 0
  let teleportedAt = 0
  let sent = null
  const write = player._client.write
  player._client.write = function (name, params) {
    if (name === 'position') {
      unconfirmed++
      teleportedAt = Date.now()
      sent = new Vec3(params.x, params.y, params.z)
    }
    return write.call(this, name, params)
  }
  player._client.on('teleport_confirm', () => {
    if (unconfirmed === 0) return
    if (--unconfirmed === 0) player.emit('pepa_teleports_confirmed', sent)
  })
  player.on('move_cancel', ({ teleport }, cancel) => {
    if (teleport || unconfirmed === 0) return
    if (Date.now() - teleportedAt > CONFIRM_WITHIN_MS) { unconfirmed = 0; return }
    cancel(false) // dropped, no correction sent: the teleport itself is the correction
  })
}
