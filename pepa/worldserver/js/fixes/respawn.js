'use strict'
// A dead player respawns, as on vanilla: at its spawn point, fed, with its chunks again.
//
// flying-squid 1.12.0 respawn.js compares client_command's actionId with 0, but
// minecraft-data >= 3.x maps that field to the enum string 'perform_respawn' for 1.16.5, so a
// dead client never respawns (stays at hp<=0). Same steps as respawn.js, plus vanilla's reset
// of food and position to the spawn point.

module.exports.player = function (player) {
  player._client.on('client_command', (data) => {
    const a = data.actionId !== undefined ? data.actionId : data.payload
    if (a !== 'perform_respawn') return
    if (player.health > 0) return
    player.behavior('requestRespawn', {}, () => {
      player._sendRespawn()
      player.food = 20
      player.foodSaturation = 5
      player.sendSelfPosition(player.spawnPoint ? player.spawnPoint.clone() : player.position)
      player.updateHealth(20)
      player.nearbyEntities = []
      player.updateAndSpawn()
      // A 1.16 respawn packet makes the client drop every chunk (vanilla resends
      // them; flying-squid does not): without them mineflayer's physics and
      // pathfinder stand still forever. Forget what was sent and send it again
      // (the server-side use counters stay up, so no column is unloaded here).
      for (const id of Object.keys(player.loadedChunks || {})) delete player.loadedChunks[id]
      player.worldSendRestOfChunks()
    })
  })
}
