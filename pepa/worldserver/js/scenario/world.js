'use strict'
// The scenario's server: its clock, its difficulty, its chat and commands, a stall, and the
// sandbox's plugins added to a running world.
//
//   ping                                  → {pong, time, tick}
//   stall {ms=500}                        → {stalled}: the server's thread busy for ms (at
//                                            most 5 s), as on a loaded machine
//   set_time {time=1000, cycle?}          → {time, cycle}
//   set_difficulty {level=1}              → {difficulty}: 0 peaceful .. 3 hard (damage
//                                            scaling, starvation's floor)
//   say {text}                            → {}: a broadcast
//   command {text}                        → {}: a console command
//   load_plugin {name}                    → {loaded}
const path = require('path')
const { performance } = require('perf_hooks')
const { num } = require('./context')

const PLUGINS = path.join(__dirname, '..', 'plugins')
const STALL_MAX_MS = 5000

module.exports = function worldOps (ctx) {
  const { serv } = ctx
  return {
    ping: () => ({ pong: true, time: serv.time, tick: serv.tickCount }),
    stall: (a) => {
      const ms = Math.min(num(a.ms, 500), STALL_MAX_MS)
      const until = performance.now() + ms
      while (performance.now() < until);
      return { stalled: ms }
    },

    set_time: (a) => {
      if (a.cycle !== undefined) serv.doDaylightCycle = !!a.cycle
      serv.setTime(num(a.time, 1000))
      return { time: serv.time, cycle: serv.doDaylightCycle }
    },
    set_difficulty: (a) => {
      const level = num(a.level, 1)
      if (![0, 1, 2, 3].includes(level)) throw new Error(`difficulty is 0 to 3, not ${a.level}`)
      serv.difficulty = level
      return { difficulty: serv.difficulty }
    },

    say: (a) => { serv.broadcast(String(a.text)); return {} },
    command: async (a) => { await serv.handleCommand(String(a.text)); return {} },

    // One of the survival sandbox's plugins (plugins/<name>.js, e.g. crafting) added to this
    // running world through flying-squid's own serv.addPlugin, for the players who join after
    // (bench/versions.py crafts in a plain world at any version with it). Its start-up hooks
    // ('asap', long past) run at once.
    load_plugin: ({ name }) => {
      if (!/^[a-z_]+$/.test(String(name))) throw new Error(`not a plugin name: ${name}`)
      const file = path.join(PLUGINS, `${name}.js`)
      if (serv.plugins[file]) return { loaded: false }
      const once = serv.once
      serv.once = function (event, fn) {
        if (event === 'asap') { fn(); return this }
        return once.call(this, event, fn)
      }
      try {
        serv.addPlugin(file, require(file), {})
      } finally {
        serv.once = once
      }
      return { loaded: true }
    }
  }
}
