'use strict'
// The control channel: TCP on 127.0.0.1:<port> (0: any free port), newline-delimited JSON.
//   request  {"id":1,"op":"spawn_mob","player":"pepa","name":"zombie","dx":2}
//   response {"id":1,"ok":true,"result":{...}}  |  {"id":1,"ok":false,"error":"..."}
// A line that is not JSON is answered {"ok":false,"error":"bad json"}; a connection that
// sends over 1 MiB with no newline is closed. Each answer carries its request's id.
const net = require('net')

const LINE_MAX = 1 << 20

// { listening: a promise of the port listened on, close(): a promise of the end }
function listen (ops, port) {
  const sockets = new Set()
  const srv = net.createServer((sock) => {
    sockets.add(sock)
    sock.setEncoding('utf8')
    let buf = ''
    sock.on('close', () => sockets.delete(sock))
    sock.on('error', () => {})
    sock.on('data', async (chunk) => {
      buf += chunk
      if (buf.length > LINE_MAX) { sock.destroy(); return }
      let i
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim()
        buf = buf.slice(i + 1)
        if (!line) continue
        let req
        try { req = JSON.parse(line) } catch (e) {
          sock.write(JSON.stringify({ ok: false, error: 'bad json' }) + '\n'); continue
        }
        const fn = ops[req.op]
        try {
          if (!fn) throw new Error(`unknown op: ${req.op}`)
          const result = await fn(req)
          sock.write(JSON.stringify({ id: req.id, ok: true, result }) + '\n')
        } catch (e) {
          sock.write(JSON.stringify({ id: req.id, ok: false, error: String(e && e.message) }) + '\n')
        }
      }
    })
  })
  return {
    listening: new Promise((resolve, reject) => {
      srv.once('error', reject)
      srv.listen(port, '127.0.0.1', () => resolve(srv.address().port))
    }),
    close: () => new Promise(resolve => { for (const s of sockets) s.destroy(); srv.close(() => resolve()) })
  }
}

module.exports = { listen }
