"""broadcast.js: a packet told to many players is serialized, compressed and framed once.

``tests/js/broadcast.js`` tells three players packets through ``serv._writeArray`` with the
plugin, over minecraft-protocol's own server-side clients on loopback sockets, and each reference
connection the same packets through its client's own ``client.write``. Each player reads exactly
its reference's bytes: a small packet and a compressed one framed once; a packet outside the
shared set, and one told to a single player, on the player's own stream; and a player with a
packet still in its framer gets the next broadcast after it, on its own stream too.
"""

from __future__ import annotations

import pytest

from pepa.game.versions import PLAYED, SANDBOX_VERSION
from tests.js import run_script

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("version", [PLAYED[0], SANDBOX_VERSION, PLAYED[-1]])
def test_each_player_reads_the_bytes_its_own_stream_would_have_sent(version: str) -> None:
    report = run_script("broadcast.js", version, timeout=50)
    assert report["same"] == [True, True, True]
    # four broadcasts framed once each; player 1's third went on its own stream, in order
    assert report["framed"] == [4, 3, 4]
