"""combat.attack-nearest: hit the closest hostile, then hold the best weapon for the next swing.

One call per swing, which first stops what ran when the swing pre-empts it
(``stop_first``, set by the skill runner). The JS side (``pepa/link/js/melee.js``)
swings the first at a target at once and may make a later one a critical hit (a
jump, the swing on the way down); a shield in the off-hand is raised between swings
there too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pepa.world.view import WorldView
from skills._base import Link, Skill, Started


def _precondition(world: WorldView, args: Mapping[str, Any]) -> str | None:
    return None if args.get("entity_id") is not None else "no target"


def _run(link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
    if link.call(
        "attack", entity_id=int(args["entity_id"]), stop_first=bool(args.get("stop_first"))
    ):
        return Started(action_id=None)
    # the bridge no longer has it: dead (in a crowd, another bot's kill) or out of sight (or
    # the call itself failed, which the link has logged)
    return Started(action_id=None, ok=False, detail="the target is gone", stale=True)


SKILL = Skill(
    id="combat.attack-nearest",
    description="Hit the closest hostile mob with the best weapon at hand.",
    coach_may_dispatch=False,
    precondition=_precondition,
    runner=_run,
)
