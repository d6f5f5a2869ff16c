"""The coach actor under a real runtime for the LLM back-end tests: a death's bundle, and the
coach started on ``pi`` (the stand-in on PATH) with its budget file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pepa.actors.coach import Coach
from pepa.llm import LlmSettings
from pepa.runtime import ChildSpec, Runtime, Supervisor, start_tree
from tests.model_standin import NEXT, POSTMORTEM
from tests.waiting import Recorder

__all__ = ["BUNDLE", "NEXT", "POSTMORTEM", "pi_coach", "start_coach"]

BUNDLE = {
    "snapshots": [{"hp": 20, "food": 17}, {"hp": 9, "food": 17}, {"hp": 2, "food": 16}],
    "last_skill": "combat.attack-nearest zombie",
    "last_hostile": {"name": "zombie", "distance": 1.5},
    "hp": 0,
    "food": 16,
    "inventory": {"items": {"bread": 2}},
}


def start_coach(runtime: Runtime, recorder: Recorder, **kwargs: Any) -> None:
    root = ChildSpec(
        id="root",
        actor_class=Supervisor,
        kwargs={"children": [ChildSpec(id="coach", actor_class=Coach, kwargs=kwargs)]},
    )
    start_tree(root, runtime, lambda reason: None)
    recorder.wait_state("coach", "running")


def pi_coach(
    runtime: Runtime, recorder: Recorder, tmp_path: Path, timeout: float = 20.0, **kwargs: Any
) -> Path:
    budget = tmp_path / "llm-budget.json"
    start_coach(
        runtime,
        recorder,
        backend="pi",
        settings=LlmSettings(timeout=timeout),
        budget_path=budget,
        **kwargs,
    )
    return budget
