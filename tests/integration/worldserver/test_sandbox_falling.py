"""Sand and gravel fall in the survival sandbox (``pepa/worldserver/js/plugins/falling.js``):
over a free cell they leave their place and land on what holds them, a column falls when what
held it is dug, and what lands where a player's head is suffocates her (vanilla 1.16.5's
FallingBlock; docs/world-vanilla.md). With the mechanic off they hang, as they always did in
the gentle world."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.integration.worldserver.sandbox_alice import NAME, feet, first_hurt, fresh_floor
from tests.integration.worldserver.sandbox_alice import hazards as alice_hazards
from tests.waiting import eventually
from tests.world_harness import Player

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(90),
    pytest.mark.xdist_group("sandbox_falling"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000}
SKY = 170


@pytest.fixture
def falling(sandbox: EmbeddedWorld) -> Iterator[EmbeddedWorld]:
    sandbox.op("falling", on=True)
    yield sandbox
    sandbox.op("falling", on=False)


def name(world: EmbeddedWorld, x: int, y: int, z: int) -> str:
    return str(world.op("block_at", x=x, y=y, z=z)["name"])


def test_sand_over_air_falls_to_the_floor(falling: EmbeddedWorld) -> None:
    x, z = -300, 400
    falling.op("fill", x1=x - 2, y1=SKY - 1, z1=z - 2, x2=x + 2, y2=SKY - 1, z2=z + 2)
    falling.op("set_block", x=x, y=SKY + 12, z=z, block="sand")
    eventually(lambda: name(falling, x, SKY, z) == "sand", 20, "the sand on the floor")
    assert name(falling, x, SKY + 12, z) == "air"
    assert falling.op("falling_stats")["falling"] == 0


def test_a_column_of_gravel_falls_when_the_block_under_it_is_dug(falling: EmbeddedWorld) -> None:
    x, z = -290, 400
    falling.op("fill", x1=x - 2, y1=SKY - 1, z1=z - 2, x2=x + 2, y2=SKY - 1, z2=z + 2)
    falling.op("set_block", x=x, y=SKY, z=z, block="stone")
    falling.op("fill", x1=x, y1=SKY + 1, z1=z, x2=x, y2=SKY + 3, z2=z, block="gravel")
    assert name(falling, x, SKY + 3, z) == "gravel"  # held up by the stone
    falling.op("set_block", x=x, y=SKY, z=z, block="air")  # the dig
    eventually(lambda: name(falling, x, SKY + 3, z) == "air", 20, "the column's top to go")
    eventually(
        lambda: (
            [name(falling, x, SKY + dy, z) for dy in range(4)]
            == ["gravel", "gravel", "gravel", "air"]
        ),
        20,
        "the column one lower",
    )


def test_gravel_falling_on_a_player_buries_and_suffocates_her(falling: EmbeddedWorld) -> None:
    alice = Player(falling, NAME)
    try:
        fresh_floor(falling, alice, 0)
        x, y, z = feet(falling)
        mark = alice.mark()
        falling.op("fill", x1=x, y1=y + 6, z1=z, x2=x, y2=y + 7, z2=z, block="gravel")
        assert first_hurt(alice, mark) == 19
        assert alice_hazards(falling)["lastDamage"]["type"] == "inWall"
        assert [name(falling, x, y + dy, z) for dy in range(2)] == ["gravel", "gravel"]
        falling.op("fill", x1=x, y1=y, z1=z, x2=x, y2=y + 2, z2=z, block="air")
    finally:
        alice.close()


def test_with_falling_off_sand_hangs(sandbox: EmbeddedWorld) -> None:
    assert sandbox.op("falling", on=False) == {"on": False}
    x, z = -280, 400
    sandbox.op("set_block", x=x, y=SKY + 12, z=z, block="sand")
    sandbox.op("set_block", x=x + 1, y=SKY + 12, z=z, block="stone")  # a change beside it
    assert name(sandbox, x, SKY + 12, z) == "sand"
    assert sandbox.op("falling_stats")["fell"] == sandbox.op("falling_stats")["landed"]
