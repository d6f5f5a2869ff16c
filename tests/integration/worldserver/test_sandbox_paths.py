"""Mobs that find their way in the survival sandbox (docs/sandbox-life.md, AI and Movement).

The A* of ``pepa/worldserver/js/life/path.js`` is run as a pure function
through node on small worlds of real block names; then, in one real sandbox
server for the module, a zombie walks around a wall to hit a real mineflayer
client (tests/js/operator.js) and a spider climbs a tower to reach it at night.
"""

from __future__ import annotations

import itertools
import logging
import subprocess
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from pepa.base.node import node_binary, node_modules
from pepa.worldserver.process import SERVER_JS, EmbeddedWorld
from tests.waiting import eventually
from tests.world_harness import Player, server_player, teleport

log = logging.getLogger(__name__)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(90),
    pytest.mark.xdist_group("sandbox_paths"),  # one world for the module, on one worker
]

PATH_JS = SERVER_JS / "life" / "path.js"
NAME = "pathy"
ARENA_Y = 120
"""A stone floor high above the terrain: open sky, nothing but what a test builds."""


# --- path.js, pure ----------------------------------------------------------------------

SEARCHES = r"""
const path = require(process.env.PATH_JS)
const registry = require('prismarine-registry')('1.16.5')
const kindOf = (name) => path.classify(registry.blocksByName[name])
// a world: a stone floor at y = 0 for |x|, |z| <= 20, plus `blocks` {"x,y,z": name}
function world (blocks = {}, floorY = 0) {
  const set = new Map(Object.entries(blocks).map(([k, n]) => [k, kindOf(n)]))
  const stone = kindOf('stone'); const air = kindOf('air')
  return (x, y, z) => {
    const k = set.get(x + ',' + y + ',' + z)
    if (k !== undefined) return k
    return y === floorY && Math.abs(x) <= 20 && Math.abs(z) <= 20 ? stone : air
  }
}
// `name` in the box x0..x1, y0..y1, z0..z1 (added to `into`)
function box (name, [x0, y0, z0], [x1, y1, z1], into = {}) {
  for (let x = x0; x <= x1; x++) {
    for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) into[x + ',' + y + ',' + z] = name
  }
  return into
}
// a row of `name` along x = xAt, z in z0..z1, y in y0..y1
const row = (name, xAt, z0, z1, y0, y1, into = {}) => box(name, [xAt, y0, z0], [xAt, y1, z1], into)
const ZOMBIE = { width: 0.6, height: 1.95 }
const SPIDER = { width: 1.4, height: 0.9, climber: true }
const at = (x, y, z) => ({ x, y, z })
const run = (w, opts = ZOMBIE, a = at(-5, 1, 0), b = at(5, 1, 0)) => path.findPath(w, a, b, opts)
const out = {}

out.wall = run(world(row('stone', 0, -5, 5, 1, 2)))
out.step = run(world(box('stone', [2, 1, -20], [20, 1, 20])), ZOMBIE, at(-5, 1, 0), at(5, 2, 0))
out.tallStep = run(world(box('stone', [2, 1, -20], [20, 2, 20])), ZOMBIE, at(-5, 1, 0), at(5, 3, 0))
out.fence = run(world(row('oak_fence', 0, -20, 20, 1, 1)))
out.pool = run(world(row('water', 0, -5, 5, 1, 1)))
out.river = run(world(row('water', 0, -20, 20, 1, 1)))
const swimmer = { ...ZOMBIE, swim: true }
out.swimOut = run(world(row('water', 0, -20, 20, 1, 1)), swimmer, at(0, 1, 0), at(3, 1, 0))
const door = row('stone', 0, -20, 20, 1, 2)
door['0,1,0'] = door['0,2,0'] = 'oak_door'
out.door = run(world(door))
const gap = row('stone', 0, -20, 20, 1, 2)
delete gap['0,1,0']
delete gap['0,2,0']
out.gap = run(world(gap))
out.lava = run(world(row('lava', 0, -20, 20, 0, 0)))
const walls = box('stone', [3, 1, -2], [7, 3, 2])
Object.assign(walls, box('air', [4, 1, -1], [6, 3, 1]))
out.boxed = run(world(walls))
out.small = run(world(walls), { ...ZOMBIE, budget: 50 })
// a cliff: the floor is at y = 10, and `drop` blocks lower for x > 0
function cliff (drop) {
  const low = box('stone', [1, 10 - drop, -20], [20, 10 - drop, 20])
  return world(box('air', [1, 10, -20], [20, 10, 20], low), 10)
}
const high = at(-5, 11, 0)
out.drop3 = run(cliff(3), ZOMBIE, high, at(5, 8, 0))
out.drop4 = run(cliff(4), ZOMBIE, high, at(5, 7, 0))
out.drop4healthy = run(cliff(4), { ...ZOMBIE, maxFall: 5 }, high, at(5, 7, 0))
// a spider (2x1x2 blocks) climbs a 3-high wall a zombie cannot pass
const wall3 = row('stone', 0, -20, 20, 1, 3)
out.spider = run(world(wall3), SPIDER)
out.noClimb = run(world(wall3), { ...SPIDER, climber: false })

// what a search costs, counted: the block reads it asks of the world, and how many blocks
// they were (each read once a search: path.js remembers them), for a typical search (round
// the wall) and one that spends its whole budget (walled off)
function counted (w) {
  const blocks = new Set()
  let reads = 0
  const f = (x, y, z) => { reads++; blocks.add(x + ',' + y + ',' + z); return w(x, y, z) }
  f.cost = () => ({ reads, blocks: blocks.size })
  return f
}
function cost (w) {
  const f = counted(w)
  const { visited } = run(f)
  return { visited, ...f.cost() }
}
out.cost = { typical: cost(world(row('stone', 0, -5, 5, 1, 2))), full: cost(world(walls)) }
console.log(JSON.stringify(out))
"""

Search = dict[str, Any]


@pytest.fixture(scope="module")
def searches() -> dict[str, Any]:
    result = subprocess.run(
        [str(node_binary()), "-e", SEARCHES],
        capture_output=True,
        text=True,
        timeout=60,
        env={"NODE_PATH": str(node_modules()), "PATH": "/usr/bin:/bin", "PATH_JS": str(PATH_JS)},
    )
    assert result.returncode == 0, result.stderr
    out: dict[str, Any] = orjson.loads(result.stdout)
    log.info("path.js: %s", out["cost"])
    return out


def nodes(search: Search) -> list[tuple[int, int, int]]:
    return [(n["x"], n["y"], n["z"]) for n in search["nodes"]]


def steps_are_moves(search: Search, *, climb: int = 1, fall: int = 3) -> None:
    """Each node is a neighbour of the last: one block across (diagonals too), a jump or a fall."""
    for (x0, y0, z0), (x1, y1, z1) in zip(nodes(search), nodes(search)[1:], strict=False):
        assert abs(x1 - x0) <= 1 and abs(z1 - z0) <= 1, search["nodes"]
        assert -fall <= y1 - y0 <= climb, search["nodes"]


def test_a_path_goes_around_a_wall(searches: dict[str, Any]) -> None:
    wall = searches["wall"]
    assert wall["complete"]
    steps_are_moves(wall)
    assert all(y == 1 for _, y, _ in nodes(wall))
    # the wall is x = 0, z = -5..5: the path passes beyond its end
    assert all(abs(z) > 5 for x, _, z in nodes(wall) if x == 0)
    assert nodes(wall)[-1] == (5, 1, 0)


def test_a_path_jumps_one_block_up_but_not_two(searches: dict[str, Any]) -> None:
    step = searches["step"]
    assert step["complete"]
    steps_are_moves(step)
    ups = [(a, b) for a, b in zip(nodes(step), nodes(step)[1:], strict=False) if b[1] > a[1]]
    assert len(ups) == 1 and ups[0][1][0] == 2, ups
    assert not searches["tallStep"]["complete"]


def test_fences_doors_water_and_lava_are_not_crossed(searches: dict[str, Any]) -> None:
    # a fence is 1.5 high: a mob neither jumps it nor walks on it (a stone block it would)
    for name in ("fence", "door", "river", "lava"):
        assert not searches[name]["complete"], name
        assert all(x < 0 for x, _, _ in nodes(searches[name])), name
    # the same wall with the door's blocks open is passed through the gap
    assert searches["gap"]["complete"]
    assert (0, 1, 0) in nodes(searches["gap"])
    # a pool with land around it is walked around
    pool = searches["pool"]
    assert pool["complete"]
    assert all(abs(z) > 5 for x, _, z in nodes(pool) if x == 0)
    # a mob already in water may swim out of it
    assert searches["swimOut"]["complete"]


def test_a_walled_off_goal_gives_the_closest_reachable_node_within_the_budget(
    searches: dict[str, Any],
) -> None:
    boxed = searches["boxed"]
    assert not boxed["complete"]
    assert boxed["visited"] <= 400
    # the box's wall is x = 3: the path ends right against it, facing the goal (5, 1, 0)
    assert nodes(boxed)[-1] == (2, 1, 0)
    steps_are_moves(boxed)
    assert searches["small"]["visited"] == 50


def test_a_mob_walks_off_a_drop_of_its_max_fall_distance_only(searches: dict[str, Any]) -> None:
    assert searches["drop3"]["complete"]
    assert not searches["drop4"]["complete"]
    # a healthy chasing mob's max fall distance is higher (vanilla Mob.getMaxFallDistance)
    assert searches["drop4healthy"]["complete"]
    steps_are_moves(searches["drop4healthy"], fall=4)


def test_a_spider_climbs_a_wall_a_walker_cannot_pass(searches: dict[str, Any]) -> None:
    spider = searches["spider"]
    assert spider["complete"]
    assert max(y for _, y, _ in nodes(spider)) == 4  # on top of the 3-high wall
    assert not searches["noClimb"]["complete"]


def test_a_search_is_cheap(searches: dict[str, Any]) -> None:
    """What a search's cheapness comes from, counted, not timed (the time is
    bench/mob_path.py's; the node run's 60 s timeout catches a hang): the heuristic takes a
    search round a wall in well under its budget (a blind one spends all 400 nodes), a
    walled-off search stops at its budget, and neither reads a block of the world twice."""
    typical, full = searches["cost"]["typical"], searches["cost"]["full"]
    assert 15 <= typical["visited"] <= 150, typical  # the path alone is 15 nodes
    assert full["visited"] == 400, full
    for cost in (typical, full):
        assert cost["reads"] == cost["blocks"] > 0, cost


# --- mobs in a real sandbox ----------------------------------------------------------


SANDBOX = {"time": 18000}
"""The module's sandbox (the ``sandbox`` fixture): midnight, with natural spawning off."""


_arenas = itertools.count()


@pytest.fixture
def player(sandbox: EmbeddedWorld) -> Iterator[Player]:
    """A survival player alone in the middle of a new 17x17 stone floor at ARENA_Y."""
    sandbox.op("remove_mobs")
    p = Player(sandbox, NAME)
    here = server_player(sandbox, NAME)
    assert here is not None
    # each test its own arena, 32 blocks east of the last one's
    x = int(here["position"]["x"] // 1) + 32 * next(_arenas)
    z = int(here["position"]["z"] // 1)
    sandbox.op("fill", x1=x - 8, y1=ARENA_Y - 1, z1=z - 8, x2=x + 8, y2=ARENA_Y - 1, z2=z + 8)
    teleport(sandbox, p, x + 0.5, ARENA_Y, z + 0.5)
    sandbox.op("set_health", player=NAME, hp=20)
    yield p
    p.close()


def centre(sandbox: EmbeddedWorld) -> tuple[int, int]:
    here = server_player(sandbox, NAME)
    assert here is not None
    return int(here["position"]["x"] // 1), int(here["position"]["z"] // 1)


def hurt(player: Player, start: int, timeout: float) -> dict[str, Any]:
    return player.wait_for(lambda e: e["type"] == "health" and e["health"] < 20, timeout, start)


def test_a_zombie_walks_around_a_wall_to_hit_the_player(
    sandbox: EmbeddedWorld, player: Player
) -> None:
    x, z = centre(sandbox)
    # a wall 3 blocks west of the player, z - 3..z + 3: stone at the feet and above
    # the head, a gap at eye level, so the zombie sees the player but cannot pass
    wall_x = x - 3
    for y in (ARENA_Y, ARENA_Y + 2):
        sandbox.op("fill", x1=wall_x, y1=y, z1=z - 3, x2=wall_x, y2=y, z2=z + 3)
    mark = player.mark()
    zombie = sandbox.op("spawn_mob", player=NAME, name="zombie", dx=-6)["ids"][0]
    eventually(
        lambda: sandbox.op("life_mob", mob=zombie)["target"] == NAME, 10, "the zombie to see"
    )
    hit = hurt(player, mark, 40)
    assert hit["health"] == pytest.approx(17.5)  # easy: min(3 / 2 + 1, 3)
    mob = sandbox.op("life_mob", mob=zombie)
    assert mob["position"]["x"] > wall_x + 1, mob  # it came round to the player's side
    log.info("paths: %s", sandbox.op("paths"))


def test_a_spider_climbs_a_tower_to_reach_the_player_at_night(
    sandbox: EmbeddedWorld, player: Player
) -> None:
    x, z = centre(sandbox)
    # the player stands on a 3x3 tower 3 blocks high; the spider starts on the floor.
    # The tower's top first (above the head of the player standing there), then the
    # player onto it, then the rest: no block is ever filled in around the player
    sandbox.op("fill", x1=x - 1, y1=ARENA_Y + 2, z1=z - 1, x2=x + 1, y2=ARENA_Y + 2, z2=z + 1)
    teleport(sandbox, player, x + 0.5, ARENA_Y + 3, z + 0.5)
    sandbox.op("fill", x1=x - 1, y1=ARENA_Y, z1=z - 1, x2=x + 1, y2=ARENA_Y + 1, z2=z + 1)
    mark = player.mark()
    spider = sandbox.op("spawn_mob", player=NAME, name="spider", dx=6, dy=-3)["ids"][0]
    eventually(
        lambda: sandbox.op("life_mob", mob=spider)["target"] == NAME, 10, "the spider to see"
    )
    hit = hurt(player, mark, 40)
    assert hit["health"] == pytest.approx(18)  # easy: min(2 / 2 + 1, 2)
    # a spider reaches 2.14 blocks (vanilla: reach^2 = 4 + 0.6): from the floor it could not
    mob = sandbox.op("life_mob", mob=spider)
    assert mob["position"]["y"] >= ARENA_Y + 1.5, mob


def test_a_spider_in_daylight_does_not_start_a_fight(
    sandbox: EmbeddedWorld, player: Player
) -> None:
    sandbox.op("set_time", time=6000, cycle=False)
    try:
        mark = player.mark()
        spider = sandbox.op("spawn_mob", player=NAME, name="spider", dx=4)["ids"][0]
        zombie = sandbox.op("spawn_mob", player=NAME, name="zombie", dx=-4)["ids"][0]
        # the zombie beside it, which has no such rule, sees the player and hits
        eventually(lambda: sandbox.op("life_mob", mob=zombie)["target"] == NAME, 10, "the zombie")
        # its hit, or its death in the sun first (seen twice in CI, on a loaded machine, where
        # it had not reached the player before burning): the spider had as long to start one
        eventually(
            lambda: (
                any(e["type"] == "health" and e["health"] < 20 for e in player.events[mark:])
                or not sandbox.op("life_mob", mob=zombie)["alive"]
            ),
            60,
            "the zombie's hit (or its death in the sun)",
        )
        assert sandbox.op("life_mob", mob=spider).get("target") is None
    finally:
        sandbox.op("set_time", time=18000, cycle=False)
