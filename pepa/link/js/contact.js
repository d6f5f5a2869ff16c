'use strict'
// contact.js — the blocks the bot is in contact with, by how: what it stands on, what its body
// is inside, what its sides touch. Read for every snapshot and at every health drop
// (death_cause.js), so a hurt can be put down to a block type wherever it happens: a block
// that hurt the bot at one place is known at the next (docs/knowledge.md "Attribution").
//
// contactOf(bot, pos) → {below: [names], inside: [names], touching: [names]}, air left out,
// each list without repeats and at most MAX_NAMES long, as vanilla decides what a block does
// to an entity:
//   below     the block under the feet's centre (vanilla Entity.getOnPos: what a magma block's
//             stepOn reads); on an edge over air, the blocks under the box's footprint. A
//             campfire or a slab the bot stands in counts: its top is under the feet
//   inside    the blocks the 0.6 x 1.8 box overlaps that it can be in: those with no full
//             collision (water, a pressure plate, a bush), and a solid one round the feet's
//             centre column (gravel that buried it)
//   touching  a solid block the box overlaps only at its side, or comes within TOUCH of: a
//             cactus, whose collision is 1/16 inside its cell, pricks what overlaps the cell
//             (vanilla entityInside)

const HALF = 0.3 // half a player's width
const HEIGHT = 1.8
const TOUCH = 0.01 // vanilla deflates the box by 1e-7: contact is overlap, no more
const FLOOR = 0.01 // below the feet: what the bot stands on
const MAX_NAMES = 8
const AIRS = new Set(['air', 'cave_air', 'void_air'])

function contactOf (bot, pos) {
  const out = { below: [], inside: [], touching: [] }
  if (!pos) return out
  const add = (list, name) => { if (name && !AIRS.has(name) && !list.includes(name) && list.length < MAX_NAMES) list.push(name) }
  const cells = (pad, y0, y1, each) => {
    for (let x = Math.floor(pos.x - HALF - pad); x <= Math.floor(pos.x + HALF + pad); x++) {
      for (let y = Math.floor(y0); y <= Math.floor(y1); y++) {
        for (let z = Math.floor(pos.z - HALF - pad); z <= Math.floor(pos.z + HALF + pad); z++) each(x, y, z)
      }
    }
  }
  const at = new (pos.constructor)(0, 0, 0)
  const blockOf = (x, y, z) => { at.x = x; at.y = y; at.z = z; return bot.blockAt(at, false) }
  const cx = Math.floor(pos.x)
  const cz = Math.floor(pos.z)
  const under = blockOf(cx, Math.floor(pos.y - FLOOR), cz)
  if (under && !AIRS.has(under.name)) add(out.below, under.name)
  else cells(0, pos.y - FLOOR, pos.y - FLOOR, (x, y, z) => { const b = blockOf(x, y, z); add(out.below, b && b.name) })
  const top = pos.y + HEIGHT - 0.001
  cells(TOUCH, pos.y + 0.001, top, (x, y, z) => {
    const b = blockOf(x, y, z)
    if (!b || AIRS.has(b.name)) return
    const solid = b.boundingBox === 'block'
    const overlaps = x >= Math.floor(pos.x - HALF) && x <= Math.floor(pos.x + HALF) && z >= Math.floor(pos.z - HALF) && z <= Math.floor(pos.z + HALF)
    if (!solid && overlaps) add(out.inside, b.name)
    else if (solid && x === cx && z === cz) add(out.inside, b.name)
    else if (solid) add(out.touching, b.name)
  })
  return out
}

module.exports = { contactOf, MAX_NAMES }
