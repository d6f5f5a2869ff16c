"""Fights and flights on a real flying-squid server: the bot defends itself whatever it waits on.

One world and one ``pepa start`` daemon for the module (each scenario puts the
bot back at full health on clear ground and removes the mobs first); mobs are
the scenario plugin's zombies with ``ai`` (walk at the nearest player, hit once a
second).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.ipc import protocol
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon, wait_for_threat
from tests.waiting import eventually
from tests.world_harness import (
    Player,
    distance,
    own_daemon,
    server_player,
    teleport,
    zombie_health,
    zombie_hit,
    zombies,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

BOT = "pepa_bot"


@pytest.fixture(scope="module")
def arena() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    with own_daemon(sandbox=False) as both:
        yield both


@pytest.fixture
def fresh(arena: tuple[EmbeddedWorld, Daemon]) -> tuple[EmbeddedWorld, Daemon]:
    """The shared arena, with no mobs and the bot at full health and food."""
    world, _ = arena
    world.op("remove_mobs")
    world.op("set_health", player=BOT, hp=20)
    world.op("set_food", player=BOT, food=20, saturation=5)
    return arena


def me(world: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(world, BOT)
    assert player is not None
    return player


def test_waiting_for_an_unseen_operator_the_bot_still_fights(
    fresh: tuple[EmbeddedWorld, Daemon],
) -> None:
    world, daemon = fresh
    alice = Player(world, "alice")
    try:
        here = me(world)["position"]
        # beyond sight (150 blocks); flying-squid re-counts who sees whom on a move of
        # over 2 blocks, from the last count: the second move makes the bot forget her
        teleport(world, alice, here["x"] + 300, here["y"], here["z"])
        teleport(world, alice, here["x"] + 310, here["y"], here["z"])
        mark = len(daemon.lines)
        alice.say(f"{BOT} come")
        daemon.wait_line("waiting to see alice", start=mark)
        (zombie,) = world.op("spawn_mob", player=BOT, name="zombie", dx=3, ai=True, damage=1)["ids"]
        eventually(
            lambda: zombie_hit(world, zombie),
            20,
            "the bot to hit the zombie while it waits for alice",
        )
    finally:
        alice.close()


def test_the_bridge_strikes_the_first_blow_as_armed_and_never_while_paused(
    fresh: tuple[EmbeddedWorld, Daemon],
) -> None:
    """The reflex arms the bridge ahead of time (pepa.policy.reflex.firstblow): a zombie that
    appears in reach is struck on its spawn, before Python hears of it, and the reflex goes on
    with the fight. A pause disarms the bridge before the pause is announced."""
    world, daemon = fresh
    status = lambda e: e["type"] == "status"  # noqa: E731
    with daemon.client() as client:
        client.wait_for(lambda e: status(e) and e["hp"] == 20, timeout=15)
        client.send(protocol.Pause())
        client.wait_for(lambda e: status(e) and e["paused"] is True, timeout=10)
        mark = len(daemon.lines)
        still = world.op("spawn_mob", player=BOT, name="zombie", dx=2)["ids"][0]
        wait_for_threat(client, "zombie")  # the bridge has had its spawn for a while
        assert zombie_health(world, [still]) == {still: 20}
        assert daemon.count("first blow, in the bridge", start=mark) == 0
        world.op("remove_mobs")
        client.wait_for(lambda e: status(e) and not e["threats"], timeout=15)
        mark = len(daemon.lines)
        client.send(protocol.Resume())
        daemon.wait_line("first blow: the bridge armed", start=mark, timeout=15)
        mark = len(daemon.lines)
        struck = world.op("spawn_mob", player=BOT, name="zombie", dx=2)["ids"][0]
        line = daemon.wait_line("first blow, in the bridge", start=mark, timeout=15)
        assert "defend: combat.attack-nearest zombie" in daemon.lines[line]
        eventually(lambda: zombie_hit(world, struck), 10, "the zombie to be hit")


def centre(points: list[dict[str, float]]) -> dict[str, float]:
    return {k: sum(p[k] for p in points) / len(points) for k in ("x", "y", "z")}


def test_three_zombies_at_low_health_are_outrun_not_just_stepped_from(
    fresh: tuple[EmbeddedWorld, Daemon],
) -> None:
    """The old flight ran 16 blocks and stopped, and the zombies caught up: this one goes on."""
    world, daemon = fresh
    world.op("set_health", player=BOT, hp=6)
    ids = world.op("spawn_mob", player=BOT, name="zombie", count=3, dx=4, spacing=1, ai=True)["ids"]
    start = me(world)["position"]
    herd = centre([z["position"] for z in zombies(world)])
    deaths = daemon.count("died at")

    def clear() -> bool:
        here = me(world)["position"]
        herd_now = [z for z in zombies(world) if z["id"] in ids]
        assert len(herd_now) == 3, herd_now  # a zombie gone is not one outrun
        return min(distance(here, z["position"]) for z in herd_now) > 22

    eventually(clear, 40, "the bot to get over 22 blocks from every zombie")
    herd_now = [z for z in zombies(world) if z["id"] in ids]
    assert len(herd_now) == 3 and all(z["position"]["y"] > start["y"] - 2 for z in herd_now)
    here = me(world)["position"]
    assert distance(here, herd) > distance(start, herd) + 15  # away from their centre
    assert me(world)["health"] > 0 and daemon.count("died at") == deaths
    assert zombie_health(world, ids) == dict.fromkeys(ids, 20)  # it ran; it did not fight


def test_a_zombie_stays_on_the_ground_through_a_long_server_tick(
    fresh: tuple[EmbeddedWorld, Daemon],
) -> None:
    """flying-squid moved a mob a whole tick's fall at once: after a 0.6 s stall (a loaded
    machine) a zombie went through the floor into the void. The plugin steps its physics."""
    world, _ = fresh
    ground = me(world)["position"]["y"]
    world.op("spawn_mob", player=BOT, name="zombie", dx=3, ai=False)
    for _ in range(3):
        world.op("stall", ms=600)
        tick = world.op("ping")["tick"]
        eventually(lambda t=tick: world.op("ping")["tick"] > t, 10, "a tick after the stall")
    (zombie,) = zombies(world)
    assert zombie["position"]["y"] > ground - 1, zombie


@pytest.fixture(scope="module")
def sandbox_arena() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    """The survival sandbox (its creepers swell and explode), natural spawning off, at noon."""
    with own_daemon(time=6000) as both:
        yield both


def test_the_bot_does_not_stay_next_to_a_creeper(
    sandbox_arena: tuple[EmbeddedWorld, Daemon],
) -> None:
    """Spawned 2 blocks from a bare-handed bot, inside the 3 where its fuse lights (1.5 s to
    the blast; once lit it burns on until its target is 7 blocks off): the bot strikes once
    and backs off beyond 7. The old policy stood and swung until the blast."""
    world, daemon = sandbox_arena
    world.op("clear_inventory", player=BOT)
    world.op("set_health", player=BOT, hp=20)
    creeper = world.op("spawn_mob", player=BOT, name="creeper", dx=2)["ids"][0]

    def away() -> bool:
        state = world.op("life_mob", mob=creeper)
        assert state["alive"], "the creeper blew up next to the bot"
        return distance(me(world)["position"], state["position"]) > 7.0

    eventually(away, 20, "the bot to back off beyond 7 blocks of the creeper")
    assert me(world)["health"] == 20
    assert daemon.count("creeper") >= 1
