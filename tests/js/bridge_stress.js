'use strict'
// For tests/probes/bridge_threads.py: an answer that comes late, an echo, and calls from JS
// to Python (JSPyBridge numbers those from 10000, as pepa's bot events are).
module.exports = {
  later (ms, value) { return new Promise(resolve => setTimeout(() => resolve(value), ms)) },
  echo (value) { return value },
  withCallback (fn) { return typeof fn === 'function' },
  // fn(0) .. fn(n - 1), one per turn of the event loop; returns at once
  pulse (fn, n) {
    let i = 0
    const next = () => { if (i < n) { fn(i++); setImmediate(next) } }
    setImmediate(next)
    return true
  }
}
