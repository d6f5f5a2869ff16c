'use strict'
// find.js against mineflayer's own bot.findBlocks, on the survival sandbox's terrain (its
// generator), for the searches bot_helper.js makes: a gather's nearest log or ore with cells
// skipped (48 blocks), mining under cover (ore below the feet, in a box), block ids (8 near).
//   node find_blocks.js VERSION SEEDS QUERIES
// For each seed: a world of 8 x 8 chunks; QUERIES points on the surface and underground; each
// search made both ways and compared (the positions found, in order). Then blocks change (logs
// and ores put in sections that had none, sections of one state among them, some taken away)
// and each search is made again: find.js must give what mineflayer's search gives when it reads
// every cell (find.js reads the sections' palettes as they are now). Both stop at the end of the
// layer of sections where they found enough: the nearest block of the sections read.
// Prints JSON: searches, found (how many found something), mismatches (the first few), after
// (searches after the changes), wrong (the first few of those that differ from the one reading
// every cell), mineflayer_ms, find_ms (in all), pairs (each search's ms: mineflayer, find.js).
const path = require('path')
const { performance } = require('perf_hooks')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const JS = path.resolve(__dirname, '..', '..', 'pepa', 'link', 'js') // the bot's
const SERVER_JS = path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js') // the world server's
const [version, seeds, queries] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])]
const registry = require(path.join(NM, 'prismarine-registry'))(version)
const prismarineBlock = require(path.join(NM, 'prismarine-block'))
const Block = prismarineBlock(registry)
const { OctahedronIterator } = require(path.join(NM, 'prismarine-world')).iterators
const { Vec3 } = require(path.join(NM, 'vec3'))
const { sandboxWorld, surface, botOver } = require('./terrain')
const { createFinder } = require(path.join(JS, 'find.js'))
const { seeded } = require(path.join(SERVER_JS, 'life', 'state.js'))

const names = (suffix) => registry.blocksArray.filter(b => b.name.endsWith(suffix)).map(b => b.name)
const logs = new Set(names('_log').filter(n => !n.startsWith('stripped_')))
if (logs.size === 0) logs.add('log') // 1.12: one block, its kinds in the metadata
const ores = new Set(['coal_ore', 'iron_ore'])
const key = (p) => `${p.x},${p.y},${p.z}`

// the searches, as bot_helper.js makes them: [mineflayer's options, find.js's, and mineflayer's
// reading every cell (useExtraInfo true: no palette looked at, the place asked of each Block)]
function searches (point, skipped) {
  const box = (q) => q.y <= point.y + 1 && Math.max(Math.abs(q.x - point.x), Math.abs(q.z - point.z)) <= 10
  const ids = [...ores].map(n => registry.blocksByName[n].id)
  const isLog = (b) => b && logs.has(b.name)
  const isOre = (b) => b && ores.has(b.name)
  const fresh = (q) => !skipped.has(key(q))
  const ore = (q) => fresh(q) && box(q)
  return [
    [{ point, matching: isLog, maxDistance: 48, useExtraInfo: (b) => fresh(b.position) },
      { point, matching: isLog, maxDistance: 48, where: fresh },
      { point, matching: (b) => isLog(b) && fresh(b.position), maxDistance: 48, useExtraInfo: true }],
    [{ point, matching: isOre, maxDistance: 12, useExtraInfo: (b) => ore(b.position) },
      { point, matching: isOre, maxDistance: 12, where: ore },
      { point, matching: (b) => isOre(b) && ore(b.position), maxDistance: 12, useExtraInfo: true }],
    [{ point, matching: ids, maxDistance: 24, count: 8 }, { point, matching: ids, maxDistance: 24, count: 8 },
      { point, matching: (b) => b && ids.includes(b.type), maxDistance: 24, count: 8, useExtraInfo: true }]
  ]
}

const out = { searches: 0, found: 0, mismatches: [], after: 0, wrong: [], mineflayer_ms: 0, find_ms: 0, pairs: [] }
const show = (ps) => ps.map(key).join(' ')
for (let seed = 1; seed <= seeds; seed++) {
  const world = sandboxWorld(registry, seed)
  const bot = botOver(registry, world)
  const finder = createFinder(bot, { prismarineBlock, OctahedronIterator })
  const random = seeded(seed)
  const points = []
  for (let i = 0; i < queries; i++) {
    const x = Math.floor(random() * 80) - 40
    const z = Math.floor(random() * 80) - 40
    const top = surface(world, x, z)
    points.push(new Vec3(x, i % 3 === 2 ? top - 20 : top, z)) // some underground (the ores)
  }
  for (const point of points) {
    const skipped = new Set()
    for (let round = 0; round < 3; round++) { // as a gather does: skip what was found, again
      for (const [theirs, ours] of searches(point, skipped)) {
        let t = performance.now()
        const want = bot.findBlocks(theirs)
        const theirMs = performance.now() - t
        t = performance.now()
        const got = finder.findBlocks(ours)
        const ourMs = performance.now() - t
        out.mineflayer_ms += theirMs
        out.find_ms += ourMs
        out.pairs.push([Math.round(theirMs * 100) / 100, Math.round(ourMs * 100) / 100])
        out.searches++
        if (got.length) out.found++
        if (show(want) !== show(got) && out.mismatches.length < 3) {
          out.mismatches.push({ seed, point: key(point), round, mineflayer: show(want), find: show(got) })
        }
        for (const p of got) skipped.add(key(p))
      }
    }
  }
  // the world changes: logs and ores where there were none (air, stone, the deep), some taken
  const log = Block.fromStateId(registry.blocksByName[[...logs][0]].defaultState, 0)
  const ore = registry.blocksByName.iron_ore.defaultState
  const air = registry.blocksByName.air.defaultState
  const near = (point, d) => point.offset(Math.floor(random() * (2 * d + 1)) - d, Math.floor(random() * (2 * d + 1)) - d, Math.floor(random() * (2 * d + 1)) - d)
  for (const point of points) { // near each point: in the air above it, in the stone below
    for (let k = 0; k < 3; k++) world.setBlockStateId(near(point, 12), log.stateId)
    for (let k = 0; k < 2; k++) world.setBlockStateId(near(point, 8), ore)
    for (const p of finder.findBlocks(searches(point, new Set())[0][1])) world.setBlockStateId(p, air)
  }
  for (const point of points) {
    for (const [, ours, every] of searches(point, new Set())) {
      const got = show(finder.findBlocks(ours))
      const want = show(bot.findBlocks(every))
      out.after++
      if (got !== want && out.wrong.length < 3) out.wrong.push({ seed, point: key(point), find: got, every: want })
    }
  }
}
out.mineflayer_ms = Math.round(out.mineflayer_ms)
out.find_ms = Math.round(out.find_ms)
process.stdout.write(JSON.stringify(out))
