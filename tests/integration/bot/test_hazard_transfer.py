"""A danger no rule names, learnt at one place and kept off at the next: the hazard gauntlet's
short form (``bench/hazard_gauntlet.py`` runs every kind, five places each).

The bot walks a sky course (``tests/hazard_courses.py``) whose straight way crosses a floor of
magma blocks, on 3 health: unguarded, it dies there. Nothing in pepa names magma; the death is
put down to the block it stood on as the blows came (by contrast with the stone it walked
unhurt), and the lesson about that block type is handed to the pathfinder. At a new place, 64
blocks on, the bot takes the lane round the band and arrives unhurt. With learning off
(``PEPA_LEARNING=0``) the same second exposure kills it again: the mechanism, not the course,
keeps it alive.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.hazard_courses import KINDS, expose, place
from tests.world_harness import Player, own_daemon

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("hazard_transfer")]


@pytest.fixture(scope="module", params=["on", "off"])
def arena(request: pytest.FixtureRequest) -> Iterator[tuple[EmbeddedWorld, Daemon, Player]]:
    learning = "1" if request.param == "on" else "0"
    with own_daemon(time=6000, env={"PEPA_LEARNING": learning}) as (world, daemon):
        alice = Player(world, "alice")
        try:
            yield world, daemon, alice
        finally:
            alice.close()


@pytest.mark.timeout(300)
def test_a_block_that_killed_the_bot_at_one_place_is_kept_off_at_the_next(
    arena: tuple[EmbeddedWorld, Daemon, Player], request: pytest.FixtureRequest
) -> None:
    world, daemon, alice = arena
    magma = KINDS["magma"]
    first = expose(world, daemon, alice, magma, place(0, 0), 1)
    assert first.died, first  # unguarded, the band kills: the course is deadly
    learning = "[on]" in request.node.name
    if learning:
        line = daemon.lines[daemon.wait_line("paths keep off magma_block", 30)]
        assert "hazard.below" in line and "from now on" in line, line
    second = expose(world, daemon, alice, magma, place(0, 1), 2)
    log = "\n".join(daemon.lines[-40:])
    if learning:
        assert second.arrived and not second.died and second.lowest_hp == magma.hp, (second, log)
    else:  # nothing learnt acts: the same walk kills it again
        assert second.died, (second, log)
        assert daemon.count("paths keep off") == 0
