'use strict'
// The survival sandbox: beds and doors, the blocks of two cells, as vanilla 1.16.5 places,
// opens and breaks them (the placement rules in pepa/game/js/halves.js, which the bot knows too).
//
// flying-squid 1.12 places an item as its block's default state in the one cell clicked: a
// held bed became a lone foot facing north, a door a lower half with nothing above it; a click
// on a door did nothing, and breaking one half left the other standing. Here:
//   - a bed (any colour) placed by a player: the foot at the placed cell, the head one cell
//     toward the player's horizontal facing (its yaw, vanilla Direction.fromAngle), `part`
//     and `facing` set on both (BedItem, BedBlock.getStateForPlacement); refused when the
//     foot's or the head's cell is not replaceable (air, fluids, fire, tall grass ...);
//   - a door (the wooden ones and iron) placed by a player: the lower half at the placed cell,
//     the upper one above, `facing` the player's facing, the hinge by vanilla's rule
//     (DoorBlock.getHingeSide: toward the side with more whole blocks beside it, away from a
//     door beside it, else the side of the cell the click fell on); refused when the cell
//     above is not replaceable, or the block below has no sturdy top face (DoorBlock.isValidPosition);
//   - a refused placement keeps the item and tells the client both cells again, as vanilla's
//     server answers every block_place (mineflayer's placeBlock then fails at once);
//   - a right-click on a wooden door opens or closes both halves (DoorBlock.onBlockActivated;
//     an iron door opens by redstone only, so the click uses the held item instead), with the
//     door's sound; a right-click on a bed is the bed's (fixes/beds.js lies the player down)
//     and places nothing; sneaking with an item in hand places it instead, as vanilla;
//   - a player who breaks either half of a bed or a door breaks both: the other half goes
//     without a drop, so one bed or one door drops in survival (drops.js drops the half dug);
//     a door whose block below a player digs out falls off as one door (its support gone).
// A half replaced by anything else (an operation, an explosion) leaves the other standing.
const { Vec3 } = require('vec3')
const halves = require('../../../game/js/halves')

const PICKUP_MS = 500 // vanilla: a dropped block waits 10 ticks before pickup
const DESPAWN_MS = 5 * 60 * 1000 // 6000 ticks
const COLOURS = ['white', 'orange', 'magenta', 'light_blue', 'yellow', 'lime', 'pink', 'gray', 'light_gray',
  'cyan', 'purple', 'blue', 'brown', 'green', 'red', 'black']
const BEDS = COLOURS.map(c => `${c}_bed`)
const WOODEN_DOORS = ['oak', 'spruce', 'birch', 'jungle', 'acacia', 'dark_oak', 'crimson', 'warped'].map(w => `${w}_door`)
const DOORS = [...WOODEN_DOORS, 'iron_door']

module.exports.server = function (serv) {
  const { registry } = serv
  const Block = require('prismarine-block')(registry)
  const itemEntity = registry.entitiesByName.item.id
  const looks = new WeakMap() // player -> its last look's yaw, in a client's degrees
  const clicks = new WeakMap() // player -> its last block_place: where the click hit

  const stateOf = (name, properties) => Block.fromProperties(name, properties, 0).stateId
  const xyz = (p) => new Vec3(p.x, p.y, p.z)
  const propertiesOf = (block) => (block && block.name !== 'air' ? block.getProperties() : {})
  const yawOf = (player) => (looks.has(player) ? looks.get(player) : (player.yaw || 0) * 360 / 256)
  const freeAt = (block) => !!block && halves.replaceable(block.name, propertiesOf(block))

  // vanilla's answer to a placement that does not happen: the client told both cells again
  async function refuse (player, data) {
    for (const at of [data.referencePosition, data.placedPosition]) {
      const block = await player.world.getBlock(at)
      if (block) player.sendBlock(at, block.stateId)
    }
    return {}
  }

  // the block flying-squid's placeBlock.js puts at the placed cell, as {id, data}
  const placed = (name, properties) => {
    const info = registry.blocksByName[name]
    return { id: info.id, data: stateOf(name, properties) - info.minStateId }
  }

  async function placeBed (data) {
    const { player, placedPosition: foot } = data
    const name = data.item.name
    const facing = halves.facingOf(yawOf(player))
    const head = xyz(halves.bedHead(foot, facing))
    if (!freeAt(await player.world.getBlock(foot))) return refuse(player, data)
    if (!freeAt(await player.world.getBlock(head))) return refuse(player, data)
    await serv.setBlock(player.world, head, stateOf(name, { facing, part: 'head', occupied: false }))
    return placed(name, { facing, part: 'foot', occupied: false })
  }

  async function placeDoor (data) {
    const { player, placedPosition: at } = data
    const name = data.item.name
    const world = player.world
    if (at.y >= 255) return refuse(player, data)
    if (!freeAt(await world.getBlock(at))) return refuse(player, data)
    if (!freeAt(await world.getBlock(at.offset(0, 1, 0)))) return refuse(player, data)
    const below = await world.getBlock(at.offset(0, -1, 0))
    if (!below || !halves.sturdyTop(below.shapes)) return refuse(player, data)
    const facing = halves.facingOf(yawOf(player))
    const near = new Map() // the four sides of both halves, for the hinge
    for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      for (const dy of [0, 1]) {
        const b = await world.getBlock(at.offset(dx, dy, dz))
        near.set(`${at.x + dx},${at.y + dy},${at.z + dz}`, b && { name: b.name, properties: propertiesOf(b), shapes: b.shapes })
      }
    }
    const click = clicks.get(player)
    const hit = click ? { x: click.x, y: click.y, z: click.z } : { x: at.x + 0.5, y: at.y, z: at.z + 0.5 }
    const hinge = halves.hingeOf(name, at, facing, hit, (x, y, z) => near.get(`${x},${y},${z}`) || null)
    const door = { facing, hinge, open: false, powered: false }
    await serv.setBlock(world, at.offset(0, 1, 0), stateOf(name, { ...door, half: 'upper' }))
    return placed(name, { ...door, half: 'lower' })
  }

  // DoorBlock.onBlockActivated: open toggled on both halves
  async function toggle (world, block) {
    const props = block.getProperties()
    const open = !props.open
    const other = xyz(halves.otherHalf(block.name, props, block.position))
    await serv.setBlock(world, block.position, stateOf(block.name, { ...props, open }))
    const twin = await world.getBlock(other)
    if (twin && twin.name === block.name) {
      await serv.setBlock(world, other, stateOf(block.name, { ...twin.getProperties(), open }))
    }
    serv.playSound(`block.wooden_door.${open ? 'open' : 'close'}`, world, block.position.offset(0.5, 0.5, 0.5), {})
  }

  function dropOne (world, at, name) {
    serv.spawnObject(itemEntity, world, at.offset(0.25 + Math.random() * 0.5, 0.25, 0.25 + Math.random() * 0.5), {
      velocity: new Vec3(Math.random() * 2 - 1, 4, Math.random() * 2 - 1),
      itemId: registry.itemsByName[name].id,
      itemCount: 1,
      pickupTime: PICKUP_MS,
      deathTime: DESPAWN_MS
    })
  }

  // a player broke the block at `at`: the other half of a bed or door goes too, and a door
  // standing on it falls off
  async function broken (player, block, at) {
    const world = player.world
    if (halves.isBed(block.name) || halves.isDoor(block.name)) {
      const props = block.getProperties()
      const other = xyz(halves.otherHalf(block.name, props, at))
      const twin = await world.getBlock(other)
      const twinProps = propertiesOf(twin)
      const pair = halves.isBed(block.name) ? twinProps.part !== props.part : twinProps.half !== props.half
      if (twin && twin.name === block.name && pair) await serv.setBlock(world, other, 0)
      return
    }
    const above = await world.getBlock(at.offset(0, 1, 0))
    if (!above || !halves.isDoor(above.name) || above.getProperties().half !== 'lower') return
    const top = await world.getBlock(at.offset(0, 2, 0))
    if (top && top.name === above.name) await serv.setBlock(world, at.offset(0, 2, 0), 0)
    await serv.setBlock(world, at.offset(0, 1, 0), 0)
    dropOne(world, at.offset(0, 1, 0), above.name)
  }

  serv.once('asap', () => {
    for (const name of BEDS) serv.onItemPlace(name, placeBed, false)
    for (const name of DOORS) serv.onItemPlace(name, placeDoor, false)
    // vanilla: sneaking with an item in hand uses the item (places a block) instead
    const sneaksWithItem = (player) => player.crouching && !!player.inventory.slots[36 + player.heldItemSlot]
    for (const name of BEDS) serv.onBlockInteraction(name, ({ player }) => !sneaksWithItem(player))
    for (const name of WOODEN_DOORS) {
      serv.onBlockInteraction(name, async ({ block, player }) => {
        if (sneaksWithItem(player)) return false
        try {
          await toggle(player.world, block)
        } catch (err) {
          serv.err(`beds_doors: opening the door at ${block.position} failed: ${err && err.stack}`)
        }
        return true
      })
    }
  })

  serv.on('newPlayer', (player) => {
    const seen = ({ yaw }) => { looks.set(player, yaw) }
    player._client.on('look', seen)
    player._client.on('position_look', seen)
    player._client.on('block_place', ({ location, cursorX, cursorY, cursorZ }) => {
      clicks.set(player, { x: location.x + cursorX, y: location.y + cursorY, z: location.z + cursorZ })
    })
    player.on('dug', (data, cancelled) => {
      if (cancelled || !data.block) return
      broken(player, data.block, data.position)
        .catch((err) => serv.err(`beds_doors: breaking ${data.block.name} at ${data.position} failed: ${err && err.stack}`))
    })
  })
}

module.exports.BEDS = BEDS
module.exports.DOORS = DOORS
