'use strict'
// The scenario plugin: the operations tests and benchmarks drive a world with, over the
// control channel (control.js). server.js loads it only into a world started with a control
// port (EmbeddedWorld(control=True), startServer({controlPort: 0})); `pepa start` and
// `pepa world` start theirs with none. What every world needs is in ../fixes/.
//
// The operations, by module (each lists its own with their arguments):
//   world.js    ping, stall, set_time, set_difficulty, say, command, load_plugin
//   mobs.js     entities, spawn_mob, remove_mobs, remove_mob, set_ai, reaction
//               (zombie_ai.js: the opt-in chase of spawn_mob {ai: true} in flat worlds)
//   players.js  players, set_health, set_food, damage, kill, set_xp, gamemode, give,
//               inventory, clear_inventory, teleport, chat_as, kick
//   blocks.js   set_block, fill, wall_in, pit, block_at, place_bed
//   authme.js   auth_log (and the /register and /login it logs)
// The sandbox's plugins add theirs to the same table, serv.pepaOps (furnace, life_stats, ...).
const { context } = require('./context')
const { listen } = require('./control')
const worldOps = require('./world')
const mobOps = require('./mobs')
const playerOps = require('./players')
const blockOps = require('./blocks')
const authme = require('./authme')

module.exports.server = function (serv) {
  const me = serv.plugins[__filename] || {}
  const controlPort = me.settings ? me.settings.controlPort : null
  const ctx = context(serv)
  const ops = (serv.pepaOps = serv.pepaOps || {})
  Object.assign(ops, worldOps(ctx), mobOps(ctx), playerOps(ctx), blockOps(ctx), authme(serv))

  if (controlPort === null || controlPort === undefined || controlPort < 0) return
  serv.pepaControl = listen(ops, controlPort)
  serv.on('close', () => { try { serv.pepaControl.close() } catch (e) {} })
}
