"""Everything pepa writes to its state folder passes its own reader, unchanged.

Before, some of pepa's own files failed their schema at the next read and
were moved aside: an LLM plan line ``5000 cobblestone`` went into ``plan.md``,
a goal with ``\\x01`` into ``goal.md`` and ``plan.md``, an error proposal with
a 20 000-character line into ``proposals/``.
"""

from __future__ import annotations

import logging
import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import skills
from pepa.policy.curriculum.plan import validate_plan
from pepa.state.memory import GOAL_FILE, PLAN_FILE, Locations, TaskFile
from pepa.state.plans import (
    MAX_COUNT,
    MAX_GOAL,
    MAX_NAME,
    clean_goal,
    milestone,
    parse_plan,
    render_plan,
)
from pepa.state.proposals import PROPOSAL_FILE, ProposalStore, clamp

KNOWN = set(skills.REGISTRY) | {"craft.*"}

ROUND_TRIP = settings(
    max_examples=60,
    suppress_health_check=[*settings().suppress_health_check, HealthCheck.filter_too_much],
)

any_text = st.text(st.characters(exclude_categories=()), max_size=400)
"""Any code point: control characters, separators, lone surrogates, astral planes."""


def bad_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)


@ROUND_TRIP
@given(text=any_text)
@example(text="make a furnace\x01 now")
@example(text="a\u2028b\x85c\x1cd\ud800e")
@example(text="x" * 5000)
def test_a_goal_as_written_is_read_back_unchanged_by_goal_and_plan_files(text: str) -> None:
    goal = clean_goal(text)
    assert len(goal) <= MAX_GOAL and goal == clean_goal(goal)  # clean is a fixed point
    written = f"{goal}\n".encode()  # what Curriculum.set_goal writes to goal.md
    assert GOAL_FILE.parse(written) == f"{goal}\n"
    plan = render_plan(text, [milestone("oak_log", 3, "gather.wood")])
    assert PLAN_FILE.parse(plan.encode()) == plan
    assert f"\nGoal: {goal or 'survive'}\n" in plan
    assert [m.text for m in parse_plan(plan)] == ["3 oak_log (gather.wood)"]


def test_a_hand_written_goal_of_many_long_lines_renders_a_readable_plan() -> None:
    goal = ("a very long goal line " * 45 + "\n") * 3  # goal.md allows 1000-char lines
    assert GOAL_FILE.parse(goal.encode()) == goal
    plan = render_plan(goal, [])
    assert PLAN_FILE.parse(plan.encode()) == plan  # before: a 1006-character Goal: line


plan_line = st.one_of(
    st.builds(
        lambda n, item, skill: f"{n} {item} ({skill})",
        st.integers(min_value=-5, max_value=10**7).map(str) | st.just("9" * 5000) | st.just("٣"),
        st.sampled_from(["oak_log", "cobblestone", "x" * 65, "food"]),
        st.sampled_from(["gather.wood", "gather.stone", "craft.stick", "food.hunt", "no.such"]),
    ),
    any_text,
)


@ROUND_TRIP
@given(lines=st.lists(plan_line, max_size=40))
@example(lines=["5000 cobblestone (gather.stone)", "3 oak_log (gather.wood)"])
@example(lines=["9" * 5000 + " cobblestone (gather.stone)", "1 stick (craft.stick)"])
def test_an_llm_plan_that_validates_is_written_as_a_plan_the_reader_keeps(
    lines: list[str],
) -> None:
    try:
        plan = validate_plan(lines, KNOWN)
    except ValueError:
        return  # rejected as a whole: nothing is written
    for m in plan:
        assert 1 <= m.count <= MAX_COUNT and len(m.item) <= MAX_NAME >= len(m.skill)
    text = render_plan("survive", plan)
    assert PLAN_FILE.parse(text.encode()) == text  # before: "5000 cobblestone" broke line 5
    assert [(m.item, m.count, m.skill) for m in parse_plan(text)] == [
        (m.item, m.count, m.skill) for m in plan
    ]


def test_an_over_large_count_drops_that_milestone_and_keeps_the_rest() -> None:
    plan = validate_plan(["5000 cobblestone (gather.stone)", "3 oak_log (gather.wood)"], KNOWN)
    assert [m.text for m in plan] == ["3 oak_log (gather.wood)"]
    with pytest.raises(ValueError, match="no milestone"):
        validate_plan([f"1 {'x' * 65} (gather.wood)", "0 oak_log (gather.wood)"], KNOWN)


task_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=600)


@ROUND_TRIP
@given(
    kind=st.sampled_from(["milestone", "come", "follow"]),
    text=task_texts,
    count=st.integers(min_value=-1, max_value=3000),
)
@example(kind="milestone", text="3 oak_log (gather.wood)\tby the lake", count=3)
def test_a_task_is_written_only_as_the_reader_accepts_it(kind: str, text: str, count: int) -> None:
    if kind == "milestone":
        task: dict[str, Any] = {
            "kind": kind, "skill": "gather.wood", "milestone": text,
            "args": {"item": "oak_log", "count": count},
        }  # fmt: skip
    else:
        task = {"kind": kind, "operator": text[:16]}
    logging.disable(logging.WARNING)
    try:
        with tempfile.TemporaryDirectory() as folder:
            tasks = TaskFile(Path(folder) / "current-task.json")
            tasks.write({"kind": "follow", "operator": "alice"})  # an older task
            tasks.write(task)
            read = tasks.read()
            assert read == task or (read is None and not tasks.path.exists())
            assert bad_files(Path(folder)) == []  # before: a tab in the text was moved aside
    finally:
        logging.disable(logging.NOTSET)


coordinate = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(10**9), 10**9)


@ROUND_TRIP
@given(x=coordinate, y=coordinate, z=coordinate, note=st.sampled_from(["", "here", "é" * 201]))
@example(x=1.0, y=64.0, z=4e7, note="")  # outside the world border
def test_a_place_is_kept_only_as_locations_json_reads_it_back(
    x: float, y: float, z: float, note: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "locations.json"
        places = Locations(path)
        places.remember("spawn", {"x": 0.0, "y": 64.0, "z": 0.0})
        places.remember("chest", {"x": x, "y": y, "z": z}, note)
        assert Locations(path).places == places.places  # nothing moved aside, nothing lost
        assert bad_files(Path(folder)) == []
        if "chest" in places.places:
            assert all(math.isfinite(places.places["chest"][k]) for k in "xyz")


@ROUND_TRIP
@given(markdown=any_text | st.lists(any_text, max_size=5).map("\n".join))
@example(markdown="# Error\n" + "x" * 20_000 + "\n")
@example(markdown="# Many\n" + "line\n" * 6000)
@example(markdown="# Huge\n" + ("é" * 9000 + "\n") * 20)
@example(markdown="\x1b[31mred\r\n\ud800\u2028")
def test_a_written_proposal_is_listed_and_read_back_as_clamped(markdown: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = ProposalStore(Path(folder))
        store.write("20261201-000000-x.md", markdown)
        assert store.pending() == ["20261201-000000-x.md"]  # before: moved aside, never listed
        text = store.read("20261201-000000-x.md")
        assert text == clamp(markdown)
        assert len(text.encode()) <= PROPOSAL_FILE.max_bytes
        assert bad_files(Path(folder)) == []


def test_clamping_keeps_a_proposal_within_limits_and_says_what_was_cut() -> None:
    assert clamp("# ok\nfine\n") == "# ok\nfine\n"
    long_line = clamp("x" * 20_000)
    assert len(long_line) == PROPOSAL_FILE.max_line and long_line.endswith("…")
    many = clamp("line\n" * 6000).splitlines()
    assert len(many) == PROPOSAL_FILE.max_lines and many[-1] == "… (1001 more lines cut)"
    huge = clamp(("é" * 9000 + "\n") * 20)
    assert huge.endswith("\n… (cut at 256 KiB)\n")
