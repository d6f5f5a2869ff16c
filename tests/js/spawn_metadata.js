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
const path = require('path')
const { Vec3 } = require('vec3')
const { modules, until, run } = require('./one_world')
const mc = require(path.join(modules, 'minecraft-protocol'))

const version = process.argv[2] || '1.16.5'
const NAMES = ['meta_a', 'meta_b', 'meta_c']
const MARKER = 2147483000 // an entity id no entity has
const SPAWNS = new Set(['spawn_entity', 'spawn_entity_living'])

run('pepa-spawn-metadata-', async ({ serv, port, atEnd }) => {
  const clients = NAMES.map((username) => {
    const client = mc.createClient({ host: '127.0.0.1', port, username, version })
    atEnd(() => client.end())
    client.seen = [] // [packet name, entity id]
    client.markers = 0
    // flying-squid's login ends when the client sends a look after its health (mineflayer's spawn)
    client.once('update_health', () => client.write('look', { yaw: 0, pitch: 0, onGround: true }))
    client.on('packet', (data, meta) => {
      if (meta.name === 'entity_status' && data.entityId === MARKER) client.markers++
      else if (meta.name === 'entity_metadata' || SPAWNS.has(meta.name)) client.seen.push([meta.name, data.entityId])
    })
    return client
  })
  const players = () => NAMES.map((n) => serv.getPlayer(n))
  if (!await until(() => players().every((p) => p && p._pepaReady))) throw new Error('the clients never joined')
  await Promise.all(players().map((p) => p._pepaReady))
  const here = players()[0]

  let marks = 0
  async function step (make) { // what each client got of the entity make() returns
    clients.forEach((c) => { c.seen.length = 0 })
    const entity = make()
    marks++
    for (const p of players()) p._client.write('entity_status', { entityId: MARKER, entityStatus: 0 })
    if (!await until(() => clients.every((c) => c.markers === marks))) throw new Error('a marker never came')
    return clients.map((c) => ({
      spawns: c.seen.filter(([name, id]) => SPAWNS.has(name) && id === entity.id).length,
      metadata: c.seen.filter(([name, id]) => name === 'entity_metadata' && id === entity.id).length
    }))
  }

  const zombieType = serv.registry.entitiesByName.zombie
  if (!serv.registry.mobs[zombieType.id]) serv.registry.mobs[zombieType.id] = zombieType // as spawn_mob does
  let zombie = null
  const mob = await step(() => {
    zombie = serv.spawnMob(zombieType.id, here.world, here.position.offset(2, 0, 0), {})
    return zombie
  })
  const itemType = (serv.registry.entitiesByName.item || serv.registry.entitiesByName.Item).id
  const item = await step(() => serv.spawnObject(itemType, here.world, here.position.offset(-2, 1, 0), {
    velocity: new Vec3(0, 0, 0), itemId: serv.registry.itemsByName.stick.id, itemCount: 3
  }))
  const change = await step(() => { zombie.sendMetadata(zombie.metadata); return zombie })
  return { version, mob, item, change }
}, { version })
