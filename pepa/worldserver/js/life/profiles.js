'use strict'
// The sandbox's profiles: ONE table of what a world is played with
// (docs/sandbox.md "Profiles"). `vanilla`, the default, plays on vanilla's
// terrain with vanilla's rules (docs/world-vanilla.md); `gentle` is a friendly
// plain for demos and fast tests; `hard` is the gentle plain made harsh: dusk
// at once, hard-difficulty damage, denser spawns and hazards near spawn. Chosen per start by
// `pepa start --sandbox-profile NAME` / `pepa world --profile NAME`
// (server.js --profile); the plugins read the values from `life.settings`.
//
// A profile is a property of the world: its terrain part (hazards) is fixed
// when the world is made and recorded in the world folder (worldProfile);
// everything else follows the profile the server is started with.
// No profile gives starting gear: vanilla gives none, and so did every
// sandbox world before profiles (tests count the inventory from empty).
const fs = require('fs')
const path = require('path')

const PROFILES = {
  vanilla: Object.freeze({
    difficulty: 2, // normal: vanilla's new worlds
    startTime: 0,
    hostileCap: 70, // vanilla's monster cap (70 over the 17 x 17 chunks round a player)
    spawnMax: 128, // vanilla: packs land 24..128 blocks from a player, in loaded chunks
    hazards: false, // no hazards placed by hand: the terrain's own (caves, cliffs, lava, lakes)
    terrain: 'vanilla', // vanilla/: biomes, caves, ravines, lakes, springs, dungeons (docs/world-vanilla.md)
    explosionsBreakBlocks: true
  }),
  gentle: Object.freeze({
    difficulty: 1, // easy, as the sandbox always was (vanilla's new worlds: normal, 2)
    startTime: 0, // time of day at start: sunrise, where flying-squid's daycycle.js starts
    hostileCap: 12, // hostiles within 128 blocks of a player (vanilla: 70 per player area, most in caves)
    spawnMax: 48, // hostile packs land 24..spawnMax blocks from a player (vanilla: up to 128)
    hazards: false, // the terrain has only ponds near spawn
    terrain: 'gentle', // generator.js: plains of gentle hills
    explosionsBreakBlocks: true // vanilla's mobGriefing game rule is true by default
  }),
  hard: Object.freeze({
    difficulty: 3, // hard: vanilla Player.hurt scales mob and explosion damage by 1.5
    startTime: 12000, // dusk: monsters may spawn on the surface from 13188, 59 s later (life/time.js)
    hostileCap: 24, // twice the gentle world's cap
    spawnMax: 40, // the same packs on 59 % of the ring's area ((40²-24²)/(48²-24²)): denser and closer
    hazards: true, // a lava pocket, a ravine and a deep lake near spawn (generator.js), new worlds only
    terrain: 'gentle',
    explosionsBreakBlocks: true // as vanilla: a creeper's crater is part of the danger
  })
}

// A world recorded before the rename calls the gentle profile `default`.
const FORMERLY = { default: 'gentle' }

function profileOf (name) {
  const profile = Object.prototype.hasOwnProperty.call(PROFILES, name) ? PROFILES[name] : null
  if (!profile) throw new Error(`unknown sandbox profile ${JSON.stringify(name)}: choose ${Object.keys(PROFILES).join(' or ')}`)
  return profile
}

// The file in a world folder that records the profile its terrain was made with.
const PROFILE_FILE = 'pepa_profile.json'

// The profile the world in `worldDir` was made with, { profile, hazards,
// terrain }: read from PROFILE_FILE, or recorded there now — `requested` for a
// new world (no level.dat yet), 'gentle' for a world made before profiles
// existed; a record without `terrain` was made by generator.js ('gentle').
function worldProfile (worldDir, requested) {
  const file = path.join(worldDir, PROFILE_FILE)
  let text = null
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (err.code !== 'ENOENT') throw err
  }
  if (text !== null) {
    try {
      const made = JSON.parse(text)
      const name = FORMERLY[made.profile] || String(made.profile)
      return { profile: name, hazards: made.hazards === true, terrain: made.terrain === 'vanilla' ? 'vanilla' : 'gentle' }
    } catch (err) {
      throw new Error(`${file} is not the JSON pepa wrote (${err.message}): fix or delete it`)
    }
  }
  const name = fs.existsSync(path.join(worldDir, 'level.dat')) ? 'gentle' : requested
  const made = { profile: name, hazards: profileOf(name).hazards, terrain: profileOf(name).terrain }
  fs.writeFileSync(file, JSON.stringify(made) + '\n')
  return made
}

module.exports = { ...PROFILES, profileOf, worldProfile, PROFILE_FILE }
