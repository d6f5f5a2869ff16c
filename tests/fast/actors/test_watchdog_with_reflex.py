"""The watchdog beside the reflex, as the bus wires them (:class:`Wired`): a flight that
pre-empts an order climbs no rung, and the reflex runs no rung while defend or escape runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.actors.reflex import Reflex
from pepa.actors.watchdog import Watchdog
from pepa.runtime.events import (
    ActionFinished,
    ActivityChanged,
    OperatorOrder,
    SayInChat,
    StuckDetected,
    WorldObserved,
)
from pepa.testing import Action, ActorHarness, FakeLink, entity, view

pytestmark = pytest.mark.timeout(30)

STALL = 10.0

NO_PROGRESS = f"no progress {STALL:g} s on nav.goto"

GOAL_CHANGED = "The goal was changed before it could be completed!"
"""mineflayer-pathfinder 2.4.5 lib/goto.js: the goal was replaced (``stop()`` sets none)."""


def failed_walk(error: str, action_id: str = "a1") -> ActionFinished:
    return ActionFinished(action_id=action_id, ok=False, action="goto", error=error)


class Wired:
    """The reflex and the watchdog on one fake link and clock, wired as the bus wires them.

    It also plays the JS side's answer to a pre-emption: ``stop()`` ends every
    walk it interrupts with mineflayer-pathfinder's "goal was changed", a
    moment after the reflex has announced what replaced it.
    """

    def __init__(self, tmp_path: Path) -> None:
        self.link = FakeLink()
        self.reflex = ActorHarness(
            Reflex, link=self.link, server_dir=tmp_path, peers={"knowledge": lambda _: ()}
        )
        self.dog = ActorHarness(Watchdog, link=self.link, clock=self.link.clock, stall_after=STALL)
        self._routed = {"reflex": 0, "dog": 0}
        self._answered: set[str] = set()

    def send(self, *messages: WorldObserved | OperatorOrder | ActionFinished) -> None:
        for message in messages:
            self.reflex.send(message)
            if not isinstance(message, OperatorOrder):
                self.dog.send(message)
            self._route()

    def advance(self, seconds: float) -> None:
        self.reflex.advance(seconds)  # the clock is shared: the reflex's ticks run
        self._route()

    def finish(self, action: Action | None = None, *, ok: bool = True, error: str = "") -> None:
        """The JS side ends ``action`` (default: the latest one)."""
        raw = self.link.done(action, ok=ok, error=error)
        self._answered.add(raw["id"])
        self.send(ActionFinished(action_id=raw["id"], ok=ok, action=raw["action"], error=error))

    def stuck(self) -> list[str]:
        return [e.step for e in self.dog.events(StuckDetected)]

    def _route(self) -> None:
        while True:
            to_dog = self.reflex.published[self._routed["reflex"] :]
            to_reflex = self.dog.published[self._routed["dog"] :]
            self._routed = {"reflex": len(self.reflex.published), "dog": len(self.dog.published)}
            interrupted = self._interrupted()
            if not (to_dog or to_reflex or interrupted):
                return
            for event in to_dog:
                if isinstance(event, ActivityChanged):
                    self.dog.send(event)
            for event in to_reflex:
                if isinstance(event, StuckDetected):
                    self.reflex.send(event)
            for done in interrupted:
                self.reflex.send(done)
                self.dog.send(done)

    def _interrupted(self) -> list[ActionFinished]:
        """The ends the JS side reports for the actions a ``stop()`` cut short."""
        ends: list[ActionFinished] = []
        pending: list[tuple[str, str]] = []  # (id, method) of the actions no stop cut yet
        for action in self.link.actions:
            if action.name == "stop":
                ends += [
                    ActionFinished(
                        action_id=action_id,
                        ok=False,
                        error=GOAL_CHANGED,
                        action="goto" if method == "goto_player" else method,
                    )
                    for action_id, method in pending
                    if action_id not in self._answered
                ]
                pending = []
            elif action.id is not None:
                pending.append((action.id, action.name))
        self._answered |= {e.action_id for e in ends}
        return ends


def test_a_flight_that_preempts_an_order_climbs_no_rung_and_the_walk_is_watched_again(
    tmp_path: Path,
) -> None:
    w = Wired(tmp_path)
    here = (0.5, 64.0, 0.5)
    w.send(WorldObserved(view=view(position=here)), OperatorOrder(verb="come", operator="alice"))
    assert w.link.last().name == "goto_player"
    zombies = [entity(n, "zombie", 3.0, position=(3.5, 64.0, n - 0.5)) for n in (1, 2, 3)]
    for step in range(6):  # a flight: pre-emption, new flight targets, a pathfinder giving up
        w.send(WorldObserved(view=view(hp=6, position=here, entities=zombies)))
        w.advance(0.03)
        here = (here[0] - 1.0, 64.0, 0.5)
        zombies = [entity(n, "zombie", 3.0, position=(here[0] + 3.0, 64.0, 0.5)) for n in (1, 2)]
        if step == 3:
            w.send(failed_walk("No path to the goal!", w.link.last().id or ""))
    assert any(e.reflex == "defend" for e in w.reflex.events(ActivityChanged)), "the bot flees"
    assert w.stuck() == []
    assert w.link.calls("escape") == []  # no pillar-up or dig-out fights the flight
    w.send(WorldObserved(view=view(hp=6, position=here)))  # the zombies are gone
    w.finish()  # the flight ends
    w.advance(STALL / 2)  # safe for a few seconds: the order resumes
    assert w.link.last().name == "goto_player"
    w.send(WorldObserved(view=view(hp=6, position=here)))
    assert w.stuck() == []
    w.advance(STALL)
    w.send(WorldObserved(view=view(hp=6, position=here)))
    assert w.stuck() == ["repath"]  # real lack of progress still counts


def test_the_reflex_runs_no_rung_while_defend_or_escape_runs(tmp_path: Path) -> None:
    w = Wired(tmp_path)
    zombie = entity(7, "zombie", 3.0, position=(3.5, 64.0, 0.5))
    w.send(WorldObserved(view=view(hp=6, entities=[zombie])))  # flight: defend runs
    flight = w.link.last()
    w.link.clear()
    for step in ("repath", "pillar-up", "dig-out"):
        w.reflex.send(StuckDetected(step=step, reason=NO_PROGRESS))  # a verdict already on its way
    assert w.link.actions == []
    w.send(WorldObserved(view=view(hp=20, entities=[zombie])))
    w.finish(flight)  # the flight ends at full health: a melee fight, defend runs no action
    assert w.link.last().name == "attack"
    w.link.clear()
    w.reflex.send(StuckDetected(step="dig-out", reason=NO_PROGRESS))
    assert w.link.calls("escape") == [] and w.link.calls("stop") == []
    w.send(WorldObserved(view=view(open_sides=0, ceiling=1)))  # trapped long enough: escape runs
    w.advance(5.0)
    assert w.link.last().name == "escape"
    w.link.clear()
    w.reflex.send(StuckDetected(step="pillar-up", reason=NO_PROGRESS))
    assert w.link.actions == []
    w.reflex.send(StuckDetected(step="alert", reason=NO_PROGRESS))  # the operators still hear
    assert w.link.actions == []
    assert w.reflex.last(SayInChat).text == f"I'm stuck and could not get free: {NO_PROGRESS}"
