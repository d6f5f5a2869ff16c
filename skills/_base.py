"""What a skill is: an id, a description, a precondition and a way to start it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pepa.link.api import Link
from pepa.world.view import WorldView

__all__ = ["Link", "Skill", "Started", "xyz"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Started:
    """How a skill began: with a JS action whose ``actionDone`` will end it, or at once."""

    action_id: str | None
    """The id of the asynchronous action, None for instant skills."""
    ok: bool = True
    """False when the skill could not even start."""
    detail: str = ""
    """Why it could not start."""
    step: bool = False
    """The action is a step on the skill's way (wood for a house): when it ends well, the
    skill goes on at its next run; the milestone it works toward is not reached."""
    stale: bool = False
    """It could not start because the view it was decided on is out of date (a swing whose
    target is gone: another bot killed it): not the skill's failure, nothing to learn from."""


Precondition = Callable[[WorldView, Mapping[str, Any]], "str | None"]
"""``(world, args)`` → None when the skill can run, else why not."""
Runner = Callable[[Link, Mapping[str, Any], WorldView], Started]
"""``(link, args, world)`` → how the skill began."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """One thing the bot knows how to do."""

    id: str
    """Dotted id: ``survive.eat``, ``combat.attack-nearest`` …"""
    description: str
    """One sentence for people, the coach and the dashboard."""
    coach_may_dispatch: bool
    """Whether LLM advice may start this skill (reflex-only skills say no)."""
    precondition: Precondition
    """``(world, args)`` → None when the skill can run, else why not."""
    runner: Runner
    """Start it through the link."""

    def run(self, link: Link, args: Mapping[str, Any], world: WorldView) -> Started:
        """Start the skill through ``link``, planning from ``world`` if it needs to."""
        return self.runner(link, args, world)

    def check(self, world: WorldView, args: Mapping[str, Any]) -> str | None:
        """Why the skill cannot run now, or None."""
        return self.precondition(world, args)


def always(world: WorldView, args: Mapping[str, Any]) -> str | None:
    """A precondition that always holds."""
    return None


def started(action_id: str | None, what: str, *, step: bool = False) -> Started:
    """A Started for an action that returns an id (None means the link refused it); ``step``:
    a step on the skill's way (:attr:`Started.step`)."""
    if action_id is None:
        return Started(action_id=None, ok=False, detail=f"{what}: not connected")
    return Started(action_id=action_id, step=step)


def xyz(to: Mapping[str, Any]) -> dict[str, float]:
    """A position argument (``{"x", "y", "z"}``, from a decision or the coach) as the keyword
    arguments of a walk (:mod:`pepa.link.actions`: ``goto``, ``charge``)."""
    return {axis: float(to[axis]) for axis in "xyz"}
