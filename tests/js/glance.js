'use strict'
// An idle bot's glance is one look packet: the server sends each look to every player near, so
// what idle bots in one world cost each other grows with the square of their number.
//   node glance.js
// Starts the embedded world (flat, no control channel) and one bot made by bot_helper.js, calls
// lookAround() with Math.random fixed (a turn of 2.5 radians, from 0 to 36 degrees as sent), and
// prints JSON (alone: flying-squid's console is kept off stdout): glance {wanted (degrees),
// reached (the server got a look there), steps (the looks it got on the way)}.
const path = require('path')
const { root, until, run } = require('./one_world')
const { createBot } = require(path.join(root, 'pepa', 'link', 'js', 'bot_helper.js'))

const degrees = (yaw) => ((((180 - (yaw * 180) / Math.PI) % 360) + 360) % 360) // as mineflayer sends it

run('pepa-glance-', async ({ serv, port, atEnd }) => {
  const api = createBot({ host: '127.0.0.1', port, username: 'glancer', version: '1.16.5' }, () => {})
  const bot = api.bot
  atEnd(() => bot.quit())
  await new Promise((resolve, reject) => { bot.once('spawn', resolve); bot.once('end', reject) })
  const p = serv.getPlayer('glancer')
  if (!await until(() => p._pepaReady && bot.entity.onGround)) throw new Error('never settled')
  await p._pepaReady

  // the glance (again if a position from the server turns the bot back first: flying-squid's
  // login ends with one, sent as the login ends and heard a moment later)
  const looks = []
  const heard = ({ yaw }) => looks.push(((yaw % 360) + 360) % 360)
  p._client.on('look', heard)
  p._client.on('position_look', heard)
  const wanted = degrees(0.9 * 2 * Math.PI - Math.PI)
  const there = (yaw) => Math.abs(yaw - wanted) < 0.5
  let reached = false
  for (let attempt = 0; attempt < 3 && !reached; attempt++) {
    let moved = false
    const onMoved = () => { moved = true }
    bot.once('forcedMove', onMoved)
    looks.length = 0
    bot.entity.yaw = 0
    const random = Math.random
    Math.random = () => 0.9 // yaw 0.9 * 2 pi - pi: 2.5 radians from a bot facing 0
    try { api.lookAround() } finally { Math.random = random }
    await until(() => looks.some(there) || moved)
    bot.removeListener('forcedMove', onMoved)
    reached = !moved && looks.some(there)
  }
  // a turn in steps sends the yaws between (a look left from the login may come first)
  const steps = looks.slice(0, looks.findIndex(there)).filter(yaw => yaw > 0.5 && yaw < wanted - 0.5)
  return { glance: { wanted, reached, steps } }
})
