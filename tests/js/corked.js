'use strict'
// corked.js's corking on a real loopback socket: the system calls the server side makes for two
// callbacks' packets, and the bytes the other end reads (tests/fast/worldserver/test_corked.py).
//   node corked.js MODE   (MODE: callback | turn | off | watched: per turn once the event loop
//   was held up 150 ms, as watchLoop tells)
// Prints {"calls": [{"kind": "write"|"writev", "chunks": n}, ...], "received": "..."}.
const net = require('net')
const path = require('path')
const { corking, watchLoop } = require(path.join(__dirname, '..', '..', 'pepa', 'worldserver', 'js', 'fixes', 'corked.js'))

const mode = process.argv[2]
const calls = []
const PACKETS = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'b3']
const expected = PACKETS.join('')

const server = net.createServer((socket) => {
  socket.setNoDelay(true)
  const writev = socket._writev
  const write = socket._write
  socket._writev = function (chunks, cb) { calls.push({ kind: 'writev', chunks: chunks.length }); return writev.call(this, chunks, cb) }
  socket._write = function (chunk, enc, cb) { calls.push({ kind: 'write', chunks: 1 }); return write.call(this, chunk, enc, cb) }
  const client = { socket, write (name) { socket.write(name) } }
  if (mode === 'watched') {
    const behind = watchLoop(50)
    corking(client, behind)
    const until = Date.now() + 150
    while (Date.now() < until); // the loop held up
    const waiting = setInterval(() => { if (behind()) { clearInterval(waiting); twoCallbacks(client) } }, 10)
    return
  }
  if (mode !== 'off') corking(client, () => mode === 'turn')
  twoCallbacks(client)
})
// two callbacks of one turn of the event loop, as two sockets' reads handled in one poll phase
function twoCallbacks (client) {
  setImmediate(() => { for (const p of PACKETS.slice(0, 5)) client.write(p) })
  setImmediate(() => { for (const p of PACKETS.slice(5)) client.write(p) })
}
server.listen(0, '127.0.0.1', () => {
  let received = ''
  const reader = net.connect(server.address().port, '127.0.0.1')
  reader.on('data', (data) => {
    received += data.toString()
    if (received.length < expected.length) return
    process.stdout.write(JSON.stringify({ calls, received }) + '\n')
    reader.destroy()
    server.close()
    process.exit(0)
  })
})
setTimeout(() => { console.error('nothing read in 20 s'); process.exit(1) }, 20000).unref()
