'use strict'
// A login ends for a client that only walks, and a player is moved only once its login has
// ended (player._pepaReady).
//
// flying-squid finishes a login (the rest of the chunks, then the player put back at its
// spawn) on the client's first `flying` or `look` packet; an idle mineflayer client may only
// send `position` packets, and its login then hangs, with only the first chunks, and no
// chunks sent as it moves, until it looks round. Vanilla counts any movement packet. Counted
// from 'spawned', when flying-squid starts to wait: the client's answer to the login's
// position comes before it, and a `flying` made of that answer was heard by nobody (the login
// then waited for the bot's first look round).
//
// flying-squid's login ends, after the remaining chunks are sent (which can take a while), by
// putting the player back at its login position. A teleport before that is silently undone:
// player._pepaReady resolves once that last position has been sent (the scenario's teleport
// and the test scripts wait for it).

module.exports.player = function (player) {
  player.once('spawned', () => {
    const moved = () => {
      player._client.removeListener('position', moved)
      player._client.removeListener('position_look', moved)
      player._client.emit('flying', { onGround: true })
    }
    player._client.on('position', moved)
    player._client.on('position_look', moved)
  })
  player._pepaReady = new Promise((resolve) => {
    player.once('spawned', () => {
      const original = player.sendSelfPosition
      player.sendSelfPosition = (newPosition) => {
        original(newPosition)
        if (newPosition) { player.sendSelfPosition = original; resolve() }
      }
    })
  })
}
