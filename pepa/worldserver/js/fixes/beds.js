'use strict'
// Beds: a player lies down at night when no monster is near; when every survival player
// alive sleeps, the morning comes.
//
// flying-squid 1.12 has no sleeping: a right-click on a bed did nothing. Here, as vanilla:
// a bed used between 12541 and 23458 (the time of day), within 3.5 blocks, with no hostile
// mob within 8 blocks across and 5 up or down, lays the player down (its pose, metadata key
// 6, told to it and the players near); with vanilla's refusals as chat lines otherwise. When
// the sleepers have lain 100 ticks (5 s) and no survival player alive is awake, the time
// becomes 0 and the sleepers stand up (the pose back, and the wake-up animation).
const { Vec3 } = require('vec3')

const SLEEP_MS = 5000 // 100 ticks

module.exports.server = function (serv) {
  const { registry } = serv
  serv.on('newPlayer', (p) => {
    p._client.on('block_place', async (packet) => {
      const at = new Vec3(packet.location.x, packet.location.y, packet.location.z)
      const block = await p.world.getBlock(at)
      if (!block || !block.name.endsWith('_bed')) return
      const t = serv.time % 24000
      if (t < 12541 || t > 23458) return p.chat('You can only sleep at night')
      if (p.position.distanceTo(at) > 3.5) return p.chat('You may not rest now; the bed is too far away')
      const monster = Object.values(serv.entities).some(e => e.type === 'mob' && e.health > 0 &&
        registry.entitiesByName[e.name]?.category === 'Hostile mobs' &&
        Math.abs(e.position.x - at.x) <= 8 && Math.abs(e.position.z - at.z) <= 8 && Math.abs(e.position.y - at.y) <= 5)
      if (monster) return p.chat('You may not rest now; there are monsters nearby')
      p._pepaSleeping = Date.now()
      const lie = [{ key: 6, type: 18, value: 2 }]
      p._client.write('entity_metadata', { entityId: p.id, metadata: lie })
      p._writeOthersNearby('entity_metadata', { entityId: p.id, metadata: lie })
    })
  })
  serv.on('tick', () => {
    const awake = serv.players.filter(pl => pl.gameMode === 0 && pl.health > 0 && !pl._pepaSleeping)
    const sleepers = serv.players.filter(pl => pl._pepaSleeping)
    if (!sleepers.length || awake.length) return
    if (Date.now() - Math.max(...sleepers.map(pl => pl._pepaSleeping)) < SLEEP_MS) return
    serv.setTime(0)
    for (const pl of sleepers) {
      pl._pepaSleeping = null
      const stand = [{ key: 6, type: 18, value: 0 }]
      pl._client.write('entity_metadata', { entityId: pl.id, metadata: stand })
      pl._client.write('animation', { entityId: pl.id, animation: 2 })
      pl._writeOthersNearby('animation', { entityId: pl.id, animation: 2 })
    }
  })
}
