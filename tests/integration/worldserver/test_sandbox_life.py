"""The survival sandbox's life, proved through a real mineflayer client.

Day and night with time acceleration, hostile spawning in the dark and
burning at daybreak, zombies that walk to a player and hit, hunger and
starvation, animals that drop food, eating and beds — all server-side in
``pepa/worldserver/js/plugins/`` (docs/sandbox-life.md). Each test starts
its own seeded sandbox; the player is ``tests/js/operator.js``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually
from tests.world_harness import Player, distance, server_player, teleport

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

NAME = "alice"
ARENA_Y = 100
"""A stone floor high above the terrain: open sky, nothing in the way."""


@pytest.fixture
def alice(sandbox_world: EmbeddedWorld) -> Iterator[Player]:
    """A survival player in a sandbox with natural spawning off (tests switch it on)."""
    sandbox_world.op("spawning", on=False)
    player = Player(sandbox_world, NAME)
    yield player
    player.close()


def command(player: Player, op: str, **args: Any) -> None:
    """Send one of operator.js's survival commands."""
    player._send({"op": op, **args})


def me(world: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(world, NAME)
    assert player is not None
    return player


def arena(world: EmbeddedWorld, player: Player) -> dict[str, float]:
    """Put ``player`` in the middle of a 17x17 stone floor at ARENA_Y; its position."""
    here = me(world)["position"]
    x, z = int(here["x"]), int(here["z"])
    world.op("fill", x1=x - 8, y1=ARENA_Y - 1, z1=z - 8, x2=x + 8, y2=ARENA_Y - 1, z2=z + 8)
    teleport(world, player, x + 0.5, ARENA_Y, z + 0.5)
    return {"x": x + 0.5, "y": ARENA_Y, "z": z + 0.5}


def health_events(player: Player, start: int) -> list[dict[str, Any]]:
    return [e for e in player.since(start) if e["type"] == "health"]


def test_eating_bread_adds_its_food_points_and_saturation(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    world.op("give", player=NAME, item="bread", count=2, slot=36)
    world.op("set_food", player=NAME, food=5, saturation=0)
    alice.wait_for(lambda e: e["type"] == "health" and e["food"] == 5)
    mark = alice.mark()
    command(alice, "eat", item="bread")
    ate = alice.wait_for(lambda e: e["type"] in ("ate", "failed"), timeout=15, start=mark)
    assert ate["type"] == "ate", ate
    # minecraft-data: bread gives 5 food points and 6 saturation
    assert (ate["food"], ate["saturation"]) == (10, 6)
    state = world.op("hunger", player=NAME)
    assert (state["food"], state["saturation"]) == (10, 6)


def test_a_zombie_at_night_walks_to_a_standing_player_and_hits(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    arena(world, alice)
    world.op("set_time", time=18000, cycle=False)
    mark = alice.mark()
    start = time.monotonic()
    zombie = world.op("spawn_mob", player=NAME, name="zombie", dx=8)["ids"][0]
    hit = alice.wait_for(lambda e: e["type"] == "health" and e["health"] < 20, 20, mark)
    took = time.monotonic() - start
    # easy: a zombie's 3 becomes min(3 / 2 + 1, 3) = 2.5
    assert hit["health"] == pytest.approx(17.5)
    # 8 blocks less a reach of 1.43 at 2.28 blocks/s: about 2.9 s of walking
    assert 2.0 < took < 10.0, took
    mob = world.op("life_mob", mob=zombie)
    assert mob["target"] == NAME
    assert distance(mob["position"], me(world)["position"]) < 3


def test_at_night_hostiles_spawn_around_the_player_and_burn_by_day(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    # 50x: a night (13188..22812) lasts about 10 s
    world.op("time_scale", factor=50)
    world.op("set_time", time=13000, cycle=True)
    # 2000 game ticks would take 100 s at 1x
    eventually(lambda: world.op("life_stats")["time"] >= 15000, 10, "the clock to run 50x")
    world.op("spawning", on=True, kinds=["zombie"])

    def zombies() -> list[dict[str, Any]]:
        return list(world.op("life_mobs", name="zombie"))

    spawned = eventually(zombies, 30, "a zombie to spawn in the dark")
    here = me(world)["position"]
    assert all(z["natural"] for z in spawned)
    # 24..48 blocks away, plus the pack's scatter of up to 5 blocks a member
    assert all(20 < distance(z["position"], here) < 72 for z in spawned), spawned
    world.op("spawning", on=False)
    day_before = world.op("life_stats")["day"]
    world.op("set_time", time=0)  # next morning
    eventually(
        lambda: any(z["onFire"] or z["health"] < 20 for z in zombies()),
        15, "a zombie to catch fire in the sun",
    )  # fmt: skip
    stats = world.op("life_stats")
    assert stats["isDay"]
    assert stats["day"] == day_before + 1
    # vanilla: a monster more than 128 blocks from every player is removed at once
    teleport(world, alice, here["x"] + 200, 90, here["z"])
    eventually(lambda: not zombies(), 10, "the far zombies to despawn")
    assert world.op("life_stats")["despawned"] >= 1


def test_hunger_drains_with_jumping_and_starvation_stops_at_ten_hp_on_easy(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    world.op("hunger_scale", factor=20)  # 20x: a jump costs 1 exhaustion instead of 0.05
    world.op("set_food", player=NAME, food=20, saturation=0)
    mark = alice.mark()
    command(alice, "control", state="jump", on=True)
    alice.wait_for(lambda e: e["type"] == "health" and e["food"] <= 18, 20, mark)
    command(alice, "control", state="jump", on=False)

    world.op("set_food", player=NAME, food=0, saturation=0)
    world.op("set_health", player=NAME, hp=13)
    alice.wait_for(lambda e: e["type"] == "health" and e["health"] == 10, 10, mark)
    spared = world.op("hunger", player=NAME)["spared"]
    # the 80-tick starvation timer (4 ticks at 20x) fires on, and spares the player
    eventually(
        lambda: world.op("hunger", player=NAME)["spared"] >= spared + 3,
        10, "more starvation ticks",
    )  # fmt: skip
    assert me(world)["health"] == 10
    assert min(e["health"] for e in health_events(alice, mark)) == 10


def test_killing_a_cow_drops_beef_that_the_player_picks_up(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    arena(world, alice)
    world.op("give", player=NAME, item="diamond_sword", slot=36)
    cow = world.op("spawn_mob", player=NAME, name="cow", dx=2, ai=False)["ids"][0]
    hits: list[float] = []

    def dead() -> bool:
        if not world.op("life_mob", mob=cow)["alive"]:
            return True
        # a sword recharges in 20 / 1.6 = 12.5 ticks: hit at full strength only
        if not hits or time.monotonic() - hits[-1] > 0.8:
            hits.append(time.monotonic())
            command(alice, "attack", name="cow")
        return False

    mark = alice.mark()
    command(alice, "attack", name="cow")
    alice.wait_for(lambda e: e["type"] == "attacked", 5, mark)
    # a diamond sword does 7 of a cow's 10
    eventually(lambda: world.op("life_mob", mob=cow)["health"] == 3, 5, "the first hit")
    hits.append(time.monotonic())
    eventually(dead, 15, "the cow to die")
    assert len(hits) <= 3
    items = eventually(lambda: world.op("entities", name="unknown"), 5, "the drops")
    spot = items[0]["position"]
    teleport(world, alice, spot["x"], ARENA_Y, spot["z"])

    def beef() -> int:
        mark = alice.mark()
        command(alice, "inventory")
        inv = alice.wait_for(lambda e: e["type"] == "inventory", 5, mark)
        return sum(i["count"] for i in inv["items"] if i["name"] == "beef")

    # vanilla loot: 1-3 raw beef (and 0-2 leather)
    assert 1 <= eventually(beef, 10, "beef in the inventory") <= 3


def test_sleeping_in_a_bed_at_night_skips_to_morning(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    here = arena(world, alice)
    x, z = int(here["x"]), int(here["z"])
    world.op("place_bed", x=x + 1, y=ARENA_Y, z=z, facing="east")
    world.op("set_time", time=14000, cycle=False)
    # vanilla: no sleep with a monster within 8 blocks
    world.op("spawn_mob", player=NAME, name="zombie", dx=-5, ai=False)
    mark = alice.mark()
    command(alice, "use_bed")
    alice.wait_for(lambda e: e["type"] == "chat" and "monsters nearby" in e["text"], 10, mark)
    world.op("remove_mobs")
    day = world.op("life_stats")["day"]
    command(alice, "sleep")
    slept = alice.wait_for(lambda e: e["type"] in ("slept", "failed"), 10, mark)
    assert slept["type"] == "slept", slept
    alice.wait_for(lambda e: e["type"] == "wake", 15, mark)
    stats = world.op("life_stats")
    assert stats["isDay"]
    assert stats["time"] < 1000
    assert stats["day"] == day + 1


def test_a_skeleton_shoots_arrows_that_hurt(sandbox_world: EmbeddedWorld, alice: Player) -> None:
    world = sandbox_world
    arena(world, alice)
    world.op("set_time", time=18000, cycle=False)
    mark = alice.mark()
    world.op("spawn_mob", player=NAME, name="skeleton", dx=8)
    # an arrow every 3 s with a spread of 10 on easy; a hit does ceil(1.6 * ~2.1) = 4 -> 3
    hit = alice.wait_for(lambda e: e["type"] == "health" and e["health"] < 20, 20, mark)
    assert 2 <= 20 - hit["health"] <= 4


def test_a_creeper_swells_and_explodes_next_to_the_player(
    sandbox_world: EmbeddedWorld, alice: Player
) -> None:
    world = sandbox_world
    here = arena(world, alice)
    world.op("set_time", time=18000, cycle=False)
    mark = alice.mark()
    creeper = world.op("spawn_mob", player=NAME, name="creeper", dx=7)["ids"][0]
    eventually(lambda: world.op("life_mob", mob=creeper)["swell"] > 0, 10, "the fuse")
    swelling = time.monotonic()
    hit = alice.wait_for(lambda e: e["type"] == "health" and e["health"] < 20, 10, mark)
    # the fuse is 30 ticks; then up to ~17 damage at 3 blocks, about half on easy
    assert time.monotonic() - swelling > 1.0
    assert 4 <= 20 - hit["health"] <= 12
    assert not world.op("life_mob", mob=creeper)["alive"]
    x, z = int(here["x"]), int(here["z"])

    def crater() -> bool:  # the blocks go after the damage, one setBlock at a time
        return any(
            world.op("block_at", x=x + dx, y=ARENA_Y - 1, z=z + dz)["name"] == "air"
            for dx in range(-8, 9)
            for dz in range(-8, 9)
        )

    eventually(crater, 10, "a crater in the arena's floor")


def test_animals_graze_near_the_spawn_when_the_world_starts(sandbox_world: EmbeddedWorld) -> None:
    world = sandbox_world
    player = Player(world, NAME)
    try:
        animals = {"cow", "pig", "chicken", "sheep"}
        herd = eventually(
            lambda: [m for m in world.op("life_mobs") if m["name"] in animals],
            10, "animals near the spawn",
        )  # fmt: skip
        here = me(world)["position"]
        assert all(distance(m["position"], here) < 48 for m in herd)
        assert len(herd) <= 10 + 3  # the creature cap, plus one pack's overshoot
    finally:
        player.close()
