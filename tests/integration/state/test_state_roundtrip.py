"""What the curriculum actor writes (goals and plans) passes its own reader, unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pepa.actors.curriculum import Curriculum
from pepa.runtime import ChildSpec, Runtime, Supervisor, start_tree
from pepa.runtime.events import PlanDrafted
from pepa.state.files import load
from pepa.state.memory import GOAL_FILE, PLAN_FILE
from pepa.state.plans import (
    clean_goal,
    parse_plan,
)
from tests.waiting import Recorder, eventually

any_text = st.text(st.characters(exclude_categories=()), max_size=400)
"""Any code point: control characters, separators, lone surrogates, astral planes."""


def bad_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)


@pytest.fixture
def curriculum(runtime: Runtime, recorder: Recorder, tmp_path: Path) -> Iterator[Path]:
    spec = ChildSpec(id="curriculum", actor_class=Curriculum, kwargs={"server_dir": tmp_path})
    start_tree(
        ChildSpec(id="root", actor_class=Supervisor, kwargs={"children": [spec]}),
        runtime,
        lambda reason: None,
    )
    recorder.wait_state("curriculum", "running")
    yield tmp_path


@pytest.mark.integration
@pytest.mark.timeout(120)
@settings(
    max_examples=15,
    suppress_health_check=[*settings().suppress_health_check, HealthCheck.function_scoped_fixture],
)
@given(text=any_text)
@example(text="make\x01 a furnace")
def test_the_curriculum_writes_goals_and_plans_its_own_reader_keeps(
    curriculum: Path, runtime: Runtime, text: str
) -> None:
    """Before: ``" ".join(text.split())`` kept ``\\x01``; goal.md and plan.md were moved aside."""
    handle = runtime.registry.handle("curriculum")
    handle.call("set_goal", text, "alice", timeout=10)
    goal = clean_goal(text)
    if goal:
        assert load(curriculum / "goal.md", GOAL_FILE, "") == f"{goal}\n"
        assert f"\nGoal: {goal}\n" in load(curriculum / "plan.md", PLAN_FILE, "")
        runtime.bus.publish(
            PlanDrafted(
                goal=goal, source="pi",
                milestones=("5000 cobblestone (gather.stone)", "3 oak_log (gather.wood)"),
            )
        )  # fmt: skip

        def adopted() -> bool:
            return "3 oak_log" in load(curriculum / "plan.md", PLAN_FILE, "")

        eventually(adopted, 10, "the LLM's plan adopted")
        plan = load(curriculum / "plan.md", PLAN_FILE, "")
        assert "5000" not in plan and [m.text for m in parse_plan(plan)] == [
            "3 oak_log (gather.wood)"
        ]
    assert bad_files(curriculum) == []
