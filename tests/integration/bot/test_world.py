"""The bot in a real world: flying-squid on 127.0.0.1, mineflayer through JSPyBridge.

Each test here ends or breaks what it runs in (a stop, a kick, a server restart, a kill -9, a
crash), so each starts its own world (with the scenario plugin's control channel) and a real
``pepa start --host 127.0.0.1 --port P`` daemon, plus scripted players. The tests that leave
both as they found them share one in ``test_world_chat.py``.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from pepa.ipc import protocol
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.world_harness import Player, server_player, teleport, wait_near

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

BOT = "pepa_bot"
BOT_FLAGS = ("--fault-injection",)
"""The ``bot`` fixture's daemon takes fault injections (``cmd:fault``)."""


def start_bot(short_tmp: Path, world: EmbeddedWorld, *args: str, **kwargs: object) -> Daemon:
    daemon = Daemon(
        short_tmp, "--operators", "alice", *args, host="127.0.0.1", port=world.port, **kwargs
    )  # type: ignore[arg-type]
    daemon.in_world()
    return daemon


def test_operator_stop_ends_the_daemon(alice: Player, bot: Daemon) -> None:
    mark = alice.mark()
    alice.say(f"{BOT} stop")
    alice.reply_from(BOT, "Stopping", start=mark)
    assert bot.wait() == 0


def test_kick_is_followed_by_a_reconnect(world: EmbeddedWorld, bot: Daemon) -> None:
    first = bot.in_world()
    world.op("kick", player=BOT, reason="test kick")
    bot.in_world(start=first + 1)
    assert server_player(world, BOT) is not None


def test_server_restart_is_followed_by_a_reconnect(world: EmbeddedWorld, bot: Daemon) -> None:
    first = bot.in_world()
    world.stop()
    bot.wait_line("disconnected:", start=first)
    world.start()
    bot.in_world(start=first + 1)


def test_kill_9_of_the_worker_brings_the_bot_back(world: EmbeddedWorld, bot: Daemon) -> None:
    first = bot.in_world()
    os.kill(bot.worker_pid(), signal.SIGKILL)
    bot.in_world(start=first + 1)
    with bot.client() as client:
        client.wait_for(lambda e: e["type"] == "status" and e["connected"], timeout=15)


@pytest.mark.parametrize("actor", ["perception", "reflex"])
def test_actor_crash_keeps_the_minecraft_connection(
    world: EmbeddedWorld, bot: Daemon, actor: str
) -> None:
    before = server_player(world, BOT)
    assert before is not None
    with bot.client() as client:
        client.send(protocol.Fault(actor=actor, kind="crash"))
        client.wait_for(
            lambda e: e["type"] == "actor" and e["name"] == actor and e["state"] == "running",
            timeout=15,
        )
        world.op("set_health", player=BOT, hp=9)
        client.wait_for(lambda e: e["type"] == "status" and e["hp"] == 9, timeout=15)
    after = server_player(world, BOT)
    assert after is not None and after["id"] == before["id"]  # same entity: never reconnected
    assert bot.count("disconnected:") == 0
    assert bot.count("in the world at") == 1


def test_authme_registers_first_then_logs_in(short_tmp: Path, world: EmbeddedWorld) -> None:
    daemon = start_bot(short_tmp, world, env={"MC_PASSWORD": "s3cret-pw"})
    try:
        first = daemon.in_world()
        registered = daemon.wait_line("AuthMe: registered", start=first)
        world.op("kick", player=BOT)
        daemon.in_world(start=registered)
        daemon.wait_line("AuthMe: logged in", start=registered)
    finally:
        daemon.close()
    log = [(e["command"], e["ok"]) for e in world.op("auth_log") if e["player"] == BOT]
    assert ("register", True) in log
    assert log.index(("register", True)) < log.index(("login", True))
    assert "s3cret-pw" not in "\n".join(daemon.lines)


def test_follow_is_resumed_after_a_worker_restart(
    world: EmbeddedWorld, alice: Player, bot: Daemon
) -> None:
    mark = alice.mark()
    alice.say(f"{BOT} follow")
    alice.reply_from(BOT, "Following you", start=mark)
    task = bot.socket.parent / "current-task.json"
    with bot.client() as client:
        client.wait_for(
            lambda e: e["type"] == "status" and e["currentSkill"] == "nav.follow alice", timeout=10
        )
    assert task.exists()
    first = bot.in_world()
    os.kill(bot.worker_pid(), signal.SIGKILL)
    bot.in_world(start=first + 1)
    bot.wait_line("resuming task from current-task.json", start=first + 1)
    me = server_player(world, BOT)
    assert me is not None
    pos = me["position"]
    teleport(world, alice, pos["x"] + 12, pos["y"], pos["z"])
    wait_near(world, BOT, "alice", 4.0)
    mark = alice.mark()
    alice.say(f"{BOT} stay")
    alice.reply_from(BOT, "Staying here", start=mark)
