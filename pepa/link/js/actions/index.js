'use strict'
// The registry of the bot's actions: every function the family modules export, with its
// parameters as written. The catalogue (pepa/link/actions.py) must list exactly these, with
// these arguments in this order (tests/fast/link/test_actions.py runs node on this module).
//
// A family module exports its actions only, each a plain function
//   name (ctx, id, arg, ...)   an action: returns at once, ends with ctx.done(id, ok, extra)
//   name (ctx, arg, ...)       an instant call: returns its answer
// ctx is the bot's context (context.js). A function whose `holdsShield` is true walks, digs,
// places or opens a block: the dispatcher (bot_helper.js) holds the shield down while it runs.
const FAMILIES = ['movement', 'flight', 'gathering', 'mining', 'buckets', 'farming', 'crafting', 'combat', 'building', 'home', 'storage', 'body', 'gear', 'husbandry']
const PLAIN = /^[A-Za-z_$][\w$]*$/

// a function's parameter names, from its source: plain names only (no defaults, no patterns)
function parameters (fn, where) {
  const source = Function.prototype.toString.call(fn)
  const open = source.indexOf('(')
  const names = source.slice(open + 1, source.indexOf(')', open)).split(',').map(s => s.trim()).filter(Boolean)
  for (const name of names) {
    if (!PLAIN.test(name)) throw new Error(`${where}: write its parameters plainly, not ${JSON.stringify(name)}`)
  }
  return names
}

const ACTIONS = {}
for (const family of FAMILIES) {
  for (const [name, fn] of Object.entries(require(`./${family}`))) {
    const where = `actions/${family}.js ${name}`
    if (typeof fn !== 'function') throw new Error(`${where}: a family module exports its actions only`)
    if (ACTIONS[name]) throw new Error(`${where}: also in actions/${ACTIONS[name].family}.js`)
    const names = parameters(fn, where)
    if (names[0] !== 'ctx') throw new Error(`${where}: the bot's context comes first`)
    const id = names[1] === 'id'
    ACTIONS[name] = { family, fn, id, args: names.slice(id ? 2 : 1), holdsShield: !!fn.holdsShield }
  }
}

module.exports = { ACTIONS, FAMILIES }
