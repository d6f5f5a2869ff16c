// The event loop's stalls of one Node process, for bench/fleet.py --stalls (preloaded with
// NODE_OPTIONS=--require; it does nothing unless BENCH_LOOP_STALLS names a folder).
//
// A 5 ms timer; a tick that comes more than 20 ms after the last is a stall, written as one
// JSON line to <folder>/<pid>.jsonl: when it ended (ms since the epoch) and how long it was,
// what the main thread spent meanwhile running (cpu) and runnable but waiting for a core
// (wait, the kernel's run delay: /proc/<pid>/schedstat), and how the machine's CPUs spent
// it (/proc/stat, ms summed over the cores: idle, user at nice 0, nice above 0, sys, softirq,
// steal). A stall of mostly wait is the process off the CPU; of mostly cpu, a long task or
// a collection in it. Collections over 5 ms are lines of their own (gc, kind: V8's flags).
// The first line says which process it is.
'use strict'
const dir = process.env.BENCH_LOOP_STALLS
if (dir) {
  const fs = require('fs')
  const path = require('path')
  const { performance, PerformanceObserver } = require('perf_hooks')
  const file = path.join(dir, `${process.pid}.jsonl`)
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, ppid: process.ppid, argv: process.argv.slice(1) }) + '\n')
  const schedstat = `/proc/${process.pid}/schedstat`
  const thread = () => fs.readFileSync(schedstat, 'utf8').split(' ').map(Number) // ns on CPU, ns waiting
  const machine = () => { // jiffies: user nice system idle iowait irq softirq steal
    const f = fs.readFileSync('/proc/stat', 'utf8').slice(0, 200).split('\n')[0].trim().split(/\s+/)
    return f.slice(1, 9).map(Number)
  }
  const JIFFY_MS = 10
  const pending = []
  const flush = () => { if (pending.length) fs.appendFileSync(file, pending.splice(0).join('\n') + '\n') }
  let last = performance.now()
  let t0 = thread()
  let m0 = machine()
  setInterval(() => {
    const now = performance.now()
    const t = thread()
    const m = machine()
    const gap = now - last
    if (gap > 20) {
      const d = (i) => (m[i] - m0[i]) * JIFFY_MS
      pending.push(JSON.stringify({
        end: Date.now(), gap: Math.round(gap), cpu: Math.round((t[0] - t0[0]) / 1e6), wait: Math.round((t[1] - t0[1]) / 1e6),
        idle: d(3), user: d(0), nice: d(1), sys: d(2), soft: d(6), steal: d(7)
      }))
      if (pending.length >= 20) flush()
    }
    last = now; t0 = t; m0 = m
  }, 5).unref()
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration > 5) pending.push(JSON.stringify({ gc: Math.round(e.duration), kind: e.detail ? e.detail.kind : e.kind, end: Math.round(performance.timeOrigin + e.startTime + e.duration) }))
    }
  }).observe({ entryTypes: ['gc'] })
  process.on('exit', flush)
  setInterval(flush, 2000).unref()
}
