'use strict'
// The survival sandbox's terrain for the node-script tests: a world of 8 x 8 chunks of its
// generator around the origin (those beyond are not loaded), the surface of a column, and a
// bot over such a world.
const path = require('path')
const EventEmitter = require('events')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const SERVER_JS = path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js') // the world server's
const { Vec3 } = require(path.join(NM, 'vec3'))
const generator = require(path.join(SERVER_JS, 'generator.js'))

const R = 4 // chunks each way from the origin

function sandboxWorld (registry, seed) {
  const World = require(path.join(NM, 'prismarine-world'))(registry)
  const world = new World().sync
  const g = generator({ seed, registry })
  for (let x = -R; x < R; x++) for (let z = -R; z < R; z++) world.setColumn(x, z, g(x, z))
  return world
}

// the y a player stands at on column x, z (64 when nothing solid is found)
function surface (world, x, z) {
  for (let y = 120; y > 1; y--) {
    const b = world.getBlock(new Vec3(x, y, z))
    if (b && b.boundingBox === 'block') return y + 1
  }
  return 64
}

// a bot with mineflayer's blocks plugin (its findBlocks, findBlock, blockAt) over a world
function botOver (registry, world) {
  const version = registry.version.minecraftVersion
  const bot = new EventEmitter()
  bot._client = new EventEmitter()
  bot.registry = registry
  bot.version = version
  require(path.join(NM, 'mineflayer', 'lib', 'plugins', 'blocks'))(bot, { version })
  bot.world = world
  bot.game = registry.version['>=']('1.18') ? { minY: -64, height: 384 } : { minY: 0, height: 256 }
  bot.entity = { position: new Vec3(0, 80, 0) }
  return bot
}

module.exports = { sandboxWorld, surface, botOver }
