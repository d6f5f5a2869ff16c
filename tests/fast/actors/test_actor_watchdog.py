"""The watchdog through a fake link on a fake clock: the stuck ladder, its causes, danger areas.

A stall is measured lack of progress: a pre-emption or a goal change is never
one, defend, escape and eat suspend the watch, and the ladder climbs at most
one rung per window. :class:`Wired` runs the watchdog beside the reflex, as
the bus wires them, to show a flight pre-empting a walk climbs no rung.
"""

from __future__ import annotations

from typing import Any

import pytest

from pepa.actors.watchdog import Watchdog
from pepa.policy.reflex.hazards import NEVER_COST, STEP_COST
from pepa.policy.watchdog.progress import DEATH_RADIUS, LADDER
from pepa.runtime.events import (
    ActionFinished,
    ActivityChanged,
    Connected,
    Died,
    ErrorRaised,
    LessonLearned,
    PlayerSpotted,
    StuckDetected,
    WorldObserved,
)
from pepa.runtime.events.queries import ActiveLesson, ActiveLessons, DeathPlaces
from pepa.testing import ActorHarness, FakeLink, view

pytestmark = pytest.mark.timeout(30)

STALL = 10.0

GOTO = "nav.goto 20 64 0"

NO_PROGRESS = f"no progress {STALL:g} s on nav.goto"

GOAL_CHANGED = "The goal was changed before it could be completed!"
"""mineflayer-pathfinder 2.4.5 lib/goto.js: the goal was replaced (``stop()`` sets none)."""

PATH_STOPPED = (
    "Path was stopped before it could be completed! Thus, the desired goal was not reached."
)
"""mineflayer-pathfinder 2.4.5 lib/goto.js: ``bot.pathfinder.stop()``."""


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


def failed_walk(error: str, action_id: str = "a1") -> ActionFinished:
    return ActionFinished(action_id=action_id, ok=False, action="goto", error=error)


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
    assert h.last(StuckDetected).reason == NO_PROGRESS  # the cause: countable, no arguments
    alert = ErrorRaised(source="watchdog", text=f"stuck: {NO_PROGRESS}")
    assert h.events(ErrorRaised) == [alert, alert]
    # every stall is a danger area handed to the pathfinder at once
    dangers = link.calls("set_danger")
    assert len(dangers) == 5
    assert dangers[-1].args == {"areas": [(0.5, 0.5, 3.0)] * 5}


def test_no_progress_climbs_one_rung_per_window_whatever_else_fails() -> None:
    h, _ = watchdog()
    running(h, GOTO)
    at(h)
    h.advance(STALL)
    at(h)
    assert steps(h) == ["repath"]
    for _ in range(5):  # real failures inside the window: measured, not counted again
        h.advance(STALL / 10)
        h.send(failed_walk("No path to the goal!"))
        at(h)
    assert steps(h) == ["repath"]
    h.advance(STALL / 2)
    at(h)
    assert steps(h) == ["repath", "pillar-up"]


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
    running(h, "nav.follow alice", "operator")  # a new goal starts at the bottom
    at(h, x=2.4)
    h.advance(STALL)
    at(h, x=2.4)
    assert steps(h)[-1] == "repath"
    assert h.last(StuckDetected).reason == f"no progress {STALL:g} s on nav.follow"


@pytest.mark.parametrize(
    ("skill", "reflex"),
    [("gather.wood", "task"), (None, "idle"), ("survive.sleep", "sleep"), (None, None)],
)
def test_a_skill_that_is_not_a_walk_stops_the_watch(skill: str | None, reflex: str | None) -> None:
    h, _ = watchdog()
    running(h, "nav.explore")
    at(h)
    running(h, skill, reflex)
    h.advance(10 * STALL)
    at(h)
    h.send(failed_walk("No path to the goal!"))
    assert h.events(StuckDetected) == []


def test_nothing_is_watched_before_a_walk_or_without_a_position() -> None:
    h, _ = watchdog()
    at(h)
    h.advance(10 * STALL)
    at(h)
    running(h, "nav.explore")
    h.send(WorldObserved(view=view(position=None)))
    h.advance(10 * STALL)
    h.send(WorldObserved(view=view(position=None)))
    assert h.events(StuckDetected) == []


@pytest.mark.parametrize("error", [GOAL_CHANGED, PATH_STOPPED, "GoalChanged", "stopped"])
def test_a_preempted_walk_is_never_stuck(error: str) -> None:
    h, _ = watchdog()
    running(h, GOTO)
    at(h)
    for n in range(10):  # pre-empted again and again, as a fight does
        h.send(failed_walk(error, f"a{n}"))
        h.advance(STALL / 4)
        at(h, x=0.5 + 2 * n)  # and the bot is moving
    assert h.events(StuckDetected) == []


def test_a_goal_change_restarts_the_watch_without_climbing() -> None:
    h, _ = watchdog()
    running(h, GOTO)
    at(h)
    h.advance(STALL - 1)
    at(h)
    running(h, "nav.goto 0 64 30")  # a new goal just before the old one stalled
    h.send(failed_walk(GOAL_CHANGED))  # the old walk's end, after the new goal was announced
    at(h)
    h.advance(STALL - 1)
    at(h)
    assert steps(h) == []
    h.advance(1)
    at(h)
    assert steps(h) == ["repath"]  # the new goal's own window


def test_a_failed_walk_climbs_a_rung_but_an_unseen_target_does_not() -> None:
    h, link = watchdog()
    running(h, GOTO)
    link.act("goto", x=20, y=64, z=0)
    h.send(finished(link.done(ok=False, error="cannot see alice")))
    assert steps(h) == []
    h.send(finished(link.done(ok=True)))
    link.act("hunt", names=["cow"])
    h.send(finished(link.done(ok=False, error="No path")))  # only walks' failures count
    assert steps(h) == []
    link.act("goto", x=20, y=64, z=0)
    h.send(finished(link.done(ok=False, error="No path to the goal!")))
    assert steps(h) == ["repath"]
    assert h.last(StuckDetected).reason == "path failed: No path to the goal!"
    h.send(finished(link.done(ok=False, error="stopped 4.2 blocks short")))
    assert steps(h) == ["repath"]  # one rung per window
    h.advance(STALL)
    h.send(finished(link.done(ok=False, error="stopped 4.2 blocks short")))
    assert steps(h) == ["repath", "pillar-up"]
    assert h.last(StuckDetected).reason == "path failed: stopped 4.2 blocks short"
    assert link.calls("set_danger") == []  # a failure has no place to avoid


@pytest.mark.parametrize(
    ("skill", "action"), [("nav.goto alice", "goto"), ("nav.follow alice", "follow")]
)
def test_a_walk_waiting_to_see_its_target_is_not_stuck_until_it_moves_again(
    skill: str, action: str
) -> None:
    h, _ = watchdog()
    running(h, skill, "operator")
    at(h)
    h.send(ActionFinished(action_id="a1", ok=False, action=action, error="cannot see alice"))
    for _ in range(5):  # the reflex waits for alice: standing still is not a stall
        h.advance(STALL)
        at(h)
    assert steps(h) == []
    at(h, x=5.0)  # she came into sight: the walk goes on, watched again
    h.advance(STALL)
    at(h, x=5.0)
    assert steps(h) == ["repath"]


def test_a_walk_that_waited_to_see_its_target_is_judged_again_once_she_is_seen() -> None:
    h, _ = watchdog()
    running(h, "nav.follow alice", "operator")
    at(h)
    h.send(ActionFinished(action_id="a1", ok=False, action="follow", error="cannot see alice"))
    h.advance(STALL)
    at(h)
    h.send(PlayerSpotted(name="alice", distance=20.0))  # the follow starts again, the bot stays
    at(h)
    assert steps(h) == []
    h.advance(STALL)
    at(h)
    assert steps(h) == ["repath"]


@pytest.mark.parametrize(
    ("reflex", "skill"),
    [
        ("defend", "survive.flee"),
        ("defend", "combat.attack-nearest zombie"),
        ("escape", "survive.escape"),
        ("eat", "survive.eat bread"),
    ],
)
def test_defend_escape_and_eat_suspend_the_watch_and_the_walk_restarts_it(
    reflex: str, skill: str
) -> None:
    h, _ = watchdog()
    running(h, GOTO)
    at(h)
    for _ in range(2):
        h.advance(STALL)
        at(h)
    assert steps(h) == ["repath", "pillar-up"]
    running(h, skill, reflex)
    for n in range(10):
        h.send(failed_walk("No path to the goal!", f"b{n}"))
        h.advance(STALL)
        at(h)
    assert steps(h) == ["repath", "pillar-up"]  # suspended: no verdicts
    running(h, GOTO)  # the same walk resumes: a fresh stall clock, the rung it had reached
    at(h)
    h.advance(STALL - 1)
    at(h)
    assert steps(h) == ["repath", "pillar-up"]
    h.advance(1)
    at(h)
    assert steps(h) == ["repath", "pillar-up", "dig-out"]
    running(h, "nav.goto 1 64 1")  # a different goal: the bottom rung
    at(h)
    h.advance(STALL)
    at(h)
    assert steps(h)[-1] == "repath"


def test_a_walk_interrupted_by_eating_every_window_still_climbs_the_ladder() -> None:
    h, _ = watchdog()
    running(h, GOTO)
    for _ in range(5):  # stuck, and an eat comes before each window is up
        at(h)
        h.advance(STALL * 0.8)
        at(h)
        running(h, "survive.eat bread", "eat")
        h.advance(STALL * 0.3)
        running(h, GOTO)
        at(h)
        h.advance(STALL * 0.8)
        at(h)
    assert steps(h)[:4] == list(LADDER)


def test_a_flight_is_not_a_walk_the_watchdog_judges() -> None:
    h, _ = watchdog()
    running(h, "survive.flee", "task")
    at(h)
    h.advance(STALL * 3)
    at(h)
    assert steps(h) == []


def test_the_danger_areas_are_handed_over_again_on_connect() -> None:
    h, link = watchdog()
    h.send(Connected(server="localhost", version="1.20.4"))
    assert link.calls("set_danger") == []  # nothing known yet
    running(h, GOTO)
    at(h, x=7.0, z=-3.0)
    h.advance(STALL)
    at(h, x=7.0, z=-3.0)
    link.clear()
    h.send(Connected(server="localhost", version="1.20.4"))  # a new connection forgot them
    assert link.last("set_danger").args == {"areas": [(7.0, -3.0, 3.0)]}


def test_a_place_where_the_bot_died_is_walked_around_from_then_on() -> None:
    def knowledge(message: Any) -> Any:
        if isinstance(message, ActiveLessons):
            return ()  # no lesson about a block type
        assert isinstance(message, DeathPlaces)
        return ((100.0, 20.0),)  # died there in an earlier run

    link = FakeLink()
    h = ActorHarness(Watchdog, link=link, stall_after=STALL, peers={"knowledge": knowledge})
    h.send(Connected(server="localhost", version="1.20.4"))
    assert link.last("set_danger").args == {"areas": [(100.0, 20.0, DEATH_RADIUS)]}
    h.send(Died(reason="slain by zombie", position={"x": -5.04, "y": 64.0, "z": 9.96}))
    assert link.last("set_danger").args == {"areas": [(100.0, 20.0, 4.0), (-5.0, 10.0, 4.0)]}
    h.send(Died(reason="died", position=None))  # no place: nothing new to avoid
    assert len(link.calls("set_danger")) == 2


def test_with_learning_off_no_place_of_death_is_walked_around() -> None:
    asked: list[Any] = []
    link = FakeLink()
    h = ActorHarness(
        Watchdog, link=link, stall_after=STALL, learning=False,
        peers={"knowledge": lambda message: asked.append(message) or ((100.0, 20.0),)},
    )  # fmt: skip
    h.send(Connected(server="localhost", version="1.20.4"))
    h.send(Died(reason="slain by zombie", position={"x": -5.04, "y": 64.0, "z": 9.96}))
    assert asked == [] and link.calls("set_danger") == []
    running(h, GOTO)  # a place it got stuck is still gone round: no lesson, a way that failed
    at(h, x=7.0, z=-3.0)
    h.advance(STALL)
    at(h, x=7.0, z=-3.0)
    assert link.last("set_danger").args == {"areas": [(7.0, -3.0, 3.0)]}


def test_without_the_knowledge_base_the_death_places_start_empty() -> None:
    h, link = watchdog()  # no knowledge peer: one warning, no crash
    h.send(Connected(server="localhost", version="1.20.4"))
    assert link.calls("set_danger") == []


def test_without_a_link_it_still_judges() -> None:
    h = ActorHarness(Watchdog, link=None, stall_after=STALL)
    running(h, GOTO)
    at(h)
    h.advance(STALL)
    at(h)
    h.send(Connected(server="localhost", version="1.20.4"))
    assert steps(h) == ["repath"]


def test_the_gauntlet_counts_causes_whatever_their_numbers() -> None:
    from bench.gauntlet import _cause

    assert _cause("path failed: stopped 4.2 blocks short") == "path failed: stopped N blocks short"
    assert _cause("path failed: stopped 12 blocks short") == _cause(
        "path failed: stopped 0.5 blocks short"
    )
    assert _cause("no progress 60 s on nav.goto") == "no progress N s on nav.goto"


def block_lesson(relation: str, block: str, confidence: float) -> LessonLearned:
    return LessonLearned(
        skill=f"hazard.{relation}", hostile=block, verdict="avoid", alternative="",
        confidence=confidence,
    )  # fmt: skip


def test_the_block_types_lessons_name_are_kept_off_by_every_path() -> None:
    def knowledge(message: Any) -> Any:
        if isinstance(message, ActiveLessons):  # in force from an earlier run
            return (ActiveLesson(skill="hazard.below", hostile="magma_block", verdict="avoid",
                                 alternative="", confidence=0.75),)  # fmt: skip
        return ()

    link = FakeLink()
    h = ActorHarness(Watchdog, link=link, stall_after=STALL, peers={"knowledge": knowledge})
    assert link.last("set_hazards").args == {
        "below": {"magma_block": NEVER_COST}, "inside": {}, "touching": {},
    }  # fmt: skip
    h.send(block_lesson("touching", "cactus", 0.6))  # a near-miss's: it costs, not forbids
    assert link.last("set_hazards").args["touching"] == {"cactus": STEP_COST}
    h.send(block_lesson("touching", "cactus", 0.7))  # learned again
    assert link.last("set_hazards").args["touching"] == {"cactus": NEVER_COST}
    calls = len(link.calls("set_hazards"))
    h.send(block_lesson("touching", "cactus", 0.75), LessonLearned(
        skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
        alternative="survive.flee", confidence=0.9,
    ))  # fmt: skip
    assert len(link.calls("set_hazards")) == calls  # nothing the pathfinder sees changed
    h.send(block_lesson("below", "magma_block", 0.55))  # graded down: out of force
    assert link.last("set_hazards").args["below"] == {}
    link.clear()
    h.send(Connected(server="localhost", version="1.20.4"))  # a new connection forgot them
    assert link.last("set_hazards").args["touching"] == {"cactus": NEVER_COST}


def test_with_learning_off_no_block_type_is_kept_off() -> None:
    def knowledge(message: Any) -> Any:
        raise AssertionError(f"learning off asks nothing of the knowledge base: {message!r}")

    link = FakeLink()
    h = ActorHarness(
        Watchdog, link=link, stall_after=STALL, learning=False, peers={"knowledge": knowledge}
    )
    h.send(block_lesson("below", "magma_block", 0.75), Connected(server="s", version="1.20.4"))
    assert link.calls("set_hazards") == []
