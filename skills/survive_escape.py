"""survive.escape, survive.pillar-up, survive.dig-out: get out of a pit or a walled-in spot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Runner, Skill, Started, started

SCAFFOLD = ("dirt", "cobblestone", "netherrack", "stone", "sand", "gravel", "oak_planks")
"""Blocks the bot is willing to pillar up on."""
DIGGERS = ("pickaxe", "shovel", "axe")


def can_pillar(world: WorldView, args: Mapping[str, Any]) -> str | None:
    """Blocks to stand on and nothing right above."""
    if not any(name in world.inventory for name in SCAFFOLD):
        return "no blocks to pillar up on"
    ceiling = world.enclosure.ceiling if world.enclosure else None
    if ceiling is not None and ceiling <= 3:
        return f"a ceiling {ceiling} blocks up"
    return None


def can_dig(world: WorldView, args: Mapping[str, Any]) -> str | None:
    """Digging is always possible; a tool only makes it faster."""
    return None


def choose_mode(world: WorldView) -> str:
    """``up`` when pillaring can work, else ``dig`` when a tool helps, else ``any``."""
    if can_pillar(world, {}) is None:
        return "up"
    if any(key.endswith(DIGGERS) for key in world.inventory):
        return "dig"
    return "any"


def _runner(mode: str | None, what: str) -> Runner:
    """Start an escape in ``mode`` (None: the mode the arguments name, default ``any``)."""

    def run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
        chosen = mode or str(args.get("mode", "any"))
        return started(link.act("escape", mode=chosen, reach=3.0), what)

    return run


ESCAPE = Skill(
    id="survive.escape",
    description="Get three blocks away from a spot with no way out on foot, by pillar or pick.",
    coach_may_dispatch=True,
    precondition=can_dig,
    runner=_runner(None, "escape"),
)
PILLAR_UP = Skill(
    id="survive.pillar-up",
    description="Climb out of a pit by jumping and placing blocks underneath.",
    coach_may_dispatch=True,
    precondition=can_pillar,
    runner=_runner("up", "pillar-up"),
)
DIG_OUT = Skill(
    id="survive.dig-out",
    description="Dig through the walls with the best tool at hand.",
    coach_may_dispatch=True,
    precondition=can_dig,
    runner=_runner("dig", "dig-out"),
)
