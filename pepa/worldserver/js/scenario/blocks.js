'use strict'
// The scenario's blocks: set one, fill a box, wall a player in, dig a pit under it, read one,
// place a bed. Every block goes through serv.setBlock (the world first, then the players:
// fixes/set_block.js); `player`, where given, names the world (else the overworld).
//
//   set_block {player?, x, y, z, block='stone', properties?} → {}: properties pick the
//                                                  block's state ({age: 3}), else its default
//   fill {player?, x1, y1, z1, x2, y2, z2, block='stone'} → {blocks}
//   wall_in {player, block='stone', height=2, roof=true} → {blocks, feet}: a ring of blocks
//                                                  round the player's feet column, and a roof
//   pit {player, depth=3, block='stone'}              → {bottom}: a 1x1 shaft under the player,
//                                                  lined with `block`; the player falls in
//   block_at {player?, x, y, z}                        → {name, stateId, properties}: the state's
//                                                  properties ({facing: 'north', part: 'head'})
//   place_bed {player?, x, y, z, facing='north', color='red'} → {foot, head}: the foot at x,y,z,
//                                                  the head one block towards `facing`
const { Vec3 } = require('vec3')
const { num, vec, pos } = require('./context')

module.exports = function blockOps (ctx) {
  const { serv, registry, player, blockState, worldOf, settled } = ctx
  return {
    set_block: async (a) => {
      const p = a.player ? player(a.player) : null
      await serv.setBlock(p ? p.world : serv.overworld, vec(a), blockState(a.block || 'stone', a.properties))
      return {}
    },

    fill: async (a) => {
      const st = blockState(a.block || 'stone')
      let n = 0
      const w = worldOf(a)
      for (let x = Math.min(a.x1, a.x2); x <= Math.max(a.x1, a.x2); x++) {
        for (let y = Math.min(a.y1, a.y2); y <= Math.max(a.y1, a.y2); y++) {
          for (let z = Math.min(a.z1, a.z2); z <= Math.max(a.z1, a.z2); z++) {
            await serv.setBlock(w, new Vec3(x, y, z), st)
            n++
          }
        }
      }
      return { blocks: n }
    },

    wall_in: async (a) => {
      const p = player(a.player)
      const st = blockState(a.block || 'stone')
      await settled(p) // the login's last teleport would put the player back elsewhere
      const f = p.position.floored()
      const h = num(a.height, 2)
      let n = 0
      for (let dy = 0; dy < h; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          for (let dz = -1; dz <= 1; dz++) {
            if (dx === 0 && dz === 0) continue
            await serv.setBlock(p.world, f.offset(dx, dy, dz), st); n++
          }
        }
      }
      if (a.roof !== false) { await serv.setBlock(p.world, f.offset(0, h, 0), st); n++ }
      return { blocks: n, feet: pos(f) }
    },

    pit: async (a) => {
      const p = player(a.player)
      await settled(p) // a shaft dug before the login ends would be undone with the teleport below
      const f = p.position.floored()
      const depth = num(a.depth, 3)
      const st = blockState(a.block || 'stone')
      const air = blockState('air')
      for (let d = 1; d <= depth; d++) {
        for (let dx = -1; dx <= 1; dx++) {
          for (let dz = -1; dz <= 1; dz++) {
            await serv.setBlock(p.world, f.offset(dx, -d, dz), (dx === 0 && dz === 0) ? air : st)
          }
        }
      }
      await serv.setBlock(p.world, f.offset(0, -depth - 1, 0), st)
      // flying-squid has no server-side player physics: the client falls by itself,
      // but only if its 0.6-wide box is inside the 1x1 shaft: centre it first.
      await p.teleport(new Vec3(f.x + 0.5, p.position.y, f.z + 0.5))
      return { bottom: pos(f.offset(0, -depth, 0)) }
    },

    block_at: async (a) => {
      const w = worldOf(a)
      const b = await w.getBlock(vec(a))
      return { name: b && b.name, stateId: b && b.stateId, properties: b ? b.getProperties() : null }
    },

    place_bed: async (a) => {
      const Block = require('prismarine-block')(registry)
      const facing = a.facing || 'north'
      const name = `${a.color || 'red'}_bed`
      const toward = { north: [0, -1], south: [0, 1], west: [-1, 0], east: [1, 0] }[facing]
      if (!toward) throw new Error(`bad facing: ${facing}`)
      const w = worldOf(a)
      const foot = vec(a)
      const state = (part) => Block.fromProperties(name, { facing, part, occupied: false }, 0).stateId
      await serv.setBlock(w, foot, state('foot'))
      await serv.setBlock(w, foot.offset(toward[0], 0, toward[1]), state('head'))
      return { foot: pos(foot), head: pos(foot.offset(toward[0], 0, toward[1])) }
    }
  }
}
