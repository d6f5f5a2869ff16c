'use strict'
// death_cause.js — why the bot died (required by bot_helper.js).
//
// Every health drop is classified from what the bot knew at that moment
// (classify(): pure, a plain context object in, {kind, by, fall?} out) and the
// last MAX_SOURCES are kept. The server's own death message for the bot is
// caught from system chat ('message', translate death.*, first argument the
// bot's name; another player's death is not the bot's) and, as a backup, from
// the combat_event (1.16: event 2 for the bot's entity id) / death_combat_event
// (1.17+) packet. The `death` event goes out once the message is in (vanilla
// sends it just before the health update, the sandbox just after) or
// MESSAGE_WAIT_MS after mineflayer's 'death', whichever is first; a 'respawn'
// meanwhile is held back so Python always sees death, then respawn.
//
// Evidence that comes late is used too: the sandbox hurts before it sends the
// explosion packet (vanilla: the other way round), so a recent drop is
// classified again when an explosion packet arrives, and a death waits
// SETTLE_MS after its message for packets of the same server tick.

const MAX_SOURCES = 8
const MESSAGE_WAIT_MS = 1500 // after mineflayer's 'death', at most
const SETTLE_MS = 50 // one server tick: the rest of the death's packets (an explosion)
const STRUCK_MS = 250 // a health drop and the hurt the server shows for it, this close
const EARLY_MS = 1000 // a message this long before 'death' is this death's (vanilla order)
const RECENT_MS = 500 // an explosion or an arrow this recent explains a drop
const LANDED_MS = 500 // a landing this recent explains a drop (the server answers the landing move)
const EXPLOSION_RANGE = 8
const ARROW_RANGE = 3
const ARCHER_RANGE = 24
const REACH = 4.5 // a mob or a player this close may have hit the bot
const SAFE_FALL = 3 // vanilla: a fall hurts ceil(distance - 3)
const { rangedWith } = require('../../game/js/mobs')
const ARCHERS = rangedWith('bow', 'crossbow') // those that shoot arrows (pepa/game/js/mobs.js)
const ARROWS = new Set(['arrow', 'spectral_arrow', 'trident'])
const { WATERY } = require('./breath')
const { contactOf } = require('./contact')
const { onFire } = require('./plain')
const CLIMBABLE = new Set(['ladder', 'vine', 'scaffolding', 'twisting_vines', 'twisting_vines_plant', 'weeping_vines', 'weeping_vines_plant'])
const FIRE = new Set(['fire', 'soul_fire'])
const CONTACT = new Set(['cactus', 'sweet_berry_bush'])
const EYE = 1.62
const TEXT_MAX = 300
const r1 = (v) => Math.round(v * 10) / 10
const r2 = (v) => Math.round(v * 100) / 100

// What one health drop was, from a context of plain values (distances in blocks,
// `ago` in seconds): {kind, by, fall?}. The transient signals (an explosion, a
// landing, an arrow: each explains the drop that follows it) come before the
// lasting states (burning, no air, no food), which would otherwise take the
// blame for every hit taken while they last.
function classify (c) {
  const recent = (x, range, window) => x && x.distance <= range && x.ago <= window
  if (c.inLava) return { kind: 'lava', by: null }
  if (recent(c.explosion, EXPLOSION_RANGE, RECENT_MS / 1000)) return { kind: 'explosion', by: c.explosion.creeper || null }
  if (c.landed && c.landed.fall > SAFE_FALL && c.landed.ago <= LANDED_MS / 1000) return { kind: 'fall', by: null, fall: r1(c.landed.fall) }
  if (recent(c.arrow, ARROW_RANGE, RECENT_MS / 1000)) return { kind: 'arrow', by: c.archer && c.archer.distance <= ARCHER_RANGE ? c.archer.name : null }
  if (c.onFire || c.inFire) return { kind: 'fire', by: null }
  if (c.headInWater && c.air !== null && c.air !== undefined && c.air <= 0) return { kind: 'drowning', by: null }
  const mob = c.mob && c.mob.distance <= REACH ? c.mob : null
  if (c.food === 0 && !mob) return { kind: 'starvation', by: null }
  if (c.headInSolid) return { kind: 'suffocation', by: null }
  if (c.y !== null && c.y !== undefined && c.y < (c.minY || 0) - 64) return { kind: 'void', by: null }
  if (c.contact) return { kind: 'contact', by: null }
  if (mob) return { kind: 'mob', by: mob.name }
  if (c.player && c.player.distance <= REACH) return { kind: 'player', by: c.player.name }
  return { kind: 'generic', by: null }
}

// A chat component as English text: text, translate (with its %s / %1$s), extra.
function plain (c, lang) {
  if (c === null || c === undefined) return ''
  if (typeof c === 'string' || typeof c === 'number') return String(c)
  if (Array.isArray(c)) return c.map(x => plain(x, lang)).join('')
  let out = ''
  if (c.text !== undefined) out += String(c.text)
  if (c.translate !== undefined) {
    const args = c.with || []
    let i = 0
    out += String((lang && lang[c.translate]) || c.translate)
      .replace(/%(?:(\d+)\$)?s/g, (m, n) => plain(args[n ? Number(n) - 1 : i++], lang))
  }
  if (Array.isArray(c.extra)) out += c.extra.map(x => plain(x, lang)).join('')
  return out
}

// A death message's argument as a plain string: a mob's 'entity.minecraft.zombie' is 'zombie'
function argOf (c, lang) {
  const t = c && typeof c === 'object' ? c.translate : null
  if (typeof t === 'string' && t.startsWith('entity.minecraft.')) return t.slice('entity.minecraft.'.length)
  return plain(c, lang)
}

// {key, args, text} when the chat component is the death message of `username`, else null.
// Vanilla's first argument is the display name (a team prefix, a nickname) with the account
// name as its `insertion`; either must be the bot's. Anything malformed is not a message.
function ownDeath (json, username, lang) {
  if (!json || typeof json !== 'object' || typeof json.translate !== 'string' || !json.translate.startsWith('death.')) return null
  const parts = Array.isArray(json.with) ? json.with : []
  const args = parts.map(a => argOf(a, lang))
  const who = parts[0] && typeof parts[0] === 'object' ? parts[0].insertion : null
  if (args[0] !== username && who !== username) return null
  args[0] = username
  return { key: json.translate, args, text: plain(json, lang).slice(0, TEXT_MAX) }
}

// The event's `cause` from the message (or null) and the sources kept, `now` the death's time (ms)
function causeOf (message, sources, now) {
  const last = sources.length ? sources[sources.length - 1] : null
  return {
    key: message ? message.key : null,
    text: message ? message.text : null,
    args: message ? message.args : [],
    killer: message && message.args.length > 1 ? message.args[1] : (last ? last.by : null),
    sources: sources.map(s => sourceOf(s, now))
  }
}

// One drop as Python reads it (pepa/world/death.py DamageSource): what hurt, how much, how
// long before `now`, the blocks touched then and, for a fall, where it began
function sourceOf (s, now) {
  const out = { kind: s.kind, by: s.by, amount: r2(s.amount), ago: r1(Math.max(0, now - s.at) / 1000) }
  if (s.kind === 'fall') out.fall = s.fall
  if (s.ctx && s.ctx.blocks) out.contact = s.ctx.blocks
  // where it came from: for a fall, where the fall began; else the contact as it stepped into
  // the cell it was hurt in (a trap that buried it shows what it stepped on to spring it)
  const from = s.kind === 'fall' ? s.ctx && s.ctx.landed && s.ctx.landed.from : s.ctx && s.ctx.ground
  if (from) out.from = from
  return out
}

// Watches `bot` and emits {type:'damage', hp, source} at each health drop, {type:'death',
// position, cause} and {type:'respawn'} through `emit`.
// hostile(entity): whether it is a hostile mob (bot_helper's rule).
// respawn: respawn once the death is out (bot_helper creates the bot with mineflayer's own
// respawn off, so nothing of the next life reaches Python before the death event).
function createDeathWatch (bot, { emit, Vec3, hostile, now = () => Date.now(), respawn = false }) {
  let sources = []
  let health = null // the last health seen, null until the first update
  let fall = 0 // blocks fallen since the bot last stood, swam or climbed
  let lastY = null
  let landed = null // {fall, at}
  let ground = null // contactOf where the bot last stood (a fall began there)
  const hurts = [] // when the server last showed the bot hurt (entity event 2) or dead (3)
  const blowsOut = new Set() // the damage events not sent yet: a death's blows are its own
  let groundCell = null
  let lastArrow = null // {at, distance}
  let explosion = null // {at, distance, creeper}
  const gone = [] // creepers that left lately: {at, position}
  let early = null // an own death message before 'death': {message, at}
  let pending = null // a death waiting for its message: {position, at, message, timer}
  let heldRespawn = false

  const lang = () => (bot.registry && bot.registry.language) || {}
  const blockName = (p) => { const b = bot.blockAt(p); return b ? b.name : null }
  const nearest = (test, from) => {
    let best = null
    for (const e of Object.values(bot.entities)) {
      if (e === bot.entity || !e.position || !test(e)) continue
      const d = e.position.distanceTo(from)
      if (!best || d < best.distance) best = { name: e.username || e.name, distance: d }
    }
    return best
  }

  // what the bot knows now, as plain values (classify's context)
  function context (t) {
    const me = bot.entity
    const pos = me.position
    const eye = pos.offset(0, EYE, 0)
    const feet = blockName(pos)
    const head = bot.blockAt(eye)
    const since = (x) => (x ? (t - x.at) / 1000 : null)
    return {
      inLava: !!me.isInLava || feet === 'lava' || !!(head && head.name === 'lava'),
      onFire: onFire(me),
      inFire: FIRE.has(feet),
      air: typeof bot.oxygenLevel === 'number' ? bot.oxygenLevel : null,
      headInWater: !!(head && WATERY.has(head.name)),
      food: typeof bot.food === 'number' ? bot.food : null,
      explosion: explosion ? { ago: since(explosion), distance: explosion.distance, creeper: explosion.creeper } : null,
      landed: landed ? { ago: since(landed), fall: landed.fall, from: landed.from } : null,
      arrow: lastArrow ? { ago: since(lastArrow), distance: lastArrow.distance } : null,
      archer: nearest(e => ARCHERS.has(e.name), pos),
      headInSolid: !!(head && head.boundingBox === 'block' && !head.transparent),
      y: pos.y,
      minY: (bot.game && bot.game.minY) || 0,
      contact: CONTACT.has(feet),
      mob: nearest(hostile, pos),
      player: nearest(e => e.type === 'player', pos),
      // the blocks touched now, and where the bot last stood (a fall's start): what a hurt
      // is put down to (contact.js)
      blocks: contactOf(bot, pos),
      ground
    }
  }

  const shown = (e) => {
    if (e !== bot.entity) return
    hurts.push(now())
    if (hurts.length > MAX_SOURCES * 2) hurts.shift()
  }
  bot.on('entityHurt', shown)
  bot.on('entityDead', shown)
  // a drop at `t` the server showed as a hurt (a blow), not a health set lower
  const struck = (t) => hurts.some(at => Math.abs(at - t) <= STRUCK_MS)
  bot.on('health', () => {
    const was = health
    health = bot.health
    if (was === null || !bot.entity || !(health < was)) return
    const t = now()
    const ctx = context(t)
    const source = { ...classify(ctx), amount: was - health, at: t, ctx }
    sources.push(source)
    if (sources.length > MAX_SOURCES) sources.shift()
    // every blow goes out too (a large loss survived teaches as a death does: a near-miss),
    // once the packets round it are in (an explosion's comes after its hurt): a blow is a
    // drop the server showed as a hurt (vanilla LivingEntity.hurt broadcasts entity event 2,
    // before the health update; the sandbox just after). A drop with no hurt shown is no
    // blow: a plugin or an operator setting the health
    const hp = health
    const timer = setTimeout(() => {
      blowsOut.delete(timer)
      if (struck(t)) emit({ type: 'damage', hp, source: sourceOf(source, t) })
    }, STRUCK_MS)
    blowsOut.add(timer)
  })

  // the fall: blocks dropped while airborne, as vanilla counts it (water and climbing reset it)
  bot.on('physicsTick', () => {
    const me = bot.entity
    if (!me || !me.position) return
    const y = me.position.y
    if (me.onGround) {
      if (fall > SAFE_FALL) landed = { fall, at: now(), from: ground }
      fall = 0
      const cell = `${Math.floor(me.position.x)},${Math.floor(me.position.y)},${Math.floor(me.position.z)}`
      if (cell !== groundCell) { groundCell = cell; ground = contactOf(bot, me.position) }
    } else if (me.isInWater || CLIMBABLE.has(blockName(me.position))) fall = 0
    else if (lastY !== null && y < lastY) fall += lastY - y
    lastY = y
  })
  bot.on('forcedMove', () => { lastY = bot.entity ? bot.entity.position.y : null; fall = 0 })

  bot.on('entityMoved', (e) => {
    if (!ARROWS.has(e.name) || !bot.entity) return
    const d = e.position.distanceTo(bot.entity.position.offset(0, 0.9, 0))
    if (d <= ARROW_RANGE) lastArrow = { at: now(), distance: d }
  })
  bot.on('entityGone', (e) => {
    if (e.name !== 'creeper' || !e.position) return
    gone.push({ at: now(), position: e.position.clone() })
    if (gone.length > 4) gone.shift()
  })
  bot._client.on('explosion', (p) => {
    if (!bot.entity) return
    const t = now()
    const center = new Vec3(p.x, p.y, p.z)
    const distance = center.distanceTo(bot.entity.position)
    let creeper = null
    let best = Infinity
    const seen = Object.values(bot.entities).filter(e => e.name === 'creeper' && e.position).map(e => e.position)
    for (const at of [...seen, ...gone.filter(g => t - g.at <= 1000).map(g => g.position)]) {
      const d = at.distanceTo(center)
      if (d <= EXPLOSION_RANGE && d < best) { best = d; creeper = 'creeper' }
    }
    explosion = { at: t, distance, creeper }
    // drops just before it were this explosion's (the sandbox sends the packet after the hurt)
    for (const s of sources) {
      if (t - s.at > RECENT_MS || s.kind === 'explosion') continue
      s.ctx.explosion = { ago: 0, distance, creeper } // as if it had come first
      Object.assign(s, classify(s.ctx))
    }
  })

  function finish () {
    if (!pending) return
    const p = pending
    pending = null
    clearTimeout(p.timer)
    // the blows: drops the server showed as hurts, and the last one, whatever it was (a
    // plugin's kill shows no hurt; it is the death's all the same). They are the death's to
    // teach: none goes out after it as a blow of the next life
    keepBlows()
    const last = sources[sources.length - 1]
    const cause = causeOf(p.message, sources.filter(s => s === last || struck(s.at)), p.at)
    sources = []
    emit({ type: 'death', position: p.position, cause })
    if (heldRespawn) { heldRespawn = false; emit({ type: 'respawn' }) }
    if (respawn && bot.health <= 0) {
      try { bot.respawn() } catch (err) {} // a client already closed: no life to come back to
    }
  }

  function heard (message) {
    if (pending) {
      if (pending.message) return
      pending.message = message
      clearTimeout(pending.timer)
      pending.timer = setTimeout(finish, SETTLE_MS)
    } else if (bot.isAlive !== false) early = { message, at: now() } // vanilla: before the health update
  }

  // A listener that throws would throw inside mineflayer's packet handling: any text a
  // server or a player can shape (tellraw, plugins) only ever fails to count.
  bot.on('message', (msg) => {
    try {
      const m = ownDeath(msg && msg.json, bot.username, lang())
      if (m) heard({ ...m, text: String(msg.toString()).slice(0, TEXT_MAX) })
    } catch (err) {}
  })
  const packet = (p) => {
    if (!bot.entity || p.playerId !== bot.entity.id || p.message === undefined) return
    let json = p.message
    if (typeof json === 'string') {
      try { json = JSON.parse(json) } catch (err) { json = { text: json } }
    }
    try {
      const m = ownDeath(json, bot.username, lang())
      if (m) heard(m)
    } catch (err) {}
  }
  bot._client.on('combat_event', (p) => { if (p.event === 2 || p.event === 'entity_dead') packet(p) })
  bot._client.on('death_combat_event', packet)

  const keepBlows = () => {
    for (const timer of blowsOut) clearTimeout(timer)
    blowsOut.clear()
  }
  bot.on('death', () => {
    keepBlows() // the blows before it are the death's to teach, not a near-miss's
    finish() // a death still waiting (never seen: mineflayer says 'death' once a life)
    const t = now()
    const pos = bot.entity && bot.entity.position
    const message = early && t - early.at <= EARLY_MS ? early.message : null
    early = null
    pending = { position: pos ? { x: r2(pos.x), y: r2(pos.y), z: r2(pos.z) } : null, at: t, message, timer: null }
    pending.timer = setTimeout(finish, message ? SETTLE_MS : MESSAGE_WAIT_MS)
  })
  bot.on('respawn', () => {
    health = null
    fall = 0
    landed = null
    if (pending) heldRespawn = true
    else emit({ type: 'respawn' })
  })
  bot.on('end', () => finish())

  return { pending: () => !!pending }
}

module.exports = { createDeathWatch, classify, ownDeath, plain, causeOf, sourceOf, MESSAGE_WAIT_MS, MAX_SOURCES }
