"""corked.js: the world server's packets to a player in fewer system calls, in order.

``tests/js/corked.js`` corks the server side of a real loopback connection as the world server
does for each player, writes 5 packets in one callback and 3 in another of the same turn of the
event loop, and counts the socket's system calls. Per callback (the event loop on time) the
two callbacks' packets go out in 2 calls; per turn (the loop behind) in 1; with the loop held
up 150 ms, ``watchLoop`` switches to per turn by itself. Uncorked, the 8 packets were 8 calls.
The other end reads every byte in the order written.
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = pytest.mark.timeout(60)

SENT = "a1a2a3a4a5b1b2b3"


@pytest.mark.parametrize(
    ("mode", "calls"),
    [
        ("off", [("write", 1)] * 8),
        ("callback", [("writev", 5), ("writev", 3)]),
        ("turn", [("writev", 8)]),
        ("watched", [("writev", 8)]),
    ],
)
def test_a_players_packets_leave_in_one_call_per_callback_or_per_turn(
    mode: str, calls: list[tuple[str, int]]
) -> None:
    report = run_script("corked.js", mode, timeout=50)
    assert [(c["kind"], c["chunks"]) for c in report["calls"]] == calls
    assert report["received"] == SENT
