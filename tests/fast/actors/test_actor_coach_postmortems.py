"""The coach's post-mortem queue through ActorHarness: deaths a busy or spent gate turned away.

The same stand-ins as tests/fast/actors/test_actor_coach.py (a scripted back end, the
worker seam, a fake clock): :class:`Held` keeps asks in flight until the test
releases them, so deaths can arrive "while a call is running"; the budget is
the real one, its calls recorded at the fake clock's time they start.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pepa.actors.coach import DRAIN_EVERY
from pepa.llm.budget import COOLDOWNS, MAX_CALLS, WINDOW
from pepa.policy.coach.postmortems import MAX_PENDING
from pepa.runtime.events import (
    DeathAnalysed,
    DeathAnalysisRequested,
    DraftPlan,
    ErrorRaised,
    PlanDrafted,
)
from pepa.testing import ActorHarness
from pepa.world.death import KINDS, DamageSource, DeathCause
from tests.model_standin import BUNDLE, PLAN, POSTMORTEM, Model, coach

pytestmark = pytest.mark.timeout(60)

COOLDOWN = COOLDOWNS["analysis"]
OTHER_KINDS = [k for k in KINDS if k not in ("mob", "player")]


class Held:
    """The worker seam: asks run at once, or wait in ``jobs`` while ``hold`` is set."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self.hold = True
        self.jobs: list[Callable[[], None]] = []
        self.started: list[float] = []
        """Fake-clock time of each ask started (the budget's view of it)."""
        self.clock = clock

    def __call__(self, job: Callable[[], None], name: str) -> None:
        if self.clock is not None:
            self.started.append(self.clock())
        if self.hold:
            self.jobs.append(job)
        else:
            job()


def death(
    death_id: int, kind: str = "mob", killer: str | None = "zombie"
) -> DeathAnalysisRequested:
    blow = DamageSource(kind=kind, by=killer, amount=5.0)
    cause = DeathCause(kind=kind, killer=killer, text=f"{kind} {killer}", sources=(blow,))
    bundle = {**BUNDLE, "cause": cause.as_dict(), "death_no": death_id}
    return DeathAnalysisRequested(death_id=death_id, reason=f"{kind} {killer}", bundle=bundle)


def held_coach(tmp_path: Path, model: Model) -> tuple[ActorHarness[Any], Held]:
    worker = Held()
    h = coach(tmp_path, backend=model, worker=worker)
    worker.clock = h.clock
    return h, worker


def release(h: ActorHarness[Any], worker: Held) -> None:
    """Let the held ask answer, and every later one run at once."""
    worker.hold = False
    while worker.jobs:
        worker.jobs.pop(0)()
    h.advance(0)  # deliver the reply


def analysed(h: ActorHarness[Any]) -> list[int]:
    return [e.death_id for e in h.events(DeathAnalysed)]


def within_budget(started: list[float]) -> bool:
    """No rolling hour holds more than MAX_CALLS asks, none closer than the cooldown."""
    hours = all(sum(1 for t in started if s <= t < s + WINDOW) <= MAX_CALLS for s in started)
    gaps = all(b - a >= COOLDOWN for a, b in itertools.pairwise(started))
    return hours and gaps


def coach_lines(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "pepa.actors.coach" and r.levelno == logging.INFO and text in r.getMessage()
    ]


def test_deaths_during_a_running_call_are_all_analysed_oldest_cause_first_within_the_budget(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="pepa.actors.coach")
    model = Model(replies=[POSTMORTEM])
    h, worker = held_coach(tmp_path, model)
    for message in (death(1), death(2, "fall", None), death(3, "drowning", None)):
        h.send(message)
        h.advance(1)
    h.send(death(4, "mob", "skeleton"))
    assert len(worker.jobs) == 1 and len(h.actor.postmortems) == 3
    assert len(coach_lines(caplog, "queued")) == 3
    assert "another ask is running" in coach_lines(caplog, "death 2 (fall) queued")[0]
    release(h, worker)
    assert analysed(h) == [1]  # the cooldown holds the rest
    h.advance(COOLDOWN - DRAIN_EVERY - 3)
    assert analysed(h) == [1]
    h.advance(DRAIN_EVERY)
    assert analysed(h) == [1, 2]
    h.advance(WINDOW)
    assert analysed(h) == [1, 2, 3, 4]  # oldest cause first
    assert "fall" in model.prompts[1] and "drown" in model.prompts[2]
    assert "skeleton" in model.prompts[3] and len(model.prompts) == 4
    assert within_budget(worker.started), worker.started
    assert worker.started[3] >= worker.started[0] + WINDOW  # the fourth waited for the hour
    assert len(h.actor.postmortems) == 0


def test_a_death_during_another_ask_is_asked_as_soon_as_that_reply_is_handled(
    tmp_path: Path,
) -> None:
    model = Model(replies=[PLAN, POSTMORTEM])
    h, worker = held_coach(tmp_path, model)
    h.send(DraftPlan(goal="a house"), death(1))
    assert len(worker.jobs) == 1 and 1 in h.actor.postmortems
    release(h, worker)  # no timer tick: the clock has not moved
    assert h.events(PlanDrafted) and analysed(h) == [1]
    assert worker.started[1] == worker.started[0]  # asked at once, not on a later tick


def test_alike_deaths_are_merged_into_one_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="pepa.actors.coach")
    model = Model(replies=[POSTMORTEM])
    h, worker = held_coach(tmp_path, model)
    h.send(death(1), *[death(n, "mob", "creeper") for n in (2, 3, 4)])
    assert len(h.actor.postmortems) == 1
    assert len(coach_lines(caplog, "queued")) == 1
    merged = coach_lines(caplog, "merged into death 2's")
    assert len(merged) == 2 and "(mob by creeper, 3 deaths)" in merged[-1]
    release(h, worker)
    h.advance(WINDOW)
    assert analysed(h) == [1, 2]  # one call for the three creeper deaths, stored for the first
    assert len(model.prompts) == 2
    assert "it died this same way 3 times lately" in model.prompts[1]
    assert "this same way" not in model.prompts[0]


def test_a_full_queue_logs_once_and_keeps_every_distinct_kind(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="pepa.actors.coach")
    model = Model(replies=[POSTMORTEM])
    h, worker = held_coach(tmp_path, model)
    h.send(death(1, "mob", "enderman"))  # running
    ids: dict[str, int] = {}
    for n, kind in enumerate(OTHER_KINDS, start=2):
        ids[kind] = n
        h.send(death(n, kind, None))
    for n, killer in enumerate(("zombie", "skeleton", "spider"), start=100):
        ids[killer] = n
        h.send(death(n, "mob", killer))
    assert len(h.actor.postmortems) == MAX_PENDING and coach_lines(caplog, "queue full") == []
    h.send(death(200, "mob", "creeper"), death(201, "mob", "witch"))  # mob is queued: turned away
    h.send(death(202, "player", "griefer"))  # a new kind: the spider gives way
    h.send(death(203, "fall", None))  # alike: merged, even when full
    assert len(coach_lines(caplog, "queue full")) == 1
    assert len(h.actor.postmortems) == MAX_PENDING
    release(h, worker)
    h.advance(7 * WINDOW)
    done = analysed(h)
    assert len(done) == 1 + MAX_PENDING and len(model.prompts) == len(done)
    assert set(done) == {1, 202, *ids.values()} - {ids["spider"]}
    assert done == sorted(done)  # oldest cause first: ids were given in arrival order
    assert within_budget(worker.started)
    assert len(coach_lines(caplog, "queue full")) == 1


def test_garbage_replies_to_queued_post_mortems_never_become_lessons(tmp_path: Path) -> None:
    model = Model(
        replies=[POSTMORTEM, "Error: rate limit exceeded", "Sure! Here it is.", POSTMORTEM]
    )
    h, worker = held_coach(tmp_path, model)
    h.send(death(1), death(2, "fall", None), death(3, "lava", None), death(4, "void", None))
    release(h, worker)
    h.advance(2 * WINDOW)
    assert analysed(h) == [1, 4]  # 2 and 3 failed, were not asked again, did not block 4
    assert len(model.prompts) == 4
    two, three = (e.text for e in h.events(ErrorRaised))
    assert two.startswith("standin post-mortem of death 2: reply rejected: error text")
    assert three == "standin post-mortem of death 3: reply rejected: not JSON"
    assert all(e.lessons for e in h.events(DeathAnalysed))


def test_the_offline_coach_queues_nothing(tmp_path: Path) -> None:
    h = coach(tmp_path, backend="offline")
    h.send(death(1), death(2, "fall", None))
    h.advance(WINDOW)
    assert len(h.actor.postmortems) == 0 and h.published == []
    assert not h.scheduler._due  # no drain timer either
