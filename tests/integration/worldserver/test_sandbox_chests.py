"""Chests in the survival sandbox (docs/sandbox.md "Chests").

The window's rules, two viewers, a blocked lid, spilling and saving run through node with
stand-in players; then, on the real server with the bot's own JS module
(tests/js/helper_bot.js), a chest keeping what the bot stored over closing and opening, dropping
it when broken, and keeping it across a server restart. Each test stands the helper on a stone
floor of its own high in the sky.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld, free_port
from tests import stages
from tests.js import run_node
from tests.waiting import eventually
from tests.world_harness import SANDBOX_SEED, HelperBot, give, server_player

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("sandbox_chests"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""
HELPER = "stasher"
SKY = 160


def stage(world: EmbeddedWorld, helper: HelperBot, n: int) -> tuple[int, int]:
    """A stone floor at SKY - 1 round (x, z), the place of test ``n``, its air cleared above, the
    bot standing at its middle and seeing it."""
    x, z = 40 * n - 200, -300
    stages.floor(world, helper, x, z, sky=SKY)
    return x, z


def dropped(world: EmbeddedWorld, x: float, z: float) -> dict[str, int]:
    """The items lying on the ground within 3 blocks of (x, z), by name."""
    items: dict[str, int] = {}
    for e in world.op("entities"):
        p = e["position"]
        if "item" in e and abs(p["x"] - x) <= 3 and abs(p["z"] - z) <= 3:
            items[e["item"]] = items.get(e["item"], 0) + e["count"]
    return items


def held(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=HELPER))


# --- the plugin through node, with stand-in players -----------------------------------------------

CHESTS = r"""
const path = require('path')
const EventEmitter = require('events')
const { Vec3 } = require('vec3')
const registry = require('prismarine-registry')('1.16.5')
const Item = require('prismarine-item')(registry)
const Block = require('prismarine-block')(registry)
const windows = require('prismarine-windows')(registry)
const interactions = {}
const dropped = []
const blocks = new Map() // 'x,y,z' -> state id
const at = (p) => `${p.x},${p.y},${p.z}`
const world = {
  getBlock: async (p) => {
    const b = Block.fromStateId(blocks.get(at(p)) || 0, 0)
    b.position = p
    return b
  }
}
const names = (slots) => slots.map(it => (it ? `${it.name}x${it.count}` : null))
// a server with the crafting and chests plugins, its world folder the first argument
const makeServer = () => {
  const serv = new EventEmitter()
  serv.registry = registry
  serv.players = []
  serv.pepaOps = {}
  serv.err = (message) => { throw new Error(message) }
  serv.onBlockInteraction = (name, fn) => { interactions[name] = fn }
  serv.spawnObject = (type, w, p, o) => dropped.push(names([new Item(o.itemId, o.itemCount)])[0])
  serv.setBlockAction = async () => {}
  serv.playSound = () => {}
  serv.overworld = world
  serv.setBlock = async (w, p, stateId) => { blocks.set(at(p), stateId) }
  for (const name of ['crafting.js', 'chests.js']) {
    const plugin = require(path.join(process.env.SANDBOX, 'plugins', name))
    plugin.server(serv, { worldFolder: process.argv[1] })
  }
  serv.emit('asap')
  serv.emit('pluginsReady')
  return serv
}
const serv = makeServer()
function makePlayer () {
  const player = new EventEmitter()
  player.packets = []
  player._client = new EventEmitter()
  player._client.write = (name, data) => player.packets.push([name, data])
  player.inventory = windows.createWindow(1, 'minecraft:inventory', 'inv', 36)
  player.inventory.on('updateSlot', (slot, old, item) => {
    player._client.write('set_slot', { windowId: 0, slot, item: Item.toNotch(item) })
  })
  Object.assign(player, { heldItemSlot: 0, position: new Vec3(0, 70, 0), world, yaw: 0, pitch: 0 })
  player.health = 20
  serv.players.push(player)
  serv.emit('newPlayer', player)
  return player
}
const a = makePlayer()
const b = makePlayer()
const item = (name, count) => new Item(registry.itemsByName[name].id, count)
let action = 0
const click = (p, slot, mouseButton = 0, mode = 0) => {
  const windowId = p._pepaTable.id
  p._client.emit('window_click', { windowId, slot, mouseButton, mode, action: ++action, item: {} })
}
const open = async (p, pos) => {
  p.packets.length = 0
  const consumed = await interactions.chest({ block: await world.getBlock(pos), player: p })
  const opened = p.packets.find(([n]) => n === 'open_window')
  const items = p.packets.find(([n]) => n === 'window_items')
  if (!opened) return { consumed, window: null }
  const { inventoryType, windowTitle } = opened[1]
  return { consumed, window: [inventoryType, JSON.parse(windowTitle), items[1].items.length] }
}
const close = (p) => p._client.emit('close_window', { windowId: p._pepaTable.id })
const chest = (pos) => serv.pepaOps.chest(pos)
const settle = () => new Promise(resolve => setTimeout(resolve, 10))

;(async () => {
  const out = {}
  const c1 = new Vec3(1, 70, 1)
  const c2 = new Vec3(3, 70, 1)
  const c3 = new Vec3(5, 70, 1)
  for (const c of [c1, c2, c3]) blocks.set(at(c), registry.blocksByName.chest.defaultState)
  out.none = await chest(new Vec3(7, 70, 1))
  out.unopened = await chest(c1)
  a.inventory.updateSlot(36, item('dirt', 64))
  a.inventory.updateSlot(37, item('cobblestone', 10))
  a.inventory.updateSlot(9, item('cobblestone', 60))
  // window slots: the chest 0-26, main 27-53, hotbar 54-62 (hotbar i = 54 + i)
  out.opened = await open(a, c1)
  click(a, 54, 0, 1) // dirt: into the chest from its start
  click(a, 55, 0, 1) // 10 cobblestone
  click(a, 27, 0, 1) // 60 cobblestone: tops the 10 up to 64, then a new stack of 6
  out.afterIn = names(a._pepaTable.box.read()).slice(0, 3)
  out.bOpens = await open(b, c1)
  b.packets.length = 0
  click(a, 0, 0, 1) // the dirt back: into the inventory from its end (the hotbar's last slot)
  out.afterOut = [names(a._pepaTable.box.read()).slice(0, 3), names([a.inventory.slots[44]])[0]]
  out.bTold = b.packets.filter(([n]) => n === 'set_slot').map(([, d]) => [d.slot, d.item.present])
  close(a)
  close(b)
  out.reopened = (await open(a, c1)).window
  out.kept = names(a._pepaTable.box.read()).slice(0, 3)
  out.contents = await chest(c1)
  click(a, 1) // 64 cobblestone on the cursor
  click(a, 5) // put down in slot 5: any slot takes anything
  close(a)
  // a whole opaque block above keeps the lid shut (and the click places nothing); glass does not
  blocks.set(at(c2.offset(0, 1, 0)), registry.blocksByName.stone.defaultState)
  out.underStone = await open(a, c2)
  blocks.set(at(c2.offset(0, 1, 0)), registry.blocksByName.glass.defaultState)
  out.underGlass = (await open(a, c2)).window
  close(a)
  // sneaking with an item in hand places it instead
  a.heldItemSlot = 8 // the dirt taken back
  a.crouching = true
  out.sneaking = await open(a, c2)
  a.crouching = false
  // broken: the contents spill and the window closes
  await open(a, c1)
  dropped.length = 0
  blocks.set(at(c1), 0)
  for (let i = 0; i < 20; i++) serv.emit('tick')
  await settle()
  out.broken = [await chest(c1), dropped.sort(), a._pepaTable]
  // saved when the server stops; read again at the start
  a.inventory.updateSlot(38, item('oak_log', 5))
  await open(a, c3)
  click(a, 56, 0, 1)
  close(a)
  serv.emit('close')
  const again = makeServer()
  out.restarted = [await again.pepaOps.chest(c3), await again.pepaOps.chest(c1)]
  console.log(JSON.stringify(out))
})().catch((err) => { console.error(err); process.exit(1) })
"""


@pytest.fixture(scope="module")
def chest_run() -> dict[str, Any]:
    """Two stand-in players' session with three chests, then a restart."""
    folder = Path(tempfile.mkdtemp(prefix="pepa-chests-", dir="/tmp"))
    try:
        return dict(run_node(CHESTS, str(folder)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_chest_opens_a_generic_9x3_window_and_keeps_its_contents(
    chest_run: dict[str, Any],
) -> None:
    # 1.16.5 menu 2 (minecraft:generic_9x3): 27 slots and the player's 36
    assert chest_run["opened"] == {
        "consumed": True,
        "window": [2, {"translate": "container.chest"}, 63],
    }
    assert chest_run["none"] is None and chest_run["unopened"] == {}
    assert chest_run["reopened"] == [2, {"translate": "container.chest"}, 63]
    assert chest_run["kept"] == [None, "cobblestonex64", "cobblestonex6"]
    assert chest_run["contents"] == {"cobblestone": 70}


def test_a_shift_click_moves_stacks_as_vanillas_chest_container(
    chest_run: dict[str, Any],
) -> None:
    # into the chest from its first slot, topping a matching stack up first
    assert chest_run["afterIn"] == ["dirtx64", "cobblestonex64", "cobblestonex6"]
    # out of the chest into the inventory from its end: the hotbar's last slot
    chest, hotbar_end = chest_run["afterOut"]
    assert chest == [None, "cobblestonex64", "cobblestonex6"] and hotbar_end == "dirtx64"


def test_every_viewer_of_a_chest_sees_its_changes(chest_run: dict[str, Any]) -> None:
    assert chest_run["bOpens"]["window"] == [2, {"translate": "container.chest"}, 63]
    assert [0, False] in chest_run["bTold"]  # the other viewer told the slot emptied


def test_a_chest_under_a_solid_block_does_not_open_and_places_nothing(
    chest_run: dict[str, Any],
) -> None:
    assert chest_run["underStone"] == {"consumed": True, "window": None}
    assert chest_run["underGlass"] == [2, {"translate": "container.chest"}, 63]
    assert chest_run["sneaking"] == {"consumed": False, "window": None}


def test_a_broken_chest_spills_its_contents_and_closes(chest_run: dict[str, Any]) -> None:
    state, spilt, window = chest_run["broken"]
    assert state is None and window is None
    assert sum(int(s.split("x")[1]) for s in spilt if s.startswith("cobblestone")) == 70


def test_chests_come_back_after_a_restart(chest_run: dict[str, Any]) -> None:
    assert chest_run["restarted"] == [{"oak_log": 5}, None]


# --- a real world and the bot ---------------------------------------------------------------------


def test_a_chest_keeps_what_the_player_put_in_over_closing_and_opening(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 0)
    sandbox.op("set_block", x=x + 2, y=SKY, z=z, block="chest")
    give(sandbox, helper, {"dirt": 20, "oak_log": 3})
    helper.sees([(x + 2, SKY, z)], "chest")

    stored = helper.act("store", x=x + 2, y=SKY, z=z)  # mineflayer's openContainer, deposit, close
    looked = helper.act("look_in", x=x + 2, y=SKY, z=z)  # opened again: containerItems

    assert stored["ok"] and looked["ok"], (stored, looked)
    assert looked["contents"] == {"dirt": 20, "oak_log": 3}
    assert sandbox.op("chest", x=x + 2, y=SKY, z=z) == {"dirt": 20, "oak_log": 3}
    assert held(sandbox) == {}


def test_a_broken_chest_drops_what_it_held_and_itself(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    x, z = stage(sandbox, helper, 1)
    # 4 blocks off: out of the 1.75 blocks within which the player would pick the drops up
    sandbox.op("set_block", x=x, y=SKY, z=z - 4, block="chest")
    give(sandbox, helper, {"cobblestone": 40, "bread": 2, "wooden_axe": 1})
    helper.sees([(x, SKY, z - 4)], "chest")
    assert helper.act("store", x=x, y=SKY, z=z - 4, keep={"wooden_axe": 1})["ok"]

    helper.dig(x, SKY, z - 4, "wooden_axe")

    expected = {"cobblestone": 40, "bread": 2, "chest": 1}
    eventually(lambda: dropped(sandbox, x, z - 4) == expected, 10, f"{expected} on the ground")
    assert sandbox.op("chest", x=x, y=SKY, z=z - 4) is None


def test_a_chest_keeps_its_contents_when_the_server_restarts() -> None:
    folder = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))

    def make() -> EmbeddedWorld:
        return EmbeddedWorld(
            folder / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED
        )

    try:
        first = make().start()
        try:
            keeper = HelperBot(first, "keeper")
            try:
                spot = server_player(first, "keeper")
                assert spot is not None
                x, y, z = (int(spot["position"][k] // 1) for k in "xyz")
                first.op("set_block", x=x + 2, y=y, z=z, block="chest")
                first.op("give", player="keeper", item="iron_ingot", count=7)
                keeper.sees([(x + 2, y, z)], "chest")
                eventually(lambda: keeper.snapshot()["inventory"]["counts"], 10, "the ingots held")
                done = keeper.act("store", x=x + 2, y=y, z=z)
                assert done["ok"], done
            finally:
                keeper.close()
        finally:
            first.stop()  # SIGTERM, as `pepa` stops its world
        second = make().start()
        try:
            assert second.op("chest", x=x + 2, y=y, z=z) == {"iron_ingot": 7}
        finally:
            second.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
