"""The sandbox's profiles (docs/sandbox.md "Profiles"): the hazards the generator makes (run
through node), and one real ``hard`` world looked at through the control channel and a real
mineflayer client."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.base.node import node_binary, node_modules
from pepa.worldserver.process import EmbeddedWorld, free_port
from pepa.worldserver.profiles import PROFILES
from tests.js import run_node
from tests.world_harness import SANDBOX_SEED

SEEDS = (SANDBOX_SEED, 7)

HAZARDS = r"""
const path = require('path')
const generator = require(path.join(process.env.SANDBOX, 'generator.js'))
const registry = require('prismarine-registry')('1.16.5')
const seed = Number(process.argv[1])
const R = 48 // blocks around the spawn point looked at
const plainSpawn = generator.terrain(seed).spawn()

function look (hazards) {
  const world = generator.terrain(seed, { hazards })
  const s = world.spawn()
  const g = generator({ seed, registry, hazards })
  const chunks = {}
  const chunk = (cx, cz) => chunks[cx + ',' + cz] || (chunks[cx + ',' + cz] = g(cx, cz))
  const name = (x, y, z) => registry.blocksByStateId[
    chunk(Math.floor(x / 16), Math.floor(z / 16)).getBlockStateId({ x: x & 15, y, z: z & 15 })].name
  const lava = []; const deepWater = []; const ravine = []; let deepest = 0
  for (let x = s.x - R; x < s.x + R; x++) {
    for (let z = s.z - R; z < s.z + R; z++) {
      const d = Math.hypot(x + 0.5 - s.x, z + 0.5 - s.z)
      let y = 255
      while (['air', 'oak_leaves', 'oak_log'].includes(name(x, y, z))) y--
      const top = name(x, y, z)
      const ground = world.height(x, z)
      if (top === 'lava') lava.push({ x, z, d, surface: y, ground })
      let depth = 0
      while (name(x, y - depth, z) === 'water') depth++
      deepest = Math.max(deepest, depth)
      if (depth >= 4) deepWater.push({ x, z, d, depth })
      if (top !== 'water' && top !== 'lava' && ground - y >= 10) {
        ravine.push({ x, z, d, depth: ground - y, floor: top })
      }
    }
  }
  const under = [[-1, -1], [-1, 0], [0, -1], [0, 0]].map(([dx, dz]) =>
    [-1, 0, 1].map(dy => name(s.x + dx, s.y + dy, s.z + dz)))
  // every chunk a hazard crosses, generated in two orders and each by a fresh generator
  const crossed = new Set()
  for (const h of world.hazards) {
    for (const k of h.cells) {
      const [x, z] = k.split(',').map(Number)
      crossed.add(Math.floor(x / 16) + ',' + Math.floor(z / 16))
    }
  }
  const order = [...crossed].map(k => k.split(',').map(Number))
  const make = () => generator({ seed, registry, hazards })
  const dump = (gen, list) => Object.fromEntries(
    list.map(([x, z]) => [x + ',' + z, gen(x, z).dump().toString('base64')]))
  const forward = dump(make(), order)
  const backward = dump(make(), [...order].reverse())
  const alone = Object.assign({}, ...order.map(([x, z]) => dump(make(), [[x, z]])))
  const same = order.every(([x, z]) =>
    forward[x + ',' + z] === backward[x + ',' + z] && forward[x + ',' + z] === alone[x + ',' + z])
  const spans = world.hazards.map(h => new Set(h.cells.map(k => {
    const [x, z] = k.split(',').map(Number)
    return Math.floor(x / 16) + ',' + Math.floor(z / 16)
  })).size)
  const kinds = world.hazards.map(h => h.kind)
  return { spawn: s, under, lava, deepWater, ravine, deepest, kinds, same, spans }
}
console.log(JSON.stringify({ plainSpawn, on: look(true), off: look(false) }))
"""


@pytest.fixture(scope="module", params=SEEDS)
def hazards(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The hard and the gentle terrain of a seed, 96 x 96 blocks around the spawn."""
    return dict(run_node(HAZARDS, str(request.param)))


def spread(points: list[dict[str, Any]]) -> float:
    """The largest distance between two of the columns."""
    return max(
        ((p["x"] - q["x"]) ** 2 + (p["z"] - q["z"]) ** 2) ** 0.5 for p in points for q in points
    )


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_a_lava_pocket_lies_16_to_25_blocks_from_spawn(hazards: dict[str, Any]) -> None:
    lava = hazards["on"]["lava"]
    assert len(lava) >= 9
    assert all(15 <= p["d"] <= 26 for p in lava)
    assert spread(lava) <= 7  # one small pool
    assert all(p["ground"] - 3 <= p["surface"] < p["ground"] for p in lava)  # just under the ground
    assert hazards["off"]["lava"] == []


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_a_ravine_12_deep_3_wide_20_long_lies_25_to_35_blocks_away(
    hazards: dict[str, Any],
) -> None:
    ravine = hazards["on"]["ravine"]
    assert 18 <= spread(ravine) <= 23  # about 20 long ...
    assert len(ravine) <= 3 * 21  # ... and no more than 3 wide
    assert all(p["depth"] >= 12 and p["floor"] == "stone" for p in ravine)
    assert all(24 <= p["d"] <= 36 for p in ravine)
    assert hazards["off"]["ravine"] == []


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_a_lake_deep_enough_to_drown_in_lies_20_to_40_blocks_away(
    hazards: dict[str, Any],
) -> None:
    deep = hazards["on"]["deepWater"]
    assert len(deep) >= 10 and max(p["depth"] for p in deep) == 5
    assert all(20 <= p["d"] <= 40 for p in deep)
    assert hazards["off"]["deepWater"] == [] and hazards["off"]["deepest"] <= 2  # ponds only


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_chunks_the_hazards_cross_come_out_the_same_in_any_order(
    hazards: dict[str, Any],
) -> None:
    on = hazards["on"]
    assert on["kinds"] == ["lava", "ravine", "lake"]
    assert max(on["spans"]) > 1  # at least one hazard crosses a chunk border
    assert on["same"] is True


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_the_spawn_stays_on_dry_grass_away_from_the_hazards(hazards: dict[str, Any]) -> None:
    on, off = hazards["on"], hazards["off"]
    assert on["spawn"] == off["spawn"] == hazards["plainSpawn"]
    for below, feet, head in on["under"]:
        assert (below, feet, head) == ("grass_block", "air", "air")
    near = [p["d"] for kind in ("lava", "deepWater", "ravine") for p in on[kind]]
    assert min(near) >= 15


TABLE = r"""
const fs = require('fs')
const os = require('os')
const path = require('path')
const profiles = require(path.join(process.env.SANDBOX, 'life', 'profiles.js'))
const names = Object.keys(profiles).filter(k => (profiles[k] || {}).difficulty !== undefined)
let unknown = null
try { profiles.profileOf('nightmare') } catch (err) { unknown = err.message }
const dir = (name) => fs.mkdtempSync(path.join(os.tmpdir(), 'pepa-profile-' + name + '-'))
const fresh = dir('new')
const made = profiles.worldProfile(fresh, 'hard')
const again = profiles.worldProfile(fresh, 'gentle') // an existing world started with another
const old = dir('old')
fs.writeFileSync(path.join(old, 'level.dat'), '') // a world made before profiles
const before = profiles.worldProfile(old, 'hard')
const record = JSON.parse(fs.readFileSync(path.join(fresh, profiles.PROFILE_FILE), 'utf8'))
const renamed = dir('renamed') // a world recorded with the gentle profile's former name
const former = '{"profile": "default", "hazards": false}'
fs.writeFileSync(path.join(renamed, profiles.PROFILE_FILE), former)
const formerly = profiles.worldProfile(renamed, 'hard')
for (const d of [fresh, old, renamed]) fs.rmSync(d, { recursive: true })
console.log(JSON.stringify({
  names, unknown, gentle: profiles.profileOf('gentle'), hard: profiles.profileOf('hard'),
  vanilla: profiles.profileOf('vanilla'), formerly, made, again, before, record
}))
"""


@pytest.mark.integration
@pytest.mark.timeout(60)
def test_the_profile_table_and_what_a_world_records() -> None:
    table = run_node(TABLE)
    assert tuple(table["names"]) == PROFILES  # the configuration checks against the same names
    assert "nightmare" in table["unknown"] and "vanilla or gentle or hard" in table["unknown"]
    default, hard = table["gentle"], table["hard"]
    assert (default["difficulty"], default["startTime"], default["hazards"]) == (1, 0, False)
    assert (default["hostileCap"], default["spawnMax"]) == (12, 48)
    assert (hard["difficulty"], hard["startTime"], hard["hazards"]) == (3, 12000, True)
    assert hard["hostileCap"] > default["hostileCap"] and hard["spawnMax"] < default["spawnMax"]
    # a new world records its profile; started again with another, its terrain keeps it
    hard_world = {"profile": "hard", "hazards": True, "terrain": "gentle"}
    assert table["made"] == table["again"] == table["record"] == hard_world
    assert table["before"] == {"profile": "gentle", "hazards": False, "terrain": "gentle"}
    # a world recorded as the gentle profile's former name is the gentle profile's
    assert table["formerly"] == {"profile": "gentle", "hazards": False, "terrain": "gentle"}
    vanilla = table["vanilla"]
    assert (vanilla["difficulty"], vanilla["terrain"], vanilla["hostileCap"]) == (2, "vanilla", 70)


CLIENT = r"""
const mineflayer = require('mineflayer')
const [port, username] = process.argv.slice(1)
const bot = mineflayer.createBot({
  host: '127.0.0.1', port: Number(port), username, version: '1.16.5', auth: 'offline',
  hideErrors: true
})
// minecraft-data 1.16 maps the difficulty packet's number to its name, which mineflayer
// looks up again as a number (bot.game.difficulty stays undefined): read the packet itself
let difficulty = null
bot._client.on('difficulty', (packet) => { difficulty = packet.difficulty })
bot.once('spawn', () => {
  const told = setInterval(() => { // the time comes in its own packet
    const time = bot.time.timeOfDay
    if (difficulty === null || time === null || time === undefined) return
    clearInterval(told)
    console.log(JSON.stringify({ difficulty, time, position: bot.entity.position }))
    bot.once('end', () => process.exit(0))
    bot.quit()
  }, 50)
})
bot.on('error', (err) => { console.error(String(err)); process.exit(1) })
setTimeout(() => { console.error('not told in 40 s'); process.exit(1) }, 40000)
"""


@pytest.fixture(scope="module")
def hard_world() -> Iterator[EmbeddedWorld]:
    """A new sandbox world made with the hard profile."""
    root = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))
    world = EmbeddedWorld(
        root / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED,
        profile="hard",
    ).start()  # fmt: skip
    # the clock stopped at once: a client's slow start must not carry the time past dusk
    world.op("time_scale", factor=0)
    yield world
    world.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_a_hard_world_starts_at_dusk_on_hard_with_a_bigger_cap(hard_world: EmbeddedWorld) -> None:
    stats = hard_world.op("life_stats")
    assert (stats["profile"], stats["difficulty"]) == ("hard", 3)
    assert (stats["hostileCap"], stats["spawnMax"]) == (24, 40)
    assert 12000 <= stats["time"] < 13000  # dusk, the clock stopped just after the start
    record = orjson.loads((hard_world.world_dir / "pepa_profile.json").read_bytes())
    assert record == {"profile": "hard", "hazards": True, "terrain": "gentle"}
    # a client is told it is hard and dusk, and lands on the generator's spawn
    seen = run_client(hard_world, "duskwalker")
    assert seen["difficulty"] == "hard"
    assert seen["time"] == stats["time"]
    assert (seen["position"]["x"], seen["position"]["z"]) == (0, 0)  # the seed's spawn point


@pytest.mark.integration
@pytest.mark.timeout(90)
def test_the_hard_worlds_server_generates_its_hazards(hard_world: EmbeddedWorld) -> None:
    terrain = run_node(
        "const g = require(require('path').join(process.env.SANDBOX, 'generator.js'));"
        "const seed = Number(process.argv[1]);"
        "console.log(JSON.stringify(g.terrain(seed, { hazards: true }).hazards))",
        str(SANDBOX_SEED),
    )
    lava = next(h for h in terrain if h["kind"] == "lava")
    x, z = (int(v) for v in lava["cells"][len(lava["cells"]) // 2].split(","))
    block = hard_world.op("block_at", x=x, y=lava["level"], z=z)
    assert block["name"] == "lava"


def run_client(world: EmbeddedWorld, name: str) -> dict[str, Any]:
    """Join ``world`` with a mineflayer client: what it was told at login."""
    result = subprocess.run(
        [str(node_binary()), "-e", CLIENT, str(world.port), name],
        capture_output=True,
        text=True,
        timeout=60,
        env={"NODE_PATH": str(node_modules()), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return dict(orjson.loads(result.stdout))
