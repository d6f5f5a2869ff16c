"""Flowing water and lava in the survival sandbox (``pepa/worldserver/js/plugins/fluids.js``,
the rules of ``pepa/worldserver/js/terrain/fluids.js``): how far each spreads, falls, finds the
way down, lets out what a dig opens, and hardens where lava meets water, with vanilla 1.16.5's
numbers (docs/world-vanilla.md). Each test builds on its own stone floor high in the sky and
waits for the fluid to settle (no fluid tick scheduled); with the mechanic off nothing moves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(90),
    pytest.mark.xdist_group("sandbox_fluids"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000}
"""The module's sandbox (the ``sandbox`` fixture): a default world, whose fluids are still until
the ``fluids`` op turns them on."""
SKY = 160
WATER, LAVA = 34, 50
"""minecraft-data 1.16.5: the first state (level 0, a source) of water and of lava."""


@pytest.fixture
def fluids(sandbox: EmbeddedWorld) -> Iterator[EmbeddedWorld]:
    sandbox.op("fluids", on=True)
    yield sandbox
    sandbox.op("fluids", on=False)


def floor(world: EmbeddedWorld, n: int, size: int = 12) -> tuple[int, int]:
    """A stone floor at SKY - 1 round (x, z), the place of test ``n``; its air cleared above."""
    x, z = 40 * n - 200, 300
    world.op("fill", x1=x - size, y1=SKY - 1, z1=z - size, x2=x + size, y2=SKY - 1, z2=z + size)
    world.op("fill", x1=x - size, y1=SKY, z1=z - size, x2=x + size, y2=SKY + 3, z2=z + size,
             block="air")  # fmt: skip
    return x, z


def settled(world: EmbeddedWorld) -> None:
    eventually(lambda: world.op("fluid_stats")["scheduled"] == 0, 30, "the fluid to settle")


def fluid(world: EmbeddedWorld, x: int, y: int, z: int) -> tuple[str, int] | None:
    """(``water`` or ``lava``, its level) at a block, or None: 0 a source, 1..7 flowing, 8+
    falling."""
    block = world.op("block_at", x=x, y=y, z=z)
    if block["name"] == "water":
        return ("water", int(block["stateId"]) - WATER)
    if block["name"] == "lava":
        return ("lava", int(block["stateId"]) - LAVA)
    return None


def test_water_spreads_seven_blocks_over_flat_stone(fluids: EmbeddedWorld) -> None:
    x, z = floor(fluids, 0)
    fluids.op("set_block", x=x, y=SKY, z=z, block="water")
    eventually(lambda: fluid(fluids, x + 7, SKY, z) is not None, 30, "water 7 blocks out")
    settled(fluids)
    assert [fluid(fluids, x + d, SKY, z) for d in range(9)] == [("water", d) for d in range(8)] + [
        None
    ]
    assert fluid(fluids, x, SKY, z - 7) == ("water", 7)  # every way alike on the flat
    assert fluid(fluids, x + 4, SKY, z + 4) is None  # 8 steps round: too far


def test_lava_spreads_three_blocks_in_the_overworld(fluids: EmbeddedWorld) -> None:
    x, z = floor(fluids, 1)
    fluids.op("set_block", x=x, y=SKY, z=z, block="lava")
    eventually(lambda: fluid(fluids, x + 3, SKY, z) is not None, 30, "lava 3 blocks out")
    settled(fluids)
    assert [fluid(fluids, x + d, SKY, z) for d in range(5)] == [
        ("lava", 0), ("lava", 2), ("lava", 4), ("lava", 6), None
    ]  # fmt: skip


def test_water_falls_off_an_edge_and_spreads_where_it_lands(fluids: EmbeddedWorld) -> None:
    x, z = floor(fluids, 2)
    fluids.op("fill", x1=x - 12, y1=SKY - 1, z1=z - 12, x2=x + 12, y2=SKY - 1, z2=z - 1,
              block="air")  # fmt: skip
    fluids.op("fill", x1=x - 12, y1=SKY - 6, z1=z - 12, x2=x + 12, y2=SKY - 6, z2=z + 12)
    fluids.op("set_block", x=x, y=SKY, z=z, block="water")  # one block from the edge
    eventually(lambda: fluid(fluids, x, SKY - 5, z - 1) is not None, 30, "water at the bottom")
    settled(fluids)
    column = [fluid(fluids, x, y, z - 1) for y in range(SKY - 5, SKY + 1)]
    assert all(f is not None and f[0] == "water" and f[1] >= 8 for f in column[:-1]), column
    # the fall lands with amount 8 and spreads 7 more over the floor below
    assert fluid(fluids, x, SKY - 5, z - 8) == ("water", 7)
    # sideways on the top it flowed only toward the edge (the way down within 4 blocks)
    assert fluid(fluids, x, SKY, z + 1) is None


def test_a_block_dug_beside_a_lava_pocket_lets_the_lava_out(fluids: EmbeddedWorld) -> None:
    x, z = floor(fluids, 3)
    # a pocket of lava walled in stone: nothing moves until a wall block is dug
    fluids.op("fill", x1=x - 1, y1=SKY, z1=z - 1, x2=x + 1, y2=SKY + 1, z2=z + 1)
    fluids.op("set_block", x=x, y=SKY, z=z, block="lava")
    settled(fluids)
    assert fluid(fluids, x + 1, SKY, z) is None
    fluids.op("set_block", x=x + 1, y=SKY, z=z, block="air")  # the dig
    eventually(lambda: fluid(fluids, x + 3, SKY, z) is not None, 30, "lava let out")
    settled(fluids)
    assert fluid(fluids, x + 1, SKY, z) == ("lava", 2)
    assert fluid(fluids, x + 2, SKY, z) == ("lava", 4)


def test_lava_meeting_water_turns_to_obsidian_or_cobblestone(fluids: EmbeddedWorld) -> None:
    x, z = floor(fluids, 4)
    fluids.op("set_block", x=x, y=SKY, z=z, block="lava")  # a source
    fluids.op("set_block", x=x + 3, y=SKY, z=z, block="water")
    settled(fluids)
    assert fluids.op("block_at", x=x, y=SKY, z=z)["name"] == "obsidian"
    x, z = floor(fluids, 5)
    fluids.op("fill", x1=x - 1, y1=SKY, z1=z - 1, x2=x + 1, y2=SKY, z2=z + 1)
    fluids.op("set_block", x=x, y=SKY + 1, z=z, block="lava")  # on a plinth: it flows off
    eventually(lambda: fluid(fluids, x + 2, SKY, z) is not None, 30, "lava off the plinth")
    fluids.op("set_block", x=x + 5, y=SKY, z=z, block="water")  # its flow stays on the floor
    settled(fluids)
    hardened = {fluids.op("block_at", x=x + d, y=SKY, z=z)["name"] for d in range(2, 5)}
    assert "cobblestone" in hardened, hardened


def test_water_between_two_sources_on_stone_becomes_a_source(fluids: EmbeddedWorld) -> None:
    x, z = floor(fluids, 6)
    fluids.op("fill", x1=x - 2, y1=SKY, z1=z - 1, x2=x + 2, y2=SKY, z2=z + 1)
    fluids.op("fill", x1=x - 1, y1=SKY, z1=z, x2=x + 1, y2=SKY, z2=z, block="air")
    fluids.op("set_block", x=x - 1, y=SKY, z=z, block="water")
    fluids.op("set_block", x=x + 1, y=SKY, z=z, block="water")
    eventually(lambda: fluid(fluids, x, SKY, z) == ("water", 0), 30, "a new source")


def test_with_fluids_off_nothing_flows(sandbox: EmbeddedWorld) -> None:
    assert sandbox.op("fluids", on=False) == {"on": False}
    x, z = floor(sandbox, 7)
    sandbox.op("set_block", x=x, y=SKY, z=z, block="water")
    sandbox.op("set_block", x=x + 1, y=SKY, z=z + 4, block="stone")  # any later change
    assert sandbox.op("fluid_stats")["scheduled"] == 0
    assert fluid(sandbox, x + 1, SKY, z) is None
