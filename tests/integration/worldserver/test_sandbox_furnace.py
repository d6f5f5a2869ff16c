"""Furnaces in the survival sandbox (docs/sandbox.md "Smelting").

The fuel and recipe tables and the furnace itself - clicks in its window,
burning, cooking, breaking, a restart - run as pure functions through node
with a stand-in player; a real mineflayer client (tests/js/crafter.js,
mineflayer's own ``openFurnace``) places a furnace, smelts iron and cooks
beef in it, and finds that what is not fuel does not burn, in one real
sandbox world shared by the module.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.js import run_node
from tests.waiting import eventually
from tests.world_harness import SANDBOX_SEED, Crafter, free_spot, teleport

# one worker runs the module, so its tests share one world and one client
pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(90),
    pytest.mark.xdist_group("sandbox_furnace"),
]

NAME = "smelty"

# --- the tables and the furnace, pure ------------------------------------------------------

TABLES = r"""
const path = require('path')
const registry = require('prismarine-registry')('1.16.5')
const { FUEL, SMELTING } = require(path.join(process.env.SANDBOX, 'plugins', 'furnace.js'))
const names = [...Object.keys(FUEL), ...Object.keys(SMELTING), ...Object.values(SMELTING)]
const unknown = names.filter(n => !registry.itemsByName[n])
console.log(JSON.stringify({ FUEL, SMELTING, unknown }))
"""


def test_fuel_and_recipes_are_vanilla_and_known_to_minecraft_data() -> None:
    tables = run_node(TABLES)
    assert tables["unknown"] == []
    fuel, smelting = tables["FUEL"], tables["SMELTING"]
    # vanilla 1.16.5 AbstractFurnaceTileEntity.getBurnTimes()
    assert fuel["coal"] == fuel["charcoal"] == 1600
    assert fuel["oak_planks"] == fuel["birch_log"] == fuel["stripped_oak_wood"] == 300
    assert fuel["stick"] == 100 and fuel["wooden_pickaxe"] == 200 and fuel["oak_slab"] == 150
    assert fuel["lava_bucket"] == 20000 and fuel["coal_block"] == 16000
    assert fuel["blaze_rod"] == 2400 and fuel["white_carpet"] == 67
    assert "crimson_planks" not in fuel and "warped_stem" not in fuel  # they do not burn
    for raw, cooked in {
        "iron_ore": "iron_ingot",
        "gold_ore": "gold_ingot",
        "sand": "glass",
        "beef": "cooked_beef",
        "porkchop": "cooked_porkchop",
        "chicken": "cooked_chicken",
        "mutton": "cooked_mutton",
        "rabbit": "cooked_rabbit",
        "cod": "cooked_cod",
        "salmon": "cooked_salmon",
        "potato": "baked_potato",
        "cobblestone": "stone",
        "oak_log": "charcoal",
        "spruce_wood": "charcoal",
        "clay_ball": "brick",
        "cactus": "green_dye",
    }.items():
        assert smelting[raw] == cooked
    assert "dirt" not in smelting and "dirt" not in fuel


FURNACE = r"""
const path = require('path')
const EventEmitter = require('events')
const { Vec3 } = require('vec3')
const registry = require('prismarine-registry')('1.16.5')
const Item = require('prismarine-item')(registry)
const Block = require('prismarine-block')(registry)
const windows = require('prismarine-windows')(registry)
const interactions = {}
const dropped = []
const blocks = new Map() // 'x,y,z' -> Block
const at = (p) => `${p.x},${p.y},${p.z}`
const world = { getBlock: async (p) => blocks.get(at(p)) || Block.fromStateId(0, 0) }
// a server with the crafting and furnace plugins, its world folder the first argument
const makeServer = () => {
  const serv = new EventEmitter()
  serv.registry = registry
  serv.players = []
  serv.pepaOps = {}
  serv.err = (message) => { throw new Error(message) }
  serv.onBlockInteraction = (name, fn) => { interactions[name] = fn }
  serv.spawnObject = (type, w, p, o) => dropped.push(names([new Item(o.itemId, o.itemCount)])[0])
  serv.overworld = world
  serv.setBlock = async (w, p, stateId) => { blocks.set(at(p), Block.fromStateId(stateId, 0)) }
  for (const name of ['crafting.js', 'furnace.js']) {
    const plugin = require(path.join(process.env.SANDBOX, 'plugins', name))
    plugin.server(serv, { worldFolder: process.argv[1] })
  }
  serv.emit('asap')
  serv.emit('pluginsReady')
  return serv
}
const serv = makeServer()
const player = new EventEmitter()
const packets = []
player._client = new EventEmitter()
player._client.write = (name, data) => packets.push([name, data])
player.inventory = windows.createWindow(1, 'minecraft:inventory', 'inv', 36)
player.inventory.on('updateSlot', (slot, old, item) => {
  player._client.write('set_slot', { windowId: 0, slot, item: Item.toNotch(item) })
})
Object.assign(player, { heldItemSlot: 0, position: new Vec3(0, 70, 0), world, yaw: 0, pitch: 0 })
player.health = 20
serv.players.push(player)
serv.emit('newPlayer', player)

const item = (name, count) => new Item(registry.itemsByName[name].id, count)
const give = (slot, name, count) => player.inventory.updateSlot(slot, item(name, count))
const names = (slots) => slots.map(it => (it ? `${it.name}x${it.count}` : null))
const ticks = (n) => { for (let i = 0; i < n; i++) serv.emit('tick') }
const settle = () => new Promise(resolve => setTimeout(resolve, 10))
let action = 0
let windowId = 0
const click = (slot, mouseButton = 0, mode = 0) => {
  packets.length = 0
  const packet = { windowId, slot, mouseButton, mode, action: ++action, item: {} }
  player._client.emit('window_click', packet)
  return packets.map(([n, d]) => (n === 'transaction' ? (d.accepted ? 'T+' : 'T-') : n)).join(' ')
}
const open = async (p) => {
  await serv.setBlock(world, p, registry.blocksByName.furnace.defaultState)
  packets.length = 0
  interactions.furnace({ block: { position: p }, player })
  windowId = packets.find(([n]) => n === 'open_window')[1].windowId
  return packets.filter(([n]) => n === 'open_window' || n === 'craft_progress_bar')
    .map(([n, d]) => (n === 'open_window' ? d.inventoryType : [d.property, d.value]))
}
const furnace = async (p) => {
  const f = await serv.pepaOps.furnace(p)
  return f && { ...f, slots: names(f.slots) }
}
const props = () => {
  const last = {}
  for (const [n, d] of packets) if (n === 'craft_progress_bar') last[d.property] = d.value
  return last
}
const cursor = () => names([player._pepaCursor])[0]

;(async () => {
  const out = {}
  const a = new Vec3(1, 70, 1)
  const b = new Vec3(3, 70, 1)
  const hotbar = [['coal', 3], ['iron_ore', 2], ['dirt', 1], ['bucket', 2], ['oak_log', 2],
    ['beef', 1], ['lava_bucket', 1], ['coal', 1]]
  hotbar.forEach(([name, count], i) => give(36 + i, name, count))
  // window slots: 0 input, 1 fuel, 2 output, 3-29 main, 30-38 hotbar (hotbar i = 30 + i)
  out.opened = await open(a)
  out.shiftCoal = click(30, 0, 1)
  click(31, 0, 1) // iron ore
  click(34, 0, 1) // logs smelt (charcoal): the input is taken, so they stay
  click(32, 0, 1) // dirt is neither: hotbar -> main
  const inv = player.inventory.slots
  out.afterShift = [names(player._pepaTable.box.read()), names(inv.slice(36, 41)), names([inv[9]])]
  packets.length = 0
  ticks(1)
  await settle()
  out.firstTick = await furnace(a)
  ticks(199)
  out.oneSmelted = await furnace(a)
  out.properties = props()
  out.takeOutput = [click(2), cursor()]
  click(10) // put the ingot into the main inventory
  player._client.emit('close_window', { windowId })
  ticks(200) // nobody looks: the second ore smelts
  out.unwatched = await furnace(a)
  ticks(1401) // the coal burns out; with no input the rest is not lit
  await settle()
  out.burntOut = await furnace(a)

  out.openB = await open(b)
  click(3) // dirt on the cursor
  out.dirtAsFuel = [click(1), cursor()]
  click(32) // into hotbar slot 2
  click(1, 2, 2) // number key 3 over the fuel slot: a swap with the dirt, refused
  out.dirtSwappedIn = (await furnace(b)).slots[1]
  click(32); click(0) // dirt into the input: it does not smelt, so the coal is not lit
  click(37, 0, 1)
  ticks(20)
  out.dirtDoesNotSmelt = await furnace(b)
  click(0, 0, 1); click(1, 0, 1) // both back into the inventory
  click(33) // two buckets
  out.bucketAsFuel = [click(1), cursor()]
  click(33)
  click(35, 0, 1) // beef into the input
  ticks(50)
  out.bucketDoesNotBurn = await furnace(b)
  click(1, 0, 1) // the bucket back into the inventory
  click(36, 0, 1) // the lava bucket is fuel
  ticks(200)
  await settle()
  out.lava = await furnace(b)
  out.dropsBefore = dropped.length
  await serv.setBlock(world, b, 0) // broken
  ticks(20)
  await settle()
  out.broken = [await furnace(b), dropped.sort(), player._pepaTable]
  // a restart: what was saved when the server stopped comes back
  await open(a)
  click(2, 0, 1) // the ingot out: a change since the last save
  serv.emit('close')
  const again = makeServer()
  const restored = await again.pepaOps.furnace(a)
  out.restarted = [await furnace(a), restored && { ...restored, slots: names(restored.slots) }]
  console.log(JSON.stringify(out))
})().catch((err) => { console.error(err); process.exit(1) })
"""


@pytest.fixture(scope="module")
def furnace_run() -> Iterator[dict[str, Any]]:
    """One stand-in player's session with two furnaces, then a restart."""
    folder = Path(tempfile.mkdtemp(prefix="pepa-furnace-", dir="/tmp"))
    try:
        yield dict(run_node(FURNACE, str(folder)))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_window_is_a_furnace_with_its_properties(furnace_run: dict[str, Any]) -> None:
    # 1.16.5 menu 13 (minecraft:furnace); properties 0-3 sent at once, as vanilla
    assert furnace_run["opened"] == [13, [0, 0], [1, 0], [2, 0], [3, 0]]


def test_a_shift_click_sends_fuel_to_the_fuel_slot_and_ore_to_the_input(
    furnace_run: dict[str, Any],
) -> None:
    furnace, hotbar, main = furnace_run["afterShift"]
    assert furnace == ["iron_orex2", "coalx3", None]
    # logs smelt, so they go for the (taken) input and stay; dirt goes hotbar -> main
    assert hotbar == [None, None, None, "bucketx2", "oak_logx2"]
    assert main == ["dirtx1"]


def test_coal_burns_1600_ticks_and_iron_ore_cooks_in_200(furnace_run: dict[str, Any]) -> None:
    first = furnace_run["firstTick"]  # the fuel is lit because the input can smelt
    assert first["slots"] == ["iron_orex2", "coalx2", None]
    assert (first["burn"], first["burnTotal"], first["cook"], first["cookTotal"]) == (
        1600, 1600, 1, 200
    )  # fmt: skip
    assert first["lit"] is True
    done = furnace_run["oneSmelted"]  # after 200 ticks
    assert done["slots"] == ["iron_orex1", "coalx2", "iron_ingotx1"]
    assert (done["burn"], done["cook"]) == (1401, 0)
    assert furnace_run["properties"] == {"0": 1401, "1": 1600, "2": 0, "3": 200}
    order, cursor = furnace_run["takeOutput"]
    assert order.startswith("T+") and cursor == "iron_ingotx1"


def test_a_furnace_keeps_smelting_unwatched_and_lights_fuel_only_for_work(
    furnace_run: dict[str, Any],
) -> None:
    unwatched = furnace_run["unwatched"]
    assert unwatched["viewers"] == 0
    assert unwatched["slots"] == [None, "coalx2", "iron_ingotx1"]
    out = furnace_run["burntOut"]  # the coal burnt out; nothing left to smelt: no more coal lit
    assert (out["burn"], out["lit"], out["slots"][1]) == (0, False, "coalx2")


def test_what_is_not_fuel_stays_out_of_the_fuel_slot_or_does_not_burn(
    furnace_run: dict[str, Any],
) -> None:
    order, cursor = furnace_run["dirtAsFuel"]
    assert cursor == "dirtx1" and order.startswith("T+ window_items")  # refused, window resent
    assert furnace_run["dirtSwappedIn"] is None
    idle = furnace_run["dirtDoesNotSmelt"]  # fuel is lit only for something that smelts
    assert idle["slots"] == ["dirtx1", "coalx1", None]
    assert (idle["burn"], idle["lit"]) == (0, False)
    assert furnace_run["bucketAsFuel"][1] == "bucketx1"  # one of two: a bucket slot holds one
    idle = furnace_run["bucketDoesNotBurn"]
    assert idle["slots"] == ["beefx1", "bucketx1", None]
    assert (idle["burn"], idle["cook"], idle["lit"]) == (0, 0, False)
    lava = furnace_run["lava"]  # lava burns 20000 ticks and leaves its bucket
    assert lava["slots"] == [None, "bucketx1", "cooked_beefx1"]
    assert (lava["burn"], lava["burnTotal"]) == (19801, 20000)


def test_a_broken_furnace_drops_its_contents_and_closes(furnace_run: dict[str, Any]) -> None:
    state, dropped, window = furnace_run["broken"]
    assert state is None and window is None
    assert dropped == ["bucketx1", "cooked_beefx1"]


def test_furnaces_come_back_after_a_restart(furnace_run: dict[str, Any]) -> None:
    before, after = furnace_run["restarted"]
    assert before["slots"] == [None, "coalx2", None]
    assert after == {**before, "viewers": 0}


# --- a real world and a real client -------------------------------------------------------


SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, no mobs."""


@pytest.fixture(scope="module")
def smelter(sandbox: EmbeddedWorld) -> Iterator[Crafter]:
    player = Crafter(sandbox, NAME)
    yield player
    deaths = [e for e in player.events if e["type"] == "death"]
    player.close()
    assert not deaths, f"the player died: {deaths}"


@pytest.fixture
def scale(sandbox: EmbeddedWorld) -> Iterator[None]:
    """Furnaces back at vanilla speed after each test."""
    yield
    sandbox.op("furnace_scale", factor=1)


def give(sandbox: EmbeddedWorld, player: Crafter, items: dict[str, int]) -> None:
    """Put ``items`` into the player's inventory and wait until its client knows."""
    sandbox.op("clear_inventory", player=NAME)
    for item, count in items.items():
        mark = player.mark()
        sandbox.op("give", player=NAME, item=item, count=count)
        player.has(item, count, start=mark)


def furnace(sandbox: EmbeddedWorld, spot: tuple[int, int, int]) -> dict[str, Any]:
    x, y, z = spot
    return dict(sandbox.op("furnace", x=x, y=y, z=z))


def test_a_placed_furnace_smelts_iron_ore_with_coal(
    sandbox: EmbeddedWorld, smelter: Crafter, scale: None
) -> None:
    give(sandbox, smelter, {"furnace": 1, "coal": 1, "iron_ore": 1})
    x, y, z = free_spot(sandbox, smelter)
    assert smelter.do("place", item="furnace", x=x, y=y - 1, z=z) == "furnace"
    window = smelter.do("furnace", x=x, y=y, z=z)
    assert window["type"] == "minecraft:furnace"
    smelter.do("fuel", item="coal")
    smelter.do("input", item="iron_ore")
    # vanilla speed: 200 ticks, 10 s
    state = smelter.do("smelted", item="iron_ingot", timeout=40)
    assert state["totalFuel"] == 1600 and state["totalProgress"] == 200
    assert 0 < state["fuel"] < 1
    assert furnace(sandbox, (x, y, z))["lit"] is True
    mark = smelter.mark()
    assert smelter.do("output") == {"name": "iron_ingot", "count": 1}
    smelter.has("iron_ingot", 1, start=mark)
    smelter.do("close")
    assert sandbox.op("inventory", player=NAME) == {"iron_ingot": 1}
    assert furnace(sandbox, (x, y, z))["slots"] == [None, None, None]


def test_planks_cook_beef(sandbox: EmbeddedWorld, smelter: Crafter, scale: None) -> None:
    give(sandbox, smelter, {"oak_planks": 1, "beef": 1})
    x, y, z = free_spot(sandbox, smelter)
    sandbox.op("set_block", x=x, y=y, z=z, block="furnace")
    sandbox.op("furnace_scale", factor=10)  # 20 ticks a second is vanilla; one test waits that
    smelter.do("furnace", x=x, y=y, z=z)
    smelter.do("input", item="beef")
    smelter.do("fuel", item="oak_planks")
    state = smelter.do("smelted", item="cooked_beef", timeout=30)
    assert state["totalFuel"] == 300
    mark = smelter.mark()
    smelter.do("output")
    smelter.has("cooked_beef", 1, start=mark)
    smelter.do("close")
    assert sandbox.op("inventory", player=NAME) == {"cooked_beef": 1}


def test_what_is_not_fuel_does_not_burn_and_a_broken_furnace_spills(
    sandbox: EmbeddedWorld, smelter: Crafter, scale: None
) -> None:
    give(sandbox, smelter, {"iron_ore": 1, "dirt": 1, "bucket": 1, "wooden_pickaxe": 1})
    x, y, z = free_spot(sandbox, smelter)
    sandbox.op("set_block", x=x, y=y, z=z, block="furnace")
    window = smelter.do("furnace", x=x, y=y, z=z)
    smelter.do("input", item="iron_ore")
    dirt = next(i for i, s in enumerate(window["slots"]) if s and s["name"] == "dirt")
    smelter.do("click", slot=dirt)  # the dirt on the cursor
    smelter.do("click", slot=1)  # refused by the fuel slot
    assert furnace(sandbox, (x, y, z))["slots"][1] is None
    window = smelter.do("click", slot=dirt)  # still on the cursor: back where it was
    assert window["slots"][dirt] == {"name": "dirt", "count": 1}
    assert window["slots"][1] is None and window["cursor"] is None
    # a bucket goes into the fuel slot (vanilla keeps it for a wet sponge) but does not burn
    smelter.do("fuel", item="bucket")
    sandbox.op("furnace_scale", factor=10)
    start = sandbox.op("ping")["tick"]
    eventually(lambda: sandbox.op("ping")["tick"] >= start + 20, 20, "20 server ticks")
    state = furnace(sandbox, (x, y, z))  # 200 furnace ticks: ore would have been an ingot
    assert state["slots"] == [
        {"name": "iron_ore", "count": 1},
        {"name": "bucket", "count": 1},
        None,
    ]
    assert (state["burn"], state["cook"], state["lit"]) == (0, 0, False)
    smelter.do("close")
    # broken, the furnace drops what it holds, and itself to a pickaxe
    smelter.do("equip", item="wooden_pickaxe")
    mark = smelter.mark()
    assert smelter.do("dig", x=x, y=y, z=z) == {"dug": "furnace", "now": "air"}
    # flying-squid picks items up within 1.75 blocks of the feet (vanilla: a block around the body)
    teleport(sandbox, smelter, x + 0.5, y, z + 0.5)
    for item in ("iron_ore", "bucket", "furnace"):
        smelter.has(item, 1, start=mark)
    assert sandbox.op("furnace", x=x, y=y, z=z) is None
    spawn = smelter.spawned_at
    teleport(sandbox, smelter, spawn["x"], spawn["y"], spawn["z"])


def test_a_furnace_keeps_its_contents_when_the_server_restarts() -> None:
    folder = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))

    def make() -> EmbeddedWorld:
        return EmbeddedWorld(
            folder / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED
        )

    try:
        first = make().start()
        try:
            keeper = Crafter(first, "keeper")
            mark = keeper.mark()
            first.op("give", player="keeper", item="beef", count=2)
            keeper.has("beef", 2, start=mark)
            x, y, z = free_spot(first, keeper)
            first.op("set_block", x=x, y=y, z=z, block="furnace")
            keeper.do("furnace", x=x, y=y, z=z)
            keeper.do("input", item="beef", count=2)
            keeper.do("close")
            keeper.close()
            before = first.op("furnace", x=x, y=y, z=z)
        finally:
            first.stop()  # SIGTERM, as `pepa` stops its world
        second = make().start()
        try:
            assert second.op("furnace", x=x, y=y, z=z) == before
            assert before["slots"][0] == {"name": "beef", "count": 2}
        finally:
            second.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
