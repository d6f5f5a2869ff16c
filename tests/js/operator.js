'use strict'
// A human stand-in for tests: a mineflayer client driven by JSON lines on stdin,
// reporting JSON lines on stdout.
//   node operator.js HOST PORT USERNAME
//   stdin:  {"op":"chat","text":"pepa_bot come"} | {"op":"quit"}
//   stdout: {"type":"spawn","position":{x,y,z}} | {"type":"chat","from":..,"text":..}
//           {"type":"position","position":{..}} (answer to {"op":"where"}) | {"type":"end"}
const path = require('path')
const readline = require('readline')
const NM = process.env.PEPA_NODE_MODULES || path.resolve(__dirname, '..', '..', 'node_modules')
const mineflayer = require(path.join(NM, 'mineflayer'))

const [host, port, username] = process.argv.slice(2)
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n')
const xyz = (p) => ({ x: p.x, y: p.y, z: p.z })
const bot = mineflayer.createBot({ host, port: Number(port), username, version: '1.16.5', auth: 'offline', hideErrors: true })

bot.once('spawn', () => out({ type: 'spawn', position: xyz(bot.entity.position) }))
bot.on('forcedMove', () => out({ type: 'moved', position: xyz(bot.entity.position) }))
bot.on('message', (msg, position) => {
  const line = msg.toString()
  const m = /^<(\w{1,16})> (.*)$/s.exec(line)
  if (m && m[1] === username) return
  out({ type: 'chat', from: m ? m[1] : null, text: m ? m[2] : line, position })
})
bot.on('end', (reason) => { out({ type: 'end', reason: String(reason) }); process.exit(0) })
bot.on('error', (err) => out({ type: 'error', message: String(err && err.message) }))

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let cmd
  try { cmd = JSON.parse(line) } catch (e) { return out({ type: 'error', message: 'bad json' }) }
  if (cmd.op === 'chat') bot.chat(String(cmd.text))
  else if (cmd.op === 'where') out({ type: 'position', position: bot.entity ? xyz(bot.entity.position) : null })
  else if (cmd.op === 'quit') bot.quit()
}).on('close', () => bot.quit())
