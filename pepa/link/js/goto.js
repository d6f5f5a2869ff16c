'use strict'
// bot.pathfinder.goto as mineflayer-pathfinder 2.4.5's lib/goto.js (MIT, PrismarineJS), with the
// fix of its pull request #375 (merged upstream, not released as of 2.4.5): a path update whose
// path is empty resolved the promise whatever its status. A search that is still going
// ('partial') reports the path to its best node so far, which is empty while no node beats the
// start; and a search that found no way ('noPath') may report an empty path too. Both resolved
// as if the bot had arrived.
//
// In a fleet it was the common case: searches share one time budget per process
// (bot_helper.js), so a search's first slice is often a few milliseconds or none, and its first
// update is a 'partial' with an empty path. The goto resolved at once, the action went on from
// where the bot stood (a dig out of reach: "Digging aborted", the block skipped), and its next
// goto threw the search away. Counted on two bridges of 8 working bots: 3 in 5 searches were
// abandoned that way, and they took nearly all of the path-search time.
//
// Here only 'success' with an empty path (already at the goal) resolves at once; 'noPath' and
// 'timeout' reject as documented; 'partial' keeps waiting.

function error (name, message) {
  const err = new Error(message)
  err.name = name
  return err
}

// goto(bot, goal[, arrived]): with `arrived`, a function of the bot's position, the goal is
// dynamic (the pathfinder plans again when goal.hasChanged(): a GoalFollow's entity moved) and
// the walk ends once arrived() says so, checked every physics tick (a dynamic goal is never
// 'reached' for the pathfinder: it stands and waits for the goal to move)
function goto (bot, goal, arrived) {
  return new Promise((resolve, reject) => {
    function goalReached () {
      cleanup()
    }

    function tick () {
      if (!arrived(bot.entity.position)) return
      cleanup()
      bot.pathfinder.setGoal(null) // after cleanup: not a goal changed under the walk
    }

    function pathUpdated (results) {
      if (results.status === 'success' && results.path.length === 0) {
        cleanup()
      } else if (results.status === 'noPath') {
        cleanup(error('NoPath', 'No path to the goal!'))
      } else if (results.status === 'timeout') {
        cleanup(error('Timeout', 'Took to long to decide path to goal!'))
      }
    }

    function goalChanged (newGoal) {
      if (newGoal !== goal) {
        cleanup(error('GoalChanged', 'The goal was changed before it could be completed!'))
      }
    }

    function pathStopped () {
      cleanup(error('PathStopped', 'Path was stopped before it could be completed! Thus, the desired goal was not reached.'))
    }

    function cleanup (err) {
      if (arrived) bot.removeListener('physicsTick', tick)
      bot.removeListener('goal_reached', goalReached)
      bot.removeListener('path_update', pathUpdated)
      bot.removeListener('goal_updated', goalChanged)
      bot.removeListener('path_stop', pathStopped)
      // on the next turn, as upstream: the pathfinder cleans up first (chained gotos rely on it)
      setTimeout(() => (err ? reject(err) : resolve()), 0)
    }

    bot.on('path_stop', pathStopped)
    bot.on('goal_reached', goalReached)
    bot.on('path_update', pathUpdated)
    bot.on('goal_updated', goalChanged)
    bot.pathfinder.setGoal(goal, !!arrived)
    if (arrived) bot.on('physicsTick', tick)
  })
}

// mineflayer-pathfinder's plugin, with this goto
function withGoto (pathfinder) {
  return function pathfinderWithGoto (bot, options) {
    pathfinder(bot, options)
    bot.pathfinder.goto = (goal, arrived) => goto(bot, goal, arrived)
  }
}

module.exports = { goto, withGoto }
