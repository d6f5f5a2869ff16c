"""Operator identity in a real world: flying-squid (offline mode) and a real ``pepa start``.

flying-squid gives every player the offline UUID derived from the exact name
(``OfflinePlayer:<name>``), so ``ALICE`` is another account than ``alice``
although the names fold to the same text.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import orjson
import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import Player

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

BOT = "pepa_bot"


def offline_uuid(name: str) -> str:
    """The account an offline-mode server gives ``name`` (Java's nameUUIDFromBytes)."""
    return str(uuid.UUID(bytes=hashlib.md5(f"OfflinePlayer:{name}".encode()).digest(), version=3))


def test_the_operators_account_is_obeyed_and_a_look_alike_name_is_not(
    short_tmp: Path, world: EmbeddedWorld
) -> None:
    """``ALICE`` joins first and gives the first order: nothing is bound, alice still can be."""
    daemon = Daemon(short_tmp, "--operators", "alice", host="127.0.0.1", port=world.port)
    players: list[Player] = []
    try:
        daemon.in_world()
        bindings = daemon.socket.parent / "operators.json"
        impostor = Player(world, "ALICE")  # the same name folded, another account
        players.append(impostor)
        daemon.wait_line("player ALICE (account " + offline_uuid("ALICE"))
        daemon.wait_line("configure that exact spelling")
        mark = impostor.mark()
        impostor.say(f"{BOT} stop")
        impostor.reply_from(BOT, "only take orders from my operators", start=mark)
        daemon.wait_line("operator name without the operator's account")
        assert not bindings.exists()  # joining first under a look-alike name binds nothing
        assert daemon.proc.poll() is None

        alice = Player(world, "alice")
        players.append(alice)
        eventually(bindings.exists, 30, "alice's account bound from the player list")
        assert orjson.loads(bindings.read_bytes())["accounts"] == {"alice": offline_uuid("alice")}
        mark = alice.mark()
        alice.say(f"{BOT} stop")
        alice.reply_from(BOT, "Stopping, as alice asked", start=mark)
        assert daemon.wait() == 0
    finally:
        for player in players:
            player.close()
        daemon.close()
