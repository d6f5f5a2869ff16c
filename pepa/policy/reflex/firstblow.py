"""The first blow: which hostiles the bridge may strike the moment they come in reach. Pure.

A hostile that appears next to the bot reached the reflex chain through five hand-offs
(the bridge's event, JSPyBridge's callback thread, the link thread, perception, the reflex
actor) and the swing went back through one more; on a machine full of bots each hand-off
waits for a core, and the chain's answer to "a zombie in reach" is known before the zombie
comes. So the reflex actor asks the chain ahead of time, for every kind of hostile: would
one that appeared within reach right now be struck at once? The answer is the *arming*,
sent to the bridge (the ``arm`` call of :mod:`pepa.link.actions`), which strikes the first
blow itself (``firstblow.js``) and tells the reflex, which goes on with the fight as if it had
swung. Everything after the first blow is the chain's, as before.

The arming is the chain's own decision, asked of :func:`pepa.policy.reflex.decide` on the
present view with one more hostile of that kind :data:`PROBE_DISTANCE` away: lessons,
health, food, gear, the hostiles already near, a flight under way and the pause all count,
as they do when the hostile is really there. A kind is armed only when the chain would
swing at the newcomer and the running skill would give way to the swing
(:func:`pepa.policy.reflex.dispatch.admit`). Creepers are never armed: the chain strikes one
only outside the distance lessons keep from it (``creeper_keep``) and then backs off,
which the bridge cannot weigh.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from pepa.policy.reflex import combat
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState, Decision
from pepa.policy.reflex.dispatch import SWING, Running, admit
from pepa.world.view import Entity, WorldView

__all__ = ["ARMED_KINDS", "PROBE_DISTANCE", "PROBE_ID", "armed", "struck"]

PROBE_ID = -1
"""The entity id of the asked-about hostile (the game's ids are never negative)."""
PROBE_DISTANCE = combat.ATTACK_RADIUS
"""How far away the asked-about hostile stands: the chain's reach. The bridge strikes only
within it. No rule of the chain but a creeper's turns on the distance inside its reach."""
ARMED_KINDS = tuple(name for name, mob in combat.MOBS.items() if mob.style != "creeper")
"""The hostiles the bridge may strike first: every kind the policy knows but creepers."""


def armed(
    world: WorldView,
    now: float,
    memory: ChainState,
    running: Running | None,
    kinds: Iterable[str] = ARMED_KINDS,
) -> dict[str, float]:
    """``{hostile name: reach}`` for each kind the chain would strike at once were one to
    appear :data:`PROBE_DISTANCE` away now; empty when the bot is not in the world."""
    if not world.in_world:
        return {}
    arming: dict[str, float] = {}
    # the view with the probe is the same for every kind but the probe's name: placed once
    base = world.with_threat(entity_id=PROBE_ID, name="", distance=PROBE_DISTANCE)
    at = next(i for i, e in enumerate(base.entities) if e.id == PROBE_ID)
    before, after = base.entities[:at], base.entities[at + 1 :]
    for name in kinds:
        newcomer = Entity(id=PROBE_ID, name=name, distance=PROBE_DISTANCE, type="hostile")
        probe = replace(base, entities=(*before, newcomer, *after))
        decision = decide(probe, now, memory)
        if _strikes(decision) and admit(running, decision) != "keep":
            arming[name] = PROBE_DISTANCE
    return arming


def struck(name: str, entity_id: int, distance: float) -> Decision:
    """The decision the bridge carried out when it struck a first blow."""
    return Decision(
        reflex="defend",
        skill=SWING,
        args={"entity_id": entity_id, "name": name},
        reason=f"{name} {entity_id} at {distance:g}: first blow, in the bridge",
    )


def _strikes(decision: Decision) -> bool:
    return decision.skill == SWING and decision.args.get("entity_id") == PROBE_ID
