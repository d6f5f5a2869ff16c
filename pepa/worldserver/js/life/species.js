'use strict'
// The sandbox's species: what plugins/mobs.js makes of each mob it adopts.
// health, movement_speed, follow_range, attack_damage from vanilla 1.16
// attributes; loot [item, min, max, cooked variant, only when killed by a player] from vanilla loot tables
// (minecraft-data's entityLoot gives only 1..1); weights and pack sizes from
// the plains biome's spawn list.
const SPECIES = {
  zombie: { hostile: true, brain: 'melee', health: 20, speed: 0.23, follow: 35, damage: 3, burns: true, strollMod: 1.0, weight: 95, babies: true, pack: 4, loot: [['rotten_flesh', 0, 2]], rare: ['iron_ingot', 'carrot', 'potato'] },
  skeleton: { hostile: true, brain: 'archer', health: 20, speed: 0.25, follow: 16, burns: true, strollMod: 1.0, weight: 100, pack: 4, loot: [['arrow', 0, 2], ['bone', 0, 2]] },
  creeper: { hostile: true, brain: 'creeper', health: 20, speed: 0.25, follow: 16, strollMod: 0.8, weight: 100, pack: 4, loot: [['gunpowder', 0, 2]] },
  // spider_eye: a count of -1..1 (vanilla's uniform -1..1: one in 3 kills), only when killed by a player
  spider: { hostile: true, brain: 'spider', health: 16, speed: 0.3, follow: 16, damage: 2, climbs: true, strollMod: 0.8, weight: 100, pack: 4, loot: [['string', 0, 2], ['spider_eye', -1, 1, null, true]] },
  // vanilla 1.16.5 CaveSpider: 12 health, a spider's speed and bite, and Poison on a bite that lands
  // (normal 7 s, hard 15 s, easy none); only from spawners (weight 0: never a natural spawn)
  cave_spider: { hostile: true, brain: 'spider', health: 12, speed: 0.3, follow: 16, damage: 2, climbs: true, strollMod: 0.8, weight: 0, pack: 1, poison: [0, 0, 140, 300], loot: [['string', 0, 2], ['spider_eye', -1, 1, null, true]] },
  // vanilla EnderMan: 40 health, 7 a blow, speed 0.3, follow 64; neutral (brains.js enderman);
  // weight 10, packs of 1..4 (here 4 tries, as every pack) in the monster spawn list
  enderman: { hostile: true, vanilla: true, teleports: true, brain: 'enderman', health: 40, speed: 0.3, follow: 64, damage: 7, strollMod: 1.0, weight: 10, pack: 4, loot: [['ender_pearl', 0, 1]] },
  // vanilla Slime: size 1, 2 or 4 (Slime.finalizeSpawn), health size^2, speed 0.2 + 0.1 size, a
  // blow of `size` (none from the smallest), split on death into 2..4 of half the size; it spawns
  // in swamps at y 51..69 in the dark, and below y 40 in slime chunks (one in 10) at any light
  slime: { hostile: true, vanilla: true, brain: 'melee', health: 1, speed: 0.3, follow: 16, damage: 1, strollMod: 1.0, weight: 100, pack: 4, slime: true, loot: [['slime_ball', 0, 2]] },
  // vanilla Phantom: 20 health, a blow of 6 + size (size 0: 6 on normal), burns by day; it flies
  // (brains.js phantom); never a spawn by light: plugins/phantoms.js brings it to the sleepless
  phantom: { hostile: true, vanilla: true, brain: 'phantom', health: 20, speed: 0.4, follow: 64, damage: 6, burns: true, flies: true, strollMod: 1.0, weight: 0, pack: 1, loot: [['phantom_membrane', 0, 1, null, true]] },
  // vanilla Drowned: a zombie of the water (20 health, 3 a blow, burns by day out of water); it
  // swims (brains.js drowned) and hunts a player in water, or anyone at night; it spawns in rivers
  // and oceans, in the water (spawnDrowned), never by the land's spawn list (weight 0)
  drowned: { hostile: true, vanilla: true, brain: 'drowned', health: 20, speed: 0.23, follow: 35, damage: 3, burns: true, strollMod: 1.0, weight: 0, pack: 1, loot: [['rotten_flesh', 0, 2]], rare: ['gold_ingot'] },
  // vanilla Witch: 26 health, speed 0.25, splash potions (brains.js witch); weight 5, alone
  witch: { hostile: true, vanilla: true, brain: 'witch', health: 26, speed: 0.25, follow: 16, strollMod: 1.0, weight: 5, pack: 1, loot: [['glass_bottle', 0, 2], ['glowstone_dust', 0, 2], ['gunpowder', 0, 2], ['redstone', 0, 2], ['spider_eye', 0, 2], ['sugar', 0, 2], ['stick', 0, 2]] },
  // a zombie in every way, 5 to the zombie's 95 in the monster spawn list (Biome.monster defaults)
  zombie_villager: { hostile: true, vanilla: true, brain: 'melee', health: 20, speed: 0.23, follow: 35, damage: 3, burns: true, strollMod: 1.0, weight: 5, babies: true, pack: 4, loot: [['rotten_flesh', 0, 2]], rare: ['iron_ingot', 'carrot', 'potato'] },
  cow: { brain: 'animal', health: 10, speed: 0.2, panic: 2.0, weight: 8, pack: 4, loot: [['leather', 0, 2], ['beef', 1, 3, 'cooked_beef']] },
  pig: { brain: 'animal', health: 10, speed: 0.25, panic: 1.25, weight: 10, pack: 4, loot: [['porkchop', 1, 3, 'cooked_porkchop']] },
  chicken: { brain: 'animal', health: 4, speed: 0.25, panic: 1.4, weight: 10, pack: 4, loot: [['feather', 0, 2], ['chicken', 1, 1, 'cooked_chicken']] },
  sheep: { brain: 'animal', health: 8, speed: 0.23, panic: 1.25, weight: 12, pack: 4, loot: [['mutton', 1, 2, 'cooked_mutton'], ['white_wool', 1, 1]] }
}
// a mob the sandbox has no species for: it stands (or, spawned with {ai: true}, chases like a zombie)
const GENERIC = { brain: 'still', health: 20, speed: 0.23, follow: 35, damage: 3, strollMod: 1.0, loot: [] }

module.exports = { SPECIES, GENERIC }
