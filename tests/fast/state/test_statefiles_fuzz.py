"""Every state file's loader fuzzed (hypothesis): whatever bytes are on disk, a loader returns a
value its schema accepts, or the default with the file moved aside; it never raises."""

from __future__ import annotations

import json
import logging
import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pepa.daemon.restarts import exit_reason
from pepa.llm.budget import KINDS, load_budget
from pepa.policy.persona.voice import Voice
from pepa.state.files import WORKER_EXIT, load
from pepa.state.memory import (
    GOAL_FILE,
    LOCATIONS_FILE,
    PLAN_FILE,
    Locations,
    TaskFile,
    task_schema,
)
from pepa.state.persona import PERSONA_FILE, load_cooldowns
from pepa.state.proposals import ProposalStore


def bad_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)


FUZZ = settings(
    max_examples=40,
    suppress_health_check=[*settings().suppress_health_check, HealthCheck.filter_too_much],
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)

stamps = st.floats() | st.integers() | st.sampled_from([0, 1.5, time.time(), 1e12, -1])


def as_bytes(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity too: not JSON, so a bad file


def fuzz_loader(raw: bytes, name: str, loader: Callable[[Path], Any]) -> tuple[Any, bool]:
    """Load ``raw`` as ``name`` in a fresh folder; (the value, whether the file was kept)."""
    logging.disable(logging.WARNING)  # thousands of warnings are the point, not the output
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.write_bytes(raw)
            value = loader(path)
            kept = path.exists()
            moved = bad_files(Path(folder))
            assert kept != bool(moved), (kept, moved)
            if kept:
                assert path.read_bytes() == raw
            return value, kept
    finally:
        logging.disable(logging.NOTSET)


def task_docs() -> st.SearchStrategy[Any]:
    args = st.fixed_dictionaries({}, optional={"item": json_values, "count": json_values})
    return st.fixed_dictionaries(
        {"kind": st.sampled_from(["milestone", "come", "follow"]) | json_values},
        optional={
            "skill": st.sampled_from(["gather.wood", "craft.stick"]) | json_values,
            "operator": st.sampled_from(["alice"]) | json_values,
            "milestone": json_values,
            "args": args | json_values,
        },
    )


@FUZZ
@given(raw=st.binary(max_size=300) | json_values.map(as_bytes) | task_docs().map(as_bytes))
def test_fuzz_the_task_loader(raw: bytes) -> None:
    task, kept = fuzz_loader(raw, "current-task.json", lambda p: TaskFile(p).read())
    if task is None:
        assert not kept or not raw.strip()
    else:
        assert kept and task_schema().spec.check(task, "") == task
        assert isinstance(task["kind"], str)


def persona_docs() -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries(
        {
            "last": stamps | json_values,
            "recent": st.lists(stamps, max_size=70) | json_values,
            "moments": st.dictionaries(st.text(max_size=210), stamps, max_size=4) | json_values,
        },
        optional={"turns": st.integers() | json_values},
    )


@FUZZ
@given(raw=st.binary(max_size=300) | json_values.map(as_bytes) | persona_docs().map(as_bytes))
def test_fuzz_the_persona_loader(raw: bytes) -> None:
    voice, kept = fuzz_loader(raw, "persona.json", lambda p: Voice.restore(load_cooldowns(p)))
    now = time.time()
    if not kept:
        assert voice.last == -math.inf and not voice.recent and not voice.moments
        return
    for t in [voice.last, *voice.recent, *voice.moments.values()]:
        assert math.isfinite(t) and 0 <= t <= now
    assert len(voice.recent) <= 64 and isinstance(voice.turns, int)
    assert PERSONA_FILE.parse(raw) is not None


def budget_docs() -> st.SearchStrategy[Any]:
    kinds = st.sampled_from(["analysis", "plan", "banter"]) | json_values
    call = st.lists(stamps | kinds, max_size=3) | st.tuples(stamps, kinds).map(list)
    version = st.sampled_from([1, 2]) | json_values
    calls = st.lists(call, max_size=5) | json_values
    return st.fixed_dictionaries({"calls": calls}, optional={"version": version})


@FUZZ
@given(raw=st.binary(max_size=300) | json_values.map(as_bytes) | budget_docs().map(as_bytes))
def test_fuzz_the_budget_loader(raw: bytes) -> None:
    budget, kept = fuzz_loader(raw, "llm-budget.json", load_budget)
    if not kept:
        assert budget.calls == []
        return
    for at, kind in budget.calls:
        assert math.isfinite(at) and 0 <= at <= time.time() and kind in KINDS
    assert len(budget.calls) <= 64


def places_docs() -> st.SearchStrategy[Any]:
    place = st.fixed_dictionaries(
        {"x": stamps | json_values, "y": stamps | json_values, "z": stamps | json_values},
        optional={"note": json_values},
    )
    return st.dictionaries(st.sampled_from(["spawn", "bed", "Bad Name"]) | st.text(), place)


@FUZZ
@given(raw=st.binary(max_size=300) | json_values.map(as_bytes) | places_docs().map(as_bytes))
def test_fuzz_the_locations_loader(raw: bytes) -> None:
    places, kept = fuzz_loader(raw, "locations.json", lambda p: Locations(p).places)
    if not kept:
        assert places == {}
        return
    assert places == (LOCATIONS_FILE.parse(raw) if raw.strip() else {})
    for place in places.values():
        assert all(math.isfinite(place[k]) and abs(place[k]) <= 3e7 for k in "xyz")


plan_lines = st.sampled_from(
    ["# Plan", "", "- [ ] 3 oak_log (gather.wood)", "- [x] 1 stick (craft.stick)", "- [ ] note"]
) | st.text(max_size=40)


@FUZZ
@given(
    raw=st.binary(max_size=300)
    | st.lists(plan_lines, max_size=8).map(lambda lines: "\n".join(lines).encode())
)
def test_fuzz_the_plan_and_goal_loaders(raw: bytes) -> None:
    for name, schema in (("plan.md", PLAN_FILE), ("goal.md", GOAL_FILE)):
        text, kept = fuzz_loader(raw, name, lambda p, s=schema: load(p, s, ""))
        if kept:
            assert text.encode() == raw or not raw.strip()
        else:
            assert text == ""


@FUZZ
@given(
    raw=st.binary(max_size=300)
    | json_values.map(as_bytes)
    | st.fixed_dictionaries({"code": json_values, "reason": json_values}).map(as_bytes)
)
def test_fuzz_the_worker_exit_reader(raw: bytes) -> None:
    def reason(path: Path) -> str:
        return exit_reason(1, [path.parent])

    said, kept = fuzz_loader(raw, "worker-exit.json", reason)
    assert said.startswith("exit code 1") and len(said) < 530 and "\n" not in said
    if kept and raw.strip():
        assert isinstance(WORKER_EXIT.parse(raw), dict)


@FUZZ
@given(raw=st.binary(max_size=300), name=st.text(min_size=1, max_size=40))
def test_fuzz_the_proposal_listing(raw: bytes, name: str) -> None:
    name = name.replace("/", "_").replace("\x00", "_") + ".md"
    if name.startswith("."):
        return
    listed, kept = fuzz_loader(raw, name, lambda p: ProposalStore(p.parent).pending())
    assert listed == ([name] if kept else [])
    if kept:
        assert "\x00" not in raw.decode("utf-8")
