'use strict'
// A dropped item shows its item at every version.
//
// flying-squid 1.12.0 (spawn.js) describes a dropped item right at 1.13 and 1.15 to 1.16
// only: at 1.12.2 its metadata types are 1.13's (the item goes as a boolean), at 1.14 it
// sends the item at key 6 alone where clients read key 7, from 1.17 at key 7 where they
// read key 8, and from 1.20.2 no metadata at all. mineflayer then reads no item, and a
// bot that picks the drop up crashes (mineflayer-armor-manager: Item.fromNotch(undefined)).
// At the other versions drops go out with one entry: the item, at the version's key,
// metadata type and slot format.

module.exports.server = function (serv) {
  const { registry } = serv
  const at = (v) => registry.version['>='](v)
  const dropsBroken = !((at('1.13') && !at('1.14')) || (at('1.15') && !at('1.17')))
  if (!dropsBroken) return
  const itemEntry = droppedItemEntry(registry, require('prismarine-item')(registry))
  serv.on('newPlayer', (p) => {
    const spawnEntity = p.spawnEntity
    p.spawnEntity = (entity) => {
      if (entity.type !== 'object' || entity.itemId === undefined) return spawnEntity(entity)
      p._client.write(entity.spawnPacketName, entity.getSpawnPacket())
      p._client.write('entity_metadata', { entityId: entity.id, metadata: [itemEntry(entity)] })
    }
  })
}

// The entity_metadata entry of a dropped item entity at this registry's version: its key
// (minecraft-data's metadataIxOfItem), the slot's metadata type (a number up to 1.20.1, the
// name item_stack after) and the item in the version's slot format (prismarine-item).
function droppedItemEntry (registry, Item) {
  const types = registry.protocol.types
  const key = registry.supportFeature('metadataIxOfItem')
  let type = null
  if (/"item_stack"/.test(JSON.stringify(types.entityMetadataEntry || types.entityMetadata))) {
    type = 'item_stack'
  } else {
    const fields = types.entityMetadataItem[1].fields
    for (const [code, kind] of Object.entries(fields)) if (kind === 'slot') type = Number(code)
  }
  if (type === null) throw new Error(`no slot metadata type at ${registry.version.minecraftVersion}`)
  return (entity) => ({
    key,
    type,
    value: Item.toNotch(new Item(entity.itemId, entity.itemCount || 1, entity.itemDamage || 0))
  })
}

module.exports.droppedItemEntry = droppedItemEntry
