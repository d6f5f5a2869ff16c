'use strict'
// A player's packets leave in fewer system calls: its socket is corked at the first write and
// uncorked when the server is done with what it was handling, so what was written to the player
// in between goes out in one writev(2).
//
// flying-squid writes each packet to each player on its own with Nagle off, so each packet was a
// write(2): with 32 working bots in one place the world server's CPU profile put 27 of its 52
// busy seconds a minute in those writes (a swing, a dig's crack stage or a move told to the 31
// others is 31 writes), its event loop ran hundreds of milliseconds late, and the bots' swings
// waited that long to be read (docs/fleet.md).
//
// When the uncork comes depends on how far behind the server's event loop runs:
// - on time (its delay under BEHIND_MS over the last CHECK_MS): at the end of the callback, on
//   process.nextTick, once the callback and the promise jobs it chained (flying-squid's async
//   event handlers) are done. Nothing waits for anything else; mostly one packet a call.
// - behind: at the end of the event loop's turn (setImmediate), after every socket read in that
//   turn was handled, so each player gets everything of the turn in one call. Flushed per turn
//   always, 8 idle bots' reaction took 11-14 ms at the median instead of 5-6 (the spawn waits
//   for the turn's other reads); per callback, 32 working bots' writes took 21 s a minute
//   instead of 27, per turn 12 s.
// Packets go out in the order they were written, as before; a large packet compressed
// asynchronously goes when it is ready, as before.

const { performance } = require('perf_hooks')

const BEHIND_MS = 20
const CHECK_MS = 500
const SAMPLE_MS = 10

module.exports.server = function (serv) {
  // watched from the first player on: the timer's wake-ups cost 2 % of a core (about 0.2 ms each
  // on a virtual machine), for nothing in a world nobody has joined. Sampling the game tick (50 ms)
  // instead was tried: the median reaction of 32 working bots went from 5-9 ms to 12 ms.
  let behind = null
  serv.on('newPlayer', (player) => {
    behind = behind || watchLoop(CHECK_MS)
    corking(player._client, behind)
  })
}

// a function that says whether this process's event loop ran over BEHIND_MS late in the last
// check period (a timer every SAMPLE_MS, and how late it fired)
function watchLoop (checkMs) {
  let behind = false
  let late = 0 // the most a sample was late in this period
  let last = performance.now()
  let checked = last
  setInterval(() => {
    const now = performance.now()
    late = Math.max(late, now - last - SAMPLE_MS)
    last = now
    if (now - checked < checkMs) return
    behind = late > BEHIND_MS
    late = 0
    checked = now
  }, SAMPLE_MS).unref()
  return () => behind
}

// client.write corked until the end of the callback, or of the turn while perTurn() says so
function corking (client, perTurn) {
  const write = client.write
  let corked = null // the socket corked until the next uncork
  function uncork () {
    const socket = corked
    corked = null
    if (!socket.destroyed) socket.uncork()
  }
  function cork () {
    const socket = client.socket
    if (corked === null && socket && !socket.destroyed) {
      socket.cork()
      corked = socket
      if (perTurn()) setImmediate(uncork)
      else process.nextTick(uncork)
    }
  }
  client.write = function (...args) {
    cork()
    return write.apply(this, args)
  }
  // a frame built once for many players (broadcast.js) written as it is, corked the same way
  client.pepaWriteFrame = function (frame) {
    cork()
    client.socket.write(frame)
  }
}

module.exports.corking = corking
module.exports.watchLoop = watchLoop
