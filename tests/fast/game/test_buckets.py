"""The bucket's rules (``pepa/game/js/buckets.js``), which the sandbox's server uses on a use and
the bot uses to aim, read through node with no server: the ray's walk through the cells, what an
empty and a full bucket's ray stop at, the look a client sends, what takes a fluid and what
water makes of lava; and that the sandbox crafts a bucket from three iron ingots, a filled one
stacking to 1."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from pepa.game import items
from tests.js import run_node

pytestmark = pytest.mark.timeout(60)

BUCKETS_JS = Path(items.__file__).parent / "js" / "buckets.js"

RULES = r"""
const rules = require(process.argv[1])
const conv = require('mineflayer/lib/conversions')
const walk = (origin, dir, reach) => {
  const cells = []
  rules.cast(origin, dir, reach, (x, y, z) => { cells.push([x, y, z]); return false })
  return cells
}
const at = (x, y, z) => ({ x, y, z })
const cellKey = (x, y, z) => `${x},${y},${z}`
const hit = (origin, dir, stopAt) => rules.cast(origin, dir, 5, (...c) => cellKey(...c) === stopAt)
// a stone floor under y 64 and, on it, a world of `cells` ({"x,y,z": kind}), the rest open
const world = (cells) => (x, y, z) => cells[cellKey(x, y, z)] || (y < 64 ? 'solid' : 'open')
const eyes = at(0.5, 65.62, 0.5)
const toward = (p) => at(p.x - eyes.x, p.y - eyes.y, p.z - eyes.z)
const off = (v, d) => { // the largest difference between v and d's direction
  const n = Math.hypot(d.x, d.y, d.z)
  return Math.max(Math.abs(v.x - d.x / n), Math.abs(v.y - d.y / n), Math.abs(v.z - d.z / n))
}
// mineflayer's look at a point, as it sends it (conversions.js), read as the server reads it
const sent = (p) => {
  const d = toward(p)
  const yaw = Math.atan2(-d.x, -d.z)
  const pitch = Math.atan2(d.y, Math.hypot(d.x, d.z))
  return off(rules.lookVector(conv.toNotchianYaw(yaw), conv.toNotchianPitch(pitch)), d)
}
const back = (p) => {
  const l = rules.lookAt(eyes, p)
  return off(rules.lookVector(l.yaw, l.pitch), toward(p))
}
const scoop = (p, cells) => rules.scoopAt(eyes, toward(p), world(cells))
const pour = (p, cells) => rules.pourAt(eyes, toward(p), world(cells))
const registry = require('prismarine-registry')('1.16.5')
const Item = require('prismarine-item')(registry)
const { crafter } = require(require('path').join(process.env.SANDBOX, 'crafting', 'recipes.js'))
const craft = crafter(registry, Item)
const item = (name) => (name ? new Item(registry.itemsByName[name].id, 1) : null)
const made = (rows) => {
  const r = craft(rows.flat().map(item), rows[0].length)
  return r && [r.name, r.count]
}
const takes = (n) => {
  const b = registry.blocksByName[n]
  return rules.takesFluid(n, b.boundingBox, b.material)
}
const I = 'iron_ingot'
const _ = null
const LOOKED_AT = [at(3.5, 64.5, 0.5), at(-2, 70, 4), at(0.5, 60, 0.6), at(0.5, 64, -3)]
process.stdout.write(JSON.stringify({
  along: walk(at(0.5, 64.5, 0.5), at(1, 0, 0), 3),
  diagonal: walk(at(0.5, 64.5, 0.5), at(1, 0, 1), 1.5),
  down: walk(at(0.5, 65.5, 0.5), at(0, -1, 0), 2),
  start: hit(at(0.5, 64.5, 0.5), at(1, 0, 0), '0,64,0'),
  side: hit(at(0.5, 64.5, 0.5), at(1, 0, 0), '2,64,0'),
  top: hit(at(0.5, 66.5, 0.5), at(0, -1, 0), '0,63,0'),
  beyond: hit(at(0.5, 64.5, 0.5), at(1, 0, 0), '6,64,0'),
  kinds: [['water', 'empty', 0], ['water', 'empty', 3], ['lava', 'empty', 8], ['stone', 'block', 0],
    ['grass', 'empty', 0], [null, null, 0]].map((k) => rules.kindOf(...k)),
  // an empty bucket: the source, through flowing water; a block before it stops the ray
  scoop: scoop(at(3.5, 64.5, 0.5), { '1,64,0': 'flowing', '3,64,0': 'source' }),
  scoopBlocked: scoop(at(3.5, 64.5, 0.5), { '2,64,0': 'solid', '3,64,0': 'source' }),
  scoopFar: scoop(at(6.5, 64.5, 0.5), { '6,64,0': 'source' }),
  scoopUnknown: scoop(at(3.5, 64.5, 0.5), { '2,64,0': 'unknown', '3,64,0': 'source' }),
  // a full bucket: through the lava source to the floor under it, the cell in front of its top
  pourOnLava: pour(at(2.5, 64, 0.5), { '2,64,0': 'source' }),
  pourOnWall: pour(at(3, 64.5, 0.5), { '3,64,0': 'solid' }),
  pourAtSky: rules.pourAt(eyes, at(0, 1, 0), world({})),
  pourFromInside: rules.pourAt(at(0.5, 63.5, 0.5), at(1, 0, 0), world({})),
  takes: ['air', 'water', 'lava', 'fire', 'grass', 'dandelion', 'wheat', 'torch', 'stone',
    'oak_slab'].filter(takes),
  results: [['water', 'lava', 0], ['water', 'lava', 3], ['water', 'lava', 8], ['water', 'fire', 0],
    ['water', 'air', 0], ['lava', 'water', 0]].map((r) => rules.pourResult(...r)),
  lookErrors: LOOKED_AT.map(sent),
  lookAtErrors: LOOKED_AT.map(back),
  looks: [rules.lookVector(0, 0), rules.lookVector(90, 0), rules.lookVector(0, 90)].map(
    (v) => [v.x, v.y, v.z].map((c) => Math.round(c * 1000) / 1000 + 0)),
  bucket: made([[I, _, I], [_, I, _]]),
  bucketInTable: made([[_, _, _], [I, _, I], [_, I, _]]),
  bucketUpsideDown: made([[_, I, _], [I, _, I]]),
  stacks: ['bucket', 'water_bucket', 'lava_bucket'].map((n) => registry.itemsByName[n].stackSize)
}))
"""


@pytest.fixture(scope="module")
def rules() -> dict[str, Any]:
    return dict(run_node(RULES, str(BUCKETS_JS)))


def test_the_ray_walks_every_cell_it_passes_through_in_order(rules: dict[str, Any]) -> None:
    assert rules["along"] == [[0, 64, 0], [1, 64, 0], [2, 64, 0], [3, 64, 0]]
    # along a diagonal it crosses into a side cell before the corner cell, never skipping one
    diagonal = rules["diagonal"]
    assert diagonal[0] == [0, 64, 0] and [1, 64, 1] in diagonal
    assert all(
        sum(abs(a - b) for a, b in zip(p, q, strict=True)) == 1
        for p, q in itertools.pairwise(diagonal)
    )
    assert rules["down"] == [[0, 65, 0], [0, 64, 0], [0, 63, 0]]


def test_a_hit_names_the_face_the_ray_came_in_by(rules: dict[str, Any]) -> None:
    assert rules["start"] == {"x": 0, "y": 64, "z": 0, "face": None, "distance": 0}
    assert rules["side"]["face"] == [-1, 0, 0] and rules["side"]["distance"] == pytest.approx(1.5)
    assert rules["top"]["face"] == [0, 1, 0] and rules["top"]["distance"] == pytest.approx(2.5)
    assert rules["beyond"] is None  # 5.5 blocks: out of reach


def test_blocks_are_sources_flows_solid_or_open(rules: dict[str, Any]) -> None:
    assert rules["kinds"] == ["source", "flowing", "flowing", "solid", "open", "unknown"]


def test_an_empty_bucket_takes_the_first_source_before_any_solid_block(
    rules: dict[str, Any],
) -> None:
    assert rules["scoop"] == {"x": 3, "y": 64, "z": 0}  # through the flowing water
    assert rules["scoopBlocked"] is None
    assert rules["scoopFar"] is None  # its near face 5.6 blocks from the eyes
    assert rules["scoopUnknown"] is None  # a cell not loaded stops it


def test_a_full_bucket_pours_in_front_of_the_first_solid_face(rules: dict[str, Any]) -> None:
    assert rules["pourOnLava"] == {"x": 2, "y": 64, "z": 0}  # through the lava to the floor
    assert rules["pourOnWall"] == {"x": 2, "y": 64, "z": 0}
    assert rules["pourAtSky"] is None
    assert rules["pourFromInside"] is None  # the eyes in a block: no face


def test_air_fluids_fire_and_plants_take_a_fluid_and_water_hardens_lava(
    rules: dict[str, Any],
) -> None:
    assert rules["takes"] == ["air", "water", "lava", "fire", "grass", "dandelion", "wheat"]
    assert rules["results"] == ["obsidian", "cobblestone", "cobblestone", "water", "water", "lava"]


def test_the_server_reads_a_look_as_mineflayer_sends_it(rules: dict[str, Any]) -> None:
    assert rules["looks"] == [[0, 0, 1], [-1, 0, 0], [0, -1, 0]]  # south, west, down
    assert max(rules["lookErrors"]) < 1e-9
    assert max(rules["lookAtErrors"]) < 1e-9


def test_the_sandbox_crafts_a_bucket_that_stacks_to_16_and_filled_to_1(
    rules: dict[str, Any],
) -> None:
    assert rules["bucket"] == rules["bucketInTable"] == ["bucket", 1]
    assert rules["bucketUpsideDown"] is None
    assert rules["stacks"] == [16, 1, 1]
