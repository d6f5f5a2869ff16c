"""Who said a chat line, in every form servers send one (pepa/link/js/chat_line.js), run
through node on lines as mineflayer hands them over: player chat, whispers, system lines of
the form ``<name> text`` (flying-squid from 1.19, many proxies and chat plugins), and an
operator's ``--chat-pattern``. No line names a sender who is not on the player list, and
nothing quoted inside another player's line is ever that player's."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from pepa.base.node import node_binary
from pepa.link.minecraft import BOT_JS

pytestmark = pytest.mark.timeout(60)

LISTED = ("alice", "bob", "pepa_bot")
ALICE_UUID = "0d3e5a1c-7a61-4c86-9a55-3f7d6b7f0a11"
RUN = """
const { parseChat, chatPattern } = require(process.env.CHAT_LINE)
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'))
const listed = new Set(JSON.parse(process.env.LISTED))
const out = cases.map(c => parseChat(Object.assign({}, c, {
  onList: (n) => listed.has(n),
  nameOf: (u) => (u === process.env.ALICE_UUID ? 'alice' : null),
  pattern: chatPattern(c.pattern || null),
})))
process.stdout.write(JSON.stringify(out))
"""


def parsed(*cases: dict[str, Any]) -> list[tuple[str, str | None, str, str | None]]:
    """(kind, from, text, source) of each line, as chat_line.js reads it."""
    result = subprocess.run(
        [node_binary(), "-e", RUN], input=json.dumps(list(cases)), capture_output=True,
        text=True, timeout=30, check=True,
        env={"CHAT_LINE": str(BOT_JS / "chat_line.js"), "LISTED": json.dumps(LISTED),
             "ALICE_UUID": ALICE_UUID, "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    return [(r["kind"], r["from"], r["text"], r["source"]) for r in json.loads(result.stdout)]


def line(text: str, position: str = "system", **more: Any) -> dict[str, Any]:
    return {"line": text, "position": position, "sender": None, "translate": None, "args": None,
            **more}  # fmt: skip


def test_player_chat_names_its_sender_by_account_key_or_prefix() -> None:
    assert parsed(
        line("<alice> pepa_bot come", "chat", sender=ALICE_UUID),
        line("alice: hi", "chat", translate="chat.type.text", args=["alice", "pepa_bot come"]),
        line("<bob> pepa_bot stop", "chat", sender="0"),  # flying-squid's nil sender
        line("who knows", "chat", sender="7c1f6a2e-0000-4000-8000-000000000001"),
    ) == [
        ("player", "alice", "pepa_bot come", "uuid"),
        ("player", "alice", "pepa_bot come", "translate"),
        ("player", "bob", "pepa_bot stop", "regex"),
        ("player", None, "who knows", None),  # a real account: a player's, never the server's
    ]


def test_a_system_line_of_a_listed_player_is_that_players_chat() -> None:
    assert parsed(
        line("<alice> pepa_bot come"),  # flying-squid 1.19+: player chat as system chat
        line("<mallory> pepa_bot come"),  # not on the player list
        line("<bob> <alice> pepa_bot come"),  # alice quoted inside bob's line
        line("[Server] <alice> pepa_bot come"),  # not at the start
        line("<alice> pepa_bot come", "game_info"),  # the action bar
    ) == [
        ("player", "alice", "pepa_bot come", "system-line"),
        ("system", None, "<mallory> pepa_bot come", None),
        ("player", "bob", "<alice> pepa_bot come", "system-line"),
        ("system", None, "[Server] <alice> pepa_bot come", None),
        ("system", None, "<alice> pepa_bot come", None),
    ]


def test_whispers_by_key_or_by_line_name_their_sender() -> None:
    incoming = "commands.message.display.incoming"
    assert parsed(
        line("alice whispers to you: come", "chat", translate=incoming, args=["alice", "come"]),
        line("x", "chat", translate=incoming, args=["x", "come"], sender=ALICE_UUID),
        line("alice whispers to you: stop"),
        line("mallory whispers to you: stop"),
        line("x", "chat", translate=incoming, args=["mallory", "stop"]),
    ) == [
        ("whisper", "alice", "come", "translate"),
        ("whisper", "alice", "come", "uuid"),  # the account names the sender, not the text
        ("whisper", "alice", "stop", "system-line"),
        ("system", None, "mallory whispers to you: stop", None),
        ("system", None, "x", None),
    ]


def test_an_operators_pattern_reads_a_chat_plugins_format() -> None:
    vip = r"\[\w+\] (?<name>\w+) » (?<text>.*)"
    assert parsed(
        line("[VIP] alice » pepa_bot come", pattern=vip),
        line("[VIP] carol » pepa_bot come", pattern=vip),  # not on the list
        line("note: [VIP] alice » pepa_bot come", pattern=vip),  # anchored at the start
        line("[VIP] alice » pepa_bot come"),  # no pattern set: a system line
        line("note: [VIP] alice » pepa_bot come", pattern=f"x|{vip}"),  # sticky: no way round
    ) == [
        ("player", "alice", "pepa_bot come", "pattern"),
        ("system", None, "[VIP] carol » pepa_bot come", None),
        ("system", None, "note: [VIP] alice » pepa_bot come", None),
        ("system", None, "[VIP] alice » pepa_bot come", None),
        ("system", None, "note: [VIP] alice » pepa_bot come", None),
    ]
