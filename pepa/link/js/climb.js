// Climbing a shaft by hand: dig the block over the head, jump, put a held block
// under the feet, one block at a time (a player's "pillar up"). The escape's
// 'surface' mode uses it when the pathfinder finds no way up: in the
// gauntlet's mines (a 2-wide shaft under a shelter's roof, a table beside it)
// its search gave "No path to the goal!" again and again, with blocks held.
'use strict'

const { GRAVITY, SIDES } = require('./workshop')

// A step's failures that a slow machine explains (the jump not up in time, so the block
// is refused or not answered: mineflayer's placeBlock), and how often in a row one is
// tried again
const TRANSIENT = /did not rise|did not answer|refused to place|did not fire within/
const RETRIES = 3

// Blocks dug from the shaft's walls for the climb, and what each drops
const QUARRY = { stone: 'cobblestone', cobblestone: 'cobblestone', dirt: 'dirt', grass_block: 'dirt' }

// h: { Vec3, bestTool, waitFor, liquid, blocks: names to climb on, centre, sealedCell }
function createClimb (bot, h) {
  const heldBlock = () => h.blocks.map(n => bot.inventory.items().find(i => i.name === n)).find(i => i)
  const heldBlocks = () => bot.inventory.items().filter(i => h.blocks.includes(i.name)).reduce((n, i) => n + i.count, 0)

  // Dig wall cells beside the feet and head that keep the pocket sealed (h.sealedCell)
  // until `need` blocks to climb on are held: the drops fall to the bot
  async function quarry (need, stopped) {
    while (heldBlocks() < need) {
      const feet = bot.entity.position.floored()
      const cell = [0, 1].flatMap(dy => SIDES.map(([dx, dz]) => feet.offset(dx, dy, dz))).find(p => {
        const b = bot.blockAt(p)
        if (!b || !QUARRY[b.name] || !h.sealedCell(p)) return false
        return !b.harvestTools || !!h.bestTool(b)
      })
      if (!cell) throw new Error('no blocks to climb on and no wall to dig them from')
      const before = heldBlocks()
      const b = bot.blockAt(cell)
      const tool = h.bestTool(b)
      if (tool) await bot.equip(tool, 'hand')
      await bot.dig(b, true)
      stopped()
      await h.waitFor(() => heldBlocks() > before, 1500)
    }
  }

  // One block up from where the bot stands; throws with the reason it cannot
  async function step (stopped) {
    const feet = bot.entity.position.floored()
    const over = bot.blockAt(feet.offset(0, 2, 0))
    if (over && over.boundingBox === 'block') {
      const above = bot.blockAt(feet.offset(0, 3, 0))
      if (!over.diggable || /bedrock/.test(over.name)) throw new Error(`cannot dig the ${over.name} overhead`)
      if (h.liquid(feet.offset(0, 3, 0)) || (above && GRAVITY.test(above.name))) {
        throw new Error(`${above ? above.name : 'something'} over the ${over.name} overhead`)
      }
      const tool = h.bestTool(over)
      if (tool) await bot.equip(tool, 'hand')
      await bot.dig(over, true)
      stopped()
    }
    const item = heldBlock()
    if (!item) throw new Error('no blocks to climb on')
    await bot.equip(item, 'hand')
    const floor = bot.blockAt(feet.offset(0, -1, 0))
    if (!floor || floor.boundingBox !== 'block') throw new Error('nothing to stand on')
    await h.centre()
    await bot.look(bot.entity.yaw, -Math.PI / 2, true)
    bot.setControlState('jump', true)
    try {
      if (!await h.waitFor(() => bot.entity.position.y >= feet.y + 1.05, 1500)) throw new Error('the jump did not rise')
      await bot.placeBlock(floor, new h.Vec3(0, 1, 0))
    } finally {
      bot.setControlState('jump', false)
    }
    await h.waitFor(() => bot.entity.onGround, 1500)
    stopped()
  }

  // Up until the feet are at `y` (at most 64 blocks); `stopped()` throws once the action is
  // cancelled. A step that failed for want of time (a jump or a placement the loaded server
  // did not answer in time) is tried again, up to RETRIES times in a row; a step that cannot
  // work (bedrock, sand overhead, nothing held) ends the climb at once.
  async function climbTo (y, stopped) {
    await quarry(Math.min(64, y - Math.floor(bot.entity.position.y)), stopped)
    let misses = 0
    for (let i = 0; i < 64 + RETRIES && Math.floor(bot.entity.position.y) < y; i++) {
      try {
        await step(stopped)
        misses = 0
      } catch (e) {
        stopped()
        if (!TRANSIENT.test(String(e && e.message)) || ++misses > RETRIES) throw e
        await h.waitFor(() => bot.entity.onGround, 1500)
      }
    }
  }

  return { climbTo }
}

module.exports = { createClimb }
