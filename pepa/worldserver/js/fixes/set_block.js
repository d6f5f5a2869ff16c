'use strict'
// A block set by the server reaches every player, whatever chunks are on their way to it.
//
// flying-squid's setBlock tells the players first and changes the world an await later: a
// chunk of that column sent in between (a batch going out) has the old block, and a client
// that had dropped the block_change (it had no chunk there yet) never sees the new one. The
// walled-in bot of test_survival.py saw 2 of its 4 walls and no roof. The world first, then
// the players: a chunk sent before the change is followed by its block_change, one sent
// after has the block (tests/js/teleport_chunks.js, the last round). Set on 'pluginsReady':
// the world plugin defines setBlock after the external plugins are set up.

module.exports.server = function (serv) {
  serv.once('pluginsReady', () => {
    serv.setBlock = async (world, position, stateId) => {
      await world.setBlockStateId(position, stateId)
      for (const p of serv.players) if (p.world === world) p.sendBlock(position, stateId)
      if (stateId === 0) serv.notifyNeighborsOfStateChange(world, position, serv.tickCount, serv.tickCount, true)
      else serv.updateBlock(world, position, serv.tickCount, serv.tickCount, true)
    }
  })
}
