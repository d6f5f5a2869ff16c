"""Operators, strangers and the socket in one real world: flying-squid on 127.0.0.1, one
``pepa start --host 127.0.0.1 --port P`` daemon and one scripted operator for the whole
module (each test leaves world and bot as it found them). Tests that stop, kick, restart or
crash what they run in start their own: ``test_world.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pepa.ipc import protocol
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import Player, distance, own_daemon, server_player, teleport

pytestmark = [
    pytest.mark.integration, pytest.mark.timeout(120), pytest.mark.xdist_group("world_chat")
]  # fmt: skip

BOT = "pepa_bot"


@pytest.fixture(scope="module")
def both() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    with own_daemon(sandbox=False) as pair:
        yield pair


@pytest.fixture
def world(both: tuple[EmbeddedWorld, Daemon]) -> EmbeddedWorld:
    return both[0]


@pytest.fixture
def bot(both: tuple[EmbeddedWorld, Daemon]) -> Daemon:
    return both[1]


@pytest.fixture(scope="module")
def alice(both: tuple[EmbeddedWorld, Daemon]) -> Iterator[Player]:
    player = Player(both[0], "alice")
    yield player
    player.close()


def test_snapshot_matches_the_servers_view(world: EmbeddedWorld, bot: Daemon) -> None:
    world.op("set_health", player=BOT, hp=13)
    world.op("set_food", player=BOT, food=7)
    try:
        with bot.client() as client:
            status = client.wait_for(
                lambda e: e["type"] == "status" and e["hp"] == 13 and e["food"] == 7, timeout=15
            )
        server = server_player(world, BOT)
    finally:  # as it was for the next test
        world.op("set_health", player=BOT, hp=20)
        world.op("set_food", player=BOT, food=20)
    assert server is not None
    assert status["connected"] is True
    assert distance(status["position"], server["position"]) < 0.5
    assert (server["health"], server["food"]) == (13, 7)


def test_hostile_next_to_the_bot_shows_up_as_a_threat(world: EmbeddedWorld, bot: Daemon) -> None:
    try:
        with bot.client() as client:
            world.op("spawn_mob", player=BOT, name="zombie", dx=3, ai=False)
            status = client.wait_for(lambda e: e["type"] == "status" and e["threats"], timeout=15)
    finally:
        world.op("remove_mobs")
    assert status["threats"][0]["name"] == "zombie"
    assert status["threats"][0]["distance"] < 5


def test_operator_gets_a_status_reply(alice: Player) -> None:
    mark = alice.mark()
    alice.say(f"{BOT} status")
    reply = alice.reply_from(BOT, "HP ", start=mark)
    assert "food" in reply and "threats: none" in reply


def call_from_the_east(world: EmbeddedWorld, alice: Player, blocks: float) -> tuple[Any, int]:
    """alice, put ``blocks`` east of the bot, tells it to come: its position then, her mark."""
    me = server_player(world, BOT)
    assert me is not None
    pos = me["position"]
    teleport(world, alice, pos["x"] + blocks, pos["y"], pos["z"])
    mark = alice.mark()
    alice.say(f"{BOT} come")
    alice.reply_from(BOT, "On my way", start=mark)
    return pos, mark


def arrives_beside(world: EmbeddedWorld, alice: Player, mark: int) -> None:
    alice.reply_from(BOT, "Here I am", start=mark, timeout=60)
    bot_now, alice_now = server_player(world, BOT), server_player(world, "alice")
    assert bot_now is not None and alice_now is not None
    assert distance(bot_now["position"], alice_now["position"]) <= 3.0


def test_come_brings_the_bot_to_the_operator(world: EmbeddedWorld, alice: Player) -> None:
    _, mark = call_from_the_east(world, alice, 20)
    arrives_beside(world, alice, mark)


def test_come_follows_an_operator_who_moves_on(world: EmbeddedWorld, alice: Player) -> None:
    pos, mark = call_from_the_east(world, alice, 30)

    def on_its_way() -> bool:
        now = server_player(world, BOT)
        return now is not None and now["position"]["x"] > pos["x"] + 5

    eventually(on_its_way, 30, "the bot 5 blocks on its way east")
    # while the bot walks the 30 blocks east, alice goes 39 blocks from there: the bot that
    # walked to where she was when she called says "Here I am" there, 39 blocks from her
    teleport(world, alice, pos["x"], pos["y"], pos["z"] + 25)
    arrives_beside(world, alice, mark)


def test_a_strangers_stop_is_refused_and_ignored(world: EmbeddedWorld, bot: Daemon) -> None:
    mallory = Player(world, "mallory")
    try:
        mark = mallory.mark()
        mallory.say(f"{BOT} stop")
        mallory.reply_from(BOT, "only take orders from my operators", start=mark)
        mallory.say(f"<alice> {BOT} stop")  # quoting an operator's name changes nothing
        mallory.say(f"{BOT} status")
        with bot.client() as client:
            client.send(protocol.Snapshot())
            assert client.wait_for("status", timeout=10)["connected"] is True
        assert bot.proc.poll() is None
        bot.wait_line("ignored 'status' from mallory")
    finally:
        mallory.close()


def test_pause_and_resume_from_chat(alice: Player, bot: Daemon) -> None:
    with bot.client() as client:
        mark = alice.mark()
        alice.say(f"{BOT} pause")
        alice.reply_from(BOT, "Paused", start=mark)
        client.wait_for(lambda e: e["type"] == "status" and e["paused"] is True, timeout=10)
        alice.say(f"{BOT} resume")
        alice.reply_from(BOT, "Resumed", start=mark)
        client.wait_for(lambda e: e["type"] == "status" and e["paused"] is False, timeout=10)


def test_unknown_verb_gets_a_polite_reply_and_help_lists_verbs(alice: Player) -> None:
    mark = alice.mark()
    alice.say(f"{BOT} dance")
    assert "don't know 'dance'" in alice.reply_from(BOT, "Sorry", start=mark)
    alice.say(f"{BOT} help")
    assert "follow" in alice.reply_from(BOT, "I understand", start=mark + 1)


def test_chat_from_the_socket_reaches_the_game(alice: Player, bot: Daemon) -> None:
    mark = alice.mark()
    with bot.client() as client:
        client.send(protocol.Chat(text="hello from the dashboard"))
    alice.reply_from(BOT, "hello from the dashboard", start=mark)
