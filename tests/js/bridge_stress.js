'use strict'
// For tests/probes/bridge_threads.py: an answer that comes late, and an echo.
module.exports = {
  later (ms, value) { return new Promise(resolve => setTimeout(() => resolve(value), ms)) },
  echo (value) { return value },
  withCallback (fn) { return typeof fn === 'function' }
}
