"""A fight that pre-empts a walk is not being stuck: no stuck verdict, and the walk resumes.

On a real flying-squid world with a ``pepa start`` daemon: the bot walks to
an operator on a ``come`` order, three zombies close in at low health, the
bot flees (defend pre-empts the walk: the pathfinder ends it with "goal was
changed", as it does every flight re-target), the zombies are removed, the
walk resumes and the bot arrives. Before the watchdog knew pre-emption from
a stall this climbed the whole ladder (re-path, pillar up, dig out) in
milliseconds; now the daemon's log holds no ``stuck`` line.
"""

from __future__ import annotations

from typing import Any

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import Player, distance, server_player, teleport

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

BOT = "pepa_bot"


def me(world: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(world, BOT)
    assert player is not None
    return player


def test_a_flight_during_a_walk_is_never_stuck_and_the_walk_resumes(
    world: EmbeddedWorld, bot: Daemon
) -> None:
    alice = Player(world, "alice")
    try:
        here = me(world)["position"]
        teleport(world, alice, here["x"] + 40, here["y"], here["z"])
        start = len(bot.lines)
        mark = alice.mark()
        alice.say(f"{BOT} come")
        bot.wait_line("operator: nav.goto alice", 30, start=start)
        world.op("set_health", player=BOT, hp=6)
        # ahead of the bot, between it and alice: low health and three of them make it run
        world.op("spawn_mob", player=BOT, name="zombie", count=3, dx=4, ai=True, damage=1)
        bot.wait_line("defend: survive.flee", 15, start=start)
        fled_from = me(world)["position"]
        eventually(
            lambda: distance(me(world)["position"], fled_from) >= 6, 20, "the bot to run 6 blocks"
        )
        world.op("remove_mobs", name="zombie")  # the fight is over
        alice.reply_from(BOT, "Here I am", start=mark, timeout=45)  # the walk resumed and arrived
        there = server_player(world, "alice")
        assert there is not None and distance(me(world)["position"], there["position"]) <= 3.0
        stuck = [line for line in bot.lines[start:] if "stuck" in line]
        assert stuck == [], "\n".join(stuck)
    finally:
        alice.close()
