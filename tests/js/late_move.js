'use strict'
// tests/js/operator.js whose client, when the server teleports it down by more
// than 3 blocks, first sends one more move from where it was (half a block up,
// in the air, as in a jump) and only then confirms the teleport: the move a
// jumping client had on the wire when the teleport came (tests/integration/worldserver/test_sandbox_damage.py).
//   node late_move.js HOST PORT USERNAME   (as operator.js)
const path = require('path')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const mineflayer = require(path.join(NM, 'mineflayer'))

const createBot = mineflayer.createBot
mineflayer.createBot = (options) => {
  const bot = createBot(options)
  // before mineflayer's own listener, which confirms the teleport
  bot._client.prependListener('position', (packet) => {
    const here = bot.entity && bot.entity.position
    if (!here || bot.health <= 0 || packet.flags !== 0 || packet.y > here.y - 3) return
    bot._client.write('position', { x: here.x, y: here.y + 0.5, z: here.z, onGround: false })
  })
  return bot
}
require('./operator.js')
