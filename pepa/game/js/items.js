'use strict'
// What items do in a fight, with vanilla 1.16.5 numbers (minecraft-data has none of them): the
// attack damage and attack speed of every weapon and tool, the fist's, and the armour each
// material gives per piece. The world server's damage (pepa/worldserver/js/life/combat.js) and
// the bot's swings (pepa/link/js/melee.js) read them here; the Python twin is pepa/game/items.py.

// attack damage (the fist's 1 included) and attack speed per item: vanilla ItemTier + SwordItem 3
// / AxeItem / PickaxeItem 1 / ShovelItem 1.5 / HoeItem, TridentItem; speed from the attributes
const WEAPONS = {
  wooden_sword: [4, 1.6], golden_sword: [4, 1.6], stone_sword: [5, 1.6], iron_sword: [6, 1.6], diamond_sword: [7, 1.6], netherite_sword: [8, 1.6],
  wooden_axe: [7, 0.8], golden_axe: [7, 1.0], stone_axe: [9, 0.8], iron_axe: [9, 0.9], diamond_axe: [9, 1.0], netherite_axe: [10, 1.0],
  wooden_pickaxe: [2, 1.2], golden_pickaxe: [2, 1.2], stone_pickaxe: [3, 1.2], iron_pickaxe: [4, 1.2], diamond_pickaxe: [5, 1.2], netherite_pickaxe: [6, 1.2],
  wooden_shovel: [2.5, 1], golden_shovel: [2.5, 1], stone_shovel: [3.5, 1], iron_shovel: [4.5, 1], diamond_shovel: [5.5, 1], netherite_shovel: [6.5, 1],
  wooden_hoe: [1, 1], golden_hoe: [1, 1], stone_hoe: [1, 2], iron_hoe: [1, 3], diamond_hoe: [1, 4], netherite_hoe: [1, 4],
  trident: [9, 1.1]
}
// a bare hand, and anything that is not in WEAPONS: [attack damage, attack speed]
const FIST = [1, 4]

// vanilla 1.16 ArmorMaterials: [helmet, chestplate, leggings, boots] defense, toughness,
// knockback resistance
const ARMOUR = {
  leather: [[1, 3, 2, 1], 0, 0],
  golden: [[2, 5, 3, 1], 0, 0],
  chainmail: [[2, 5, 4, 1], 0, 0],
  iron: [[2, 6, 5, 2], 0, 0],
  diamond: [[3, 8, 6, 3], 2, 0],
  netherite: [[3, 8, 6, 3], 3, 0.1]
}
const PIECES = ['helmet', 'chestplate', 'leggings', 'boots'] // a player's armour slots, in order

// what armour item `item` ({name}) gives worn as piece i (0 helmet .. 3 boots):
// { defense, toughness, knockbackResistance }, or null (not armour, or not that piece)
function armourPiece (item, i) {
  if (!item) return null
  if (item.name === 'turtle_helmet' && i === 0) return { defense: 2, toughness: 0, knockbackResistance: 0 }
  const [material, kind] = item.name.split('_')
  const row = ARMOUR[material]
  if (!row || kind !== PIECES[i]) return null
  return { defense: row[0][i], toughness: row[1], knockbackResistance: row[2] }
}

module.exports = { WEAPONS, FIST, ARMOUR, PIECES, armourPiece }
