'use strict'
// Blocks of two cells, beds and doors: vanilla 1.16.5's placement rules, shared by the sandbox
// (plugins/beds_doors.js: what a placement does) and the bot (where a bed's head or a door's
// upper half will go when it places one), so the two agree on every cell.
//
//   - a player's horizontal facing is its yaw's quarter (vanilla Direction.fromAngle: yaw 0
//     faces south, 90 west, 180 north, 270 east);
//   - a bed (BedItem, BedBlock.getStateForPlacement): the foot at the placed cell, the head one
//     cell toward the player's facing, both `facing` it; refused when the head's cell is not
//     replaceable;
//   - a door (DoorBlock.getStateForPlacement): the lower half at the placed cell, the upper
//     one above, `facing` the player's facing, its hinge by DoorBlock.getHingeSide (below);
//     refused when the cell above is not replaceable or the block below has no sturdy top.
//
// Pure: positions are plain {x, y, z}; blocks are what the caller reads of them.

const HORIZONTAL = ['south', 'west', 'north', 'east'] // vanilla Direction.byHorizontalIndex
const OFFSET = { north: [0, -1], south: [0, 1], west: [-1, 0], east: [1, 0] } // [dx, dz]
const CLOCKWISE = { north: 'east', east: 'south', south: 'west', west: 'north' } // Direction.rotateY
const COUNTER = { north: 'west', west: 'south', south: 'east', east: 'north' } // Direction.rotateYCCW
// vanilla Material.isReplaceable (air, fluids, fire, tall plants, sea grass, nether roots): a
// placement may go into these; snow only as a single layer (SnowBlock.isReplaceable)
const REPLACEABLE = new Set(['air', 'cave_air', 'void_air', 'structure_void', 'water', 'lava', 'bubble_column',
  'grass', 'fern', 'dead_bush', 'tall_grass', 'large_fern', 'vine', 'seagrass', 'tall_seagrass',
  'crimson_roots', 'warped_roots', 'nether_sprouts', 'fire', 'soul_fire'])

const isBed = (name) => typeof name === 'string' && name.endsWith('_bed')
const isDoor = (name) => typeof name === 'string' && name.endsWith('_door')
const isWoodenDoor = (name) => isDoor(name) && name !== 'iron_door' // iron opens by redstone only

// a player's horizontal facing from its yaw in a client's degrees
const facingOf = (yaw) => HORIZONTAL[Math.floor(yaw / 90 + 0.5) & 3]

const toward = (p, facing, n = 1) => ({ x: p.x + OFFSET[facing][0] * n, y: p.y, z: p.z + OFFSET[facing][1] * n })

// a placement may go into a cell holding this block (name, properties: its state's)
function replaceable (name, properties = {}) {
  if (name === 'snow') return Number(properties.layers) === 1
  return REPLACEABLE.has(name)
}

// the head of a bed whose foot is at `foot`, placed by a player facing `facing`
const bedHead = (foot, facing) => toward(foot, facing)

// the other half of a bed or door at `p` with these properties; null for any other block
function otherHalf (name, properties, p) {
  if (isBed(name)) return toward(p, properties.facing, properties.part === 'foot' ? 1 : -1)
  if (isDoor(name)) return { x: p.x, y: p.y + (properties.half === 'lower' ? 1 : -1), z: p.z }
  return null
}

// the `open` property of a door's (or gate's, trapdoor's) state, from minecraft-data's block
// info alone: its properties are listed with the last one varying fastest, a bool's first
// value is true
function isOpen (info, stateId) {
  let stride = 1
  for (let i = info.states.length - 1; i >= 0; i--) {
    const p = info.states[i]
    if (p.name === 'open') return Math.floor((stateId - info.minStateId) / stride) % p.num_values === 0
    stride *= p.num_values
  }
  return false
}

// a box list (prismarine-block `shapes`) that is a whole cube: vanilla's opaque collision shape
const fullCube = (shapes) => Array.isArray(shapes) && shapes.length === 1 &&
  shapes[0].every((v, i) => v === (i < 3 ? 0 : 1))

// a box list whose top is a whole face at the cell's top (vanilla isFaceSturdy(UP)): a door stands on it
const sturdyTop = (shapes) => Array.isArray(shapes) &&
  shapes.some(([x0, , z0, x1, y1, z1]) => y1 >= 1 && x0 <= 0 && z0 <= 0 && x1 >= 1 && z1 >= 1)

// vanilla DoorBlock.getHingeSide: a door placed at `at` by a player facing `facing`, clicked at
// `hit` (the point hit, in world coordinates). block(x, y, z) → { name, properties, shapes }
// of a neighbour. The side with more whole-cube blocks beside the door (at either half's
// height) gets the hinge; a lower door half of the same kind beside it makes a double door;
// on a tie, the side of the cell the click fell on.
function hingeOf (door, at, facing, hit, block) {
  const left = COUNTER[facing]
  const right = CLOCKWISE[facing]
  const cube = (b) => !!b && fullCube(b.shapes)
  const l = toward(at, left)
  const r = toward(at, right)
  const [l0, l1, r0, r1] = [block(l.x, l.y, l.z), block(l.x, l.y + 1, l.z), block(r.x, r.y, r.z), block(r.x, r.y + 1, r.z)]
  const i = (cube(l0) ? -1 : 0) + (cube(l1) ? -1 : 0) + (cube(r0) ? 1 : 0) + (cube(r1) ? 1 : 0)
  const lowerDoor = (b) => !!b && b.name === door && b.properties && b.properties.half === 'lower'
  const leftDoor = lowerDoor(l0)
  const rightDoor = lowerDoor(r0)
  if ((leftDoor && !rightDoor) || i > 0) return 'right'
  if ((rightDoor && !leftDoor) || i < 0) return 'left'
  const [j, k] = OFFSET[facing]
  const dx = hit.x - at.x
  const dz = hit.z - at.z
  return (j >= 0 || !(dz < 0.5)) && (j <= 0 || !(dz > 0.5)) && (k >= 0 || !(dx > 0.5)) && (k <= 0 || !(dx < 0.5))
    ? 'left'
    : 'right'
}

module.exports = {
  HORIZONTAL,
  OFFSET,
  isBed,
  isDoor,
  isWoodenDoor,
  facingOf,
  replaceable,
  bedHead,
  otherHalf,
  isOpen,
  fullCube,
  sturdyTop,
  hingeOf
}
