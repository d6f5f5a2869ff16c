'use strict'
// An entity shown to a player sends its metadata to that player alone (plugins/spawn_metadata.js).
//   node spawn_metadata.js VERSION
// Starts the embedded world (flat, no control channel) at VERSION and three plain
// minecraft-protocol clients standing together; then, server-side: a zombie spawned near them,
// an item dropped near them, and a metadata change of the zombie. After each, a marker packet
// goes to every player (an entity_status of an id no entity has): TCP keeps the order, so when a
// client has its marker it has everything the server wrote to it before. Prints JSON (alone:
// flying-squid's console is kept off stdout): for each step, each client's count of the spawn
// packets and of the entity_metadata packets of that entity.
const { Vec3 } = require('vec3')
const { run, plainClients, everythingSent, zombieType, SPAWNS } = require('./one_world')

const version = process.argv[2] || '1.16.5'

run('pepa-spawn-metadata-', async ({ serv, port, atEnd }) => {
  const { clients, players } = await plainClients({ serv, port, names: ['meta_a', 'meta_b', 'meta_c'], version, atEnd })
  for (const client of clients) {
    client.seen = [] // [packet name, entity id]
    client.on('packet', (data, meta) => {
      if (meta.name === 'entity_metadata' || SPAWNS.has(meta.name)) client.seen.push([meta.name, data.entityId])
    })
  }
  const here = players[0]

  async function step (make) { // what each client got of the entity make() returns
    clients.forEach((c) => { c.seen.length = 0 })
    const entity = make()
    await everythingSent(clients, players)
    return clients.map((c) => ({
      spawns: c.seen.filter(([name, id]) => SPAWNS.has(name) && id === entity.id).length,
      metadata: c.seen.filter(([name, id]) => name === 'entity_metadata' && id === entity.id).length
    }))
  }

  let zombie = null
  const mob = await step(() => {
    zombie = serv.spawnMob(zombieType(serv).id, here.world, here.position.offset(2, 0, 0), {})
    return zombie
  })
  const itemType = (serv.registry.entitiesByName.item || serv.registry.entitiesByName.Item).id
  const item = await step(() => serv.spawnObject(itemType, here.world, here.position.offset(-2, 1, 0), {
    velocity: new Vec3(0, 0, 0), itemId: serv.registry.itemsByName.stick.id, itemCount: 3
  }))
  const change = await step(() => { zombie.sendMetadata(zombie.metadata); return zombie })
  return { version, mob, item, change }
}, { version })
