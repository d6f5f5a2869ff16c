"""Farm animals' rules as pure functions through node, no server (docs/sandbox-life.md,
"Husbandry"): ``life/husbandry.js`` (food, love, age, wool, loot) and the 1.5-block fences and
open gates of ``life/blocks.js``, a mob's body against them (``life/body.js``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.js import run_node

pytestmark = pytest.mark.timeout(60)

RULES = r"""
const path = require('path')
const rules = require(path.join(process.env.SANDBOX, 'life', 'husbandry.js'))
const { seeded } = require(path.join(process.env.SANDBOX, 'life', 'state.js'))
const random = seeded(7)
const int = (n) => Math.floor(random() * n)
const out = {}
const colours = {}
for (let i = 0; i < 100000; i++) {
  const c = rules.randomColour(int)
  colours[c] = (colours[c] || 0) + 1
}
out.colours = colours

const cow = rules.newFarm('cow', int)
out.fed = rules.feed('cow', cow, 'wheat')
out.inLove = cow.love
out.again = rules.feed('cow', cow, 'wheat') // in love already: nothing eaten
out.notFood = rules.feed('cow', rules.newFarm('cow', int), 'carrot')
const parent = rules.newFarm('cow', int)
rules.bred(parent)
out.parent = { age: parent.age, fed: rules.feed('cow', parent, 'wheat') }
const calf = rules.newFarm('cow', int, { baby: true })
out.calfAge = calf.age
out.calfFed = rules.feed('cow', calf, 'wheat')
out.calfAfter = calf.age

// timers: love runs down, a cooldown up to 0, a baby to an adult; scaled
const t = rules.newFarm('pig', int)
rules.feed('pig', t, 'carrot')
for (let i = 0; i < 100; i++) rules.tickTimers(t)
out.loveLeft = t.love
const young = rules.newFarm('pig', int, { baby: true })
for (let i = 0; i < 24; i++) rules.tickTimers(young, 1000)
out.grownScaled = young.age
const cooling = rules.newFarm('pig', int)
rules.bred(cooling)
rules.tickTimers(cooling, 10)
out.cooling = cooling.age
cooling.love = 50
rules.tickTimers(cooling)
out.loveInCooldown = cooling.love

// wool
const sheep = rules.newFarm('sheep', int, { colour: 'black' })
out.byte = rules.sheepByte(sheep)
out.wool = rules.shear('sheep', sheep, int)
out.shearedByte = rules.sheepByte(sheep)
out.twice = rules.shear('sheep', sheep, int)
const LOOT = [['mutton', 1, 2, 'cooked_mutton'], ['white_wool', 1, 1]]
out.shearedLoot = rules.lootOf('sheep', sheep, LOOT)
rules.ate(sheep)
out.regrown = !sheep.sheared
out.blackLoot = rules.lootOf('sheep', sheep, LOOT)
out.lamb = rules.shear('sheep', rules.newFarm('sheep', int, { baby: true }), int)
out.babyLoot = rules.lootOf('cow', rules.newFarm('cow', int, { baby: true }), [['beef', 1, 3]])
const counts = new Set()
for (let i = 0; i < 200; i++) {
  counts.add(rules.shear('sheep', rules.newFarm('sheep', int), int).count)
}
out.counts = [...counts].sort()
out.food = rules.FOOD
out.tempts = ['carrot_on_a_stick', 'carrot', 'wheat'].map(i => rules.tempts('pig', i))
console.log(JSON.stringify(out))
"""


@pytest.fixture(scope="module")
def rules() -> dict[str, Any]:
    return dict(run_node(RULES))


def test_sheep_are_mostly_white_by_vanillas_odds(rules: dict[str, Any]) -> None:
    share = {c: n / 100000 for c, n in rules["colours"].items()}
    assert set(share) == {"white", "black", "gray", "light_gray", "brown", "pink"}
    assert share["white"] == pytest.approx(0.81836, abs=0.01)
    for colour in ("black", "gray", "light_gray"):
        assert share[colour] == pytest.approx(0.05, abs=0.005)
    assert share["brown"] == pytest.approx(0.03, abs=0.004)
    assert 0 < share["pink"] < 0.005


def test_food_puts_a_ready_adult_in_love_once_and_grows_a_baby_by_a_tenth(
    rules: dict[str, Any],
) -> None:
    assert (rules["fed"], rules["inLove"]) == ("love", 600)
    assert rules["again"] is None and rules["notFood"] is None
    assert rules["parent"] == {"age": 6000, "fed": None}  # a cooldown: nothing eaten
    assert (rules["calfAge"], rules["calfFed"]) == (-24000, "grow")
    assert rules["calfAfter"] == -24000 + 120 * 20  # a tenth of its 1200 s


def test_the_timers_run_down_and_run_scaled(rules: dict[str, Any]) -> None:
    assert rules["loveLeft"] == 500
    assert rules["grownScaled"] == 0  # 24000 ticks of growth in 24 at 1000 times
    assert rules["cooling"] == 5990
    assert rules["loveInCooldown"] == 0  # no love while the age is not 0


def test_shears_take_a_sheeps_wool_once_and_grass_grows_it_back(rules: dict[str, Any]) -> None:
    assert rules["byte"] == 15  # black, not sheared
    assert rules["wool"]["item"] == "black_wool" and 1 <= rules["wool"]["count"] <= 3
    assert rules["shearedByte"] == 15 | 0x10
    assert rules["twice"] is None and rules["lamb"] is None
    assert rules["counts"] == [1, 2, 3]
    assert rules["regrown"] is True


def test_a_baby_drops_nothing_and_a_sheared_sheep_no_wool(rules: dict[str, Any]) -> None:
    assert rules["babyLoot"] == []
    assert rules["shearedLoot"] == [["mutton", 1, 2, "cooked_mutton"]]
    assert rules["blackLoot"] == [["mutton", 1, 2, "cooked_mutton"], ["black_wool", 1, 1]]


def test_each_animal_eats_vanillas_food(rules: dict[str, Any]) -> None:
    assert rules["food"] == {
        "cow": ["wheat"],
        "sheep": ["wheat"],
        "pig": ["carrot", "potato", "beetroot"],
        "chicken": ["wheat_seeds", "melon_seeds", "pumpkin_seeds", "beetroot_seeds"],
    }
    assert rules["tempts"] == [True, True, False]  # a carrot on a stick tempts, never feeds


BODIES = r"""
const path = require('path')
const { Vec3 } = require('vec3')
const registry = require('prismarine-registry')('1.16.5')
const Block = require('prismarine-block')(registry)
const blockView = require(path.join(process.env.SANDBOX, 'life', 'blocks.js'))
const { newBody, step, canJumpAhead } = require(path.join(process.env.SANDBOX, 'life', 'body.js'))
const view = blockView(registry)
const state = (name, props) => {
  const b = registry.blocksByName[name]
  return props ? Block.fromProperties(b.id, props, 0).stateId : b.defaultState
}
const gate = (open) => state('oak_fence_gate', { facing: 'east', open, in_wall: false,
  powered: false })
// a world: stone at y 0, `cells` {"x,y,z": stateId} on it, air above
function world (cells) {
  return {
    sync: {
      getColumnAt: () => true,
      getBlockStateId: (p) => cells[p.x + ',' + p.y + ',' + p.z] ?? (p.y <= 0 ? state('stone') : 0)
    }
  }
}
const cow = () => newBody(0.9, 1.4)
// a cow at x = 0.5 walking east for 60 ticks into what is at x = 2 (jumping whenever it may)
function walk (cells) {
  const w = world(cells)
  const body = cow()
  let pos = new Vec3(0.5, 1, 0.5)
  for (let i = 0; i < 80; i++) {
    const jump = body.hitWall && body.onGround && canJumpAhead(view, w, pos, body, 1, 0)
    pos = step(view, w, pos, body, { dx: 1, dz: 0, s: 0.25, jump })
  }
  return { x: pos.x, y: pos.y }
}
const wall = (id) => { const c = {}; for (let z = -3; z <= 3; z++) c['2,1,' + z] = id; return c }
const out = {
  fence: walk(wall(state('oak_fence'))),
  wall: walk(wall(state('cobblestone_wall'))),
  closedGate: walk(wall(gate(false))),
  openGate: walk(wall(gate(true))),
  step: walk(wall(state('stone'))),
  // standing on a fence: 1.5 up; a fence reaches into the cell above it, an open gate nowhere
  onFence: (() => {
    const w = world({ '0,1,0': state('oak_fence') })
    const body = cow(); let pos = new Vec3(0.5, 3, 0.5)
    for (let i = 0; i < 40; i++) pos = step(view, w, pos, body, {})
    return pos.y
  })(),
  fenceReaches: view.collides(world({ '0,1,0': state('oak_fence') }), 0.5, 2.2, 0.5, 0.45, 1.4),
  fenceTop: view.collides(world({ '0,1,0': state('oak_fence') }), 0.5, 2.5, 0.5, 0.45, 1.4),
  openGateSolid: view.solid(world({ '0,1,0': gate(true) }), 0, 1, 0),
  closedGateSolid: view.solid(world({ '0,1,0': gate(false) }), 0, 1, 0)
}
console.log(JSON.stringify(out))
"""


@pytest.fixture(scope="module")
def bodies() -> dict[str, Any]:
    return dict(run_node(BODIES))


def test_a_mob_jumps_a_one_block_step_but_no_fence_wall_or_closed_gate(
    bodies: dict[str, Any],
) -> None:
    assert bodies["step"]["x"] > 3  # up onto the row of stone and down beyond it
    for tall in ("fence", "wall", "closedGate"):
        assert bodies[tall]["x"] < 2 and bodies[tall]["y"] == 1, (tall, bodies[tall])


def test_an_open_gate_lets_a_mob_through_and_a_fence_is_half_a_block_higher(
    bodies: dict[str, Any],
) -> None:
    assert bodies["openGate"]["x"] > 3 and bodies["openGate"]["y"] == 1
    assert bodies["openGateSolid"] is False and bodies["closedGateSolid"] is True
    assert bodies["fenceReaches"] is True and bodies["fenceTop"] is False
    assert bodies["onFence"] == 2.5
