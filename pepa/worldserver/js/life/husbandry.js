'use strict'
// The rules of a farm animal, after vanilla 1.16.5 AgeableEntity, AnimalEntity and
// SheepEntity; pure (no server): life/herd.js keeps one `farm` record per animal and
// plugins/husbandry.js applies players' clicks through these.
//
//  - age: < 0 a baby (born at -24000, an adult at 0), > 0 an adult's breeding cooldown
//    (6000 after breeding); it runs toward 0 one tick a tick (AgeableEntity.aiStep);
//  - love: ticks left in love (600 when fed, AnimalEntity.setInLove); it runs down one a
//    tick and is dropped while the age is not 0;
//  - food: an adult with age 0 not in love is put in love by its food (one eaten); a baby
//    eats it and grows by a tenth of the time it has left (AnimalEntity.mobInteract,
//    ageUp(-age / 20 * 0.1 seconds));
//  - sheep: a colour (SheepEntity.getRandomSheepColor at a spawn) and `sheared`; an adult
//    not sheared gives 1..3 wool of its colour to shears; eating grass regrows the wool
//    (SheepEntity.ate; a baby also grows 60 s);
//  - loot: a baby drops nothing (LivingEntity.shouldDropLoot), a sheared sheep no wool,
//    a sheep's wool is of its colour.
// Every timer runs `scale` ticks a tick (the husbandry_scale op: tests). The food, the colours
// and the metadata's keys are shared with the bot (pepa/game/js/animals.js).
const { FOOD, COLOURS, SHEARED, BREED_COOLDOWN, isFood, tempts } = require('../../../game/js/animals')

const BABY_AGE = -24000
const LOVE_TICKS = 600
const EATEN_GROWTH_S = 60 // SheepEntity.ate: a baby that eats grass grows 60 s

// vanilla SheepEntity.getRandomSheepColor; int(n) is Random.nextInt(n)
function randomColour (int) {
  const i = int(100)
  if (i < 5) return 'black'
  if (i < 10) return 'gray'
  if (i < 15) return 'light_gray'
  if (i < 18) return 'brown'
  return int(500) === 0 ? 'pink' : 'white'
}

// a new animal's record; baby: born (or spawned) as one; colour: a sheep's, else drawn
function newFarm (name, int, { baby = false, colour = null } = {}) {
  const farm = { age: baby ? BABY_AGE : 0, love: 0, sheared: false, colour: null }
  if (name === 'sheep') farm.colour = COLOURS.includes(colour) ? colour : randomColour(int)
  return farm
}

const isBaby = (farm) => farm.age < 0

// one tick of the age and love timers, `scale` ticks of them
function tickTimers (farm, scale = 1) {
  if (farm.age < 0) farm.age = Math.min(0, farm.age + scale)
  else if (farm.age > 0) farm.age = Math.max(0, farm.age - scale)
  if (farm.age !== 0) farm.love = 0
  if (farm.love > 0) farm.love = Math.max(0, farm.love - scale)
}

// vanilla AgeableEntity.ageUp(seconds): a baby's age moves toward 0, never past it
function ageUp (farm, seconds) {
  if (farm.age < 0) farm.age = Math.min(0, farm.age + seconds * 20)
}

// a player's click with `item` on the animal: what it did ('love', 'grow'), or null (not
// taken: nothing is eaten)
function feed (name, farm, item) {
  if (!isFood(name, item)) return null
  if (farm.age === 0 && farm.love <= 0) {
    farm.love = LOVE_TICKS
    return 'love'
  }
  if (farm.age < 0) {
    ageUp(farm, Math.trunc(Math.trunc(-farm.age / 20) * 0.1))
    return 'grow'
  }
  return null
}

const mayShear = (name, farm) => name === 'sheep' && !farm.sheared && farm.age >= 0

// shears on the sheep: the wool it gives ({item, count}), or null
function shear (name, farm, int) {
  if (!mayShear(name, farm)) return null
  farm.sheared = true
  return { item: `${farm.colour}_wool`, count: 1 + int(3) }
}

// SheepEntity.ate: the wool grows back; a baby grows
function ate (farm) {
  farm.sheared = false
  ageUp(farm, EATEN_GROWTH_S)
}

// the breeding's end for both parents (AnimalEntity.spawnChildFromBreeding)
function bred (farm) {
  farm.age = BREED_COOLDOWN
  farm.love = 0
}

// the loot entries ([item, min, max, ...]) of an animal that died, as its state makes them
function lootOf (name, farm, loot) {
  if (!farm) return loot
  if (farm.age < 0) return []
  if (name !== 'sheep') return loot
  return loot.filter(([item]) => !item.endsWith('_wool') || !farm.sheared)
    .map((entry) => (entry[0].endsWith('_wool') ? [`${farm.colour}_wool`, ...entry.slice(1)] : entry))
}

// SheepEntity's metadata byte: the colour's id, 0x10 when sheared
const sheepByte = (farm) => COLOURS.indexOf(farm.colour) | (farm.sheared ? SHEARED : 0)

module.exports = {
  BABY_AGE, BREED_COOLDOWN, LOVE_TICKS, FOOD, COLOURS, isFood, tempts, randomColour, newFarm, isBaby, tickTimers,
  ageUp, feed, mayShear, shear, ate, bred, lootOf, sheepByte
}
