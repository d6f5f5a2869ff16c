'use strict'
// An entity's teleport in 1.21.2's packet form.
//
// From 1.21.2 entity_teleport carries a velocity, yaw and pitch in degrees (f32) and
// relative-move flags; flying-squid (updatePositions.js) still writes the 1.21.1 fields, the
// missing flags fail to serialize and the server drops the client that should have seen
// the move: the bot lost its connection whenever a player or mob nearby moved over 3
// blocks in a tick (a teleport). Written in the new form, with the angles converted. (This
// rewrite is per player: broadcast.js leaves entity_teleport on the players' own streams.)

module.exports.player = function (player, serv) {
  if (!teleportHasFlags(serv.registry)) return
  const write = player._client.write
  const degrees = (angle) => ((Number(angle) || 0) * 360) / 256
  player._client.write = function (name, params) {
    if (name === 'entity_teleport' && params && params.flags === undefined) {
      params = { ...params, dx: 0, dy: 0, dz: 0, yaw: degrees(params.yaw), pitch: degrees(params.pitch), flags: 0 }
    }
    return write.call(this, name, params)
  }
}

// Whether this version's entity_teleport has the relative-move flags (1.21.2 and later).
function teleportHasFlags (registry) {
  const packet = registry.protocol.play.toClient.types.packet_entity_teleport
  return /"flags"/.test(JSON.stringify(packet || []))
}

module.exports.teleportHasFlags = teleportHasFlags
