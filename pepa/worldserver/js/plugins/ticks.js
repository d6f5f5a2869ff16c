'use strict'
// The server's tick time, for bench/vanilla_world.py: how long each tick's
// work takes (every 'tick' listener of flying-squid's 50 ms interval, the
// mobs' life included) and how far apart the ticks come (over 50 ms: the
// event loop was busy elsewhere, with chunks, packets or the players' moves).
// Vanilla's own figure is its mean tick time (MSPT): at most 50 ms keeps 20
// ticks a second.
//
// Control op: tick_stats {reset?} → {ticks, work: {median, p99, max}, gap: {median, p99, max}} in ms
const { performance } = require('perf_hooks')
const { lifeOf } = require('../life/state')

const KEEP = 2400 // the last two minutes of ticks

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  let work = []
  let gaps = []
  let last = null
  const emit = serv.emit
  serv.emit = function (name, ...args) {
    if (name !== 'tick') return emit.call(this, name, ...args)
    const t0 = performance.now()
    if (last !== null) gaps.push(t0 - last)
    last = t0
    try {
      return emit.call(this, name, ...args)
    } finally {
      work.push(performance.now() - t0)
      if (work.length > KEEP) work = work.slice(-KEEP)
      if (gaps.length > KEEP) gaps = gaps.slice(-KEEP)
    }
  }
  const summary = (values) => {
    const v = [...values].sort((a, b) => a - b)
    const at = (q) => v.length ? Math.round(v[Math.min(v.length - 1, Math.floor(q * v.length))] * 100) / 100 : null
    return { median: at(0.5), p99: at(0.99), max: v.length ? Math.round(v[v.length - 1] * 100) / 100 : null }
  }
  life.ops.tick_stats = ({ reset } = {}) => {
    const out = { ticks: work.length, work: summary(work), gap: summary(gaps) }
    if (reset) { work = []; gaps = []; last = null }
    return out
  }
}
