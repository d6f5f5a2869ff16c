'use strict'
// reach.js — where a bot stands to dig a block: its eyes within reach of the block, one of
// the block's faces in sight (required by bot_helper.js).
//
// mineflayer-pathfinder 2.4.5's GoalLookAtBlock measures its reach from the cell's floor to a
// point entityHeight *above the block* (node.distanceTo(pos.offset(0, entityHeight, 0))),
// where the eyes are entityHeight above the floor. For a block above the bot the two heights
// add up instead of cancelling: with a reach of 4, a log 3 blocks up a trunk was out of reach
// from every cell on the ground, and each such log cost a search to its time limit (5 s for a
// bot alone, 30 s for one of eight sharing a bridge), most of the fleet's path search in a
// working run. Here the reach is measured as the server and mineflayer measure a dig: from
// the eyes (EYE above the floor, the cell's centre) to the block's centre. Which faces can be
// seen is GoalLookAtBlock's own test (a ray from the eyes to each face turned to them).

const EYE = 1.62 // a standing player's eye height
const REACH = 4.5 // a survival player's reach; mineflayer digs within 5.1, a vanilla server allows 6

function reachGoal (goals) {
  class GoalReachBlock extends goals.GoalLookAtBlock {
    constructor (pos, world, reach = REACH) {
      // the parent's own reach check (floor to above the block) is kept out of the way: it can
      // exceed the eyes' distance by 2 * EYE, and its reach is also the length of its rays, which
      // stop at the first block they meet whatever their length
      super(pos, world, { reach: reach + 2 * EYE + 1, entityHeight: EYE })
      this.eyeReachSq = reach * reach
    }

    isEnd (node) {
      const dx = node.x - this.pos.x
      const dy = node.y + EYE - (this.pos.y + 0.5)
      const dz = node.z - this.pos.z
      return dx * dx + dy * dy + dz * dz <= this.eyeReachSq && super.isEnd(node)
    }
  }
  return GoalReachBlock
}

module.exports = { reachGoal, EYE, REACH }
