"""Closed loops on the real sandbox: a death by a cause teaches the bot, and the same situation
after the respawn goes otherwise, by the lesson the log names.

The first exposure is made lethal by pausing the reflex loop (``cmd:pause``: the
bot stands still, perception and the knowledge base go on), so the death is the
cause's and not a weak policy's; the second exposure is the same fight (the same
health bucket, gear and crowd: the lesson's situation) with the loop running.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.ipc import protocol
from pepa.world.embedded import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import distance, own_daemon, server_player

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("closed_loop")]

BOT = "pepa_bot"
HP = 10
"""The bot's health at both exposures: the lesson is about fights at this health (``mid``)."""


@pytest.fixture(scope="module")
def sandbox() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    with own_daemon(time=6000) as both:
        yield both


def me(world: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(world, BOT)
    assert player is not None
    return player


@pytest.mark.timeout(180)
def test_blown_up_by_a_creeper_the_bot_keeps_away_from_the_next_one(
    sandbox: tuple[EmbeddedWorld, Daemon],
) -> None:
    world, daemon = sandbox
    world.op("clear_inventory", player=BOT)
    with daemon.client() as client:
        client.send(protocol.Pause())
        client.wait_for(lambda e: e["type"] == "status" and e.get("paused") is True, 15)
        death = None
        for _ in range(4):  # the blast's damage varies with the creeper's last step
            world.op("remove_mobs")
            world.op("set_health", player=BOT, hp=HP)
            world.op("spawn_mob", player=BOT, name="creeper", dx=1)
            try:
                death = client.wait_for("death", timeout=20)
                break
            except TimeoutError:
                continue
        assert death is not None, "four creepers next to a paused bot on 10 hp did not kill it"
        assert death["cause"]["kind"] == "explosion" and death["cause"]["killer"] == "creeper"
        daemon.wait_line("lesson (offline): blown up: keep 7 blocks from creepers", 30)
        world.op("remove_mobs")
        eventually(lambda: me(world)["health"] == 20, 30, "the respawn")
        client.send(protocol.Resume())
        client.wait_for(lambda e: e["type"] == "status" and e.get("paused") is False, 15)
    world.op("set_health", player=BOT, hp=HP)
    mark = len(daemon.lines)
    creeper = world.op("spawn_mob", player=BOT, name="creeper", dx=6)["ids"][0]
    daemon.wait_line("keeping 7 from the creeper", 30, start=mark)

    def clear() -> bool:  # over 7 blocks away, or the creeper went off (a flight outran it)
        state = world.op("life_mob", mob=creeper)
        return not state["alive"] or distance(me(world)["position"], state["position"]) > 7.0

    eventually(clear, 30, "the bot to keep over 7 blocks from the creeper")
    state = world.op("life_mob", mob=creeper)
    assert not state["alive"] or state["health"] == 20  # never struck: the default policy does
    assert me(world)["health"] > 0 and daemon.count("death 2 recorded") == 0
