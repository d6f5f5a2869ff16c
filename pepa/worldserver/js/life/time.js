'use strict'
// Vanilla 1.16 sky maths, pure: DimensionType.timeOfDay and
// Level.updateSkyBrightness in clear weather (the sandbox has no weather).
//   skyDarken 0 at noon .. 11 at midnight; isDay = skyDarken < 4, which is
//   time 23460..12540 (beds work 12541..23459); a surface block's light is
//   15 - skyDarken, so it is dark enough for monsters (<= 7) from 13188 to 22812.
const DAY_TICKS = 24000

const frac = (x) => x - Math.floor(x)
const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x))

function celestialAngle (dayTime) {
  const d0 = frac(dayTime / DAY_TICKS - 0.25)
  const d1 = 0.5 - Math.cos(d0 * Math.PI) / 2
  return (d0 * 2 + d1) / 3
}

function skyDarken (dayTime) {
  const d2 = 0.5 + 2 * clamp(Math.cos(celestialAngle(dayTime) * 2 * Math.PI), -0.25, 0.25)
  return Math.floor((1 - d2) * 11)
}

const isDay = (dayTime) => skyDarken(dayTime) < 4

// vanilla DimensionType brightness ramp (ambient light 0): light level -> 0..1
function brightness (light) {
  const f = clamp(light, 0, 15) / 15
  return f / (4 - 3 * f)
}

module.exports = { DAY_TICKS, celestialAngle, skyDarken, isDay, brightness }
