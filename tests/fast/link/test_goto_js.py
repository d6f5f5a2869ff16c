"""goto.js: bot.pathfinder.goto resolves when the bot is there, not at a search's first slice.

mineflayer-pathfinder 2.4.5's goto resolved on any path update with an empty path: a search
still going ('partial', its best node still the start) or one that found no way ('noPath').
The pathfinder's own events drive the promise here, as the plugin emits them.
"""

from __future__ import annotations

import pytest

from pepa.link.minecraft import BOT_JS
from tests.js import run_node

pytestmark = pytest.mark.timeout(90)

SCRIPT = r"""
const { EventEmitter } = require('events')
const { goto } = require(process.argv[1])
const bot = new EventEmitter()
bot.pathfinder = { setGoal: (goal) => bot.emit('goal_updated', goal) }
const turn = () => new Promise((resolve) => setTimeout(resolve, 5))
async function outcome (events) {
  const goal = {}
  let settled = null
  goto(bot, goal).then(() => { settled = 'resolved' }, (e) => { settled = e.name })
  const seen = []
  for (const [name, arg] of events) {
    bot.emit(name, name === 'goal_updated' ? {} : arg)
    await turn()
    seen.push(settled) // what the promise was after each event
  }
  return seen
}
;(async () => {
  const partial = { status: 'partial', path: [] }
  const out = {
    searching: await outcome([['path_update', partial], ['path_update', partial],
      ['path_update', { status: 'success', path: [1, 2] }], ['goal_reached']]),
    unreachable: await outcome([['path_update', partial],
      ['path_update', { status: 'noPath', path: [] }]]),
    there: await outcome([['path_update', { status: 'success', path: [] }]]),
    slow: await outcome([['path_update', { status: 'timeout', path: [1] }]]),
    changed: await outcome([['path_update', partial], ['goal_updated']]),
    listeners: ['goal_reached', 'path_update', 'goal_updated', 'path_stop']
      .map(n => bot.listenerCount(n))
  }
  process.stdout.write(JSON.stringify(out))
})()
"""


def test_goto_waits_for_the_search_and_rejects_a_goal_it_cannot_reach() -> None:
    out = run_node(SCRIPT, str(BOT_JS / "goto.js"))
    assert out == {
        # upstream: 'resolved' after the first partial update, the bot still where it was
        "searching": [None, None, None, "resolved"],
        # upstream: 'resolved' (an empty path) for a goal it could not reach
        "unreachable": [None, "NoPath"],
        "there": ["resolved"],
        "slow": ["Timeout"],
        "changed": [None, "GoalChanged"],
        "listeners": [0, 0, 0, 0],
    }
