"""Survival scenarios on a real flying-squid server: the bot fights, flees, eats, sleeps, escapes.

One world and one ``pepa start --host 127.0.0.1`` daemon for the module. Each
scenario gets untouched ground of its own, 64 blocks from the others' pits,
walls and rooms, and all within 128 blocks of the spawn, where every client
(alice joins there) holds the chunks (mineflayer falls through a floor it has
not got yet); and noon, no mobs, an empty inventory, full health and food. It
is set up on the server side through the scenario plugin.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from pepa.ipc import protocol
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
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

pytestmark = [
    pytest.mark.integration, pytest.mark.timeout(180), pytest.mark.xdist_group("survival")
]  # fmt: skip

BOT = "pepa_bot"
GROUNDS = [(dx, dz) for dx in (0, 64, -64, 128, -128) for dz in (0, 64, -64)]
"""Offsets from where the bot came into the world: a scenario's ground each, in turn."""
_grounds = itertools.count()


@pytest.fixture(scope="module")
def both() -> Iterator[tuple[EmbeddedWorld, Daemon, dict[str, float]]]:
    with own_daemon(sandbox=False, time=None) as (world, daemon):
        yield world, daemon, me(world)["position"]


@pytest.fixture
def world(both: tuple[EmbeddedWorld, Daemon, dict[str, float]]) -> EmbeddedWorld:
    """The shared world, the bot on fresh ground as it came into the world."""
    world, daemon, first = both
    world.op("remove_mobs")
    world.op("clear_inventory", player=BOT)
    world.op("set_time", time=6000, cycle=False)
    world.op("set_health", player=BOT, hp=20)
    world.op("set_food", player=BOT, food=20, saturation=5)
    spot = dict(first)
    dx, dz = GROUNDS[next(_grounds) % len(GROUNDS)]
    spot["x"], spot["z"] = first["x"] + dx, first["z"] + dz
    teleport(world, BOT, spot["x"], spot["y"], spot["z"])
    with daemon.client() as client:  # the bot's own view there: a plan from the old one misleads
        client.wait_for(
            lambda e: e["type"] == "status" and bool(e.get("position"))
            and distance(e["position"], spot) < 1, timeout=30,
        )  # fmt: skip
    return world


@pytest.fixture
def bot(both: tuple[EmbeddedWorld, Daemon, dict[str, float]]) -> Daemon:
    return both[1]


def me(world: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(world, BOT)
    assert player is not None
    return player


def animals(world: EmbeddedWorld) -> dict[int, float]:
    """Each cow's and pig's health (the earlier scenarios' dropped items have none)."""
    return {m["id"]: m["health"] for m in world.op("entities") if m["name"] in ("cow", "pig")}


def test_zombie_three_blocks_away_is_hit(world: EmbeddedWorld, bot: Daemon) -> None:
    mark = len(bot.lines)
    (zombie,) = world.op("spawn_mob", player=BOT, name="zombie", dx=3)["ids"]
    eventually(lambda: zombie_hit(world, zombie), 15, "the zombie to lose health")
    bot.wait_line("defend", start=mark)


def test_three_zombies_and_low_health_make_the_bot_run(world: EmbeddedWorld, bot: Daemon) -> None:
    world.op("set_health", player=BOT, hp=6)
    ids = world.op("spawn_mob", player=BOT, name="zombie", count=3, dx=4, spacing=1)["ids"]
    start = me(world)["position"]
    herd = [z["position"] for z in zombies(world)]
    assert len(herd) == 3

    def farther() -> bool:
        here = me(world)["position"]
        return min(distance(here, z) for z in herd) > min(distance(start, z) for z in herd) + 6

    eventually(farther, 30, "the bot to get 6 blocks farther from the zombies")
    assert zombie_health(world, ids) == dict.fromkeys(ids, 20)  # it ran; it did not fight


def test_hungry_bot_with_bread_eats(world: EmbeddedWorld, bot: Daemon) -> None:
    world.op("give", player=BOT, item="bread", count=3)
    world.op("set_food", player=BOT, food=5, saturation=0)
    eventually(lambda: me(world)["food"] > 5, 20, "food to rise")
    assert me(world)["food"] in (10, 15, 20)  # bread: 5 food points a loaf


def test_night_with_a_bed_nearby_is_slept_through(world: EmbeddedWorld, bot: Daemon) -> None:
    pos = me(world)["position"]
    world.op("place_bed", x=int(pos["x"]) + 5, y=int(pos["y"]), z=int(pos["z"]))
    mark = len(bot.lines)
    world.op("set_time", time=14000, cycle=False)
    eventually(lambda: world.op("ping")["time"] < 12000, 40, "the night to be skipped")
    bot.wait_line("sleep: survive.sleep", start=mark)


def test_bot_in_a_pit_with_dirt_climbs_out(world: EmbeddedWorld, bot: Daemon) -> None:
    world.op("give", player=BOT, item="dirt", count=16)
    bottom = world.op("pit", player=BOT, depth=3)["bottom"]
    eventually(lambda: me(world)["position"]["y"] < bottom["y"] + 0.5, 20, "the fall")
    mark = len(bot.lines)
    try:  # a generous bound (a loaded CI machine): 3 s to see it is trapped, then 3 blocks up
        eventually(lambda: me(world)["position"]["y"] >= bottom["y"] + 3, 60, "the climb out")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the daemon said:\n" + "\n".join(bot.lines[mark:])) from None


def test_walled_in_bot_with_a_pickaxe_digs_out(world: EmbeddedWorld, bot: Daemon) -> None:
    world.op("give", player=BOT, item="diamond_pickaxe", count=1)
    # noon: by dusk walls are a shelter, not a trap, and a slow run of this module had
    # reached dusk by this test (the bot then stood in its cell, rightly)
    world.op("set_time", time=6000)

    with bot.client() as client:

        def at_rest() -> bool:
            # the last test's climb may still be under way: walled in at the server's last
            # place, a bot that walked on a block (CI-like runs s32b, s32c: its view at x - 1,
            # the server's cell complete) stood in its west wall, 2 sides open and no roof
            client.send(protocol.Snapshot())
            status = client.wait_for("status", timeout=10)
            here, seen = me(world)["position"], status.get("position")
            return (
                not status["moving"] and status["activeReflex"] is None
                and status["currentSkill"] is None and seen is not None
                and distance(here, seen) < 0.3
            )  # fmt: skip

        eventually(at_rest, 60, "the bot at rest where the server has it")
    mark = len(bot.lines)
    feet = world.op("wall_in", player=BOT, block="stone", height=2)["feet"]

    def out() -> bool:
        here = me(world)["position"]
        return abs(here["x"] - (feet["x"] + 0.5)) > 1.5 or abs(here["z"] - (feet["z"] + 0.5)) > 1.5

    try:  # a generous bound: twice in CI it was not out after 40 s, with no word of why
        eventually(out, 90, "the bot to leave its stone cell")
    except AssertionError as exc:
        # whether the server has the whole cell (a bot that sees less lost block updates)
        cell = [(dx, dy, dz) for dy in (0, 1) for dx in (-1, 0, 1) for dz in (-1, 0, 1)
                if (dx, dz) != (0, 0)] + [(0, 2, 0)]  # fmt: skip
        missing = [
            (dx, dy, dz) for dx, dy, dz in cell
            if world.op("block_at", player=BOT, x=feet["x"] + dx, y=feet["y"] + dy,
                        z=feet["z"] + dz)["name"] != "stone"
        ]  # fmt: skip
        raise AssertionError(
            f"{exc}; the server's cell at {feet} lacks {missing or 'nothing'} (dx, dy, dz); "
            "the daemon said:\n" + "\n".join(bot.lines[mark:])
        ) from None


def test_come_walks_around_a_wall(world: EmbeddedWorld, bot: Daemon) -> None:
    alice = Player(world, "alice")
    try:
        here = me(world)["position"]
        x, y, z = int(here["x"]), int(here["y"]), int(here["z"])
        world.op("fill", x1=x + 10, y1=y, z1=z - 6, x2=x + 10, y2=y + 2, z2=z + 6, block="stone")
        teleport(world, alice, x + 30, y, z)
        mark = alice.mark()
        alice.say(f"{BOT} come")
        alice.reply_from(BOT, "Here I am", start=mark, timeout=90)
        assert distance(me(world)["position"], server_player(world, "alice")["position"]) <= 3.0
    finally:
        alice.close()


def test_three_identical_failures_write_one_proposal(world: EmbeddedWorld, bot: Daemon) -> None:
    alice = Player(world, "alice")
    try:
        here = me(world)["position"]
        x, y, z = int(here["x"]) + 12, int(here["y"]), int(here["z"])
        # a sealed bedrock room, 5x3x5 inside, down to the world's floor (the bot digs tunnels):
        # from outside nobody gets within 2 blocks of alice
        world.op("fill", x1=x - 3, y1=0, z1=z - 3, x2=x + 3, y2=y + 3, z2=z + 3, block="bedrock")
        world.op("fill", x1=x - 2, y1=y, z1=z - 2, x2=x + 2, y2=y + 2, z2=z + 2, block="air")
        teleport(world, alice, x + 0.5, y, z + 0.5)
        proposals = bot.socket.parent / "proposals"
        earlier = set(proposals.glob("*.md"))
        for _ in range(3):
            mark = alice.mark()
            alice.say(f"{BOT} come")
            alice.reply_from(BOT, "I can't reach you", start=mark, timeout=60)
        files = eventually(
            lambda: sorted(set(proposals.glob("*.md")) - earlier), 10, "the proposal file"
        )
        assert len(files) == 1
        assert "nav.goto alice" in files[0].read_text()
        # the file is on disk before the knowledge actor tells the IPC actor: a status
        # sent in between still has the old count, and a later one must have the new
        expected = len(earlier) + 1
        with bot.client() as client:
            client.send({"type": "cmd:snapshot"})
            client.wait_for(
                lambda ev: ev["type"] == "status" and ev["pendingProposals"] == expected, 10
            )
    finally:
        alice.close()


def test_passive_mobs_and_players_are_never_attacked(world: EmbeddedWorld, bot: Daemon) -> None:
    alice = Player(world, "alice")
    try:
        here = me(world)["position"]
        teleport(world, alice, here["x"] + 2, here["y"], here["z"])
        mark = len(bot.lines)
        world.op("spawn_mob", player=BOT, name="cow", dx=-2)
        world.op("spawn_mob", player=BOT, name="pig", dz=2)
        before = animals(world)
        assert len(before) == 2
        with bot.client() as client:  # 3 s of the bot's own view: plenty of decisions
            for _ in range(3):
                client.wait_for("status", timeout=10)
        after = animals(world)
        assert after == before
        assert server_player(world, "alice")["health"] == 20
        assert bot.count("defend", start=mark) == 0
    finally:
        alice.close()
