'use strict'
// Day and night. flying-squid's daycycle.js already advances the time by 20
// every 20 ticks (20 game ticks a second, a 24000-tick day = 20 minutes);
// this plugin adds:
//  - time acceleration: game time runs `timeScale` times faster (settings
//    {timeScale}, or the control op time_scale {factor}); 72 makes a day last
//    ~17 s. Only the clock runs faster: mobs, hunger and players keep real
//    ticks (see hunger_scale for the food timers);
//  - a day counter (each wrap of the time of day, sleeping included), because
//    flying-squid keeps only the time of day;
//  - the sky maths the other sandbox plugins use (sandbox/life/time.js).
// Control ops: time_scale {factor}, life_time.
const { lifeOf } = require('../life/state')
const { skyDarken, isDay, DAY_TICKS } = require('../life/time')

module.exports.server = function (serv) {
  const life = lifeOf(serv, this.settings)
  if (this.settings && this.settings.timeScale !== undefined) life.timeScale = Math.max(0, Number(this.settings.timeScale))
  let carry = 0 // fractional game ticks owed by a non-integer scale

  // daycycle.js runs its change through a behavior: we may rewrite the new time
  serv.on('changeTime', (data) => {
    carry += 20 * life.timeScale
    const add = Math.floor(carry)
    carry -= add
    data.newTime = data.old + add
  })

  const setTime = serv.setTime
  serv.setTime = (time) => {
    const before = ((serv.time % DAY_TICKS) + DAY_TICKS) % DAY_TICKS
    setTime(time)
    const after = ((serv.time % DAY_TICKS) + DAY_TICKS) % DAY_TICKS
    if (after < before) life.day++
  }

  life.timeOfDay = () => ((serv.time % DAY_TICKS) + DAY_TICKS) % DAY_TICKS
  life.skyDarken = () => skyDarken(life.timeOfDay())
  life.isDay = () => isDay(life.timeOfDay())

  life.ops.time_scale = ({ factor = 1 }) => {
    life.timeScale = Math.max(0, Number(factor))
    return { factor: life.timeScale }
  }
  life.ops.life_time = () => ({
    time: life.timeOfDay(), day: life.day, isDay: life.isDay(), skyDarken: life.skyDarken(),
    timeScale: life.timeScale, cycle: serv.doDaylightCycle
  })
}
