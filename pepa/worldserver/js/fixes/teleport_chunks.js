'use strict'
// A player teleported far gets the chunks of its new place.
//
// flying-squid sends chunks only when the player's own move packets take it 16 blocks
// from where the last batch was sent, and not while a batch goes out. A client with no
// chunk under it runs no physics and sends no moves, so a player teleported far (by the
// control channel, /tp or a plugin) waited for ever for the chunks of its new place. The
// test world's walled-in bot did so when a batch for its last place (a walk, the last
// teleport) was still going out: it stood in air it could not see, its walls never came
// (tests/js/teleport_chunks.js). So half a second on (the client has taken the teleport;
// sending at once raced it) and once any batch going out has ended, the chunks round the
// new place go out (a batch skips those the client has).

const TELEPORT_SETTLE_MS = 500 // a teleport's chunks go out this long after it
const CHUNK_BATCH_POLL_MS = 50
const sleep = (ms) => new Promise(resolve => setTimeout(resolve, ms))

module.exports.player = function (player) {
  let teleports = 0
  let following = false
  // wrapped on 'asap': flying-squid's updatePositions defines teleport after this runs
  player.once('asap', () => {
    const teleport = player.teleport
    player.teleport = async (position) => {
      await teleport(position)
      teleports++
      if (!following) {
        following = true
        chunksAfterTeleports().finally(() => { following = false })
      }
    }
  })
  async function chunksAfterTeleports () {
    let served = 0
    while (served < teleports) { // a teleport during a batch gets a batch of its own after it
      served = teleports
      await sleep(TELEPORT_SETTLE_MS)
      while (player.sendingChunks && !player._client.ended) await sleep(CHUNK_BATCH_POLL_MS)
      if (player._client.ended || !(player.health > 0)) return
      await player.worldSendRestOfChunks().catch(() => {})
    }
  }
}
