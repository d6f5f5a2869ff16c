"""The fake link: a :class:`~pepa.link.api.Link` that plays back snapshots and records actions."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pepa.testing.clock import FakeClock
from pepa.testing.snapshots import raw_snapshot

__all__ = ["Action", "FakeLink"]


@dataclass(frozen=True, slots=True)
class Action:
    """One call the mind made on the link."""

    id: str | None
    """The action id handed back (None for instant calls)."""
    method: str
    """``goto``, ``attack``, ``stop`` …"""
    args: tuple[Any, ...]


@dataclass(slots=True)
class FakeLink:
    """A :class:`~pepa.link.api.Link` that plays back snapshots and records actions."""

    clock: FakeClock = field(default_factory=FakeClock)
    connected: bool = True
    version: str | None = "1.20.4"
    world: dict[str, Any] | None = field(default_factory=raw_snapshot)
    """What :meth:`snapshot` returns (None while disconnected)."""
    refuse: set[str] = field(default_factory=set)
    """Methods that fail (an action returns None, an instant call False)."""
    actions: list[Action] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    snapshots: int = 0
    """How many times :meth:`snapshot` was called (a bridge round trip each, for real)."""
    armed: dict[str, float] | None = None
    """The latest :meth:`arm` (None before any): kept apart from :attr:`actions`, as it is the
    reflex's standing order to the bridge, not something the bot does."""
    armed_as: tuple[float, int] | None = None
    """The health and food of the latest :meth:`arm`."""
    armings: int = 0
    """How many times :meth:`arm` was called (a bridge round trip each, for real)."""
    _queued: list[dict[str, Any]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # -- what the test does ---------------------------------------------------------------

    def play(self, *snapshots: dict[str, Any]) -> None:
        """Queue snapshots: each :meth:`snapshot` call takes the next; the last one stays."""
        self._queued.extend(snapshots)

    def calls(self, method: str) -> list[Action]:
        """Every recorded call of ``method``, oldest first."""
        return [a for a in self.actions if a.method == method]

    def last(self, method: str | None = None) -> Action:
        """The latest recorded action (of ``method``); AssertionError when there is none."""
        found = [a for a in self.actions if method is None or a.method == method]
        if not found:
            raise AssertionError(f"no {method or 'action'} was called; calls: {self.actions}")
        return found[-1]

    def done(
        self, action: Action | str | None = None, *, ok: bool = True, error: str = ""
    ) -> dict[str, Any]:
        """The ``actionDone`` event ending ``action`` (default: the latest action with an id)."""
        if action is None:
            action = next(a for a in reversed(self.actions) if a.id is not None)
        if isinstance(action, str):
            action = next(a for a in self.actions if a.id == action)
        return {
            "type": "actionDone",
            "id": action.id,
            "ok": ok,
            "action": action.method,
            "error": error,
        }

    def clear(self) -> None:
        """Forget the recorded calls."""
        self.actions.clear()
        self.said.clear()

    # -- the Link protocol -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any] | None:
        self.snapshots += 1
        if not self.connected:
            return None
        if self._queued:
            self.world = self._queued.pop(0)
        return self.world

    def _action(self, method: str, *args: Any) -> str | None:
        if method in self.refuse or not self.connected:
            self.actions.append(Action(None, method, args))
            return None
        action_id = f"a{next(self._ids)}"
        self.actions.append(Action(action_id, method, args))
        return action_id

    def _instant(self, method: str, *args: Any) -> bool:
        self.actions.append(Action(None, method, args))
        return self.connected and method not in self.refuse

    def goto(self, x: float, y: float, z: float, reach: float = 1.0) -> str | None:
        return self._action("goto", x, y, z, reach)

    def charge(self, x: float, y: float, z: float, reach: float = 1.0) -> str | None:
        return self._action("charge", x, y, z, reach)

    def goto_player(self, name: str, reach: float = 2.0) -> str | None:
        return self._action("gotoPlayer", name, reach)

    def follow(self, name: str, reach: float = 2.0) -> str | None:
        return self._action("follow", name, reach)

    def eat(self, item: str) -> str | None:
        return self._action("eat", item)

    def sleep(self, x: int, y: int, z: int) -> str | None:
        return self._action("sleep", x, y, z)

    def escape(self, mode: str = "any", reach: float = 3.0) -> str | None:
        return self._action("escape", mode, reach)

    def gather(
        self,
        names: list[str],
        count: int,
        radius: float = 48.0,
        drops: list[str] | None = None,
        under_cover: bool = False,
    ) -> str | None:
        cover = [True] if under_cover else []  # recorded only when set
        return self._action("gather", list(names), count, radius, list(drops or []), *cover)

    def craft(self, item: str, times: int = 1, under_cover: bool = False) -> str | None:
        cover = [True] if under_cover else []  # recorded only when set
        return self._action("craft", item, times, *cover)

    def place(self, item: str) -> str | None:
        return self._action("place", item)

    def hunt(self, names: list[str], radius: float = 32.0) -> str | None:
        return self._action("hunt", list(names), radius)

    def smelt(self, item: str, count: int, fuel: str, under_cover: bool = False) -> str | None:
        cover = [True] if under_cover else []  # recorded only when set
        return self._action("smelt", item, count, fuel, *cover)

    def shelter(self) -> str | None:
        return self._action("shelter")

    def wear(self) -> str | None:
        return self._action("wear")

    def surface(self) -> str | None:
        return self._action("surface")

    def flee(self, sources: list[tuple[float, float]], distance: float = 16.0) -> str | None:
        return self._action("flee", [tuple(p) for p in sources], distance)

    def cover(
        self,
        sources: list[tuple[float, float, float]],
        radius: float = 6.0,
        avoid: list[tuple[float, float]] | None = None,
    ) -> str | None:
        return self._action(
            "cover", [tuple(p) for p in sources], radius, [tuple(p) for p in avoid or []]
        )

    def attack(self, entity_id: int, stop_first: bool = False) -> bool:
        return self._instant("attack", entity_id, *((True,) if stop_first else ()))

    def arm(self, reach: Mapping[str, float], hp: float = 0.0, food: int = 0) -> bool:
        self.armings += 1
        if not self.connected or "arm" in self.refuse:
            return False
        self.armed, self.armed_as = dict(reach), (hp, food)
        return True

    def look_around(self) -> bool:
        return self._instant("lookAround")

    def set_danger(self, areas: list[tuple[float, float, float]]) -> bool:
        return self._instant("setDanger", [tuple(a) for a in areas])

    def chat(self, text: str) -> bool:
        ok = self._instant("chat", text)
        if ok:
            self.said.append(text)
        return ok

    def stop(self) -> None:
        self._instant("stop")
