"""The survival sandbox's terrain, crafting and drops (docs/sandbox.md).

The generator, the loot and recipe rules and the window clicks are run as pure
functions through node; everything a player does - crafting in the 2x2 grid and at a table it
placed, digging a log by hand and stone with and without a pickaxe - is done
by a real mineflayer client (tests/js/crafter.js, mineflayer's own ``craft``,
``dig`` and ``placeBlock``) in a real sandbox world.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pepa.ipc.client import IpcClient
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.js import run_node
from tests.world_harness import CRAFTER, SANDBOX_SEED, Crafter, distance, free_spot, teleport

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.fixture
def crafter(sandbox_world: EmbeddedWorld) -> Iterator[Crafter]:
    """A player at the spawn of a quiet sandbox: noon, no mobs (sandbox-life.md has those)."""
    sandbox_world.op("spawning", on=False)
    sandbox_world.op("remove_mobs")
    sandbox_world.op("set_time", time=6000, cycle=False)
    player = Crafter(sandbox_world)
    yield player
    deaths = [e for e in player.events if e["type"] == "death"]
    player.close()
    assert not deaths, f"the player died: {deaths}"


# --- the generator, pure ------------------------------------------------------------

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


# --- the loot and recipe rules, pure -----------------------------------------------------

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


# --- window clicks, pure: a fake player, every 1.16 click mode ----------------------------

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


# --- a real world and a real client -------------------------------------------------------


def test_a_player_spawns_on_the_ground_and_sees_the_generated_tree(
    sandbox_world: EmbeddedWorld, crafter: Crafter, terrain: dict[str, Any]
) -> None:
    spawn = terrain["spawn"]
    assert crafter.spawned_at == spawn
    x, y, z = spawn["x"], spawn["y"], spawn["z"]
    assert crafter.do("block", x=x, y=y - 1, z=z) == "grass_block"
    assert sandbox_world.op("block_at", x=x, y=y - 1, z=z)["name"] == "grass_block"
    tree = terrain["nearestTree"]
    assert sandbox_world.op("block_at", x=tree["x"], y=tree["base"], z=tree["z"])["name"] == (
        "oak_log"
    )
    logs = crafter.do("find", block="oak_log", distance=30, count=1)
    assert logs, "no oak log within 30 blocks of spawn"


def test_planks_are_crafted_from_a_log_in_the_inventory_grid(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="oak_log", count=3)
    crafter.has("oak_log", 3, start=mark)
    crafter.do("craft", item="oak_planks", count=1)
    assert crafter.count("oak_planks") == 4
    assert crafter.count("oak_log") == 2


def test_a_wooden_pickaxe_is_crafted_at_a_crafting_table_the_player_placed(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="oak_log", count=3)
    crafter.has("oak_log", 3, start=mark)
    crafter.do("craft", item="oak_planks", count=3)
    crafter.do("craft", item="crafting_table", count=1)
    crafter.do("craft", item="stick", count=1)
    x, y, z = free_spot(sandbox_world, crafter)
    assert crafter.do("place", item="crafting_table", x=x, y=y - 1, z=z) == "crafting_table"
    assert sandbox_world.op("block_at", x=x, y=y, z=z)["name"] == "crafting_table"
    crafter.do("craft", item="wooden_pickaxe", count=1, table={"x": x, "y": y, "z": z})
    have = {it["name"]: it["count"] for it in crafter.do("inventory")}
    # 12 planks: 4 for the table, 2 for 4 sticks, 3 and 2 sticks for the pickaxe
    assert have == {"wooden_pickaxe": 1, "oak_planks": 3, "stick": 2}


def test_a_shift_click_crafts_all_it_can_and_closing_gives_the_grid_back(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    x, y, z = free_spot(sandbox_world, crafter)
    sandbox_world.op("set_block", x=x, y=y, z=z, block="crafting_table")
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="oak_log", count=3, slot=36)
    crafter.has("oak_log", 3, start=mark)
    window = crafter.do("open", x=x, y=y, z=z)
    assert window["type"] == "minecraft:crafting"
    logs = 37  # hotbar slot 0 in a crafting window
    assert window["slots"][logs] == {"name": "oak_log", "count": 3}
    crafter.do("click", slot=logs)  # pick the logs up
    window = crafter.do("click", slot=5)  # put them in the middle of the grid
    assert window["slots"][0] == {"name": "oak_planks", "count": 4}
    window = crafter.do("click", slot=0, mode=1)  # shift-click the result
    assert window["slots"][0] is None and window["slots"][5] is None
    assert sum(s["count"] for s in window["slots"][10:] if s and s["name"] == "oak_planks") == 12
    # one plank left in the grid comes back when the window closes
    planks = next(i for i, s in enumerate(window["slots"]) if i >= 10 and s)
    crafter.do("click", slot=planks)
    crafter.do("click", slot=1, button=1)
    window = crafter.do("click", slot=planks)
    assert window["slots"][1] == {"name": "oak_planks", "count": 1}
    assert window["slots"][0] == {"name": "oak_button", "count": 1}  # one plank's recipe
    mark = crafter.mark()
    crafter.do("close")
    crafter.has("oak_planks", 12, start=mark)
    again = crafter.do("open", x=x, y=y, z=z)
    assert again["slots"][:10] == [None] * 10
    crafter.do("close")


def test_a_log_dug_by_hand_ends_up_in_the_inventory(
    sandbox_world: EmbeddedWorld, crafter: Crafter, terrain: dict[str, Any]
) -> None:
    tree = terrain["nearestTree"]
    tx, base, tz = tree["x"], tree["base"], tree["z"]
    # stand on the ground beside the trunk (vanilla small oaks: leaves at head height)
    side = next(
        (tx + dx, tz + dz)
        for dx, dz in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if sandbox_world.op("block_at", x=tx + dx, y=base - 1, z=tz + dz)["name"]
        in ("grass_block", "dirt")
        and sandbox_world.op("block_at", x=tx + dx, y=base, z=tz + dz)["name"] == "air"
    )
    teleport(sandbox_world, crafter, side[0] + 0.5, base, side[1] + 0.5)
    mark = crafter.mark()
    assert crafter.do("dig", x=tx, y=base, z=tz) == {"dug": "oak_log", "now": "air"}
    crafter.wait_for(lambda e: e["type"] == "collected" and e["item"] == "oak_log", 10, mark)
    crafter.has("oak_log", 1, start=mark)


def test_stone_drops_cobblestone_only_to_a_pickaxe(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    x, y, z = (math.floor(crafter.spawned_at[k]) for k in ("x", "y", "z"))
    teleport(sandbox_world, crafter, x + 0.5, y, z + 0.5)
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="wooden_pickaxe", count=1, slot=9)  # not in hand
    crafter.has("wooden_pickaxe", 1, start=mark)
    # dig straight down by hand through the grass and the dirt, picking each one up
    level = y - 1
    while (found := crafter.do("block", x=x, y=level, z=z)) != "stone":
        assert found in ("grass_block", "dirt"), found
        mark = crafter.mark()
        crafter.do("dig", x=x, y=level, z=z)
        crafter.wait_for(lambda e: e["type"] == "collected" and e["item"] == "dirt", 10, mark)
        level -= 1
    assert y - 1 - level in (4, 5)  # grass and 3-4 dirt
    # stone by hand: it breaks (slowly), nothing drops
    assert crafter.do("dig", x=x, y=level, z=z, timeout=30) == {"dug": "stone", "now": "air"}
    shaft = (x + 0.5, z + 0.5)
    items = [  # item entities have no health
        e
        for e in sandbox_world.op("entities")
        if "health" not in e and math.dist(shaft, (e["position"]["x"], e["position"]["z"])) < 2
    ]
    assert items == []
    # stone with a wooden pickaxe: cobblestone, and the pickaxe wears by one use
    level -= 1
    assert crafter.do("block", x=x, y=level, z=z) == "stone"
    crafter.do("equip", item="wooden_pickaxe")
    mark = crafter.mark()
    crafter.do("dig", x=x, y=level, z=z)
    crafter.wait_for(lambda e: e["type"] == "collected" and e["item"] == "cobblestone", 10, mark)
    have = {it["name"]: it for it in crafter.do("inventory")}
    assert have["cobblestone"]["count"] == 1  # none from the stone dug by hand
    assert have["wooden_pickaxe"]["durabilityUsed"] == 1


def test_pepa_start_plays_in_the_sandbox_by_default(
    short_tmp: Path, terrain: dict[str, Any]
) -> None:
    daemon = Daemon(short_tmp, "--seed", str(SANDBOX_SEED), sandbox=True)
    try:
        daemon.in_world(90)
        with IpcClient.connect(daemon.socket, timeout=10.0) as client:
            status = client.wait_for(
                lambda e: e["type"] == "status" and bool(e.get("position")), timeout=30
            )
        assert (daemon.state / f"127.0.0.1_{daemon.port}" / "sandbox" / "level.dat").is_file()
    finally:
        daemon.close()
    # the bot stands on the generated terrain's spawn, not on a flat world's y 5
    assert distance(status["position"], terrain["spawn"]) < 2.0, status["position"]
