'use strict'
// Gear: wear — the best armour held put on, a shield in the off-hand (context.js wearBest; a
// craft of a piece puts it on too).
// Every function takes the bot's context first (context.js) and its action id next.

// wear(id): put on the best armour held and a shield in the off-hand
function wear (ctx, id) {
  const { done } = ctx
  ctx.wearBest().then(
    (worn) => done(id, true, { action: 'wear', worn }),
    (e) => done(id, false, { action: 'wear', error: String(e && e.message) }))
  return true
}

module.exports = { wear }
