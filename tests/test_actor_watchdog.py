"""The watchdog through a fake link on a fake clock: the stuck ladder and the danger areas."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.actors.watchdog import Watchdog
from pepa.events import (
    ActionFinished,
    ActivityChanged,
    Connected,
    ErrorRaised,
    StuckDetected,
    WorldObserved,
)
from pepa.survival.progress import LADDER
from pepa.testing import ActorHarness, FakeLink, view

pytestmark = pytest.mark.timeout(30)

STALL = 10.0
GOTO = "nav.goto 20 64 0"


def watchdog() -> tuple[ActorHarness[Watchdog], FakeLink]:
    link = FakeLink()
    return ActorHarness(Watchdog, link=link, stall_after=STALL), link


def at(h: ActorHarness[Watchdog], x: float = 0.5, z: float = 0.5) -> None:
    h.send(WorldObserved(view=view(position=(x, 64.0, z))))


def running(h: ActorHarness[Watchdog], skill: str | None, reflex: str | None = "task") -> None:
    h.send(ActivityChanged(reflex=reflex, skill=skill))


def finished(raw: dict[str, Any]) -> ActionFinished:
    return ActionFinished(
        action_id=str(raw["id"]), ok=raw["ok"], action=raw["action"], error=raw["error"]
    )


def steps(h: ActorHarness[Watchdog]) -> list[str]:
    return [e.step for e in h.events(StuckDetected)]


def test_a_walk_without_progress_climbs_the_ladder_to_an_alert() -> None:
    h, link = watchdog()
    running(h, GOTO)
    at(h)
    h.advance(STALL - 0.1)
    at(h)
    assert steps(h) == []  # not yet
    h.advance(0.1)
    at(h)
    for _ in range(len(LADDER)):
        h.advance(STALL)
        at(h)
    assert steps(h) == [*LADDER, "alert"]
    assert h.last(StuckDetected).reason == f"no progress for {STALL:g}s toward {GOTO}"
    alert = ErrorRaised(source="watchdog", text=f"stuck: no progress for {STALL:g}s toward {GOTO}")
    assert h.events(ErrorRaised) == [alert, alert]
    # every stall is a danger area handed to the pathfinder at once
    dangers = link.calls("setDanger")
    assert len(dangers) == 5
    assert dangers[-1].args == ([(0.5, 0.5, 3.0)] * 5,)


def test_progress_restarts_the_stall_clock_and_a_new_goal_the_ladder() -> None:
    h, _ = watchdog()
    running(h, GOTO)
    at(h)
    h.advance(STALL)
    at(h)
    assert steps(h) == ["repath"]
    h.advance(STALL / 2)
    at(h, x=2.0)  # a block and a half: progress
    h.advance(STALL - 1)
    at(h, x=2.4)  # less than a block from where progress was last made
    assert steps(h) == ["repath"]
    h.advance(1)
    at(h, x=2.4)
    assert steps(h) == ["repath", "pillar-up"]  # the same goal keeps its rung
    running(h, GOTO)  # the same goal again: nothing changes
    h.advance(STALL)
    at(h, x=2.4)
    assert steps(h) == ["repath", "pillar-up", "dig-out"]
    running(h, "nav.follow alice")  # a new goal starts at the bottom
    at(h, x=2.4)
    h.advance(STALL)
    at(h, x=2.4)
    assert steps(h)[-1] == "repath"


@pytest.mark.parametrize(
    ("skill", "reflex"),
    [("gather.wood", "task"), (None, "idle"), ("survive.escape", "escape"), (None, None)],
)
def test_a_skill_that_is_not_a_walk_stops_the_watch(skill: str | None, reflex: str | None) -> None:
    h, _ = watchdog()
    running(h, "nav.explore")
    at(h)
    running(h, skill, reflex)
    h.advance(10 * STALL)
    at(h)
    h.send(finished({"id": "a1", "ok": False, "action": "goto", "error": "No path"}))
    assert h.events(StuckDetected) == []


def test_nothing_is_watched_before_a_walk_or_without_a_position() -> None:
    h, _ = watchdog()
    at(h)
    h.advance(10 * STALL)
    at(h)
    running(h, "survive.flee 10 64 10")
    h.send(WorldObserved(view=view(position=None)))
    h.advance(10 * STALL)
    h.send(WorldObserved(view=view(position=None)))
    assert h.events(StuckDetected) == []


def test_a_failed_walk_climbs_a_rung_but_an_unseen_target_does_not() -> None:
    h, link = watchdog()
    running(h, GOTO)
    link.goto(20, 64, 0)
    h.send(finished(link.done(ok=False, error="cannot see alice")))
    assert steps(h) == []
    h.send(finished(link.done(ok=True)))
    link.follow("alice")
    h.send(finished(link.done(ok=False, error="No path")))  # only goto failures count
    assert steps(h) == []
    link.goto(20, 64, 0)
    h.send(finished(link.done(ok=False, error="No path")))
    assert steps(h) == ["repath"]
    assert h.last(StuckDetected).reason == "pathfinder: No path"
    h.send(finished(link.done(ok=False, error="Timeout")))
    assert steps(h) == ["repath", "pillar-up"]
    assert link.calls("setDanger") == []  # a failure has no place to avoid


def test_the_danger_areas_are_handed_over_again_on_connect() -> None:
    h, link = watchdog()
    h.send(Connected(server="localhost", version="1.20.4"))
    assert link.calls("setDanger") == []  # nothing known yet
    running(h, GOTO)
    at(h, x=7.0, z=-3.0)
    h.advance(STALL)
    at(h, x=7.0, z=-3.0)
    link.clear()
    h.send(Connected(server="localhost", version="1.20.4"))  # a new connection forgot them
    assert link.last("setDanger").args == ([(7.0, -3.0, 3.0)],)


def test_without_a_link_it_still_judges() -> None:
    h = ActorHarness(Watchdog, link=None, stall_after=STALL)
    running(h, GOTO)
    at(h)
    h.advance(STALL)
    at(h)
    h.send(Connected(server="localhost", version="1.20.4"))
    assert steps(h) == ["repath"]
