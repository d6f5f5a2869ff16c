'use strict'
// A mob's moves and turns go out every 3 ticks, its turns with its moves, and every player sees
// it where and as the server has it (plugins/tracking.js).
//   node tracking.js VERSION
// Starts the embedded world (flat, no control channel) at VERSION and two plain minecraft-protocol
// clients, a and b; b is taken 400 blocks away. A zombie spawned 3 blocks from a walks
// server-side a tenth of a block a tick (sendPosition every tick, as the sandbox's mobs move),
// once a step of 9 blocks (a teleport), turning a little every tick (entity.turn, as the
// sandbox's mobs turn). On the way, just after a step not yet sent, b is brought
// near it (the zombie shown to b mid-way); the walk goes on 20 ticks, then stops, and after 10
// quiet ticks (in the fifth of which it turns where it stands) a marker packet goes to each
// client (TCP keeps the order: a client with its marker has all the moves). Each client follows
// the zombie from its spawn packet, relative moves, looks and teleports. Prints JSON (alone:
// flying-squid's console is kept off stdout): ticks (the walk's steps), the server's yaw and
// head, and per client: moves (packets that moved the zombie), off (how far its zombie is from
// the server's, in blocks), yaw and head (as it has them), looks (turns alone), moveLooks (moves
// with a turn) and heads (head turns).
const { run, plainClients, everythingSent, zombieType, SPAWNS } = require('./one_world')

const version = process.argv[2] || '1.16.5'

// each client follows the zombie from its spawn packet, relative moves and teleports
function follow (client, id) {
  client.zombie = null // [x, y, z] as this client has it
  Object.assign(client, { moves: 0, yaw: null, head: null, looks: 0, moveLooks: 0, heads: 0 })
  client.on('packet', (data, meta) => {
    if (data.entityId !== id) return
    if (SPAWNS.has(meta.name) || meta.name === 'entity_teleport') {
      client.zombie = [data.x, data.y, data.z]
      client.yaw = data.yaw
      if (SPAWNS.has(meta.name)) client.head = data.headPitch // the head's yaw, in a mob's spawn
      if (meta.name === 'entity_teleport') client.moves++
    } else if ((meta.name === 'rel_entity_move' || meta.name === 'entity_move_look') && client.zombie) {
      client.zombie = [client.zombie[0] + data.dX / 4096, client.zombie[1] + data.dY / 4096, client.zombie[2] + data.dZ / 4096]
      client.moves++
      if (meta.name === 'entity_move_look') { client.yaw = data.yaw; client.moveLooks++ }
    } else if (meta.name === 'entity_look') {
      client.yaw = data.yaw
      client.looks++
    } else if (meta.name === 'entity_head_rotation') {
      client.head = data.headYaw
      client.heads++
    }
  })
}

const turnAt = (tick) => ((tick * 7 + 128) % 256) - 128 // a little more every tick

run('pepa-tracking-', async ({ serv, port, atEnd }) => {
  const { clients, players } = await plainClients({ serv, port, names: ['track_a', 'track_b'], version, atEnd })
  const [a, b] = players
  await b.teleport(b.position.offset(400, 0, 0)) // out of sight of what is spawned near a
  const zombie = serv.spawnMob(zombieType(serv).id, a.world, a.position.offset(3, 0, 0), {})
  zombie.size = null // moved by the walk alone (flying-squid's tick moves a mob with a size: gravity)
  clients.forEach((c) => follow(c, zombie.id))

  // the walk: a step each tick; b brought near it just after a step not yet sent (a knownPosition
  // behind the zombie's), then 20 more steps
  let ticks = 0
  let after = -1
  let quiet = -1
  await new Promise((resolve, reject) => {
    const onTick = () => {
      try {
        if (quiet >= 0) {
          if (++quiet === 5) zombie.turn(turnAt(ticks + 20)) // where it stands, its moves all sent
          if (quiet >= 10) { serv.removeListener('tick', onTick); resolve() }
          return
        }
        ticks++
        const step = ticks === 5 ? 9 : 0.1 // once too far for a relative move
        zombie.turn(turnAt(ticks))
        zombie.sendPosition(zombie.position.offset(step, 0, step / 2), true)
        if (after < 0 && ticks >= 10 && zombie.knownPosition && !zombie.knownPosition.equals(zombie.position)) {
          b.position = zombie.position.offset(-2, 0, 0)
          b.updateAndSpawn() // shown to b now, as when a player walks up to it
          after = 0
        } else if (after >= 0 && ++after >= 20) quiet = 0
        if (ticks > 200) throw new Error('the zombie was never shown to b between two sends')
      } catch (err) { serv.removeListener('tick', onTick); reject(err) }
    }
    serv.on('tick', onTick)
  })
  await everythingSent(clients, players)
  const at = zombie.position
  const off = (c) => c.zombie ? Math.hypot(c.zombie[0] - at.x, c.zombie[1] - at.y, c.zombie[2] - at.z) : null
  const seen = ({ moves, yaw, head, looks, moveLooks, heads }) => ({ moves, yaw, head, looks, moveLooks, heads })
  return {
    version, ticks, yaw: zombie.yaw, head: zombie.headPitch,
    clients: clients.map((c) => ({ ...seen(c), off: off(c) }))
  }
}, { version })
