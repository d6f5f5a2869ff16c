"""What an ended action, a stuck verdict or an operator's order does to the chain's state. Pure.

The reflex actor runs the skills the chain picks; when one ends, the watchdog finds the bot
stuck or an operator gives an order, these rules say how :class:`~pepa.policy.reflex.chain.
ChainState` changes (when a bed, a shelter, a hunt or a way out may be tried again) and what
the actor must do (say a line, retry a path, climb or dig out). The actor carries it out.
"""

from __future__ import annotations

import logging
from typing import Literal

from pepa.policy.reflex.decision import ChainState
from pepa.policy.watchdog.progress import SUSPENDING
from pepa.world.view import Vec3

__all__ = [
    "MORNING_RETRY",
    "NIGHT_RETRY",
    "ORDERS",
    "SHELTER_SETTLE",
    "SLEEP_RETRY",
    "STOCK_RETRY",
    "WAYS_OUT",
    "StuckAction",
    "ended",
    "on_stuck",
    "way_out",
]

logger = logging.getLogger(__name__)

SLEEP_RETRY = 30.0
"""Seconds before trying a bed again after a refusal."""
NIGHT_RETRY = 30.0
"""Seconds before a failed shelter is built again."""
WAYS_OUT = 3
"""Failed ways out of the shelter in a row after which the bot no longer counts as in it: the
task's own walk (the pathfinder with the usual movements) finds its way up. In the gauntlet's
mines the escape's search failed again and again where the walk to a tree got out."""
MORNING_RETRY = 5.0
"""Seconds before a failed way out of the shelter is tried again: a day at the gauntlet's x24
has 25 s of light, and a search that found no way may find one once the world has settled."""
STOCK_RETRY = 30.0
"""Seconds before a failed hunt for the night's food (knob ``night_food``) is tried again."""
SHELTER_SETTLE = 2.0
"""Seconds a finished shelter is not built again: the world view catches up with its walls."""
ORDERS = ("come", "follow", "stay")
"""The operator's orders the reflex carries out (the others are the persona's and the
curriculum's)."""

StuckAction = Literal["suspended", "alert", "repath", "escape", "none"]
"""What a stuck verdict asks of the actor: nothing while a defend or an escape runs; say so;
start the running skill's path again; climb or dig out (the verdict's step); nothing else."""


def ended(
    memory: ChainState,
    *,
    skill: str,
    reflex: str,
    ok: bool,
    error: str,
    now: float,
    position: Vec3 | None,
) -> str | None:
    """Change ``memory`` for an action of ``skill`` (started by ``reflex``) that ended; the
    line to say in chat, if any. An operator's order is the actor's (its reply and its end)."""
    if skill == "survive.sleep" and not ok:
        memory.sleep_retry_at = now + SLEEP_RETRY
        return f"I can't sleep: {error}"
    if skill == "survive.shelter":
        # a failure rests; a success waits for a view that shows the walls (no rebuild loop)
        memory.night_retry_at = now + (SHELTER_SETTLE if ok else NIGHT_RETRY)
        if ok:  # sheltered from now on, though the view may not show the walls yet
            memory.shelter = memory.shelter or position
    elif skill == "base.go-home" and not ok:  # the way home failed: a shelter tonight
        memory.home_retry_at = now + NIGHT_RETRY
    elif reflex == "stock" and not ok:  # no animal, no way to one
        memory.stock_retry_at = now + STOCK_RETRY
    elif skill == "survive.cover" and ok:
        memory.hidden_at = now  # it reached a cell no archer sees, whatever the last view
    elif skill == "survive.escape":
        if reflex == "night" and not ok:
            memory.morning_retry_at = now + MORNING_RETRY  # the way out rests a moment
        way_out(memory, ok)
    return None


def way_out(memory: ChainState, ok: bool) -> bool:
    """Count ways out of the shelter (the night plan's or the trapped reflex's) that failed in
    a row; at :data:`WAYS_OUT` the bot no longer counts as in it. True when it just gave up."""
    if ok or memory.shelter is None:
        memory.ways_out_failed = 0
        return False
    memory.ways_out_failed += 1
    if memory.ways_out_failed >= WAYS_OUT:  # the task's own walk finds a way
        logger.info("no way out of the shelter after %d tries: leaving it to the task",
                    memory.ways_out_failed)  # fmt: skip
        memory.shelter, memory.ways_out_failed = None, 0
        return True
    return False


def on_stuck(step: str, busy: str | None, running: bool) -> StuckAction:
    """What a stuck verdict's ``step`` asks while ``busy`` (the running reflex) runs: a rung
    of the ladder never fights a defend or an escape; an alert always goes out."""
    if step != "alert" and busy in SUSPENDING:
        return "suspended"
    if step == "alert":
        return "alert"
    if step == "repath" and running:
        return "repath"
    if step in ("pillar-up", "dig-out"):
        return "escape"
    return "none"
