'use strict'
// A newcomer sees the players already online.
//
// flying-squid 1.12.0 login.js: _sendPlayerList(toPlayer) writes the full player list to
// everybody *except* the player who just joined, so a newcomer never learns the names of
// those already online and mineflayer drops their named_entity_spawn: they stay invisible.
// Here the newcomer gets the list, then the nearby entities are spawned for it once more.

module.exports.player = function (player, serv) {
  player.once('spawned', () => {
    const add = serv.supportFeature('playerInfoActionIsBitfield') ? { add_player: true } : 'add_player'
    const bitfield = typeof add !== 'string'
    player._client.write('player_info', {
      action: add,
      data: serv.players.map((other) => bitfield
        ? { uuid: other.uuid, player: { name: other.username, properties: other.profileProperties }, gamemode: other.gameMode, latency: other._client.latency }
        : { uuid: other.uuid, name: other.username, properties: other.profileProperties, gamemode: other.gameMode, ping: other._client.latency })
    })
    player.nearbyEntities = []
    player.updateAndSpawn()
  })
}
