'use strict'
// An AuthMe stand-in: /register and /login as a server protected by the AuthMe plugin has
// them, with its replies, so the bot's AuthMe (pepa/link/authme.py) is tested against a real
// server. Passwords live in memory for the server's run. auth_log → [{player, command, ok}],
// every /register and /login in the order they came.

module.exports = function authme (serv) {
  const auth = new Map() // username -> password
  const authLog = []
  serv.commands.add({
    base: 'register',
    info: 'register a password (AuthMe stand-in)',
    usage: '/register <password> <password>',
    parse: (str) => str.split(' '),
    action (args, ctx) {
      const p = ctx.player
      if (!p) return
      authLog.push({ player: p.username, command: 'register', ok: !auth.has(p.username) && args[0] === args[1] })
      if (auth.has(p.username)) return p.chat('You already have registered this username!')
      if (!args[0] || args[0] !== args[1]) return p.chat('Passwords do not match')
      auth.set(p.username, args[0])
      p.chat('Successfully registered!')
    }
  })
  serv.commands.add({
    base: 'login',
    info: 'log in (AuthMe stand-in)',
    usage: '/login <password>',
    parse: (str) => str.split(' '),
    action (args, ctx) {
      const p = ctx.player
      if (!p) return
      const ok = auth.get(p.username) === args[0]
      authLog.push({ player: p.username, command: 'login', ok })
      p.chat(ok ? 'Successful login!' : 'Wrong password!')
    }
  })
  return { auth_log: () => authLog.slice() }
}
