'use strict'
// Farm animals' figures that the world server's husbandry (pepa/worldserver/js/life/husbandry.js)
// and the bot's (pepa/link/js/actions/husbandry.js) both go by, vanilla 1.16.5. The Python twin
// is pepa/game/animals.py.

// each animal's food (AnimalEntity.isFood: it breeds and grows on it), and what more tempts it
const FOOD = Object.freeze({
  cow: ['wheat'],
  sheep: ['wheat'],
  pig: ['carrot', 'potato', 'beetroot'],
  chicken: ['wheat_seeds', 'melon_seeds', 'pumpkin_seeds', 'beetroot_seeds']
})
const TEMPTS = Object.freeze({ pig: ['carrot_on_a_stick'] })

const BREED_COOLDOWN = 6000 // ticks an adult waits after breeding (AnimalEntity.spawnChildFromBreeding)
const TEMPT_RANGE = 10 // blocks: TemptGoal's reach
const PARTNER_RANGE = 8 // blocks: BreedGoal.getFreePartner

// entity metadata, 1.16.5: AgeableEntity's baby flag (a boolean), SheepEntity's wool byte
// (the low nibble its colour's DyeColor id, 0x10 sheared)
const BABY_KEY = 15
const WOOL_KEY = 16
const SHEARED = 0x10
const COLOURS = Object.freeze(['white', 'orange', 'magenta', 'light_blue', 'yellow', 'lime', 'pink', 'gray',
  'light_gray', 'cyan', 'purple', 'blue', 'brown', 'green', 'red', 'black'])

const isFood = (name, item) => !!FOOD[name] && FOOD[name].includes(item)
const tempts = (name, item) => isFood(name, item) || (!!TEMPTS[name] && TEMPTS[name].includes(item))

// what the metadata an entity was sent says of it (mineflayer's entity.metadata: key -> value)
const isBaby = (metadata) => !!metadata && metadata[BABY_KEY] === true
const isSheared = (metadata) => !!metadata && ((metadata[WOOL_KEY] | 0) & SHEARED) !== 0

module.exports = {
  FOOD, TEMPTS, BREED_COOLDOWN, TEMPT_RANGE, PARTNER_RANGE, BABY_KEY, WOOL_KEY, SHEARED, COLOURS,
  isFood, tempts, isBaby, isSheared
}
