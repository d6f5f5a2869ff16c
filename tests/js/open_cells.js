'use strict'
// cover.js's open(x, y, z) against what bot_helper.js's enclosure asked before it: `!blockAt(p)
// || blockAt(p).boundingBox === 'empty'`, mineflayer's blockAt making a Block for the cell.
//   node open_cells.js VERSION SEED
// On the survival sandbox's terrain (8 x 8 chunks; before 1.13 stone up to y 60), every cell of boxes round points on the
// surface and underground, of boxes reaching past the loaded chunks and past the top and the
// bottom of the world; then cells changed to blocks with and without a collision box (slabs,
// glass, water, torches, leaves, air) and all read again. Prints JSON: cells, open (how many
// were open), unloaded (how many were of unloaded columns), mismatches (the first few), and
// block_at_ns, open_ns: the time each way took in all.
const path = require('path')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const JS = path.resolve(__dirname, '..', '..', 'pepa', 'link', 'js') // the bot's
const SERVER_JS = path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js') // the world server's
const [version, seed] = [process.argv[2], Number(process.argv[3] || 1)]
const registry = require(path.join(NM, 'prismarine-registry'))(version)
const { Vec3 } = require(path.join(NM, 'vec3'))
const { sandboxWorld, surface, botOver } = require('./terrain')
const coverModule = require(path.join(JS, 'cover.js'))
const { seeded } = require(path.join(SERVER_JS, 'life', 'state.js'))

// the sandbox's generator knows the blocks' names from 1.13 on: before, stone up to y 60
function flatWorld () {
  const World = require(path.join(NM, 'prismarine-world'))(registry)
  const Chunk = require(path.join(NM, 'prismarine-chunk'))(registry)
  const w = new World().sync
  const stone = registry.blocksByName.stone.minStateId
  for (let cx = -4; cx < 4; cx++) {
    for (let cz = -4; cz < 4; cz++) {
      const column = new Chunk()
      for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) for (let y = 0; y < 60; y++) column.setBlockStateId(new Vec3(x, y, z), stone)
      w.setColumn(cx, cz, column)
    }
  }
  return w
}
const world = registry.version['>=']('1.13') ? sandboxWorld(registry, seed) : flatWorld()
const bot = botOver(registry, world)
const cover = coverModule(bot, Vec3)
const rnd = seeded(seed)
const { minY, height } = bot.game
const out = { cells: 0, open: 0, unloaded: 0, mismatches: [], block_at_ns: 0, open_ns: 0 }

// [x, y, z] corners: round surface and underground points, past the loaded chunks (64 x 64
// blocks from -64), past the world's top and bottom
const boxes = []
for (let i = 0; i < 12; i++) {
  const x = Math.floor(rnd() * 120) - 60
  const z = Math.floor(rnd() * 120) - 60
  const y = surface(world, x, z)
  boxes.push([x, y, z], [x, y - 12 - Math.floor(rnd() * 20), z])
}
boxes.push([62, 70, 0], [0, 70, -66], [5, minY + height - 2, 5], [5, minY + 1, 5])

function compare (stage) {
  for (const [bx, by, bz] of boxes) {
    for (let x = bx - 3; x <= bx + 3; x++) {
      for (let y = by - 3; y <= by + 6; y++) {
        for (let z = bz - 3; z <= bz + 3; z++) {
          const t0 = process.hrtime.bigint()
          const b = bot.blockAt(new Vec3(x, y, z))
          const was = !b || b.boundingBox === 'empty'
          const t1 = process.hrtime.bigint()
          const now = cover.open(x, y, z)
          out.block_at_ns += Number(t1 - t0)
          out.open_ns += Number(process.hrtime.bigint() - t1)
          out.cells++
          if (now) out.open++
          if (!world.getColumn(x >> 4, z >> 4)) out.unloaded++
          if (was !== now && out.mismatches.length < 10) out.mismatches.push({ stage, x, y, z, block: b && b.name, blockAt: was, open: now })
        }
      }
    }
  }
}

compare('terrain')
const kinds = ['stone', 'glass', 'water', 'air', 'torch', 'oak_leaves', 'leaves', 'oak_slab', 'stone_slab', 'wooden_slab', 'cobweb', 'web', 'ladder']
  .filter((n) => registry.blocksByName[n])
for (const [bx, by, bz] of boxes) {
  for (let i = 0; i < 40; i++) {
    const p = new Vec3(bx + Math.floor(rnd() * 7) - 3, by + Math.floor(rnd() * 10) - 3, bz + Math.floor(rnd() * 7) - 3)
    if (p.y < minY || p.y >= minY + height || !world.getColumn(p.x >> 4, p.z >> 4)) continue
    const block = registry.blocksByName[kinds[Math.floor(rnd() * kinds.length)]]
    const states = block.maxStateId - block.minStateId + 1
    world.setBlockStateId(p, block.minStateId + Math.floor(rnd() * states))
  }
}
compare('changed')
process.stdout.write(JSON.stringify(out))
