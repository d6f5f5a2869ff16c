'use strict'
// Sand and gravel fall (flying-squid leaves them hanging): vanilla 1.16.5's
// FallingBlock and FallingBlockEntity. A change to a block schedules a check
// of it and of the block above it 2 game ticks later (FallingBlock's delay
// after a neighbour changes); a falling block over a free cell (air, fluid,
// or a block with no collision box: grass, flowers, fire) leaves its place and
// falls as vanilla's entity does, speed += 0.04 a tick then x 0.98, until the
// cell under it is not free; there it becomes a block again. What stands
// where it lands is inside it: a player's head in sand or gravel suffocates
// (plugins/hazards.js). Differences: no falling_block entity is shown to the
// players (the block is gone, then lands); a block that lands where a block
// stands already (a torch, a slab) is not dropped as an item.
//
// On in a vanilla world; off in the gentle ones, whose sand always hung.
// Control ops: falling {on} → {on}; falling_stats → {on, falling, fell, landed}
const { lifeOf } = require('../life/state')
const { overworld } = require('../life/overworld')

const DELAY = 2
const GRAVITY = 0.04
const DRAG = 0.98
const FALLS = /^(sand|red_sand|gravel|[a-z_]+_concrete_powder)$/

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const registry = serv.registry
  let on = life.terrain === 'vanilla'
  let now = 0
  let fell = 0
  let landed = 0
  const checks = new Map() // key -> [x, y, z, due tick]
  const bodies = [] // { x, y, z, vy, stateId }
  let top = 0
  for (const b of Object.values(registry.blocksByName)) top = Math.max(top, b.maxStateId)
  const falls = new Uint8Array(top + 1)
  const free = new Uint8Array(top + 1)
  for (const b of Object.values(registry.blocksByName)) {
    for (let s = b.minStateId; s <= b.maxStateId; s++) {
      if (FALLS.test(b.name)) falls[s] = 1
      if (b.boundingBox === 'empty' && !/portal|ladder|_sign$|torch|rail|button|lever|pressure_plate|redstone_wire|tripwire/.test(b.name)) free[s] = 1
    }
  }

  function check (x, y, z) {
    const key = `${x},${y},${z}`
    if (!checks.has(key)) checks.set(key, [x, y, z, now + DELAY])
  }
  const world = overworld(serv, (x, y, z) => {
    if (!on) return
    check(x, y, z)
    check(x, y + 1, z)
  })
  const { get, set } = world

  serv.on('tick', () => {
    if (!world.ready()) return
    now++
    if (!on) return
    for (const [key, [x, y, z, due]] of checks) {
      if (due > now) continue
      checks.delete(key)
      const id = get(x, y, z)
      const below = get(x, y - 1, z)
      if (id === null || below === null || !falls[id] || !free[below] || y <= 0) continue
      bodies.push({ x, y, z, fy: y, vy: 0, stateId: id })
      fell++
      set(x, y, z, 0) // leaves its place (and the block above it is checked in turn)
    }
    bodies.sort((a, b) => a.fy - b.fy) // the lowest first: what lands under another is there for it
    for (let i = 0; i < bodies.length; i++) {
      const b = bodies[i]
      b.vy = (b.vy - GRAVITY) * DRAG
      const target = b.fy + b.vy
      let cell = b.y
      let stop = false
      while (Math.floor(target) < cell) { // it would enter the cell below
        const below = get(b.x, cell - 1, b.z)
        if (below === null || cell - 1 < 0 || !free[below]) { stop = true; break }
        cell--
      }
      b.y = cell
      b.fy = stop ? cell : target
      if (stop) {
        bodies.splice(i--, 1)
        landed++
        set(b.x, cell, b.z, b.stateId)
      }
    }
  })

  life.ops.falling = ({ on: value } = {}) => {
    if (value !== undefined) on = !!value
    if (!on) checks.clear()
    return { on }
  }
  life.ops.falling_stats = () => ({ on, falling: bodies.length, fell, landed })
}
