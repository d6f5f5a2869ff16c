'use strict'
// The embedded world: flying-squid on 127.0.0.1, its fixes (fixes/), the survival sandbox's
// terrain and plugins (generator.js, plugins/) when asked, and the scenario plugin
// (scenario/) when started with a control port.
//
// CLI:  node server.js --port 25565 --world /path/to/world [--control-port 0] [--version 1.16.5]
//        [--seed N] [--sandbox 1] [--profile vanilla|gentle|hard] [--online-mode 1]
//   --online-mode: the server verifies each account with Mojang's session server (a test
//   of how an offline bot is refused; there is no network here, so every login fails)
//   --profile: the sandbox profile (life/profiles.js; an unknown name fails
//   before the server starts); a world's hazards come from the profile it was made with.
//   stdout: flying-squid log lines, plus ONE line
//     PEPA_WORLD_READY {"port":..,"controlPort":..,"version":..}
//   when both the game port and the control port are listening.
//   Control channel: TCP 127.0.0.1:<controlPort>, newline-delimited JSON
//     request  {"id":1,"op":"spawn_mob","player":"pepa","name":"zombie","dx":2}
//     response {"id":1,"ok":true,"result":{...}}  |  {"id":1,"ok":false,"error":"..."}
//   NB: flying-squid itself reads process.stdin as its console (log.js creates a
//   readline on stdin at require() time), so stdin cannot be the control channel;
//   start it with stdin=/dev/null (or use it deliberately for console commands).
//
// Programmatic: const { startServer } = require('./server.js')
//   const { serv, controlPort, close } = await startServer({ port, worldDir, ... })
const path = require('path')
const fs = require('fs')

// What every world needs of flying-squid, production worlds included: each fix a plugin of its
// own, whose file says what flying-squid does and what vanilla does instead (loaded in order)
const FIXES = [
  'set_block', // a set block reaches the players after the world has it
  'player_type', // other players seen at 1.20.2 and later
  'teleport_packet', // entity_teleport in 1.21.2's form
  'teleport_confirm', // a client's moves from before it confirmed a teleport dropped
  'teleport_chunks', // a teleported player gets the chunks of its new place
  'login', // a login ends for a client that only walks; player._pepaReady
  'player_list', // a newcomer sees the players already online
  'respawn', // a dead player respawns
  'dropped_items', // a dropped item shows its item at every version
  'eating', // eating, with vanilla numbers
  'beds', // sleeping through the night
  'spawn_metadata', // a spawn's metadata to the player it is shown to, not to every player near
  'tracking', // mobs' moves sent every 3 ticks, as vanilla's entity tracker sends them
  'corked', // a player's packets of one callback written in one system call
  'broadcast' // a packet told to many players serialized and framed once
].map((name) => path.join(__dirname, 'fixes', `${name}.js`))
// The scenario operations and the control channel (scenario/index.js): only with a control port
const SCENARIO_PATH = path.join(__dirname, 'scenario', 'index.js')
// The survival sandbox: a seeded terrain generator and every plugin in plugins/
const SANDBOX_DIR = __dirname
const GENERATORS = { gentle: path.join(SANDBOX_DIR, 'generator.js'), vanilla: path.join(SANDBOX_DIR, 'vanilla', 'index.js') }
const { profileOf, worldProfile } = require('./life/profiles')
const { peekingSplitter } = require('../../base/js/frames')

function sandboxPlugins (seed, profile, terrain) {
  const dir = path.join(SANDBOX_DIR, 'plugins')
  if (!fs.existsSync(dir)) return {}
  const plugins = {}
  for (const name of fs.readdirSync(dir).sort()) {
    if (name.endsWith('.js')) plugins[path.join(dir, name)] = { seed, profile, terrain }
  }
  return plugins
}

async function startServer ({
  port = 25565,
  worldDir,
  version = '1.16.5',
  controlPort = 0, // 0 = ephemeral; null = no control channel
  maxEntities = 1000,
  gameMode = 0,
  quiet = false,
  seed = 12345,
  sandbox = false, // true: seeded survival terrain + the sandbox plugins (see docs/sandbox.md)
  profile = 'vanilla', // the sandbox profile (docs/sandbox.md "Profiles")
  onlineMode = false
} = {}) {
  if (!worldDir) throw new Error('worldDir is required')
  const hasControl = controlPort !== null && controlPort !== undefined && controlPort >= 0
  const values = profileOf(profile) // an unknown name: fail before anything starts
  fs.mkdirSync(worldDir, { recursive: true })
  // the terrain keeps the profile the world was made with; the rest follows `profile`
  const made = sandbox ? worldProfile(worldDir, profile) : null
  const mc = require('flying-squid')
  // the players' frames split without a thrown PartialReadError at the end of every read, as
  // the bridges split theirs (frames.js): 4 % of the world's busy time with 32 working bots
  peekingSplitter(require(require.resolve('minecraft-protocol/src/transforms/framing', { paths: [require.resolve('flying-squid')] })))
  const settings = {
    motd: 'pepa embedded world',
    port,
    host: '127.0.0.1', // minecraft-protocol createServer → net.listen(port, host)
    'max-players': 10,
    'online-mode': !!onlineMode,
    logging: false, // true would append to ./logs/<ts>.log relative to cwd
    noConsoleOutput: quiet,
    gameMode, // 0 = survival; default-settings.json says 1 (creative): players then take no melee damage
    difficulty: values.difficulty, // settings.js: serv.difficulty, sent to each client at login
    worldFolder: worldDir,
    generation: sandbox
      ? { name: GENERATORS[made.terrain], options: { seed, worldHeight: 256, hazards: made.hazards } }
      : { name: 'superflat', options: { seed, worldHeight: 80 } },
    kickTimeout: 10000,
    plugins: {
      // the scenario first: its table of operations is there when the sandbox's add theirs
      ...(hasControl ? { [SCENARIO_PATH]: { controlPort } } : {}),
      ...Object.fromEntries(FIXES.map((file) => [file, {}])),
      ...(sandbox ? sandboxPlugins(seed, profile, made.terrain) : {})
    },
    modpe: false,
    'view-distance': 4,
    'player-list-text': { header: { text: 'pepa' }, footer: { text: 'test world' } },
    'everybody-op': false,
    'max-entities': maxEntities,
    // minecraft-protocol checks each player's plugin-channel types (its own, from minecraft-data)
    // against their JSON schemas with ajv at login: a quarter of a second of a core per player
    validateChannelProtocol: false,
    version
  }
  const serv = mc.createMCServer(settings)
  // NB: 'listening' fires before the world plugin is ready; a client that connects
  // then is dropped ("disconnected as server is still starting"). Wait for 'ready'.
  await new Promise((resolve, reject) => {
    serv.once('ready', resolve)
    serv.once('error', reject)
  })
  // flying-squid keeps no time of day in level.dat: every start begins at the profile's
  serv.setTime(values.startTime)
  if (made && made.profile !== profile) {
    serv.info(`[pepa] profile ${profile}; the terrain keeps the ${made.profile} profile it was made with (hazards ${made.hazards ? 'on' : 'off'})`)
  }
  const control = serv.pepaControl ? await serv.pepaControl.listening : null
  return {
    serv,
    port: serv.listeningPort,
    controlPort: control,
    close: async () => {
      try { await serv.pepaControl?.close() } catch (e) {}
      await serv.quit('server stopping')
    }
  }
}

module.exports = { startServer, FIXES, SCENARIO_PATH, SANDBOX_DIR }

if (require.main === module) {
  const args = process.argv.slice(2)
  const opt = (name, dflt) => {
    const i = args.indexOf('--' + name)
    return i >= 0 ? args[i + 1] : dflt
  }
  const port = parseInt(opt('port', '25565'), 10)
  const cp = opt('control-port', 'none') // 'none' (the default) = no control channel
  const controlPort = cp === 'none' ? null : parseInt(cp, 10)
  const worldDir = path.resolve(opt('world', './world'))
  const version = opt('version', '1.16.5')
  const t0 = Date.now()
  const seed = parseInt(opt('seed', '12345'), 10)
  const sandbox = opt('sandbox', '0') === '1'
  const profile = opt('profile', 'vanilla')
  const onlineMode = opt('online-mode', '0') === '1'
  startServer({ port, worldDir, version, controlPort, seed, sandbox, profile, onlineMode })
    .then(({ port, controlPort, close }) => {
      // flying-squid's own exit hook does not wait for the save: close first, then exit
      let closing = false
      const shutdown = () => {
        if (closing) return
        closing = true
        const timer = setTimeout(() => process.exit(0), 5000)
        close().then(() => { clearTimeout(timer); process.exit(0) }, () => process.exit(1))
      }
      process.on('SIGTERM', shutdown)
      process.on('SIGINT', shutdown)
      // the world must not outlive the process that started it (even after a kill -9)
      const parentPid = parseInt(opt('parent-pid', '0'), 10)
      if (parentPid) setInterval(() => { if (process.ppid !== parentPid) shutdown() }, 1000).unref()
      process.stdout.write(`\nPEPA_WORLD_READY ${JSON.stringify({ port, controlPort, version, worldDir, startMs: Date.now() - t0, pid: process.pid })}\n`)
    })
    .catch(err => {
      process.stderr.write('PEPA_WORLD_FAILED ' + (err && err.stack) + '\n')
      process.exit(1)
    })
}
