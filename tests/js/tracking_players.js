'use strict'
// A player's moves and turns go to the others every 2 ticks, in one packet, and every player
// sees it where and as the server has it (plugins/tracking.js).
//   node tracking_players.js VERSION
// Starts the embedded world (flat, no control channel) at VERSION and three plain
// minecraft-protocol clients: a walker, a watcher beside it and a latecomer taken 400 blocks away.
// The walker's client sends a position and a look every tick (as mineflayer does while it walks;
// handed to the server's handlers of its client):
// a quarter of a block and 7 degrees a step, once 9 blocks at once (flying-squid's teleport) and
// twice 4.5 blocks in a row (too far for one relative move once added up). After 20 steps, the
// latecomer is brought beside the walker (shown it between two sends); 10 more steps, 10 quiet
// ticks, then a marker packet to each client (a client with its marker has everything sent
// before). Each watcher follows the walker from its spawn packet, relative moves, looks and
// teleports. Prints JSON (alone: flying-squid's console is kept off stdout): steps, the server's
// yaw of the walker, and per watcher: moves (packets that moved it), looks (turns alone),
// moveLooks (moves with a turn), heads (head turns), yaw (as it has it) and off (how far its
// walker is from the server's, in blocks).
const { run, plainClients, everythingSent } = require('./one_world')

const version = process.argv[2] || '1.16.5'
const SPAWN = 'named_entity_spawn'

function follow (client, id) {
  const seen = { at: null, moves: 0, looks: 0, moveLooks: 0, heads: 0, yaw: null }
  client.on('packet', (data, meta) => {
    if (data.entityId !== id) return
    if (meta.name === SPAWN || meta.name === 'entity_teleport') {
      seen.at = [data.x, data.y, data.z]
      seen.yaw = data.yaw
      if (meta.name === 'entity_teleport') seen.moves++
    } else if ((meta.name === 'rel_entity_move' || meta.name === 'entity_move_look') && seen.at) {
      seen.at = [seen.at[0] + data.dX / 4096, seen.at[1] + data.dY / 4096, seen.at[2] + data.dZ / 4096]
      seen.moves++
      if (meta.name === 'entity_move_look') { seen.yaw = data.yaw; seen.moveLooks++ }
    } else if (meta.name === 'entity_look') {
      seen.yaw = data.yaw
      seen.looks++
    } else if (meta.name === 'entity_head_rotation') seen.heads++
  })
  return seen
}

run('pepa-tracking-players-', async ({ serv, port, atEnd }) => {
  const names = ['walker', 'watcher', 'latecomer']
  const { clients, players } = await plainClients({ serv, port, names, version, atEnd, confirming: true })
  const [walker, , late] = players
  // the walker's moves count once it has taken the server's teleports (pepa/worldserver/js/fixes/teleport_confirm.js)
  const confirmed = new Promise((resolve) => walker.once('pepa_teleports_confirmed', resolve))
  await walker.teleport(walker.position.offset(0.5, 0, 0.5))
  await confirmed
  await late.teleport(late.position.offset(400, 0, 0))
  const views = [follow(clients[1], walker.id), follow(clients[2], walker.id)]
  const start = walker.position.clone()
  const WAY = [...Array(30)].map((_, i) => (i === 5 ? 9 : i === 12 || i === 13 ? 4.5 : 0.25))

  let steps = 0
  let quiet = -1
  let x = start.x
  await new Promise((resolve, reject) => {
    const onTick = () => {
      try {
        if (quiet >= 0) {
          if (++quiet >= 10) { serv.removeListener('tick', onTick); resolve() }
          return
        }
        x += WAY[steps]
        steps++
        // as the server reads it from the walker's client, one a tick (a write from the client
        // here could reach the server two to a tick)
        walker._client.emit('position_look', { x, y: start.y, z: start.z, yaw: steps * 7, pitch: 0, onGround: true })
        if (steps === 20) {
          late.position = walker.position.offset(-2, 0, 0)
          late.updateAndSpawn() // shown the walker now, as when a player walks up to it
        }
        if (steps === WAY.length) quiet = 0
      } catch (err) { serv.removeListener('tick', onTick); reject(err) }
    }
    serv.prependListener('tick', onTick) // each step before the tracker's look at the tick
  })
  const moved = () => Math.abs(walker.position.x - x) < 1e-9
  const deadline = Date.now() + 10000
  while (!moved()) { // the last position on its way to the server
    if (Date.now() > deadline) throw new Error(`the walker never got to ${x}: ${walker.position}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await new Promise((resolve) => serv.once('tick', () => serv.once('tick', () => serv.once('tick', resolve))))
  await everythingSent(clients, players)
  const at = walker.position
  const off = (v) => v.at ? Math.hypot(v.at[0] - at.x, v.at[1] - at.y, v.at[2] - at.z) : null
  return { version, steps, yaw: walker.yaw, watchers: views.map((v) => ({ ...v, at: undefined, off: off(v) })) }
}, { version })
