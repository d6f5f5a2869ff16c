"""The knowledge actor acting on its reflection: the report, lessons and proposals it writes,
the plan changes it sends the curriculum (never writing ``plan.md`` itself)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from pepa.actors.knowledge import Knowledge
from pepa.runtime import ChildSpec, Runtime, Supervisor, start_tree
from pepa.runtime.events import (
    ActivityChanged,
    Died,
    ReflectionWanted,
    RevisePlan,
    SkillFinished,
    WorldObserved,
)
from pepa.runtime.events.queries import Reflect
from pepa.testing import entity, view
from tests.waiting import Recorder

pytestmark = pytest.mark.timeout(30)


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
        bus.publish(WorldObserved(view=view(hp=4, entities=[entity(n, "zombie", 1.5)])))
        bus.publish(Died(reason="killed near zombie", position={"x": n * 40.0, "y": 5, "z": 0}))
    for ok in (False, False, False, True, False):
        bus.publish(SkillFinished(skill="nav.goto", ok=ok, seconds=1.0))
    recorder.wait_for(lambda e: isinstance(e, Died), count=3)
    report = runtime.registry.handle("knowledge").request(Reflect(), timeout=10)
    assert report is not None
    return report


@pytest.mark.integration
def test_the_knowledge_actor_writes_the_reflection_lessons_and_proposal_and_sends_the_plan(
    runtime: Runtime, recorder: Recorder, tmp_path: Path
) -> None:
    (tmp_path / "plan.md").write_text("# Plan\n\n- [ ] wooden pickaxe\n")
    report = reflect_after_three_deaths(runtime, recorder, tmp_path)

    text = report.read_text()
    assert report.parent == tmp_path / "reflections"
    assert "Am I in a loop? **yes**" in text and "lost a fight to zombie" in text
    (revised,) = recorder.wait_for(lambda e: isinstance(e, RevisePlan))
    assert revised.source == "reflection"
    assert revised.changes == (
        "- [ ] 1 stone_sword (craft.stone_sword)",
        "- [ ] 1 iron_chestplate (craft.iron_chestplate)",
    )
    (wanted,) = recorder.wait_for(lambda e: isinstance(e, ReflectionWanted))
    assert wanted.report == text  # for a model to read (the coach asks, if it has one)
    (proposal_file,) = (tmp_path / "proposals").glob("*-reflection-nav-goto.md")
    assert "fails 80% of the time" in proposal_file.read_text()
    with closing(sqlite3.connect(tmp_path / "knowledge.db")) as raw:
        rows = raw.execute("select verdict, text from lessons where hostile = 'zombie'").fetchall()
    assert ("avoid", "3 deaths to zombie in a row: stop fighting it, get away") in rows


@pytest.mark.integration
def test_reflection_never_writes_plan_md_itself_however_full_it_is(
    runtime: Runtime, recorder: Recorder, tmp_path: Path
) -> None:
    # plan.md has one writer, the curriculum: it applies RevisePlan, and checks the plan's cap
    full = "# Plan\n\n" + "".join(f"- [ ] note {n}\n" for n in range(997))
    (tmp_path / "plan.md").write_text(full)
    report = reflect_after_three_deaths(runtime, recorder, tmp_path)
    assert "Am I in a loop? **yes**" in report.read_text()
    recorder.wait_for(lambda e: isinstance(e, RevisePlan))
    assert (tmp_path / "plan.md").read_text() == full
    assert not (tmp_path / "plan.md.bak").exists()
    assert not (tmp_path / "diary").exists()
