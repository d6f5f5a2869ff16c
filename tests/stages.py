"""Stages for tests on the real sandbox: a floor of its own high in the sky, cleared above, the
helper bot standing on it and seeing it."""

from __future__ import annotations

from pepa.worldserver.process import EmbeddedWorld
from tests.world_harness import HelperBot, teleport


def floor(
    world: EmbeddedWorld,
    helper: HelperBot,
    x: int,
    z: int,
    *,
    sky: int,
    half: int = 6,
    top: str = "stone",
    under: str = "stone",
    clear: int = 4,
    stand: tuple[int, int] = (0, 0),
) -> None:
    """A floor of ``top`` on a layer of ``under`` at ``sky - 1`` round (x, z), ``half`` blocks
    each way, the air cleared ``clear`` blocks above it; the bot standing ``stand`` (dx, dz) from
    its middle, seeing its middle and a corner."""
    world.op("fill", x1=x - half, y1=sky - 2, z1=z - half, x2=x + half, y2=sky - 2, z2=z + half,
             block=under)  # fmt: skip
    world.op("fill", x1=x - half, y1=sky - 1, z1=z - half, x2=x + half, y2=sky - 1, z2=z + half,
             block=top)  # fmt: skip
    world.op("fill", x1=x - half, y1=sky, z1=z - half, x2=x + half, y2=sky + clear, z2=z + half,
             block="air")  # fmt: skip
    teleport(world, helper.username, x + stand[0] + 0.5, sky, z + stand[1] + 0.5)
    helper.sees([(x, sky - 1, z), (x + half, sky - 1, z + half)], top)
