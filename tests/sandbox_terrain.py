"""The survival sandbox's terrain generator run through node, no server: what it makes of a
seed, 128 x 128 blocks around the origin (the ``terrain`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.js import run_node
from tests.world_harness import SANDBOX_SEED

TERRAIN = r"""
const path = require('path')
const generator = require(path.join(process.env.SANDBOX, 'generator.js'))
const registry = require('prismarine-registry')('1.16.5')
const seed = Number(process.argv[1])
const R = 4 // chunks -R..R-1 around the origin: 128 x 128 blocks
const dumps = (g, order) => {
  const out = {}
  for (const [x, z] of order) out[x + ',' + z] = g(x, z).dump().toString('base64')
  return out
}
const order = []
for (let x = -R; x < R; x++) for (let z = -R; z < R; z++) order.push([x, z])
const a = dumps(generator({ seed, registry }), order)
const b = dumps(generator({ seed, registry }), [...order].reverse())
const other = dumps(generator({ seed: seed + 1, registry }), order)
const same = order.every(([x, z]) => a[x + ',' + z] === b[x + ',' + z])
const differs = order.filter(([x, z]) => a[x + ',' + z] !== other[x + ',' + z]).length

const g = generator({ seed, registry })
const chunks = {}
for (const [x, z] of order) chunks[x + ',' + z] = g(x, z)
const name = (x, y, z) => {
  const c = chunks[Math.floor(x / 16) + ',' + Math.floor(z / 16)]
  return registry.blocksByStateId[c.getBlockStateId({ x: x & 15, y, z: z & 15 })].name
}
const counts = {}
const lowest = {}
const highest = {}
let columns = 0; let grassColumns = 0; let badLayers = 0; let notBedrock = 0; let dirtDepths = {}
for (let x = -R * 16; x < R * 16; x++) {
  for (let z = -R * 16; z < R * 16; z++) {
    columns++
    if (name(x, 0, z) !== 'bedrock') notBedrock++
    let top = 255
    while (['air', 'oak_leaves', 'oak_log'].includes(name(x, top, z))) top--
    if (name(x, top, z) === 'grass_block') {
      grassColumns++
      let y = top - 1
      while (name(x, y, z) === 'dirt') y--
      dirtDepths[top - 1 - y] = (dirtDepths[top - 1 - y] || 0) + 1
      const under = name(x, y, z)
      if (!(under === 'stone' || under === 'bedrock' || under.endsWith('_ore'))) badLayers++
    }
    for (let y = 0; y <= top + 8; y++) { // trees stand at most 7 blocks tall
      const n = name(x, y, z)
      counts[n] = (counts[n] || 0) + 1
      lowest[n] = Math.min(lowest[n] ?? 999, y)
      highest[n] = Math.max(highest[n] ?? -1, y)
    }
  }
}
const world = generator.terrain(seed)
let steepest = 0
for (let x = -R * 16; x < R * 16 - 1; x++) {
  for (let z = -R * 16; z < R * 16 - 1; z++) {
    const h = world.height(x, z)
    steepest = Math.max(steepest, Math.abs(h - world.height(x + 1, z)))
    steepest = Math.max(steepest, Math.abs(h - world.height(x, z + 1)))
  }
}
const spawn = world.spawn()
const underSpawn = [[-1, -1], [-1, 0], [0, -1], [0, 0]].map(([dx, dz]) => [
  name(spawn.x + dx, spawn.y - 1, spawn.z + dz), name(spawn.x + dx, spawn.y, spawn.z + dz),
  name(spawn.x + dx, spawn.y + 1, spawn.z + dz)])
const trees = world.treesNear(spawn.x - 30, spawn.z - 30, spawn.x + 30, spawn.z + 30)
  .map(t => ({ ...t, distance: Math.hypot(t.x - spawn.x, t.z - spawn.z) }))
  .sort((p, q) => p.distance - q.distance)
console.log(JSON.stringify({
  same, differs, chunks: order.length, columns, grassColumns, badLayers, notBedrock, dirtDepths,
  counts, lowest, highest, steepest, spawn, underSpawn, nearestTree: trees[0] || null
}))
"""


@pytest.fixture(scope="module")
def terrain() -> dict[str, Any]:
    """What the generator makes of the tests' seed, 128 x 128 blocks around the origin."""
    return dict(run_node(TERRAIN, str(SANDBOX_SEED)))
