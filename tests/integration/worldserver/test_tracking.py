"""A mob's moves and turns go out every 3 ticks, its turns with its moves, as vanilla's entity
tracker sends them, and every player sees it where and as the server has it
(tests/js/tracking.js: the embedded world and two plain clients in one Node process;
pepa/worldserver/js/fixes/tracking.js).

The zombie walks a tenth of a block every tick, once 9 blocks at once (a teleport), turning a
little every tick; the second client is brought near it just after a step not yet sent; once
it has stopped, it turns where it stands. With the pacing off the first client got 30 move
packets in 30 ticks, 11 with it on. Tried: a mob shown to a player between two sends at its
server position instead of its known one left that player's zombie 0.22 blocks off; turns told
at once (as the sandbox's mobs told them before) were 31 looks and 31 head turns for the first
client, none carried by a move.
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.mark.parametrize("version", ["1.16.5", "1.12.2"])
def test_a_mobs_moves_and_turns_go_out_every_three_ticks_to_where_the_server_has_it(
    version: str,
) -> None:
    out = run_script("tracking.js", version, timeout=110)
    ticks = out["ticks"]
    first, second = out["clients"]
    assert ticks >= 30, out
    assert 0 < first["moves"] <= ticks // 3 + 2, out  # not one a tick
    assert 0 < second["moves"] < first["moves"], out  # it came near on the way
    for client in out["clients"]:
        assert client["off"] < 0.01, out  # fixed-point rounding only
        assert (client["yaw"], client["head"]) == (out["yaw"], out["head"]), out
    # a turn rides on the move it came with; the one where it stood went out alone
    assert first["moveLooks"] >= first["moves"] - 3, out
    assert first["looks"] == 1, out
    assert first["heads"] <= ticks // 3 + 3, out


@pytest.mark.parametrize("version", ["1.16.5", "1.12.2"])
def test_a_players_moves_and_turns_go_to_the_others_every_two_ticks_in_one_packet(
    version: str,
) -> None:
    """tests/js/tracking_players.js: a client walks a step and turns every tick (once 9 blocks,
    twice 4.5 in a row); a watcher beside it and a latecomer brought near on the way follow it
    from their packets. With the gathering off, the watcher got 25 moves, 30 looks and 30 head
    turns for 30 steps; with it on, 13 moves that carry the turns (one packet every 2 ticks).
    Tried: a send every tick gave 25; steps added up past a relative move's reach written as one
    move could not be written (the marker never came); the latecomer shown the walker before the
    others were told what was gathered was left a step (0.25 blocks) off."""
    out = run_script("tracking_players.js", version, timeout=110)
    steps = out["steps"]
    watcher, late = out["watchers"]
    assert steps == 30, out
    assert 0 < watcher["moves"] <= steps // 2 + 3, out  # not one a step
    assert watcher["moveLooks"] >= watcher["moves"] - 3 and watcher["looks"] == 0, out
    assert 0 < late["moves"] < watcher["moves"], out  # it came near on the way
    for seen in out["watchers"]:
        assert seen["off"] < 0.01, out  # fixed-point rounding only
        assert seen["yaw"] == out["yaw"], out
