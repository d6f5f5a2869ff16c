'use strict'
// What hostile mobs do that a fight turns on (vanilla 1.16.5): which attack from afar and with
// what. Which mobs are hostile at all comes from minecraft-data. The Python twin is
// pepa/game/mobs.py.

// hostiles that attack from afar, and with what: a skeleton or stray draws a bow, a pillager
// loads a crossbow (both shoot arrows), a witch throws potions
const RANGED = Object.freeze({ skeleton: 'bow', stray: 'bow', pillager: 'crossbow', witch: 'potion' })

// names of the RANGED hostiles whose weapon is one of `weapons` (all of them without)
function rangedWith (...weapons) {
  return new Set(Object.keys(RANGED).filter(name => !weapons.length || weapons.includes(RANGED[name])))
}

module.exports = { RANGED, rangedWith }
