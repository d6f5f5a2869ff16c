"""base.place-chest: put a chest down at base (crafting one first if there is none)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started, always, started
from skills._making import run_step


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    if world.inventory.count("chest") < 1:  # a step on the way: no chest placed yet
        return dataclasses.replace(run_step(link, "chest", 1, world), step=True)
    return started(link.act("place", item="chest"), "place chest")


SKILL = Skill(
    id="base.place-chest",
    description="Place a chest next to the bot (crafting one from planks first if needed).",
    coach_may_dispatch=True,
    precondition=always,
    runner=_run,
)
