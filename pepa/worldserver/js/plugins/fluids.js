'use strict'
// Flowing water and lava (flying-squid has no fluid physics): vanilla's
// scheduled fluid ticks, with the rules of terrain/fluids.js. A change to a
// block (a dig, a placement, an explosion, a trap, a flow) schedules a tick
// for every fluid block at it or beside it, 5 game ticks later for water and
// 30 for lava (vanilla LiquidBlock.neighborChanged); a tick moves the fluid
// and its changes schedule the next. The springs a vanilla world's chunks
// are made with (vanilla/index.js) are scheduled as their chunks are made,
// so they run out into their caves.
//
// Reads and writes go through the world's sync view (loaded columns only:
// fluid never flows into a chunk that is not loaded, it waits at its edge).
// At most MAX_PER_TICK fluid ticks run in a game tick; the rest wait. On in a
// vanilla world; off in the gentle ones (default, hard), whose fluids stay
// still as they always were, unless the op turns it on.
//
// Control ops: fluids {on} → {on}; fluid_stats → {on, scheduled, ticked, changed, recent}
const { lifeOf } = require('../life/state')
const { overworld } = require('../life/overworld')
const { fluidRules, DELAY } = require('../terrain/fluids')

const MAX_PER_TICK = 2048
const SIDES = [[0, 0, 0], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  const { rules, fluidOf } = fluidRules(serv.registry)
  let on = life.terrain === 'vanilla' // the gentle worlds keep still fluid, as they always had; the op turns it on
  let now = 0
  let ticked = 0
  let changed = 0
  const recent = [] // the last changes: [x, y, z, block, state offset]
  const due = new Map() // game tick -> Map(key -> [x, y, z])
  const when = new Map() // key -> the tick it is due at

  function schedule (x, y, z, delay) {
    const key = `${x},${y},${z}`
    const tick = now + delay
    const known = when.get(key)
    if (known !== undefined && known <= tick) return
    if (known !== undefined) due.get(known)?.delete(key)
    when.set(key, tick)
    let bucket = due.get(tick)
    if (!bucket) { bucket = new Map(); due.set(tick, bucket) }
    bucket.set(key, [x, y, z])
  }
  // a block changed at (x, y, z): the fluid at and beside it ticks soon
  function touched (x, y, z) {
    if (!on) return
    for (const [dx, dy, dz] of SIDES) {
      const f = fluidOf(get(x + dx, y + dy, z + dz))
      if (f.type !== null) schedule(x + dx, y + dy, z + dz, DELAY[f.type])
    }
  }
  const world = overworld(serv, touched)
  const { get } = world
  const rule = rules(get)

  serv.on('tick', () => {
    if (!world.ready()) return
    now++
    if (life.terrain === 'vanilla') { // the springs of chunks made since the last tick
      const pending = require('../vanilla/index.js').pendingFluids
      while (pending.length) { const s = pending.pop(); touched(s.x, s.y, s.z) }
    }
    if (!on) return
    let budget = MAX_PER_TICK
    for (const [tick, bucket] of [...due.entries()].sort((a, b) => a[0] - b[0])) {
      if (tick > now) break
      for (const [key, [x, y, z]] of bucket) {
        if (budget-- <= 0) break
        bucket.delete(key)
        when.delete(key)
        ticked++
        for (const [cx, cy, cz, id] of rule.tick(x, y, z)) {
          if (get(cx, cy, cz) === null || get(cx, cy, cz) === id) continue
          world.set(cx, cy, cz, id) // schedules the fluid round it (touched)
          changed++
          recent.push([cx, cy, cz, serv.registry.blocksByStateId[id].name, id - serv.registry.blocksByStateId[id].minStateId])
          if (recent.length > 16) recent.shift()
        }
      }
      if (bucket.size === 0) due.delete(tick)
      if (budget <= 0) break
    }
  })

  life.ops.fluids = ({ on: value } = {}) => {
    if (value !== undefined) on = !!value
    if (!on) { due.clear(); when.clear() }
    return { on }
  }
  life.ops.fluid_stats = () => ({ on, scheduled: when.size, ticked, changed, recent: recent.slice() })
}
