'use strict'
// The overworld as the block physics plugins (plugins/fluids.js, plugins/falling.js) use it:
// synchronous reads of its loaded columns (null where none is loaded), writes told to its
// players at once, and a call on every block change (the world's and its sync view's
// blockUpdate), hooked before the first change the server makes.
const { Vec3 } = require('vec3')

function overworld (serv, onChange) {
  const at = new Vec3(0, 0, 0)
  const view = { world: null }
  view.get = (x, y, z) => {
    if (y < 0 || y > 255) return null
    at.set(x, y, z)
    if (!view.world.sync.getColumnAt(at)) return null
    return view.world.sync.getBlockStateId(at)
  }
  view.set = (x, y, z, id) => {
    const pos = new Vec3(x, y, z)
    view.world.sync.setBlockStateId(pos, id) // its blockUpdate calls onChange too
    for (const p of serv.players) if (p.world === view.world) p.sendBlock(pos, id)
  }
  const onBlock = (oldBlock, newBlock) => {
    const p = newBlock && newBlock.position
    if (p) onChange(p.x, p.y, p.z)
  }
  // hooked yet? (flying-squid makes the overworld after the plugins load)
  view.ready = () => {
    if (view.world) return true
    if (!serv.overworld) return false
    view.world = serv.overworld
    view.world.on('blockUpdate', onBlock)
    view.world.sync.on('blockUpdate', onBlock)
    return true
  }
  serv.once('pluginsReady', () => view.ready())
  return view
}

module.exports = { overworld }
