"""The embedded world's teleports and block changes (``pepa/worldserver/js/fixes/``): a player
teleported far gets the chunks of its new place, the server keeps the place its client took, and
a block set while its chunk goes out reaches the client (tests/js/teleport_chunks.js:
flying-squid and one mineflayer client in one Node process).

Each of these fails it: flying-squid alone (a login waits for a `flying` or `look` packet that an
idle client answering in `position` packets never sends; no chunks after a teleport); chunks
sent half a second after a teleport unless a batch is going out (a walled-in bot stood in air it
could not see); one batch owed at a time (a teleport during that batch got none, the second
round); moves taken before the client confirmed a teleport (its stale moves put the player back
where it was, the first round); flying-squid's setBlock, which tells the players before it
changes the world (the last round: a walled-in bot saw 2 of its 4 walls and no roof).
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = [pytest.mark.integration, pytest.mark.timeout(150)]


def test_a_teleported_player_gets_the_chunks_of_its_new_place_and_sees_its_blocks() -> None:
    out = run_script("teleport_chunks.js", timeout=140)
    assert out["loginSeconds"] is not None
    assert [r["landed"] for r in out["rounds"]] == [True, True, True], out
