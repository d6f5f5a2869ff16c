"""The survival sandbox's light model and what hangs on it (docs/sandbox-life.md).

The model (``sandbox/life/light.js``) is pure: it is run through node on a
fake block source — sky light in the open, under a roof and leaves, down a
cave; a torch's light falling by one a block and stopped by a wall; caches
kept true by block changes. Then in a real sandbox with a real mineflayer
client (``tests/js/operator.js``), one world and one player for the module,
on a 105 x 105 stone platform high above the terrain (no other ground within
the 32 blocks up or down that spawning looks): torches stop hostile spawning
at night where they light, a sealed dark room lets zombies spawn in it at
noon, and zombies burn at noon in the open but not under a roof or leaves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.js import run_node
from tests.waiting import eventually
from tests.world_harness import Player, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(90),
    pytest.mark.xdist_group("sandbox_light"),  # one world for the module, on one worker
]

NAME = "alice"
FLOOR = 150
"""The platform's stone layer; mobs and alice stand at FLOOR + 1."""
HALF = 52
"""The platform reaches HALF blocks each way from alice: spawns come 24..48 (+ scatter) away."""
TORCH_ROWS = (6, 18, 30, 42, 52)
"""x offsets of the torch rows lighting the east half: no spot is more than 6 from a torch."""

LIGHT_JS = r"""
const path = require('path')
const registry = require('minecraft-data')('1.16.5')
const lightModel = require(path.join(process.env.SANDBOX, 'life', 'light.js'))
const S = (n) => registry.blocksByName[n].defaultState
// a fake world: stone below y 64, air above, and whatever the scenario sets
const blocks = new Map()
const key = (x, y, z) => `${x},${y},${z}`
const source = {
  state: (x, y, z) => blocks.get(key(x, y, z)) ?? (y < 64 ? S('stone') : 0)
}
const light = lightModel(registry, source)
function set (x, y, z, name) {
  const old = source.state(x, y, z)
  blocks.set(key(x, y, z), S(name))
  light.changed(x, y, z, old, S(name))
}
const out = {}
out.open = [light.skyLight(0, 64, 0), light.blockLight(0, 64, 0), light.canSeeSky(0, 64, 0)]
// a 7x7 stone roof 4 blocks up: under its middle, 4 blocks from open sky
for (let x = 20; x <= 26; x++) for (let z = 0; z <= 6; z++) set(x, 68, z, 'stone')
out.roof = [light.skyLight(23, 64, 3), light.canSeeSky(23, 64, 3)]
set(23, 68, 3, 'air') // a hole in it
out.holed = [light.skyLight(23, 64, 3), light.canSeeSky(23, 64, 3)]
// one leaf block and a 2-deep pool: each dims the sky by 1
set(40, 66, 0, 'oak_leaves')
out.leaves = [light.skyLight(40, 66, 0), light.skyLight(40, 65, 0), light.canSeeSky(40, 65, 0)]
set(50, 63, 0, 'water'); set(50, 62, 0, 'water')
out.pool = [light.skyLight(50, 63, 0), light.skyLight(50, 62, 0)]
// a cave: a shaft down to y 60 at x 0, a tunnel east from it, a room sealed off
for (let y = 60; y < 64; y++) set(0, y, 10, 'air')
for (let x = 1; x <= 12; x++) set(x, 60, 10, 'air')
out.cave = [0, 1, 2, 3, 12].map(x => light.skyLight(x, 60, 10))
for (let x = 0; x <= 2; x++) for (let z = 30; z <= 32; z++) set(x, 40, z, 'air')
out.room = [light.skyLight(1, 40, 31), light.blockLight(1, 40, 31)]
// a torch in the tunnel, then a wall across it
set(4, 60, 10, 'torch')
out.torch = [4, 5, 6, 7, 8, 9].map(x => light.blockLight(x, 60, 10))
set(6, 60, 10, 'stone')
out.walled = [4, 5, 6, 7, 8].map(x => light.blockLight(x, 60, 10))
set(4, 60, 10, 'air')
out.unlit = light.blockLight(5, 60, 10)
// an opaque emitter lights its neighbours; a furnace only when lit
set(1, 41, 31, 'glowstone')
out.glowstone = light.blockLight(1, 40, 31)
const furnace = registry.blocksByName.furnace
const states = []
for (let id = furnace.minStateId; id <= furnace.maxStateId; id++) states.push(light.emit[id])
out.furnace = [light.emit[furnace.defaultState], Math.max(...states)]
console.log(JSON.stringify(out))
"""


@pytest.fixture(scope="module")
def model() -> dict[str, Any]:
    """The pure light model's answers on the fake world of LIGHT_JS."""
    return dict(run_node(LIGHT_JS))


def test_sky_light_is_15_in_the_open_and_spreads_under_a_roof(model: dict[str, Any]) -> None:
    assert model["open"] == [15, 0, True]
    # under the middle of a 7x7 roof the nearest open column is 4 blocks away
    assert model["roof"] == [11, False]
    assert model["holed"] == [15, True]


def test_leaves_and_water_dim_the_sky_by_one_a_block(model: dict[str, Any]) -> None:
    # the leaf block, the air under it (14 from its open neighbours too): no sky seen
    assert model["leaves"] == [14, 14, False]
    assert model["pool"] == [14, 13]


def test_a_cave_darkens_away_from_its_mouth_and_a_closed_room_is_dark(
    model: dict[str, Any],
) -> None:
    # the shaft's bottom sees the sky; 3 blocks into the tunnel: 12; 12 blocks in: 3
    assert model["cave"] == [15, 14, 13, 12, 3]
    assert model["room"] == [0, 0]


def test_torch_light_falls_by_one_a_block_and_a_wall_stops_it(model: dict[str, Any]) -> None:
    assert model["torch"] == [14, 13, 12, 11, 10, 9]
    assert model["walled"] == [14, 13, 0, 0, 0]
    assert model["unlit"] == 0
    assert model["glowstone"] == 14
    assert model["furnace"] == [0, 13]  # vanilla: a furnace gives light 13 only while lit


# --- in a real sandbox ---------------------------------------------------------------


ROOM = (-HALF, -2)
"""x range of a sealed stone room over the west half of the platform (walls included)."""


@pytest.fixture(scope="module")
def world(sandbox: EmbeddedWorld) -> EmbeddedWorld:
    """The module's sandbox with its platform, room and pillar built before anyone joins.

    A block change is a packet to every player: 17 000 of them would keep a
    joined client busy long enough on a loaded machine to drop it.
    """
    west, east = ROOM
    for x1, y1, z1, x2, y2, z2 in [
        (-HALF, FLOOR, -HALF, HALF, FLOOR, HALF),  # the platform
        (west, FLOOR + 4, -HALF, east, FLOOR + 4, HALF),  # the room's roof, 3 blocks up
        (east, FLOOR + 1, -HALF, east, FLOOR + 3, HALF),  # and its four walls
        (west, FLOOR + 1, -HALF, west, FLOOR + 3, HALF),
        (west, FLOOR + 1, -HALF, east, FLOOR + 3, -HALF),
        (west, FLOOR + 1, HALF, east, FLOOR + 3, HALF),
        (0, FLOOR + 1, 0, 0, FLOOR + 3, 0),  # alice's pillar: zombies cannot climb it
    ]:
        sandbox.op("fill", x1=x1, y1=y1, z1=z1, x2=x2, y2=y2, z2=z2)
    return sandbox


@pytest.fixture(scope="module")
def alice(world: EmbeddedWorld) -> Iterator[Player]:
    """Alice on top of her pillar amid the platform, at (0, FLOOR + 4, 0)."""
    player = Player(world, NAME)
    try:
        teleport(world, player, 0.5, FLOOR + 4, 0.5)
        yield player
    finally:
        player.close()


@pytest.fixture
def quiet(world: EmbeddedWorld, alice: Player) -> Iterator[None]:
    """No mobs, spawning off before and after the test."""
    no_mobs(world)
    yield
    no_mobs(world)


def no_mobs(world: EmbeddedWorld) -> None:
    """Spawning off and every mob gone (mobs.js forgets a removed mob on its next tick)."""
    world.op("spawning", on=False)
    world.op("remove_mobs")
    eventually(lambda: not world.op("life_mobs"), 10, "the removed mobs to be forgotten")


def light_at(world: EmbeddedWorld, x: int, z: int) -> dict[str, Any]:
    return dict(world.op("light_at", x=x, y=FLOOR + 1, z=z))


class Spawns:
    """Natural zombies by where they were first seen (polled every 0.1 s: they moved little)."""

    def __init__(self, world: EmbeddedWorld) -> None:
        self.world = world
        self.first: dict[int, dict[str, float]] = {}

    def poll(self) -> list[dict[str, float]]:
        for mob in self.world.op("life_mobs", name="zombie"):
            if mob["natural"]:
                self.first.setdefault(mob["id"], mob["position"])
        return list(self.first.values())

    def where(self, test: Any) -> list[dict[str, float]]:
        return [p for p in self.poll() if test(p["x"])]


def test_torches_stop_hostile_spawning_where_they_light_at_night(
    world: EmbeddedWorld, quiet: None
) -> None:
    world.op("set_time", time=18000, cycle=False)  # midnight: the open sky gives 15 - 11 = 4
    # in the open at midnight: P(15 <= random(32)) x P(4 <= random(8))
    assert light_at(world, 12, 30)["monsterChance"] == pytest.approx(17 / 32 * 4 / 8)
    for dx in TORCH_ROWS:  # the east half, x >= 0, gets block light >= 8
        world.op("fill", x1=dx, y1=FLOOR + 1, z1=-HALF, x2=dx, y2=FLOOR + 1, z2=HALF, block="torch")
    assert light_at(world, 12, 30)["block"] == 8
    assert light_at(world, 12, 30)["monsterChance"] == 0
    world.op("spawning", on=True, kinds=["zombie"], cap=200)
    spawns = Spawns(world)
    eventually(lambda: len(spawns.where(lambda x: x < 0)) >= 8, 40, "zombies in the dark half")
    # a spot lit to 8 or more never passes light <= random(8); 3 blocks' margin for a stroll
    assert not spawns.where(lambda x: x >= 3), spawns.first

    # the torches out: the east half spawns like the west
    for dx in TORCH_ROWS:
        world.op("fill", x1=dx, y1=FLOOR + 1, z1=-HALF, x2=dx, y2=FLOOR + 1, z2=HALF, block="air")
    assert light_at(world, 12, 30)["block"] == 0
    no_mobs(world)
    world.op("spawning", on=True)
    unlit = Spawns(world)
    eventually(lambda: unlit.where(lambda x: x >= 3), 40, "a zombie where the torches were")


def test_a_sealed_dark_room_lets_zombies_spawn_at_noon(world: EmbeddedWorld, quiet: None) -> None:
    east = ROOM[1]
    world.op("set_time", time=6000, cycle=False)  # noon
    inside = light_at(world, -20, 0)
    assert (inside["sky"], inside["block"], inside["monsterChance"]) == (0, 0, 1)
    outside = light_at(world, 20, 0)
    assert (outside["sky"], outside["canSeeSky"], outside["monsterChance"]) == (15, True, 0)
    world.op("spawning", on=True, kinds=["zombie"], cap=200)
    spawns = Spawns(world)
    eventually(lambda: len(spawns.where(lambda x: x < east)) >= 4, 40, "zombies in the room")
    assert not spawns.where(lambda x: x > east), spawns.first  # none in the sun
    # nor on the roof: they all stand on the floor, in the dark, and do not burn
    zombies = world.op("life_mobs", name="zombie")
    assert len(zombies) >= 4, zombies  # the ones counted in the room, fetched again
    assert all(z["position"]["y"] < FLOOR + 4 and not z["onFire"] for z in zombies), zombies


def test_zombies_burn_at_noon_in_the_open_but_not_under_a_roof_or_leaves(
    world: EmbeddedWorld, quiet: None
) -> None:
    world.op("set_time", time=6000, cycle=False)
    # a zombie's eyes are in the block above its feet; the shade is the one above that
    world.op("set_block", x=10, y=FLOOR + 3, z=0, block="stone")
    world.op("set_block", x=14, y=FLOOR + 3, z=0, block="oak_leaves")
    shaded = [dict(world.op("light_at", x=dx, y=FLOOR + 2, z=0)) for dx in (10, 14)]
    assert [(s["sky"], s["canSeeSky"]) for s in shaded] == [(14, False), (14, False)]
    ids = [
        world.op("spawn_mob", player=NAME, name="zombie", dx=dx, dy=-3, ai=False)["ids"][0]
        for dx in (8, 10, 14)
    ]
    open_, roofed, leafy = ids

    def mob(i: int) -> dict[str, Any]:
        return dict(world.op("life_mob", mob=i))

    # fire does 1 a second: two seconds of burning, and the shaded ones had as long
    eventually(lambda: mob(open_)["health"] <= 18, 30, "the zombie in the open to burn")
    for shaded_id in (roofed, leafy):
        state = mob(shaded_id)
        assert (state["onFire"], state["health"]) == (False, 20), state
    world.op("set_block", x=10, y=FLOOR + 3, z=0, block="air")  # the roof off
    eventually(lambda: mob(roofed)["onFire"], 30, "the unroofed zombie to catch fire")
    world.op("set_block", x=14, y=FLOOR + 3, z=0, block="air")
