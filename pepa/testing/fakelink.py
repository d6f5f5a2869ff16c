"""The fake link: a :class:`~pepa.link.api.Link` that plays back snapshots and records calls.

It takes every action of the catalogue (:mod:`pepa.link.actions`) and nothing else: a call
is checked against its row as the real link checks it, then recorded as the catalogue names
it, ``Action(id, "gather", {"names": [...], "count": 3, "radius": 48.0, ...})``, every
argument by name with the defaults filled in.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pepa.link import actions as catalogue
from pepa.testing.clock import FakeClock
from pepa.testing.snapshots import raw_snapshot

__all__ = ["Action", "FakeLink"]


@dataclass(frozen=True, slots=True)
class Action:
    """One call the mind made on the link."""

    id: str | None
    """The action id handed back (None for instant calls, and for an action refused)."""
    name: str
    """The catalogue's name: ``goto``, ``goto_player``, ``attack``, ``stop`` …"""
    args: dict[str, Any]
    """Every argument by its catalogue name, as checked (defaults filled in)."""
    ok: bool = True
    """Whether the link took it (False: refused, see :attr:`FakeLink.refuse`)."""


@dataclass(slots=True)
class FakeLink:
    """A :class:`~pepa.link.api.Link` that plays back snapshots and records actions."""

    clock: FakeClock = field(default_factory=FakeClock)
    connected: bool = True
    version: str | None = "1.20.4"
    world: dict[str, Any] | None = field(default_factory=raw_snapshot)
    """What :meth:`snapshot` returns (None while disconnected)."""
    refuse: set[str] = field(default_factory=set)
    """Catalogue names that fail (an action returns None, an instant call False)."""
    actions: list[Action] = field(default_factory=list)
    """Every call, oldest first, but the standing orders."""
    orders: list[Action] = field(default_factory=list)
    """The calls of rows that are standing orders to the bridge (``arm``, ``set_danger``):
    kept apart, as they are not something the bot does."""
    snapshots: int = 0
    """How many times :meth:`snapshot` was called (a bridge round trip each, for real)."""
    _queued: list[dict[str, Any]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # -- what the test does ---------------------------------------------------------------

    def play(self, *snapshots: dict[str, Any]) -> None:
        """Queue snapshots: each :meth:`snapshot` call takes the next; the last one stays."""
        self._queued.extend(snapshots)

    def calls(self, name: str) -> list[Action]:
        """Every recorded call of the catalogue's ``name``, oldest first (ActionCallError for a
        name the catalogue does not have)."""
        row = catalogue.row(name)
        return [a for a in (self.orders if row.order else self.actions) if a.name == name]

    def last(self, name: str | None = None) -> Action:
        """The latest recorded action (of ``name``); AssertionError when there is none."""
        found = self.calls(name) if name is not None else self.actions
        if not found:
            raise AssertionError(f"no {name or 'action'} was called; calls: {self.actions}")
        return found[-1]

    def done(
        self, action: Action | str | None = None, *, ok: bool = True, error: str = ""
    ) -> dict[str, Any]:
        """The ``actionDone`` event ending ``action`` (default: the latest action with an id)."""
        if action is None:
            action = next(a for a in reversed(self.actions) if a.id is not None)
        if isinstance(action, str):
            action = next(a for a in self.actions if a.id == action)
        return {"type": "actionDone", "id": action.id, "ok": ok, "action": action.name,
                "error": error}  # fmt: skip

    def clear(self) -> None:
        """Forget the recorded calls."""
        self.actions.clear()
        self.orders.clear()

    @property
    def said(self) -> list[str]:
        """The text of every ``chat`` the link took, oldest first."""
        return [a.args["text"] for a in self.calls("chat") if a.ok]

    @property
    def armed(self) -> dict[str, float] | None:
        """The reach of the latest ``arm`` the link took (None before any): the reflex's
        standing order to the bridge."""
        taken = [a for a in self.calls("arm") if a.ok]
        return dict(taken[-1].args["reach"]) if taken else None

    @property
    def armed_as(self) -> tuple[float, int] | None:
        """The health and food of the latest ``arm`` the link took."""
        taken = [a for a in self.calls("arm") if a.ok]
        return (taken[-1].args["hp"], taken[-1].args["food"]) if taken else None

    @property
    def armings(self) -> int:
        """How many times ``arm`` was called (a bridge round trip each, for real)."""
        return len(self.calls("arm"))

    # -- the Link protocol -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any] | None:
        self.snapshots += 1
        if not self.connected:
            return None
        if self._queued:
            self.world = self._queued.pop(0)
        return self.world

    def act(self, action: str, /, **args: Any) -> str | None:
        row, values = catalogue.checked(action, args, instant=False)
        if action in self.refuse or not self.connected:
            self._record(row, Action(None, action, values, ok=False))
            return None
        action_id = f"a{next(self._ids)}"
        self._record(row, Action(action_id, action, values))
        return action_id

    def call(self, action: str, /, **args: Any) -> bool:
        row, values = catalogue.checked(action, args, instant=True)
        ok = self.connected and action not in self.refuse
        self._record(row, Action(None, action, values, ok=ok))
        return ok

    def _record(self, row: catalogue.Action, call: Action) -> None:
        (self.orders if row.order else self.actions).append(call)
