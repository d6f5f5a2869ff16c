"""The vanilla world's census (``pepa/worldserver/js/vanilla/census.js``): ores, caves, ravines,
lakes, springs, dungeons, biomes and cliffs over many chunks of one seed, each within bounds of
vanilla 1.16.5's figures (``docs/world-vanilla.md`` says where each bound comes from). Every
check is a function returning what is wrong, so each test also shows that, with its mechanic
left out of the generator, the same check finds it wrong."""

from __future__ import annotations

import contextlib
import functools
import subprocess
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from pepa.base.node import node_binary, node_modules
from pepa.worldserver.process import SERVER_JS, EmbeddedWorld
from tests.js import run_node
from tests.waiting import eventually
from tests.world_harness import Player, free_port, teleport

pytestmark = [pytest.mark.integration]

SEED = 20261207
CHUNKS = 64
CENSUS = SERVER_JS / "vanilla" / "census.js"
# vanilla 1.16.5 OreFeature placements: the highest y a vein's centre reaches (its blocks may
# spread 2 above it) and per-chunk bounds round the expected count of blocks in stone
ORE_BOUNDS = {
    "coal_ore": (127, 100.0, 230.0),
    "iron_ore": (63, 50.0, 130.0),
    "gold_ore": (31, 4.0, 16.0),
    "redstone_ore": (15, 14.0, 45.0),
    "diamond_ore": (15, 2.0, 6.0),  # the wiki: 3.7 a chunk on average
    "lapis_ore": (31, 1.0, 6.0),
}


@functools.cache
def census(off: tuple[str, ...] = ()) -> dict[str, Any]:
    """The census of :data:`CHUNKS` chunks of :data:`SEED`, with the mechanics ``off`` left out."""
    result = subprocess.run(
        [str(node_binary()), str(CENSUS), "--seed", str(SEED), "--chunks", str(CHUNKS),
         "--off", ",".join(off)],
        capture_output=True, text=True, timeout=120, check=False,
        env={"NODE_PATH": str(node_modules()), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = orjson.loads(result.stdout)
    return report


@contextlib.contextmanager
def vanilla_world(tmp_path_factory: Any, name: str) -> Iterator[tuple[EmbeddedWorld, Player]]:
    """A vanilla world of :data:`SEED` in a folder of its own, and alice in it."""
    world = EmbeddedWorld(
        tmp_path_factory.mktemp(name) / "world", port=free_port(), control=True,
        sandbox=True, seed=SEED, profile="vanilla",
    ).start()  # fmt: skip
    try:
        alice = Player(world, "alice")
        try:
            yield world, alice
        finally:
            alice.close()
    finally:
        world.stop()


def ore_faults(c: dict[str, Any]) -> list[str]:
    faults = []
    for name, (top, low, high) in ORE_BOUNDS.items():
        ore = c["ores"][name]
        if not low <= ore["perChunk"] <= high:
            faults.append(f"{name}: {ore['perChunk']:.1f} a chunk, not in {low}..{high}")
        if ore["highest"] > top + 2:
            faults.append(f"{name}: found at y {ore['highest']}, above {top} + 2")
    emerald = c["ores"]["emerald_ore"]  # single blocks at y 4..31, in mountain chunks only
    if not 0 < emerald["chunksWith"] <= c["mountainChunks"] or emerald["highest"] > 31:
        faults.append(f"emerald_ore: {emerald}, {c['mountainChunks']} mountain chunks")
    return faults


def cave_faults(c: dict[str, Any]) -> list[str]:
    share = {band["from"]: band["share"] for band in c["caveAir"]}
    deep = sum(share[y] for y in range(8, 40, 8)) / 4  # the carvers' heights favour the deep
    above = sum(v for y, v in share.items() if y >= 72)
    below = sum(v for y, v in share.items() if y < 72)
    faults = []
    if not 0.01 <= deep <= 0.12:
        faults.append(f"cave air y 8..39: {deep:.4f} of the blocks, not 0.01..0.12")
    if below == 0 or above / below > 0.05:
        faults.append(f"cave air above y 72 is {above:.4f} against {below:.4f} below")
    if c["lavaBelow11PerChunk"] < 10:
        faults.append(f"lava below y 11: {c['lavaBelow11PerChunk']:.1f} a chunk")
    return faults


def lake_faults(c: dict[str, Any]) -> list[str]:
    lakes, springs = c["lakesPerChunk"], c["springsPerChunk"]
    faults = []
    if not 0.02 <= lakes["water"] <= 0.25:  # tried in one chunk in 4, some refused
        faults.append(f"water lakes: {lakes['water']:.3f} a chunk, not 0.02..0.25")
    if not 0.005 <= lakes["lava"] <= 0.125:  # tried in one chunk in 8, some refused
        faults.append(f"lava lakes: {lakes['lava']:.3f} a chunk, not 0.005..0.125")
    if lakes["lavaUnderground"] == 0:
        faults.append("no lava lake underground")
    if not springs["water"] > springs["lava"] > 0:  # 50 water tries a chunk, 20 lava
        faults.append(f"springs: {springs}")
    return faults


def land_faults(c: dict[str, Any]) -> list[str]:
    shares = c["biomeShares"]
    faults = []
    ocean = shares.get("ocean", 0) + shares.get("deep_ocean", 0)
    if not 0.15 <= ocean <= 0.45:
        faults.append(f"ocean: {ocean:.3f} of the land, not 0.15..0.45")
    mountains = shares.get("mountains", 0) + shares.get("wooded_mountains", 0)
    if not 0.05 <= mountains <= 0.25:
        faults.append(f"mountains: {mountains:.3f}, not 0.05..0.25")
    for name in ("plains", "forest", "birch_forest", "desert", "swamp", "river", "beach"):
        if shares.get(name, 0) < 0.02:
            faults.append(f"{name}: {shares.get(name, 0):.3f}, under 0.02")
    if c["deadlyDropShare"] < 0.003:  # cliffs: a fall that kills beside some mountain columns
        faults.append(f"drops of 23+: beside {c['deadlyDropShare']:.4f} of mountain columns")
    return faults


@pytest.mark.timeout(300)
def test_ores_lie_at_vanillas_heights_in_vanillas_numbers() -> None:
    assert ore_faults(census()) == []
    assert ore_faults(census(("ores",)))


@pytest.mark.timeout(300)
def test_caves_and_ravines_carve_the_deep_and_lava_fills_below_eleven() -> None:
    assert cave_faults(census()) == []
    assert cave_faults(census(("caves", "ravines")))
    # ravines alone carve less than caves and ravines together, and more than nothing
    ravines = sum(b["share"] for b in census(("caves",))["caveAir"])
    both = sum(b["share"] for b in census()["caveAir"])
    assert 0 < ravines < both


@pytest.mark.timeout(300)
def test_lakes_of_water_and_lava_and_springs_in_cave_walls() -> None:
    assert lake_faults(census()) == []
    assert lake_faults(census(("lakes",)))
    assert lake_faults(census(("springs",)))


@pytest.mark.timeout(300)
def test_biomes_share_the_land_and_mountains_have_cliffs_that_kill() -> None:
    assert land_faults(census()) == []
    assert land_faults(census(("cliffs",)))


@pytest.mark.timeout(300)
def test_dungeons_hold_a_spawner_of_vanillas_mobs() -> None:
    c = census()
    assert c["dungeonsPerChunk"] > 0
    assert set(c["dungeonMobs"]) <= {"zombie", "skeleton", "spider"}
    assert census(("dungeons",))["dungeonsPerChunk"] == 0


@pytest.mark.timeout(300)
def test_mineshafts_hold_cobwebs_and_cave_spider_spawners() -> None:
    c = census()
    assert c["cobwebsPerChunk"] > 0.2
    assert c["caveSpiderSpawnersPerChunk"] > 0
    off = census(("mineshafts",))
    assert (off["cobwebsPerChunk"], off["caveSpiderSpawnersPerChunk"]) == (0, 0)


@pytest.mark.timeout(120)
def test_a_player_lands_on_grass_at_the_vanilla_worlds_spawn(tmp_path_factory: Any) -> None:
    with vanilla_world(tmp_path_factory, "vanilla") as (world, _alice):
        spawn = census()["spawn"]
        (seen,) = [p for p in world.op("players") if p["username"] == "alice"]
        at = seen["position"]
        assert (at["x"], at["y"], at["z"]) == (spawn["x"], spawn["y"], spawn["z"])
        below = world.op("block_at", x=spawn["x"], y=spawn["y"] - 1, z=spawn["z"])
        assert below["name"] == "grass_block"
        assert world.op("life_stats")["difficulty"] == 2  # normal, vanilla's new worlds
        record = orjson.loads((world.world_dir / "pepa_profile.json").read_bytes())
        assert record == {"profile": "vanilla", "hazards": False, "terrain": "vanilla"}


SPRING = r"""
const { vanillaTerrain } = require(require('path').join(process.env.SANDBOX, 'vanilla', 'index.js'))
const world = vanillaTerrain(Number(process.argv[1]))
const s = world.spawn()
const at = (x, y, z) => (y * 16 + z) * 16 + x
const sx = Math.floor(s.x / 16)
const sz = Math.floor(s.z / 16)
for (let r = 0; r < 12; r++) {
  for (let cx = sx - r; cx <= sx + r; cx++) {
    for (let cz = sz - r; cz <= sz + r; cz++) {
      if (Math.max(Math.abs(cx - sx), Math.abs(cz - sz)) !== r) continue
      const { blocks, springs } = world.blocksOf(cx, cz)
      for (const p of springs) {
        if (p.fluid !== 'water') continue
        const x = p.x - cx * 16
        const z = p.z - cz * 16
        for (const [dx, dz] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
          const nx = x + dx
          const nz = z + dz
          if (nx < 1 || nx > 14 || nz < 1 || nz > 14) continue
          if (blocks[at(nx, p.y, nz)] === world.ids.caveAir || blocks[at(nx, p.y, nz)] === 0) {
            const open = { x: p.x + dx, y: p.y, z: p.z + dz }
            console.log(JSON.stringify({ spring: p, open, top: world.height(p.x, p.z) }))
            process.exit(0)
          }
        }
      }
    }
  }
}
console.log('null')
"""


@pytest.mark.timeout(120)
def test_a_spring_in_a_cave_wall_runs_out_when_its_chunk_is_made(tmp_path_factory: Any) -> None:
    found = run_node(SPRING, str(SEED))
    assert found is not None, "no water spring with an open side near the spawn"
    spring, opening = found["spring"], found["open"]
    with vanilla_world(tmp_path_factory, "spring") as (world, alice):
        # alice above the spring (creative: she does not fall): its chunk is made and loaded
        world.op("gamemode", player="alice", mode=1)
        teleport(world, alice, spring["x"] + 0.5, found["top"] + 30, spring["z"] + 0.5)
        eventually(
            lambda: world.op("block_at", **opening)["name"] == "water", 60,
            "the spring's water in the cave beside it",
        )  # fmt: skip
        assert world.op("block_at", **{k: spring[k] for k in "xyz"})["name"] == "water"


DUNGEON = r"""
const { vanillaTerrain } = require(require('path').join(process.env.SANDBOX, 'vanilla', 'index.js'))
const world = vanillaTerrain(Number(process.argv[1]))
const s = world.spawn()
const sx = Math.floor(s.x / 16)
const sz = Math.floor(s.z / 16)
for (let r = 0; r < 40; r++) {
  for (let cx = sx - r; cx <= sx + r; cx++) {
    for (let cz = sz - r; cz <= sz + r; cz++) {
      if (Math.max(Math.abs(cx - sx), Math.abs(cz - sz)) !== r) continue
      const { dungeons } = world.blocksOf(cx, cz)
      if (dungeons.length) {
        const d = dungeons[0]
        console.log(JSON.stringify({ ...d, top: world.height(d.x, d.z) }))
        process.exit(0)
      }
    }
  }
}
console.log('null')
"""


@pytest.mark.timeout(180)
def test_a_dungeons_spawner_spawns_its_mob_near_a_player(tmp_path_factory: Any) -> None:
    dungeon = run_node(DUNGEON, str(SEED))
    assert dungeon is not None, "no dungeon within 40 chunks of the spawn"
    with vanilla_world(tmp_path_factory, "dungeon") as (world, alice):
        world.op("spawning", on=False)  # no natural spawns: what comes is the spawner's
        world.op("gamemode", player="alice", mode=1)  # creative: nothing hunts her
        # above the dungeon, out of the 16 blocks the spawner needs: it stays still
        teleport(world, alice, dungeon["x"] + 0.5, dungeon["top"] + 20, dungeon["z"] + 0.5)
        at = {k: dungeon[k] for k in "xyz"}
        known = at | {"mob": dungeon["mob"]}
        eventually(lambda: known in spawners(world), 30, "the spawner known")
        assert world.op("block_at", **at)["name"] == "spawner"
        assert not near(world, dungeon)
        # into its room, within 16 blocks: it spawns within 20 ticks and its tries
        teleport(world, alice, dungeon["x"] + 1.5, dungeon["y"], dungeon["z"] + 0.5)
        eventually(lambda: near(world, dungeon), 60, f"a {dungeon['mob']} by the spawner")


def spawners(world: EmbeddedWorld) -> list[dict[str, Any]]:
    return [{k: s[k] for k in ("x", "y", "z", "mob")} for s in world.op("spawners")["spawners"]]


def near(world: EmbeddedWorld, dungeon: dict[str, Any]) -> list[dict[str, Any]]:
    """The mobs of the dungeon's kind within 5 blocks of its spawner."""
    return [
        e for e in world.op("entities", name=dungeon["mob"])
        if max(abs(e["position"][k] - dungeon[k] - 0.5) for k in ("x", "z")) <= 5.5
    ]  # fmt: skip


@pytest.mark.timeout(180)
def test_phantoms_come_only_to_a_player_three_days_awake(tmp_path_factory: Any) -> None:
    with vanilla_world(tmp_path_factory, "phantoms") as (world, _alice):
        world.op("spawning", on=False)
        world.op("set_time", time=18000, cycle=False)  # midnight: the sky darkened by 11

        def rest(**set_: Any) -> dict[str, Any]:
            return dict(world.op("rest", player="alice", **set_))

        def tried() -> None:  # one spawning try, now
            rest(tryIn=1)
            eventually(lambda: rest()["nextTry"] > 100, 10, "the try")

        rest(ticks=60000)  # not yet three days awake: nothing comes, try after try
        for _ in range(8):
            tried()
        assert rest()["phantomsSpawned"] == 0
        rest(ticks=10_000_000)
        for _ in range(30):  # a chance of 2/3 x 0.99 a try on normal
            tried()
            if rest()["phantomsSpawned"]:
                break
        assert 1 <= rest()["phantomsSpawned"] <= 3  # 1 to difficulty + 1
        here = world.op("players")[0]["position"]
        phantoms = world.op("entities", name="phantom")
        assert phantoms and all(p["position"]["y"] >= here["y"] + 19 for p in phantoms)
        # dying resets the time since rest
        world.op("set_health", player="alice", hp=0)
        eventually(lambda: rest()["ticks"] < 100, 10, "the count to start again")


PLACES = r"""
const { vanillaTerrain } = require(require('path').join(process.env.SANDBOX, 'vanilla', 'index.js'))
const { hash, normSeed } = require(require('path').join(process.env.SANDBOX, 'terrain', 'rand.js'))
const seed = Number(process.argv[1])
const world = vanillaTerrain(seed)
const s = world.spawn()
const slimy = (cx, cz) => hash(normSeed(seed), cx, cz, 0, 987234911) % 10 === 0
let slime = null
let plain = null
let ocean = null
for (let r = 0; r < 400 && !(slime && plain && ocean); r++) {
  for (let k = 0; k < 8 * Math.max(1, r); k++) {
    const a = k / (8 * Math.max(1, r)) * 2 * Math.PI
    const x = Math.round(s.x + Math.cos(a) * r * 4)
    const z = Math.round(s.z + Math.sin(a) * r * 4)
    const cx = Math.floor(x / 16)
    const cz = Math.floor(z / 16)
    if (!slime && slimy(cx, cz)) slime = { x, z }
    if (!plain && !slimy(cx, cz)) plain = { x, z }
    const b = world.biome(x, z)
    const floor = world.height(x, z)
    if (!ocean && (b === 'ocean' || b === 'deep_ocean') && floor < 40) ocean = { x, z, floor }
  }
}
console.log(JSON.stringify({ slime, plain, ocean, spawn: s }))
"""


@pytest.mark.timeout(180)
def test_slimes_and_drowned_spawn_by_their_own_rules(tmp_path_factory: Any) -> None:
    places = run_node(PLACES, str(SEED))
    assert places["slime"] and places["plain"] and places["ocean"], places
    with vanilla_world(tmp_path_factory, "rules") as (world, alice):
        world.op("spawning", on=False)

        def rule(name: str, at: dict[str, int], y: int, n: int = 2000) -> float:
            reply = world.op("spawn_rule", name=name, x=at["x"], y=y, z=at["z"], tries=n)
            return float(reply["passed"]) / n

        # a slime: below y 40 in a slime chunk, one time in 10, at any light; never outside
        assert 0.06 <= rule("slime", places["slime"], 30) <= 0.14
        assert rule("slime", places["slime"], 45) == 0
        assert rule("slime", places["plain"], 30) == 0
        # a drowned: in the dark water of an ocean, more than 5 below sea level, 1 in 40
        ocean = places["ocean"]
        world.op("gamemode", player="alice", mode=1)
        teleport(world, alice, ocean["x"] + 0.5, 80, ocean["z"] + 0.5)  # its chunk loaded
        eventually(
            lambda: world.op("block_at", x=ocean["x"], y=ocean["floor"] + 1, z=ocean["z"])[
                "name"
            ] == "water", 30, "the ocean's water",
        )  # fmt: skip
        deep = ocean["floor"] + 1
        assert 0.01 <= rule("drowned", ocean, deep, 6000) <= 0.045
        assert rule("drowned", ocean, 70) == 0  # in the air over it
        assert rule("drowned", places["spawn"], places["spawn"]["y"]) == 0  # on land
