'use strict'
// Other players see a player at 1.20.2 and later.
//
// From 1.20.2 one spawn_entity packet spawns players too, and its `type` must say player;
// flying-squid makes players with no entity type (login.js: initEntity('player', null,
// ...)), so other clients got an entity of type 0 and never saw the player: a bot told
// to come waited to see its operator for ever.

module.exports.player = function (player, serv) {
  if (serv.supportFeature('unifiedPlayerAndEntitySpawnPacket') && player.entityType == null) {
    player.entityType = serv.registry.entitiesByName.player.id
  }
}
