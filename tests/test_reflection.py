"""Reflection: the pure "am I in a loop?" analysis, and the knowledge actor writing its results."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime
from pathlib import Path

import pytest

from pepa.actors.knowledge import Knowledge
from pepa.events import ActivityChanged, Died, SkillFinished, WorldObserved
from pepa.knowledge.reflection import DeathFact, adjust_plan, reflect
from pepa.supervision import ChildSpec, Runtime, Supervisor, start_tree
from tests.conftest import Recorder

pytestmark = pytest.mark.timeout(30)

AT = datetime(2026, 11, 30, 4, 0)


def test_three_deaths_to_one_mob_are_a_loop_with_a_lesson_and_a_plan_change() -> None:
    deaths = [
        DeathFact(cause="lost a fight to zombie", x=10.0 + i * 50, z=0.0, hostile="zombie")
        for i in range(3)
    ]
    result = reflect(at=AT, deaths=deaths, skills={})
    assert result.in_loop
    assert result.findings == ("died 3 times of the same cause: lost a fight to zombie",)
    (lesson,) = result.lessons
    assert (lesson.verdict, lesson.hostile, lesson.alternative) == (
        "avoid", "zombie", "survive.flee",
    )  # fmt: skip
    assert result.plan_changes == ("- [ ] make a weapon and armour before fighting zombie again",)
    assert "Am I in a loop? **yes**" in result.markdown
    assert "## New lessons" in result.markdown


def test_deaths_piling_up_on_one_spot_are_a_death_trap() -> None:
    causes = ["fell", "drowned", "lost a fight to spider", "burned"]
    deaths = [DeathFact(cause=c, x=100.0 + i, z=-50.0 + i) for i, c in enumerate(causes)]
    result = reflect(at=AT, deaths=deaths, skills={})
    assert result.findings == ("died 4 times within 16 blocks of 102 -48",)
    assert result.plan_changes == ("- [ ] keep away from 102 -48 (a death trap); move the base",)


def test_a_skill_failing_half_its_runs_is_a_proposal_hint_a_quiet_window_is_no_loop() -> None:
    skills = {"nav.goto": {"ok": 2, "failed": 4}, "survive.eat": {"ok": 9, "failed": 1}}
    result = reflect(at=AT, deaths=[], skills=skills)
    assert result.proposal_hints == ("nav.goto: fails 67% of the time; look at its preconditions",)
    quiet = reflect(at=AT, deaths=[DeathFact(cause="fell")], skills={"nav.goto": {"ok": 5}})
    assert not quiet.in_loop and quiet.findings == () and "**no**" in quiet.markdown


def test_the_diary_repeating_itself_is_a_loop() -> None:
    diary = ["- went to the mine", "- went to the mine", "- went to the mine", "- slept"]
    assert reflect(at=AT, deaths=[], skills={}, diary=diary).in_loop


def test_plan_adjustments_are_appended_once_under_a_dated_heading() -> None:
    plan = "# Plan\n\n- [x] wooden pickaxe\n- [ ] stone pickaxe\n"
    changes = ("- [ ] keep away from 1 2",)
    once = adjust_plan(plan, changes, AT)
    assert once.startswith(plan.rstrip("\n"))
    assert "## Adjusted by reflection 2026-11-30 04:00 UTC\n\n- [ ] keep away from 1 2\n" in once
    assert adjust_plan(once, changes, AT) == once
    assert adjust_plan("", changes, AT).startswith("# Plan\n\n## Adjusted")


def reflect_after_three_deaths(runtime: Runtime, recorder: Recorder, server_dir: Path) -> Path:
    """A knowledge actor that saw three deaths to zombies and a failing walk, asked to reflect."""
    spec = ChildSpec(
        id="knowledge",
        actor_class=Knowledge,
        kwargs={"server_dir": server_dir, "reflect_every": 0},
    )
    start_tree(
        ChildSpec(id="root", actor_class=Supervisor, kwargs={"children": [spec]}),
        runtime,
        lambda reason: None,
    )
    recorder.wait_state("knowledge", "running")
    bus = runtime.bus
    bus.publish(ActivityChanged(reflex="defend", skill="combat.attack-nearest zombie"))
    for n in range(3):
        threat = {"name": "zombie", "distance": 1.5, "id": n}
        bus.publish(WorldObserved(snapshot={"hp": 4, "food": 18, "threats": [threat]}))
        bus.publish(Died(reason="killed near zombie", position={"x": n * 40.0, "y": 5, "z": 0}))
    for ok in (False, False, False, True, False):
        bus.publish(SkillFinished(skill="nav.goto", ok=ok, seconds=1.0))
    recorder.wait_for(lambda e: isinstance(e, Died), count=3)
    return Path(runtime.registry.handle("knowledge").call("reflect", timeout=10))


@pytest.mark.integration
def test_the_knowledge_actor_writes_the_reflection_lessons_plan_and_proposal(
    runtime: Runtime, recorder: Recorder, tmp_path: Path
) -> None:
    (tmp_path / "plan.md").write_text("# Plan\n\n- [ ] wooden pickaxe\n")
    report = reflect_after_three_deaths(runtime, recorder, tmp_path)

    text = report.read_text()
    assert report.parent == tmp_path / "reflections"
    assert "Am I in a loop? **yes**" in text and "lost a fight to zombie" in text
    assert (tmp_path / "plan.md.bak").read_text() == "# Plan\n\n- [ ] wooden pickaxe\n"
    assert "before fighting zombie again" in (tmp_path / "plan.md").read_text()
    (diary,) = (tmp_path / "diary").iterdir()
    assert "reflection changed the plan" in diary.read_text()
    (proposal,) = (tmp_path / "proposals").glob("*-reflection-nav-goto.md")
    assert "fails 80% of the time" in proposal.read_text()
    with closing(sqlite3.connect(tmp_path / "knowledge.db")) as raw:
        rows = raw.execute("select verdict, text from lessons where hostile = 'zombie'").fetchall()
    assert ("avoid", "3 deaths to zombie in a row: stop fighting it, get away") in rows


@pytest.mark.integration
def test_reflection_never_writes_a_plan_its_own_reader_would_move_aside(
    runtime: Runtime, recorder: Recorder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # months of adjustments: one more block of lines would pass the plan's 1000-line cap
    full = "# Plan\n\n" + "".join(f"- [ ] note {n}\n" for n in range(997))
    (tmp_path / "plan.md").write_text(full)
    report = reflect_after_three_deaths(runtime, recorder, tmp_path)
    assert "Am I in a loop? **yes**" in report.read_text()
    assert (tmp_path / "plan.md").read_text() == full
    assert not (tmp_path / "plan.md.bak").exists()
    assert any("reflection left plan.md as it is" in r.getMessage() for r in caplog.records)
