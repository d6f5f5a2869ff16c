'use strict'
// melee.js — the bot's swings and its shield (required by bot_helper.js).
//
// Swings. The first swing at a new target is the one-call hot path: swing at
// once (reaction latency must not change). A later swing at the same target is
// a critical hit when it can be (vanilla 1.16.5 Player.attack: attack strength
// > 0.9, falling — fallDistance > 0, not on the ground — not climbing, not in
// water, not sprinting; ×1.5 damage): jump so that the fall begins as the
// weapon recharges, swing on the way down while the target is in reach. When a
// jump would cost (in water or lava, on a ladder, sprinting, off the ground,
// the target out of reach, another hostile within CROWDED blocks) it swings at
// once as before. Python keeps its 0.6 s cadence of calls; a call that comes
// while a crit is under way is taken as that swing.
//
// Shield (vanilla: it blocks from the front once up 5 ticks; the client cannot
// swing while it is up, and walks at a fifth of its speed). Every physics tick
// guardWanted() decides from what the bot sees: up while a hostile is in reach
// and the bot swung within ENGAGED_MS (recharging), while a skeleton or stray
// within ARCHER_RANGE sees the standing bot, and while one draws its bow — then
// a walk stops for the shot and a later swing waits for it; down while any
// movement key is held or the pathfinder walks (moving()), digging, right before
// each swing, and for as long as any suspend() lasts: a flight, a meal, and every
// action that walks, digs, places or opens a block (bot_helper.js) — suspended, it
// never turns the bot (a lookAt at an archer would steer a hand-held walk such as
// centre() or a placement toward it). Raised, it faces the threat. mineflayer sends use_item {hand: 1} and
// block_dig status 5, which the sandbox reads (life/combat.js watchPlayer).

const REACH = 4 // blocks, feet to feet, within which a crit jump is tried (the policy's reach; the server's is 6)
const CROWDED = 2 // another hostile this close makes jumping costly: swing at once
const FIRST_GAP_MS = 2000 // a swing at a target not swung at for this long is a first swing
const ENGAGED_MS = 1500 // since the last swing: the bot is in a melee
const ARCHER_RANGE = 15 // vanilla skeleton: attacks within 15 blocks
const { rangedWith } = require('../../game/js/mobs')
const ARCHERS = rangedWith('bow') // those that draw a bow (pepa/game/js/mobs.js)
const FALL_TICKS = 7 // from a jump to the first tick of the fall (vanilla jump: 0.42, gravity 0.08, drag 0.98)
const CRIT_TIMEOUT_MS = 1500 // a crit not swung by then is swung as it is
const TICK_MS = 50
const CONTROLS = ['forward', 'back', 'left', 'right', 'jump', 'sprint', 'sneak'] // mineflayer's control states
const { eyeHeight } = require('../../game/js/eyes')

// attack speed of the weapons, swords and axes (vanilla 1.16.5 attributes: game/js/items.js);
// the fist and anything else 4
const SPEED = Object.fromEntries(Object.entries(require('../../game/js/items').WEAPONS)
  .filter(([name]) => /_(sword|axe)$/.test(name)).map(([name, [, speed]]) => [name, speed]))
// ms after a swing until the attack strength passes 0.9 ((ticks + 0.5) / (20 / speed) > 0.9),
// and one tick more: the server counts its own ticks
function rechargeMs (held) {
  const period = 20 / (SPEED[held] || 4)
  return (Math.ceil(0.9 * period - 0.5 + 1e-9) + 1) * TICK_MS
}

// Pure: 'jump' for a crit, or 'swing' at once. s: { first, onGround, inWater, inLava,
// climbing, sprinting, distance (to the target), othersNear (other hostiles within CROWDED) }
function critPlan (s) {
  if (s.first) return 'swing' // the hot path: never delay a first swing
  if (!s.onGround || s.inWater || s.inLava || s.climbing || s.sprinting) return 'swing'
  if (s.distance == null || s.distance > REACH || s.othersNear > 0) return 'swing'
  return 'jump'
}

// Pure: whether the bot moves. controls: { forward, back, ... } (the control states set);
// pathfinding: the pathfinder walks. A key held by hand (centre(), a flight, a crit jump)
// moves it as much as a path does.
function moving (controls, pathfinding) {
  return !!pathfinding || CONTROLS.some(c => !!controls[c])
}

// Pure: whether the shield should be up. s: { hasShield, busy (suspended, or an item in use), digging,
// sprinting, moving (moving()), meleeInReach (any hostile within reach),
// sinceSwingMs, archerSees (a skeleton or stray within ARCHER_RANGE sees the bot),
// archerDrawing (one of those draws its bow) }
function guardWanted (s) {
  if (!s.hasShield || s.busy || s.digging) return false
  if (s.archerDrawing) return true // stop and take the arrow on the shield (the caller halts a walk)
  if (s.sprinting || s.moving) return false // blocking slows a player to a fifth
  if (s.meleeInReach && s.sinceSwingMs < ENGAGED_MS) return true // recharging, or the next swing is coming
  return !!s.archerSees
}

function createMelee (bot, { hostile, sees, bestWeapon }) {
  let last = { id: null, at: -Infinity } // the last swing: target id and time
  let strike = null // a crit under way: { e, readyAt, jumped, startedAt }
  let raised = false
  let suspended = 0 // how many suspend()s are under way (they overlap and nest): any holds the guard down
  let drawing = false // a skeleton or stray that sees the bot draws its bow (guardTick)

  const now = () => Date.now()
  const offHand = () => bot.inventory.slots[45]
  const heldName = () => (bot.heldItem ? bot.heldItem.name : null)
  const eye = (e) => e.position.offset(0, eyeHeight(e.name, e.height), 0)
  // LivingEntity flags (metadata 7 in 1.16), bit 1: hand active — a skeleton drawing its bow
  const drawsBow = (e) => !!e.metadata && ((e.metadata[7] | 0) & 1) === 1

  function raise () {
    if (raised) return
    raised = true
    bot.activateItem(true) // use_item {hand: 1}
  }
  function lower () {
    if (!raised) return
    raised = false
    bot.deactivateItem() // block_dig status 5
  }

  function swing (e) {
    lower() // vanilla cannot attack while blocking
    bot.attack(e)
    last = { id: e.id, at: now() }
    const weapon = bestWeapon()
    if (weapon && (!bot.heldItem || bot.heldItem.name !== weapon.name)) bot.equip(weapon, 'hand').catch(() => {})
  }

  function othersNear (e) {
    const me = bot.entity.position
    return Object.values(bot.entities).filter(o => o !== e && o !== bot.entity && o.position &&
      hostile(o) && o.position.distanceTo(me) <= CROWDED).length
  }

  function climbing () {
    const b = bot.blockAt(bot.entity.position)
    return !!b && /ladder|vine|scaffolding/.test(b.name)
  }

  // attack(entityId): one swing at the entity, now or as a crit; false if it is unknown
  function attack (entityId) {
    const e = bot.entities[entityId]
    if (!e) return false
    if (strike) { if (strike.e.id !== entityId) finish(false); else return true } // that swing is coming
    const first = last.id !== entityId || now() - last.at > FIRST_GAP_MS
    if (first) { swing(e); return true } // the hot path: nothing looked at before the swing
    const plan = critPlan({
      first,
      onGround: bot.entity.onGround,
      inWater: !!bot.entity.isInWater,
      inLava: !!bot.entity.isInLava,
      climbing: climbing(),
      sprinting: !!bot.getControlState('sprint'),
      distance: e.position && bot.entity.position.distanceTo(e.position),
      othersNear: othersNear(e)
    })
    if (plan === 'swing' && !(raised && drawing)) { swing(e); return true }
    // a crit jump, or a later swing held while the raised shield waits for an archer's shot
    strike = { e, readyAt: last.at + rechargeMs(heldName()), jumped: false, descending: false, y: bot.entity.position.y, startedAt: now(), jump: plan === 'jump' }
    return true
  }

  // one physics tick of a crit under way: jump when the fall will meet the recharge,
  // swing once a move downward has been sent (the server's fall distance > 0)
  function tickStrike () {
    const s = strike
    const e = bot.entities[s.e.id]
    if (!e || !e.position) { finish(false); return }
    if (bot.getControlState('sprint')) { finish(false); return } // a flight began: no swing
    const t = now()
    const pos = bot.entity.position
    if (!s.jumped) {
      if (raised && drawing && t - s.startedAt < CRIT_TIMEOUT_MS) return // the arrow first, on the shield
      if (!s.jump) { finish(true); return }
      if (t < s.readyAt - FALL_TICKS * TICK_MS) return
      if (!bot.entity.onGround) { finish(true); return } // knocked off its feet: swing as it is
      bot.setControlState('jump', true)
      s.jumped = true
      s.y = pos.y
      return
    }
    if (!bot.entity.onGround) {
      s.airborne = true
      bot.setControlState('jump', false) // one jump
    }
    // the previous tick's move went down and is sent: the server's fall distance is > 0
    // (this tick's move, maybe the landing, is sent after this handler)
    const wasDescending = s.descending
    s.descending = pos.y < s.y
    s.y = pos.y
    const inReach = pos.distanceTo(e.position) <= REACH + 0.5
    if (wasDescending && t >= s.readyAt && inReach) { finish(true); return }
    if ((s.airborne && bot.entity.onGround) || t - s.startedAt > CRIT_TIMEOUT_MS) finish(true) // landed: swing as it is
  }

  function finish (hit) {
    const s = strike
    strike = null
    if (s && s.jumped) bot.setControlState('jump', false)
    if (hit && s && bot.entities[s.e.id]) swing(s.e)
  }

  function guardTick () {
    if (suspended > 0) { drawing = false; lower(); return } // an action steers: never turn the bot
    const item = offHand()
    // no shield, no guard (guardWanted's first test), and no need to look at every entity for it
    if (!item || item.name !== 'shield') { drawing = false; lower(); return }
    const me = bot.entity.position
    let melee = null
    let archer = null
    for (const e of Object.values(bot.entities)) {
      if (e === bot.entity || !e.position || !hostile(e)) continue
      const d = e.position.distanceTo(me)
      if (d <= REACH + 0.5 && (!melee || d < melee.d)) melee = { e, d }
      if (ARCHERS.has(e.name) && d <= ARCHER_RANGE && (!archer || d < archer.d) && sees(e)) archer = { e, d }
    }
    const controls = {}
    for (const c of CONTROLS) controls[c] = bot.getControlState(c)
    if (strike && strike.jumped) controls.jump = false // the crit's own jump: its swing lowers the shield
    const walking = moving(controls, bot.pathfinder && bot.pathfinder.isMoving && bot.pathfinder.isMoving())
    const sprinting = !!bot.getControlState('sprint')
    drawing = !!archer && drawsBow(archer.e)
    const want = guardWanted({
      hasShield: true,
      busy: !!bot.usingHeldItem && !raised, // an item in use (suspend() returned above)
      digging: !!bot.targetDigBlock,
      sprinting,
      moving: walking,
      meleeInReach: !!melee,
      sinceSwingMs: now() - last.at,
      archerSees: !!archer,
      archerDrawing: drawing
    })
    if (!want) { lower(); return }
    raise()
    if (drawing && (walking || sprinting)) {
      // vanilla walks at a fifth of its speed behind a raised shield: stand for the shot
      // (this handler runs after the pathfinder's, so these hold for the next tick)
      for (const c of ['forward', 'sprint', 'jump']) bot.setControlState(c, false)
    }
    const threat = drawing ? archer.e : (melee && now() - last.at < ENGAGED_MS) ? melee.e : (archer || melee).e
    if (threat) bot.lookAt(eye(threat), true).catch(() => {}) // the shield faces it
  }

  // hold(): suspended as by suspend() until the returned release() is called (only its first call counts)
  function hold () {
    suspended++
    lower()
    let held = true
    return () => { if (held) { held = false; suspended-- } }
  }

  bot.on('physicsTick', () => {
    try {
      if (strike) tickStrike()
      guardTick()
    } catch (err) { /* a tick must never throw into mineflayer */ }
  })
  bot.on('death', () => { strike = null; raised = false })

  return {
    attack,
    // cancel(): drop a crit under way (a pre-emption)
    cancel () { if (strike) { strike = null; bot.setControlState('jump', false) } },
    // suspend(promise): shield down and the bot never turned by the guard until the promise
    // settles; counted, so overlapping or nested suspensions hold it down until the last ends
    suspend (promise) {
      const release = hold()
      Promise.resolve(promise).then(release, release)
      return promise
    },
    hold,
    state: () => ({ raised, striking: !!strike, lastSwing: last.at, lastTarget: last.id })
  }
}

module.exports = { createMelee, critPlan, guardWanted, moving, rechargeMs, REACH, CROWDED, ENGAGED_MS, ARCHER_RANGE }
