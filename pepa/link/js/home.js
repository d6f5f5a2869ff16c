'use strict'
// The bot's home: a closed room with a door (the hut of pepa/game/blueprints/hut.json, or any
// room with a wooden door). Known from setHome (its door), it changes how the bot walks:
//  - the pathfinder never breaks a block of the house (its walls, roof, door and furniture:
//    every cell within BOX of the door) to walk a path: keepCost is an exclusionAreasBreak of
//    the Movements (mineflayer-pathfinder reads a break costing over 100 as impossible);
//  - mineflayer-pathfinder cannot walk through a door (it sees every door as a full block and
//    never opens one; its canOpenDoors opens fence gates only), so a walk that starts inside
//    and ends outside, or the other way round, first crosses the doorway here: to the cell in
//    front of the door, the door opened, two steps straight through, the door shut behind.
// The room's inside is the flood fill of the cells a player fits in from the cell behind the
// door, shut in by walls and the door: at most ROOM cells (more is no room, and no crossing).
const BOX = 4
const ROOM = 48
const STEP_MS = 4000
const { OFFSET: FACE_STEP, isDoor } = require('../../game/js/halves') // a facing's [dx, dz]
const SIDES = [[1, 0], [-1, 0], [0, 1], [0, -1]]

function createHome (ctx) {
  const { bot, Vec3, goals, waitFor } = ctx
  let home = null // { door, facing, inside, outside, room: Set of keys, cells: [Vec3] }
  let wanted = null // where setHome said the home is, while its chunk is not loaded
  let crossing = false
  const key = (p) => `${p.x},${p.y},${p.z}`
  const fits = (p) => {
    const feet = bot.blockAt(p)
    const head = bot.blockAt(p.offset(0, 1, 0))
    const below = bot.blockAt(p.offset(0, -1, 0))
    const free = (b) => b && b.boundingBox === 'empty' && !isDoor(b.name) && b.name !== 'water' && b.name !== 'lava'
    return free(feet) && free(head) && !!below && below.boundingBox === 'block'
  }

  // the room behind the door: the cells a player fits in, flood-filled from `inside`
  function roomOf (inside) {
    const seen = new Map([[key(inside), inside]])
    const queue = [inside]
    while (queue.length) {
      const p = queue.shift()
      for (const [dx, dz] of SIDES) {
        const q = p.offset(dx, 0, dz)
        if (seen.has(key(q)) || !fits(q)) continue
        seen.set(key(q), q)
        if (seen.size > ROOM) return null
        queue.push(q)
      }
    }
    return seen
  }

  // setHome: the home whose door is at x, y, z or nearest it (within 2 blocks: the cell behind
  // the door will do); null when there is no door
  function set (x, y, z) {
    let door = null
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -2; dx <= 2; dx++) {
        for (let dz = -2; dz <= 2; dz++) {
          const b = bot.blockAt(new Vec3(x + dx, y + dy, z + dz))
          if (!b || !isDoor(b.name) || b.getProperties().half === 'upper') continue
          if (!door || Math.abs(dx) + Math.abs(dy) + Math.abs(dz) < door.d) door = { b, d: Math.abs(dx) + Math.abs(dy) + Math.abs(dz) }
        }
      }
    }
    wanted = new Vec3(x, y, z)
    if (!door) { home = null; return null }
    door = door.b
    const facing = door.getProperties().facing
    const [fx, fz] = FACE_STEP[facing]
    const at = door.position
    const inside = at.offset(-fx, 0, -fz)
    const room = roomOf(inside)
    home = { door: at, facing, inside, outside: at.offset(fx, 0, fz), room, cells: room ? [...room.values()] : [] }
    return { door: at, facing, inside, outside: home.outside, room: room ? room.size : 0 }
  }

  const within = (p) => home && Math.abs(p.x - home.door.x) <= BOX && Math.abs(p.z - home.door.z) <= BOX &&
    p.y >= home.door.y - 1 && p.y <= home.door.y + BOX
  // a break the pathfinder must never make: a block of the house
  const keepCost = (block) => (block && block.position && within(block.position) ? 1000 : 0)
  const isInside = (p) => !!(home && home.room && home.room.has(key(p.floored())))

  const isOpen = () => { const b = bot.blockAt(home.door); return !!b && isDoor(b.name) && b.getProperties().open === true }
  async function setDoor (open) {
    if (isOpen() === open) return
    await bot.activateBlock(bot.blockAt(home.door))
    if (!await waitFor(() => isOpen() === open, 2000)) throw new Error(`the door at ${home.door} did not ${open ? 'open' : 'shut'}`)
  }
  // walk straight to the middle of `cell` (the doorway: the pathfinder will not)
  async function stepTo (cell) {
    const mid = cell.offset(0.5, 0, 0.5)
    await bot.lookAt(mid.offset(0, 1.6, 0), true)
    bot.setControlState('forward', true)
    try {
      const there = () => Math.hypot(bot.entity.position.x - mid.x, bot.entity.position.z - mid.z) < 0.3
      const onTrack = () => bot.lookAt(mid.offset(0, 1.6, 0), true)
      const ok = await waitFor(() => { onTrack(); return there() }, STEP_MS)
      if (!ok) throw new Error(`could not step to ${cell} through the door`)
    } finally {
      bot.setControlState('forward', false)
    }
  }
  // through the door, from the outside in (inwards) or the inside out
  async function cross (inwards, plainGoto) {
    const [from, to] = inwards ? [home.outside, home.inside] : [home.inside, home.outside]
    crossing = true
    try {
      if (!bot.entity.position.floored().equals(from)) await plainGoto(new goals.GoalBlock(from.x, from.y, from.z))
      await setDoor(true)
      await stepTo(home.door)
      await stepTo(to)
      await setDoor(false)
    } finally {
      crossing = false
    }
  }

  // The doorway first when `goal` lies on the other side of the door from the bot
  async function route (goal, plainGoto) {
    if (!resolve() || !home.room || crossing) return
    const feet = bot.entity.position.floored()
    const goalInside = home.cells.some(c => goal.isEnd(c))
    if (isInside(feet) && !goalInside) await cross(false, plainGoto)
    else if (!isInside(feet) && goalInside && !goal.isEnd(feet)) await cross(true, plainGoto)
  }

  // bot.pathfinder.goto with the doorway crossed first (installed once, by the first setHome)
  let installed = false
  function install () {
    if (installed) return
    installed = true
    const plain = bot.pathfinder.goto
    bot.pathfinder.goto = async (goal, arrived) => {
      await route(goal, (g) => plain(g))
      return plain(goal, arrived)
    }
  }

  // the home setHome named, found once its chunk is loaded (null while it is not)
  function resolve () {
    if (!home && wanted) set(wanted.x, wanted.y, wanted.z)
    return home
  }

  return {
    set: (x, y, z) => { install(); return set(x, y, z) },
    resolve,
    wanted: () => wanted,
    keepCost,
    isInside,
    get: () => home,
    cross: (inwards) => cross(inwards, (g) => bot.pathfinder.goto(g))
  }
}

module.exports = { createHome }
