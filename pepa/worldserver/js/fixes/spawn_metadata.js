'use strict'
// flying-squid 1.12's player.spawnEntity(entity) shows `entity` to one player: the spawn packet,
// then (before 1.20.2) the entity's metadata in a packet of its own. But it sends that metadata
// with entity.sendMetadata, which writes to every player near the entity. So each entity coming
// into one player's view sent its metadata again to all the others: with 32 players together,
// every mob spawned, item dropped or entity walking into view cost some 32 x 32 packets. In a
// CPU profile of the survival sandbox with 32 working bots, those writes were 47 of the 125 s
// the server spent writing packets in 165 s (tests/integration/worldserver/test_spawn_metadata.py).
//
// Here the metadata of a spawn goes to the player it is shown to, alone, as vanilla sends it;
// every other call of entity.sendMetadata (a metadata change) still goes to all players near.

module.exports.player = function (player, serv) {
  const separately = !serv.registry.version['>=']('1.20.2') // as flying-squid's own (its todo)
  // external plugins are set up before flying-squid's spawn.js gives the player its spawnEntity:
  // the one it gives is wrapped as it is set
  let spawnEntity
  Object.defineProperty(player, 'spawnEntity', {
    configurable: true,
    enumerable: true,
    get: () => spawnEntity,
    set: (original) => { spawnEntity = typeof original === 'function' ? toOne(original) : original }
  })

  function toOne (original) {
    return function (entity) {
      const toAll = entity.sendMetadata
      if (typeof toAll !== 'function') return original.call(this, entity)
      entity.sendMetadata = (data) => {
        if (separately) player._client.write('entity_metadata', { entityId: entity.id, metadata: data })
      }
      try {
        return original.call(this, entity)
      } finally {
        entity.sendMetadata = toAll
      }
    }
  }
}
