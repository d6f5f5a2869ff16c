'use strict'
// pepa/worldserver/js/plugins/packets.js (inOrder) on a stand-in for a player's client: bursts
// of packets emitted in one callback, as a socket read emits them, to listeners that chain
// promises (awaited, or started and not awaited, as flying-squid's digging does).
//   node packet_order.js
// Prints JSON: handled (packets whose listener ran), overlaps (a packet's listener started before
// the one before it had finished: the first few), order (packets started out of order),
// inTurn (packets of the first burst finished when an immediate queued after the burst ran: a
// burst read in one turn is handled in that turn), afterEnd (packets handled after 'end').
const path = require('path')
const EventEmitter = require('events')
const { inOrder } = require(path.resolve(__dirname, '..', '..', 'pepa', 'worldserver', 'js', 'plugins', 'packets.js'))

const client = new EventEmitter()
inOrder(client, new Set(['block_dig', 'block_place', 'position', 'keep_alive']))
const out = { handled: 0, overlaps: [], order: 0, inTurn: 0, afterEnd: 0 }
let running = null // the packet whose listener has not finished
let last = -1
let ended = false

function started (n) {
  out.handled++
  if (ended) out.afterEnd++
  if (running !== null && out.overlaps.length < 3) out.overlaps.push([running, n])
  if (n !== last + 1) out.order++
  last = n
  running = n
}
function finished () { running = null }
const depth = async (k) => { for (let i = 0; i < k; i++) await Promise.resolve() }

client.on('block_dig', async ({ n }) => { started(n); await depth(3); finished() }) // awaited
client.on('block_place', ({ n }) => { started(n); (async () => { await depth(5); finished() })() }) // not awaited
client.on('position', ({ n }) => { started(n); finished() }) // at once
client.on('keep_alive', async ({ n }) => { started(n); await depth(1); finished() })
const names = ['block_dig', 'block_place', 'position', 'keep_alive']

let n = 0
function burst (size) {
  for (let i = 0; i < size; i++) { client.emit(names[n % names.length], { n }); n++ }
}
setTimeout(() => {
  burst(60)
  setImmediate(() => { out.inTurn = out.handled })
  setTimeout(() => {
    burst(1) // a packet alone
    burst(25)
    setTimeout(() => {
      burst(10)
      ended = true
      client.emit('end') // what is still queued is dropped
      setTimeout(() => process.stdout.write(JSON.stringify(out)), 20)
    }, 20)
  }, 20)
}, 0)
