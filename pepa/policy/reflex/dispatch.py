"""Between a decision and a running skill: pre-emption, cooldowns, labels, replies. Pure.

The reflex actor asks these rules what to do with each fresh decision
(:func:`admit`), how to start it (:func:`prepare`), and what an ended order
means for the operator (:func:`order_reply`). No clock (``now`` is passed),
no link, no bus.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pepa.policy.reflex.decision import Decision
from pepa.world.view import WorldView

__all__ = [
    "ATTACK_COOLDOWN",
    "SWING",
    "Admission",
    "IdleChores",
    "Prepared",
    "Running",
    "admit",
    "label",
    "order_reply",
    "prepare",
]

SWING = "combat.attack-nearest"
"""The instant skill that stops a pre-empted one in its own call (``stop_first``)."""
ATTACK_COOLDOWN = 0.6
"""Seconds between swings (vanilla's sword cooldown)."""


@dataclass(slots=True)
class Running:
    """The skill the reflex actor has started and waits on."""

    decision: Decision
    action_id: str | None
    started: float
    label: str
    step: bool = False
    """The action is a step on the skill's way: a success does not reach its milestone."""


Admission = str
"""``keep`` the running skill, ``preempt`` it (stop it, start the new one), or ``start``."""


ADVANCES = frozenset({"combat.approach"})
"""Defend skills that walk toward a hostile: a retreat decided meanwhile replaces them."""
RETREATS = frozenset({"survive.flee"})
"""Defend skills that run from hostiles (cover is not one: an archer stepping back past the
approach's range turns the plan to cover, and that must not drop the charge)."""


def admit(running: Running | None, decision: Decision) -> Admission:
    """What a fresh decision does to the running skill.

    A higher reflex pre-empts a lower one; within one reflex the running skill
    goes on, except that a flight replaces an advance (closing in on an archer
    that has meanwhile shot the bot below the health to fight it); never the
    other way round, so the two cannot take turns.
    """
    if running is None or running.action_id is None:
        return "start"
    if running.decision.skill == decision.skill:
        return "keep"  # already doing it
    if running.decision.skill in ADVANCES and decision.skill in RETREATS:
        return "preempt"
    if decision.priority <= running.decision.priority:
        return "keep"  # a lower reflex waits for the running one
    return "preempt"


def label(skill_id: str, args: Mapping[str, Any]) -> str:
    """``nav.follow alice``, ``survive.eat bread``, ``combat.attack-nearest zombie`` …"""
    target = str(args.get("operator") or args.get("item") or args.get("name") or "")
    if target and target in skill_id:
        target = ""  # craft.wooden_pickaxe, not craft.wooden_pickaxe wooden_pickaxe
    return f"{skill_id} {target}".strip()


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """A decision ready to run, or why it may not run now."""

    args: Mapping[str, Any] = field(default_factory=dict)
    """The skill's arguments, completed from the world (an escape's mode)."""
    label: str = ""
    wait: bool = False
    """True: not now (a swing inside the cooldown); nothing failed."""


def prepare(
    decision: Decision,
    world: WorldView,
    now: float,
    *,
    last_attack: float,
    escape_mode: Callable[[WorldView], str],
) -> Prepared:
    """The arguments and label of a decision's skill, or ``wait`` inside the attack cooldown."""
    skill_id = decision.skill or ""
    args = dict(decision.args)
    if skill_id == "survive.escape":
        args["mode"] = escape_mode(world)  # only for an escape: not on the defend path
    if skill_id == "combat.attack-nearest" and now - last_attack < ATTACK_COOLDOWN:
        return Prepared(args=args, label=label(skill_id, args), wait=True)
    return Prepared(args=args, label=label(skill_id, args))


def order_reply(skill_id: str, order: Mapping[str, Any], ok: bool, error: str) -> str | None:
    """What to tell the operator when their order's skill ended (None: keep going)."""
    operator = order.get("operator")
    if skill_id == "nav.goto":
        return f"Here I am, {operator}." if ok else f"I can't reach you: {error}"
    if skill_id == "nav.follow" and not ok:
        return f"I lost you, {operator}: {error}"
    return None


IDLE_LOOK_EVERY = 8.0
"""Seconds between idle glances around."""
HEARTBEAT_EVERY = 60.0
"""Seconds between idle heartbeat log lines."""


@dataclass(slots=True)
class IdleChores:
    """What an idle bot does now and then: glance around, say in the log that it lives."""

    last_look: float = -1e9
    last_heartbeat: float = -1e9

    def due(self, now: float) -> tuple[bool, bool]:
        """(look around now?, log a heartbeat now?); each counts as done when due."""
        look = now - self.last_look >= IDLE_LOOK_EVERY
        beat = now - self.last_heartbeat >= HEARTBEAT_EVERY
        if look:
            self.last_look = now
        if beat:
            self.last_heartbeat = now
        return look, beat
