"""Lessons about block and mob types, and the block types as the pathfinder's step costs. Pure.

A lesson about a block type (``hazard.below``, ``hazard.inside``,
``hazard.touching``: :mod:`pepa.policy.learning.attribution` writes them) or a
mob type (``hazard.mob``: the defend link keeps away from it) is about that
type anywhere. A block lesson acts on every
path from then on, wherever the block is: the watchdog hands
:meth:`HazardBook.costs` to the bridge (``set_hazards``), which adds the cost
to each step onto, into or against a block of that type. A lesson in force
from a death (:data:`NEVER` and more) forbids the step; a weaker one (a
near-miss's) makes it cost :data:`STEP_COST` more, so a way round of up to
that many blocks a step is taken. A lesson that falls below :data:`IN_FORCE` (graded
down, decayed) is dropped.
"""

from __future__ import annotations

from pepa.world.contact import RELATIONS

__all__ = [
    "HAZARD_MOB", "HAZARD_PREFIX", "IN_FORCE", "NEVER", "NEVER_COST", "STEP_COST", "HazardBook",
    "hazard_skill",
]  # fmt: skip

HAZARD_PREFIX = "hazard."
"""What the skill of a lesson about a block or a mob type starts with."""
HAZARD_MOB = "hazard.mob"
"""The skill of a lesson to keep from a mob type."""
IN_FORCE = 0.6
"""The confidence from which a block lesson acts (as every lesson: ``advice.ADVICE_CONFIDENCE``,
``deaths.ACT_ON``)."""


def hazard_skill(relation: str) -> str:
    """The skill of a lesson about a block met by ``relation`` (``hazard.below``)."""
    return f"{HAZARD_PREFIX}{relation}"


NEVER = 0.7
"""A block lesson this confident forbids the step (a death's lesson starts at 0.75)."""
NEVER_COST = 100.0
"""The pathfinder gives up a move that costs more than 100: the step is never taken."""
STEP_COST = 12.0
"""What a step costs more under a weaker lesson (a near-miss's): a walk of 12 blocks round
is worth one step fewer on the block."""


class HazardBook:
    """The block lessons in force: ``(relation, block) → confidence``."""

    def __init__(self) -> None:
        self.blocks: dict[tuple[str, str], float] = {}

    def learn(self, skill: str, block: str, confidence: float) -> bool:
        """A block lesson's confidence now; True when the costs changed (others: False)."""
        relation = skill[len(HAZARD_PREFIX) :] if skill.startswith(HAZARD_PREFIX) else ""
        if relation not in RELATIONS or not block:
            return False
        before = self.costs()
        if confidence >= IN_FORCE:
            self.blocks[(relation, block)] = confidence
        else:
            self.blocks.pop((relation, block), None)
        return self.costs() != before

    def costs(self) -> dict[str, dict[str, float]]:
        """``{relation: {block: cost}}`` for every relation (the ``set_hazards`` arguments)."""
        out: dict[str, dict[str, float]] = {relation: {} for relation in RELATIONS}
        for (relation, block), confidence in self.blocks.items():
            out[relation][block] = NEVER_COST if confidence >= NEVER else STEP_COST
        return out

    def __len__(self) -> int:
        return len(self.blocks)
