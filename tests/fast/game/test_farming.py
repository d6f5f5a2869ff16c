"""Farming's rules (``pepa/game/js/farming.js``), which the sandbox's server grows crops by and the
bot tills and plants by, read through node with no server: vanilla 1.16.5's growth chance (the
farmland under and round a crop, the row and diagonal rules) and its odds, hydration's reach,
a crop's loot at each age, the random tick's wait, trampling; every name known to minecraft-data,
bread and hay bales crafted by the sandbox's recipes; and the ``farm.tend`` skill's precondition
and the action it starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import skills
from pepa.game import items
from pepa.testing import FakeLink
from pepa.world.view import Inventory, WorldView
from tests.js import run_node

pytestmark = pytest.mark.timeout(60)

FARMING_JS = Path(items.__file__).parent / "js" / "farming.js"

RULES = r"""
const rules = require(process.argv[1])
const registry = require('prismarine-registry')('1.16.5')
const Item = require('prismarine-item')(registry)
const { crafter } = require(require('path').join(process.env.SANDBOX, 'crafting', 'recipes.js'))
const craft = crafter(registry, Item)
const item = (name) => (name ? new Item(registry.itemsByName[name].id, 1) : null)
const made = (rows) => {
  const r = craft(rows.flat().map(item), rows[0].length)
  return r && [r.name, r.count]
}
// a world of cells {"x,y,z": name or [name, moisture]}, the rest air
const world = (cells) => (x, y, z) => {
  const c = cells[`${x},${y},${z}`]
  if (c === undefined) return { name: 'air', moisture: 0 }
  return Array.isArray(c) ? { name: c[0], moisture: c[1] } : { name: c, moisture: 0 }
}
// the crop at (0, 1, 0) over farmland of moisture m in the 3 x 3 under it (m null: none round it)
const bed = (m, round, crops) => {
  const cells = { '0,0,0': ['farmland', m] }
  for (let dx = -1; dx <= 1; dx++) {
    for (let dz = -1; dz <= 1; dz++) {
      if ((dx || dz) && round !== null) cells[`${dx},0,${dz}`] = ['farmland', round]
    }
  }
  for (const [dx, dz, name] of crops || []) cells[`${dx},1,${dz}`] = name
  return world(cells)
}
const chance = (read, name = 'wheat') => rules.growthChance(name, 0, 1, 0, read)
let random = 0x2545f491 // a seeded generator for the draws
const rand = () => {
  random = (random * 1103515245 + 12345) % 2147483648
  return random / 2147483648
}
const loot = (name, age, n) => {
  const totals = {}
  const counts = {}
  for (let i = 0; i < n; i++) {
    for (const [it, c] of rules.cropLoot(name, age, rand)) {
      totals[it] = (totals[it] || 0) + c
      counts[`${it}:${c}`] = (counts[`${it}:${c}`] || 0) + 1
    }
  }
  return { totals, counts }
}
const waits = Array.from({ length: 20000 }, () => rules.ticksToRandomTick(rand))
const isWater = (cells) => (x, y, z) => cells.includes(`${x},${y},${z}`)
const W = 'wheat'
process.stdout.write(JSON.stringify({
  lone: chance(bed(7, null)),
  loneDry: chance(bed(0, null)),
  moistBed: chance(bed(7, 7)),
  dryBed: chance(bed(0, 0)),
  row: chance(bed(7, 7, [[-1, 0, W], [1, 0, W]])),
  rowAndColumn: chance(bed(7, 7, [[-1, 0, W], [0, 1, W]])),
  diagonal: chance(bed(7, 7, [[1, 1, W]])),
  otherCrop: chance(bed(7, 7, [[-1, 0, 'carrots'], [0, 1, 'carrots'], [1, 1, 'carrots']])),
  bounds: [4, 2, 10, 5, 0.5].map(rules.growthBound),
  hydrated: [['4,0,4'], ['5,0,0'], ['0,1,-4'], ['0,2,0'], ['0,-1,0'], []]
    .map(c => rules.hydrated(0, 0, 0, isWater(c))),
  ripeWheat: loot('wheat', 7, 20000),
  youngWheat: loot('wheat', 3, 1000),
  ripeCarrots: loot('carrots', 7, 20000),
  ripePotatoes: loot('potatoes', 7, 20000),
  ripeBeetroots: loot('beetroots', 3, 2000),
  youngBeetroots: loot('beetroots', 2, 100),
  meanWait: waits.reduce((a, b) => a + b, 0) / waits.length,
  shortestWait: Math.min(...waits),
  tramples: [[1.25, 0.7, true, false, 0.6, 1.8], [1.25, 0.8, true, false, 0.6, 1.8],
    [0.4, 0, true, false, 0.6, 1.8], [3, 0.9, false, false, 0.6, 1.95],
    [3, 0.9, false, true, 0.6, 1.95], [3, 0.1, false, true, 0.4, 0.7]]
    .map(([d, roll, player, mobGriefing, width, height]) =>
      rules.tramples(d, roll, { player, mobGriefing, width, height })),
  unknown: [...Object.keys(rules.TILLS), ...Object.values(rules.TILLS), ...Object.keys(rules.CROPS)]
    .filter(n => !registry.blocksByName[n])
    .concat([...Object.keys(rules.PLANTS), ...Object.values(rules.CROPS).map(c => c.produce)]
      .filter(n => n && !registry.itemsByName[n])),
  crops: Object.fromEntries(Object.keys(rules.CROPS)
    .map(n => [n, registry.blocksByName[n].states[0].num_values - 1])),
  bread: made([[W, W, W]]),
  bale: made([[W, W, W], [W, W, W], [W, W, W]]),
  unbaled: made([['hay_block']])
}))
"""


@pytest.fixture(scope="module")
def rules() -> dict[str, Any]:
    return dict(run_node(RULES, str(FARMING_JS)))


def test_growth_chance_counts_the_farmland_under_and_round_a_crop(rules: dict[str, Any]) -> None:
    # vanilla CropsBlock.getGrowthChance: 1, plus 3 (moist) or 1 (dry) under, a quarter round
    assert rules["lone"] == 4 and rules["loneDry"] == 2
    assert rules["moistBed"] == 10 and rules["dryBed"] == 4


def test_the_same_crop_on_a_row_and_a_column_or_a_diagonal_halves_it(
    rules: dict[str, Any],
) -> None:
    assert rules["row"] == 10  # a row alone: no halving
    assert rules["rowAndColumn"] == 5
    assert rules["diagonal"] == 5
    assert rules["otherCrop"] == 10  # carrots beside wheat do not count


def test_a_random_tick_grows_a_crop_one_time_in_floor_25_over_f_plus_one(
    rules: dict[str, Any],
) -> None:
    assert rules["bounds"] == [7, 13, 3, 6, 51]


def test_farmland_is_hydrated_by_water_4_across_at_its_level_or_one_above(
    rules: dict[str, Any],
) -> None:
    assert rules["hydrated"] == [True, False, True, False, False, False]


def test_ripe_wheat_drops_one_wheat_and_one_plus_binomial_3_four_sevenths_seeds(
    rules: dict[str, Any],
) -> None:
    ripe = rules["ripeWheat"]
    assert ripe["totals"]["wheat"] == 20000
    seeds = {
        int(k.split(":")[1]): n for k, n in ripe["counts"].items() if k.startswith("wheat_seeds")
    }
    assert set(seeds) == {1, 2, 3, 4}
    assert ripe["totals"]["wheat_seeds"] / 20000 == pytest.approx(1 + 3 * 0.5714286, abs=0.03)
    assert seeds[4] / 20000 == pytest.approx(0.5714286**3, abs=0.01)
    assert rules["youngWheat"]["counts"] == {"wheat_seeds:1": 1000}


def test_ripe_carrots_potatoes_and_beetroots_drop_their_vanilla_loot(
    rules: dict[str, Any],
) -> None:
    carrots = rules["ripeCarrots"]["totals"]
    assert carrots == {"carrot": pytest.approx(20000 * (2 + 3 * 0.5714286), rel=0.02)}
    potatoes = rules["ripePotatoes"]["totals"]
    assert potatoes["poisonous_potato"] / 20000 == pytest.approx(0.02, abs=0.005)
    beetroots = rules["ripeBeetroots"]["totals"]
    assert beetroots["beetroot"] == 2000
    assert rules["youngBeetroots"]["counts"] == {"beetroot_seeds:1": 100}


def test_a_block_waits_4096_over_3_game_ticks_for_its_random_tick_on_average(
    rules: dict[str, Any],
) -> None:
    assert rules["meanWait"] == pytest.approx(4096 / 3, rel=0.03)
    assert rules["shortestWait"] >= 1


def test_a_fall_tramples_farmland_when_a_roll_is_under_its_distance_less_a_half(
    rules: dict[str, Any],
) -> None:
    # a jump's 1.25: 3 in 4; a step down of 0.4: never; a mob only with mob griefing on, and
    # only one big enough (a zombie, not a chicken)
    assert rules["tramples"] == [True, False, False, False, True, False]


def test_every_name_is_minecraft_datas_and_the_crops_ripe_ages_its_last(
    rules: dict[str, Any],
) -> None:
    assert rules["unknown"] == []
    assert rules["crops"] == {"wheat": 7, "carrots": 7, "potatoes": 7, "beetroots": 3}


def test_the_sandbox_crafts_bread_and_hay_bales_from_wheat(rules: dict[str, Any]) -> None:
    assert rules["bread"] == ["bread", 1]
    assert rules["bale"] == ["hay_block", 1]
    assert rules["unbaled"] == ["wheat", 9]


# -- the farm.tend skill ---------------------------------------------------------------------


def view(**items_held: int) -> WorldView:
    return WorldView(connected=True, alive=True, inventory=Inventory(items=items_held))


def test_tending_a_field_needs_its_place_and_gets_a_hoe_and_seeds_first() -> None:
    tend = skills.get("farm.tend")
    assert tend.check(view(wooden_hoe=1, wheat_seeds=3), {}) == "no field given: x and z"
    assert tend.check(view(), {"x": 4, "z": -7}) is None
    link = FakeLink()
    hoe = tend.run(link, {"x": 4, "z": -7}, view(oak_planks=4, stick=2, crafting_table=1))
    assert hoe.step and link.last().name == "craft" and link.last().args["item"] == "wooden_hoe"
    seeds = tend.run(link, {"x": 4, "z": -7}, view(iron_hoe=1))
    assert seeds.step and link.last().name == "gather"
    assert link.last().args["drops"] == ["wheat_seeds"]
    # a field planted, its seeds all in it, and wheat from it held: tended, no seeds gathered
    for held in ({"iron_hoe": 1, "wheat": 2}, {"iron_hoe": 1, "wheat_seeds": 1}):
        tended = tend.run(link, {"x": 4, "z": -7}, view(**held))
        assert not tended.step and link.last().name == "farm"


def test_tending_a_field_runs_the_farm_action_there() -> None:
    link = FakeLink()
    started = skills.get("farm.tend").run(
        link, {"x": 4.0, "z": -7}, view(stone_hoe=1, wheat_seeds=2)
    )

    assert started.ok and started.action_id is not None
    call = link.last("farm")
    assert call.args == {"x": 4, "z": -7, "size": 5, "seeds": "wheat_seeds"}
