"""The sandbox's packets.js: a player's packets take effect in the order they came, each one's
promise chains done before the next is handled, and a burst read in one turn of the event loop
handled in that turn (tests/js/packet_order.js, a stand-in client, no server).

Tried: without the plugin, listeners overlap; with its first version (one queued packet per turn
of the event loop) 2 of a burst of 60 were handled in the burst's turn: at 32 bots the queues
grew without end and the server kicked bots whose keepalive answers waited in them.
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = pytest.mark.timeout(60)


def test_packets_are_handled_one_at_a_time_in_order_and_a_burst_within_its_turn() -> None:
    out = run_script("packet_order.js", timeout=50)
    assert out["overlaps"] == [] and out["order"] == 0
    assert out["inTurn"] == 60  # the whole first burst, by the end of its turn
    assert out["handled"] == 60 + 1 + 25 + 1  # the last burst's first, then the player left
    assert out["afterEnd"] == 0
