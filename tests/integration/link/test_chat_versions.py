"""Operator chat on a server that sends player chat as system lines: flying-squid at 1.20.4
(from 1.19 it sends every player line as system chat ``<name> text``, as many proxies and
chat plugins do). Before chat_line.js read system lines, the bot joined such a server and
never heard an order. A real flying-squid, a real ``pepa start``, real clients at 1.20.4."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.world_harness import Player, own_daemon

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("chat_versions")]

VERSION = "1.20.4"
BOT = "pepa_bot"


@pytest.fixture(scope="module")
def newer() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    with own_daemon(sandbox=False, version=VERSION) as both:
        yield both


@pytest.mark.timeout(120)
def test_an_operator_is_heard_in_system_chat_and_a_stranger_is_refused(
    newer: tuple[EmbeddedWorld, Daemon],
) -> None:
    world, daemon = newer
    alice = Player(world, "alice", version=VERSION)
    mallory = Player(world, "mallory", version=VERSION)
    try:
        start = alice.mark()
        alice.say(f"{BOT} status")
        assert alice.reply_from(BOT, "HP", start=start).startswith("HP 20/20")
        daemon.wait_line("operator alice: status", 20)  # the reply may come before the log line
        assert daemon.count("operator alice: status") == 1
        start = mallory.mark()
        mallory.say(f"{BOT} stop")
        mallory.reply_from(BOT, "Sorry mallory, I only take orders from my operators", start=start)
        daemon.wait_line("ignored 'stop' from mallory: not an operator", 20)
        mallory.say(f"<alice> {BOT} stop")  # alice's name quoted in mallory's line
        start = alice.mark()
        alice.say(f"{BOT} come")
        alice.reply_from(BOT, "Here I am", start=start, timeout=60)  # it saw her and walked
        assert daemon.count("operator alice: stop") == 0  # the quoted name gave no order
    finally:
        alice.close()
        mallory.close()
