"""The survival sandbox's rules as pure functions through node, no server (docs/sandbox.md):
the terrain generator, the loot and recipe rules, every 1.16 window click mode."""

from __future__ import annotations

from typing import Any

import pytest

from tests.js import run_node

pytestmark = pytest.mark.timeout(120)


def test_the_same_seed_generates_the_same_chunks_in_any_order(terrain: dict[str, Any]) -> None:
    assert terrain["same"] is True
    assert terrain["differs"] == terrain["chunks"]  # another seed, another world


def test_grass_lies_on_three_or_four_dirt_over_stone_above_bedrock(
    terrain: dict[str, Any],
) -> None:
    assert terrain["notBedrock"] == 0
    assert terrain["badLayers"] == 0
    assert terrain["grassColumns"] > 0.9 * terrain["columns"]  # ponds and trees aside
    assert set(terrain["dirtDepths"]) == {"3", "4"}
    assert terrain["steepest"] <= 1  # walkable: one block at most between neighbours


def test_ores_and_water_are_where_vanilla_puts_them(terrain: dict[str, Any]) -> None:
    counts, highest = terrain["counts"], terrain["highest"]
    chunks = terrain["chunks"]
    # vanilla 1.16: coal veins of 17 below y 128, iron veins of 9 below y 64
    assert 50 * chunks < counts["coal_ore"] < 400 * chunks
    assert 30 * chunks < counts["iron_ore"] < 250 * chunks
    assert highest["iron_ore"] < 64 + 3 and highest["gold_ore"] < 32 + 3
    assert highest["diamond_ore"] < 16 + 3
    assert counts["coal_ore"] > counts["iron_ore"] > counts["gold_ore"]
    assert counts["water"] > 0
    assert counts["oak_log"] > chunks * 3  # about one tree per chunk


def test_players_spawn_on_dry_grass_near_a_tree(terrain: dict[str, Any]) -> None:
    for below, feet, head in terrain["underSpawn"]:
        assert (below, feet, head) == ("grass_block", "air", "air")
    assert terrain["nearestTree"] is not None
    assert terrain["nearestTree"]["distance"] <= 30


RULES = r"""
const path = require('path')
const EventEmitter = require('events')
const registry = require('prismarine-registry')('1.16.5')
const Block = require('prismarine-block')(registry)
const Item = require('prismarine-item')(registry)
const serv = new EventEmitter()
serv.registry = registry
for (const name of ['drops.js', 'crafting.js']) {
  require(path.join(process.env.SANDBOX, 'plugins', name)).server(serv, {})
}
const block = (name) => Block.fromStateId(registry.blocksByName[name].defaultState, 1)
const item = (name) => (name ? new Item(registry.itemsByName[name].id, 1) : null)
const drops = (b, held) => serv.pepaDropsFor(block(b), item(held))
const tally = (b, held, n) => {
  const out = {}
  for (let i = 0; i < n; i++) {
    for (const [name, count] of drops(b, held)) out[name] = (out[name] || 0) + count
  }
  return out
}
const craft = (rows) => {
  const w = rows[0].length
  const r = serv.pepaCraft(rows.flat().map(item), w)
  return r ? [r.name, r.count] : null
}
const _ = null
const P = 'oak_planks'
const S = 'stick'
console.log(JSON.stringify({
  drops: {
    stoneByHand: drops('stone', null),
    stoneWithWoodenPickaxe: drops('stone', 'wooden_pickaxe'),
    ironOreWithWoodenPickaxe: drops('iron_ore', 'wooden_pickaxe'),
    ironOreWithStonePickaxe: drops('iron_ore', 'stone_pickaxe'),
    coalOre: drops('coal_ore', 'wooden_pickaxe'),
    logByHand: drops('oak_log', null),
    grassBlock: drops('grass_block', null),
    leavesWithShears: drops('oak_leaves', 'shears'),
    leavesByHand: tally('oak_leaves', null, 20000)
  },
  crafts: {
    planksTopLeft: craft([['oak_log', _], [_, _]]),
    planksBottomRight: craft([[_, _], [_, 'oak_log']]),
    planksInTable: craft([[_, _, _], [_, _, _], [_, 'oak_log', _]]),
    table: craft([['oak_planks', 'oak_planks'], ['oak_planks', 'oak_planks']]),
    sticksRightColumn: craft([[_, _, 'oak_planks'], [_, _, 'oak_planks'], [_, _, _]]),
    pickaxe: craft([[P, P, P], [_, S, _], [_, S, _]]),
    pickaxeMissingStick: craft([[P, P, P], [_, S, _], [_, _, _]]),
    axe: craft([[P, P], [P, S], [_, S]]),
    axeMirrored: craft([[P, P], [S, P], [S, _]]),
    torch: craft([['coal'], ['stick']]),
    planksWithExtra: craft([['oak_log', 'stick'], [_, _]]),
    mixedPlanksPickaxe: craft([[P, 'birch_planks', P], [_, S, _], [_, S, _]])
  }
}))
"""


@pytest.fixture(scope="module")
def rules() -> dict[str, Any]:
    return dict(run_node(RULES))


def test_blocks_drop_by_vanilla_harvest_rules(rules: dict[str, Any]) -> None:
    drops = rules["drops"]
    assert drops["stoneByHand"] == []
    assert drops["stoneWithWoodenPickaxe"] == [["cobblestone", 1]]
    assert drops["ironOreWithWoodenPickaxe"] == []
    assert drops["ironOreWithStonePickaxe"] == [["iron_ore", 1]]
    assert drops["coalOre"] == [["coal", 1]]
    assert drops["logByHand"] == [["oak_log", 1]]
    assert drops["grassBlock"] == [["dirt", 1]]
    assert drops["leavesWithShears"] == [["oak_leaves", 1]]


def test_leaves_drop_saplings_sticks_and_apples_at_vanilla_rates(rules: dict[str, Any]) -> None:
    leaves = rules["drops"]["leavesByHand"]  # 20,000 leaves broken by hand
    assert "oak_leaves" not in leaves
    assert 800 < leaves["oak_sapling"] < 1200  # 1 in 20
    assert 400 < leaves["stick"] < 800  # 1 in 50, 1-2 each
    assert 50 < leaves["apple"] < 170  # 1 in 200


def test_recipes_match_at_any_offset_and_mirrored(rules: dict[str, Any]) -> None:
    crafts = rules["crafts"]
    assert crafts["planksTopLeft"] == crafts["planksBottomRight"] == ["oak_planks", 4]
    assert crafts["planksInTable"] == ["oak_planks", 4]
    assert crafts["table"] == ["crafting_table", 1]
    assert crafts["sticksRightColumn"] == ["stick", 4]
    assert crafts["pickaxe"] == ["wooden_pickaxe", 1]
    assert crafts["axe"] == crafts["axeMirrored"] == ["wooden_axe", 1]
    assert crafts["torch"] == ["torch", 4]
    assert crafts["pickaxeMissingStick"] is None
    assert crafts["planksWithExtra"] is None
    # minecraft-data lists one recipe per plank type, not vanilla's #planks tag
    assert crafts["mixedPlanksPickaxe"] is None


CLICKS = r"""
const path = require('path')
const EventEmitter = require('events')
const { Vec3 } = require('vec3')
const registry = require('prismarine-registry')('1.16.5')
const Item = require('prismarine-item')(registry)
const windows = require('prismarine-windows')(registry)
const serv = new EventEmitter()
serv.registry = registry
serv.players = []
serv.spawnObject = () => { throw new Error('nothing should drop here') }
require(path.join(process.env.SANDBOX, 'plugins', 'crafting.js')).server(serv, {})
const player = new EventEmitter()
const packets = []
player._client = new EventEmitter()
player._client.write = (name, data) => packets.push([name, data])
player.inventory = windows.createWindow(1, 'minecraft:inventory', 'inv', 36)
player.inventory.on('updateSlot', (slot, old, item) => {
  // as flying-squid's inventory.js does
  player._client.write('set_slot', { windowId: 0, slot, item: Item.toNotch(item) })
})
player.heldItemSlot = 0
player.position = new Vec3(0, 70, 0)
player.yaw = 0
player.pitch = 0
serv.emit('newPlayer', player)
const put = (slot, name, count) => {
  player.inventory.updateSlot(slot, new Item(registry.itemsByName[name].id, count))
}
let action = 0
const click = (slot, mouseButton, mode) => {
  packets.length = 0
  const packet = { windowId: 0, slot, mouseButton, mode, action: ++action, item: {} }
  player._client.emit('window_click', packet)
  const name = ([n, d]) => {
    if (n === 'transaction') return d.accepted ? 'T+' : 'T-'
    return n === 'set_slot' ? `s${d.slot}` : n
  }
  return packets.map(name).join(' ')
}
const state = () => {
  const out = {}
  player.inventory.slots.forEach((it, i) => { if (it) out[i] = `${it.name}x${it.count}` })
  if (player._pepaCursor) out.cursor = `${player._pepaCursor.name}x${player._pepaCursor.count}`
  return out
}
put(36, 'oak_log', 10)
const steps = {}
steps.pickUp = [click(36, 0, 0), state()]
click(-999, 4, 5); click(1, 5, 5); click(2, 5, 5)
steps.dragOneEach = [click(-999, 6, 5), state()]
click(-999, 0, 5); click(3, 1, 5); click(4, 1, 5)
steps.dragEvenly = [click(-999, 2, 5), state()]
steps.shiftResult = [click(0, 0, 1), state()]
click(3, 0, 0)
steps.doubleClick = [click(3, 0, 6), state()]
click(10, 0, 0)
steps.numberKey = [click(10, 3, 2), state()]
put(20, 'iron_helmet', 1)
steps.shiftArmour = [click(20, 0, 1), state()]
steps.badSlot = [click(99, 0, 0), state()]
put(1, 'oak_planks', 2)
player._client.emit('close_window', { windowId: 0 })
steps.closeReturnsGrid = [state()]
console.log(JSON.stringify(steps))
"""


def test_every_click_mode_moves_items_as_vanilla_and_answers_in_order() -> None:
    steps = run_node(CLICKS)
    # T+ is the accepted transaction, sN a set_slot, s-1 the cursor
    assert steps["pickUp"] == ["T+ s36", {"cursor": "oak_logx10"}]
    assert steps["dragOneEach"][1] == {"1": "oak_logx1", "2": "oak_logx1", "cursor": "oak_logx8"}
    # four logs in the 2x2 grid make wood; the new result goes out before the answer
    order, state = steps["dragEvenly"]
    assert order.split()[0] == "s0" and "T+" in order
    assert state == {
        "0": "oak_woodx3", "1": "oak_logx1", "2": "oak_logx1", "3": "oak_logx4", "4": "oak_logx4"
    }  # fmt: skip
    # shift-click on the result crafts while it can (once here), into the hotbar's end
    assert steps["shiftResult"][1] == {"3": "oak_logx3", "4": "oak_logx3", "44": "oak_woodx3"}
    assert steps["doubleClick"][1] == {"44": "oak_woodx3", "cursor": "oak_logx6"}
    assert steps["numberKey"][1] == {"39": "oak_logx6", "44": "oak_woodx3"}
    assert steps["shiftArmour"][1]["5"] == "iron_helmetx1"
    assert steps["badSlot"][0] == "T- window_items s-1"  # refused, and the window sent again
    assert steps["closeReturnsGrid"][0]["36"] == "oak_planksx2"
    assert "1" not in steps["closeReturnsGrid"][0]
