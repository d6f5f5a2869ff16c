"""What a skill is: an id, a description, a precondition and a way to start it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Link", "Skill", "Started"]


class Link(Protocol):
    """The part of :class:`pepa.world.link.MinecraftLink` skills use."""

    def goto(self, x: float, y: float, z: float, reach: float = 1.0) -> str | None: ...
    def goto_player(self, name: str, reach: float = 2.0) -> str | None: ...
    def follow(self, name: str, reach: float = 2.0) -> str | None: ...
    def attack(self, entity_id: int) -> bool: ...
    def eat(self, item: str) -> str | None: ...
    def sleep(self, x: int, y: int, z: int) -> str | None: ...
    def escape(self, mode: str = "any", reach: float = 3.0) -> str | None: ...
    def look_around(self) -> bool: ...
    def gather(
        self, names: list[str], count: int, radius: float = 48.0, drops: list[str] | None = None
    ) -> str | None: ...
    def craft(self, item: str, times: int = 1) -> str | None: ...
    def place(self, item: str) -> str | None: ...
    def hunt(self, names: list[str], radius: float = 32.0) -> str | None: ...
    def stop(self) -> None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Started:
    """How a skill began: with a JS action whose ``actionDone`` will end it, or at once."""

    action_id: str | None
    """The id of the asynchronous action, None for instant skills."""
    ok: bool = True
    """False when the skill could not even start."""
    detail: str = ""
    """Why it could not start."""


Precondition = Callable[[Mapping[str, Any], Mapping[str, Any]], "str | None"]
Runner = Callable[[Link, Mapping[str, Any]], Started]


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
    run: Runner
    """Start it through the link."""
    wants_world: bool = False
    """Whether ``run`` gets the world snapshot as ``args["world"]`` (skills that plan)."""

    def check(self, world: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
        """Why the skill cannot run now, or None."""
        return self.precondition(world, args)


def always(world: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """A precondition that always holds."""
    return None


def started(action_id: str | None, what: str) -> Started:
    """A Started for an action that returns an id (None means the link refused it)."""
    if action_id is None:
        return Started(action_id=None, ok=False, detail=f"{what}: not connected")
    return Started(action_id=action_id)
