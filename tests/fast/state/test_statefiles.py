"""State files are validated as data: schemas, the quarantine, every loader fuzzed, the daemon."""

from __future__ import annotations

import logging
import math
import os
import time
from pathlib import Path

import orjson
import pytest

from pepa.daemon.restarts import exit_reason
from pepa.llm.budget import load_budget, save_budget
from pepa.policy.persona.voice import MIN_GAP, Voice
from pepa.state.files import SchemaError, load
from pepa.state.memory import (
    GOAL_FILE,
    PLAN_FILE,
    Locations,
    TaskFile,
    append_line,
    read_text,
    task_schema,
    write_atomic,
)
from pepa.state.persona import load_cooldowns
from pepa.state.plans import plan_line_problem
from pepa.state.proposals import ProposalError, ProposalStore
from tests.descriptors import no_free_descriptors

CRASH_LOOP_TASK = {"kind": "milestone", "skill": "gather.wood", "milestone": "x", "args": [1, 2]}
"""Before the schemas, this stopped the whole daemon (the curriculum's setup: dict([1, 2]))."""


def bad_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_wrong_type_is_one_warning_naming_file_and_field_the_file_moved_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "current-task.json"
    raw = orjson.dumps(CRASH_LOOP_TASK)
    path.write_bytes(raw)
    assert TaskFile(path).read() is None
    (warning,) = warnings_of(caplog)
    (moved,) = bad_files(tmp_path)
    assert warning == (
        'current-task.json: field "args" must be an object, got [1, 2]; '
        f"moved aside to {moved}; starting with no task"
    )
    assert moved.startswith("current-task.json.bad-2")
    assert (tmp_path / moved).read_bytes() == raw  # kept for the operator, byte for byte
    assert not path.exists()
    assert TaskFile(path).read() is None  # gone: no second warning
    assert len(warnings_of(caplog)) == 1


def test_an_earlier_bad_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "locations.json"
    for n in range(3):
        path.write_text(f'{{"spawn": {{"x": "{n}"}}}}')
        assert Locations(path).places == {}
    moved = bad_files(tmp_path)
    assert len(moved) == 3
    assert sorted((tmp_path / m).read_text() for m in moved) == [
        f'{{"spawn": {{"x": "{n}"}}}}' for n in range(3)
    ]


def test_valid_files_load_as_typed_values_and_stay(tmp_path: Path) -> None:
    tasks = TaskFile(tmp_path / "current-task.json")
    task = {
        "kind": "milestone", "skill": "craft.wooden_pickaxe", "milestone": "1 wooden_pickaxe",
        "args": {"item": "wooden_pickaxe", "count": 1},
    }  # fmt: skip
    tasks.write(task)
    assert tasks.read() == task
    tasks.write({"kind": "follow", "operator": "alice"})
    assert tasks.read() == {"kind": "follow", "operator": "alice"}
    places = Locations(tmp_path / "locations.json")
    assert places.remember("spawn", {"x": 1.04, "y": 64.0, "z": -3.0}, "here")
    assert Locations(tmp_path / "locations.json").places == {
        "spawn": {"x": 1.0, "y": 64.0, "z": -3.0, "note": "here"}
    }
    assert not places.remember("bed", {"x": math.nan, "y": 0.0, "z": 0.0})  # never written
    assert bad_files(tmp_path) == []


@pytest.mark.parametrize(
    ("content", "field"),
    [
        (b'{"kind": "come", "operator": "alice\\nINFO fake line"}', '"operator" must be'),
        (b'{"kind": "come", "operator": "' + b"a" * 5000 + b'"}', '"operator" must be at most'),
        (b'{"kind": "milestone", "skill": "gather.wood", "args": {"count": -1}}', '"args.count"'),
        (b'{"kind": "milestone", "skill": "gather.wood", "args": {"count": 1e300}}', "between"),
        (b'{"kind": "milestone", "skill": "gather.wood", "args": {"count": true}}', "integer"),
        (b'{"kind": "milestone", "skill": "../../etc", "args": {}}', '"skill" must be'),
        (b'{"kind": "dance"}', '"kind" must be one of milestone, come, follow'),
        (b'{"kind": "come", "operator": NaN}', "is not JSON"),
        (b"[" * 10000 + b"]" * 10000, "must be at most 16384 bytes"),
        (b"[" * 1500 + b"]" * 1500, "is not JSON"),  # deeper than orjson's limit
        (b"\xff\xfe{}", "is not JSON"),
    ],
)
def test_right_type_wrong_range_huge_deep_and_broken_tasks_are_rejected(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes, field: str
) -> None:
    path = tmp_path / "current-task.json"
    path.write_bytes(content)
    assert TaskFile(path).read() is None
    (warning,) = warnings_of(caplog)
    assert warning.startswith("current-task.json: ") and field in warning
    assert "\n" not in warning and len(warning) < 400  # the log line stays one short line
    assert len(bad_files(tmp_path)) == 1


def test_a_milestone_naming_no_skill_is_rejected_by_a_reader_that_knows_the_skills(
    tmp_path: Path,
) -> None:
    import skills

    path = tmp_path / "current-task.json"
    path.write_text('{"kind": "milestone", "skill": "craft.no_such_item"}')
    assert TaskFile(path, known_skill=skills.known).read() is None
    assert len(bad_files(tmp_path)) == 1
    path.write_text('{"kind": "milestone", "skill": "craft.stick"}')
    assert TaskFile(path, known_skill=skills.known).read() == {
        "kind": "milestone",
        "skill": "craft.stick",
    }


@pytest.mark.timeout(20)
def test_a_symlink_or_a_fifo_in_place_of_a_state_file_is_refused_never_followed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"kind": "follow", "operator": "mallory"}')
    state = tmp_path / "state"
    state.mkdir()
    (state / "current-task.json").symlink_to(outside)
    assert TaskFile(state / "current-task.json").read() is None
    assert "is a symbolic link" in caplog.text
    (moved,) = bad_files(state)
    assert (state / moved).is_symlink() and outside.exists()  # the link moved, not its target
    os.mkfifo(state / "plan.md")  # reading it would block forever
    assert load(state / "plan.md", PLAN_FILE, "") == ""
    assert "plan.md: is not a regular file" in caplog.text


def test_a_valid_file_that_cannot_be_read_stays_in_place_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: every OSError (here a real EMFILE) moved a valid file aside and lost the task."""
    path = tmp_path / "current-task.json"
    task = {"kind": "follow", "operator": "alice"}
    TaskFile(path).write(task)
    raw = path.read_bytes()
    with no_free_descriptors():
        first = TaskFile(path).read()
        second = TaskFile(path).read()
    assert first is None and second is None  # no task for now …
    assert path.read_bytes() == raw and bad_files(tmp_path) == []  # … but the file is kept
    (warning,) = warnings_of(caplog)  # once, not at every read
    assert warning == (
        "current-task.json: cannot be read (Too many open files); left in place; "
        "starting with no task"
    )
    assert TaskFile(path).read() == task  # readable again: the task is back
    with no_free_descriptors():
        assert TaskFile(path).read() is None
    assert len(warnings_of(caplog)) == 2  # a new spell of trouble is said again


def test_persona_times_far_ahead_are_rejected_a_little_ahead_clamped_to_now(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "persona.json"
    now = time.time()
    path.write_bytes(orjson.dumps({"last": now + 10 * 365 * 86400, "recent": [], "moments": {}}))
    voice = Voice.restore(load_cooldowns(path))  # before the schemas: silent for ten years
    assert voice.speak("dawn", "", time.time()) is not None
    assert 'persona.json: field "last" must be a time' in caplog.text
    assert len(bad_files(tmp_path)) == 1
    ahead = {"last": now + 3600, "recent": [now + 3600] * 3, "moments": {"dusk": now + 3600}}
    path.write_bytes(orjson.dumps(ahead))
    voice = Voice.restore(load_cooldowns(path))
    assert voice.last <= time.time() and max(voice.recent) <= time.time()
    assert voice.speak("dawn", "", time.time() + MIN_GAP) is not None  # quiet a minute, not an hour
    for bad in (
        {"last": -5.0, "recent": [], "moments": {}},
        {"last": 1.0, "recent": [1.0] * 65, "moments": {}},
        {"last": 1.0, "recent": [], "moments": {"x" * 201: 1.0}},
        {"last": 1.0, "recent": [], "moments": {}, "turns": -1},
        {"last": "soon", "recent": [], "moments": {}},
    ):
        path.write_bytes(orjson.dumps(bad))
        assert Voice.restore(load_cooldowns(path)).last == -math.inf
    assert len(bad_files(tmp_path)) == 6


def test_llm_budget_bad_entries_are_rejected_and_it_still_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "llm-budget.json"
    budget = load_budget(path)
    budget.spend("analysis", 100.0)
    save_budget(path, budget)
    assert load_budget(path).calls == [(100.0, "analysis")]
    assert path.stat().st_mode & 0o777 == 0o600
    for bad in (
        b'{"calls": [[1e15, "analysis"]]}',  # would count as "now" at every start
        b'{"calls": [[-1, "analysis"]]}',
        b'{"calls": [[1, "analysis", 3]]}',
        b'{"calls": [[true, "analysis"]]}',
        b'{"version": 2, "calls": []}',
        b'{"calls": [' + b",".join([b'[1, "plan"]'] * 65) + b"]}",
    ):
        path.write_bytes(bad)
        assert load_budget(path).calls == []
    assert len(bad_files(tmp_path)) == 6


def test_the_plan_grammar_bounds_counts_and_names() -> None:
    assert plan_line_problem("- [ ] 3 oak_log (gather.wood)") is None
    assert plan_line_problem("- [ ] build a hut by the lake") is None
    assert plan_line_problem("# Plan") is None
    assert "between 1 and 2304" in str(plan_line_problem("- [ ] 0 oak_log (gather.wood)"))
    assert "between 1 and 2304" in str(plan_line_problem("- [x] " + "9" * 4301 + " a (b)"))
    assert "at most 64" in str(plan_line_problem(f"- [ ] 1 {'a' * 65} (gather.wood)"))


def test_plan_and_goal_files_are_bounded_text_without_control_characters(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plan = tmp_path / "plan.md"
    good = "# Plan\n\n- [ ] 3 oak_log (gather.wood)\n- [ ] a note\n"
    plan.write_text(good)
    assert load(plan, PLAN_FILE, "") == good
    for bad in (
        b"- [ ] 99999 oak_log (gather.wood)\n",
        b"# Plan\n\x1b[2J\n",
        b"\xff\xfe",
        b"- [ ] note\n" * 1001,
        b"x" * 501,
    ):
        plan.write_bytes(bad)
        assert load(plan, PLAN_FILE, "") == ""
    assert "plan.md: line 1: milestone count must be between 1 and 2304" in caplog.text
    assert "plan.md: line 2: must not hold control characters" in caplog.text
    assert "plan.md: is not UTF-8 text" in caplog.text
    goal = tmp_path / "goal.md"
    goal.write_text("make a furnace\n")
    assert load(goal, GOAL_FILE, "") == "make a furnace\n"
    goal.write_bytes(b"x" * 5000)
    assert load(goal, GOAL_FILE, "") == ""
    assert len(bad_files(tmp_path)) == 6


def test_worker_exit_of_the_wrong_shape_never_crashes_the_process_supervisor(
    tmp_path: Path,
) -> None:
    exit_file = tmp_path / "worker-exit.json"
    exit_file.write_bytes(b"[1]")  # before the schemas: AttributeError in the parent
    assert exit_reason(3, [tmp_path]) == "exit code 3"
    exit_file.write_bytes(orjson.dumps({"code": 3, "reason": "boom\n\x1b[2Jfake" + "x" * 900}))
    said = exit_reason(3, [tmp_path])
    assert said.startswith("exit code 3: boom  [2Jfake") and len(said) < 530
    assert "\n" not in said and "\x1b" not in said


def test_proposals_that_are_links_bad_names_or_bad_text_are_moved_aside_not_listed(
    tmp_path: Path,
) -> None:
    store = ProposalStore(tmp_path / "proposals")
    store.write("20261201-000000-flee.md", "# Flee\n\x1b[31mred\x1b[0m error\n")
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    folder = tmp_path / "proposals"
    (folder / "20261201-000001-key.md").symlink_to(secret)
    (folder / f"{'a' * 200}.md").write_text("# long\n")
    (folder / "20261201-000002-bin.md").write_bytes(b"\xff\x00\x01")
    (folder / "20261201-000003-huge.md").write_bytes(b"x\n" * 200_000)
    (folder / "approved").mkdir()
    (folder / "approved" / "20261201-000004-key.md").symlink_to(secret)
    assert store.pending() == ["20261201-000000-flee.md"]  # escapes cleaned when written
    assert store.approved() == []
    assert len(bad_files(folder)) == 4 and len(bad_files(folder / "approved")) == 1
    assert secret.read_text() == "PRIVATE KEY\n"
    assert store.read("20261201-000000-flee.md").startswith("# Flee\n [31mred")
    with pytest.raises(ProposalError, match="no proposal"):
        store.read("20261201-000001-key.md")
    (folder / "20261201-000005-link.md").symlink_to(folder / "20261201-000000-flee.md")
    with pytest.raises(ProposalError, match="symbolic link"):
        store.read("20261201-000005-link.md")
    with pytest.raises(ProposalError, match="no pending"):
        store.decide("20261201-000005-link.md", "approve")


def test_append_line_refuses_a_symlinked_file_or_folder_and_writes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    diary = tmp_path / "state" / "diary"
    diary.mkdir(parents=True)
    (diary / "2026-12-01.md").symlink_to(victim)
    append_line(diary / "2026-12-01.md", "- 12:00 done: 1 stick")
    assert victim.read_text() == "precious\n"
    assert len(warnings_of(caplog)) == 1 and "symbolic link" in caplog.text
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state" / "diary2").symlink_to(elsewhere, target_is_directory=True)
    append_line(tmp_path / "state" / "diary2" / "2026-12-01.md", "- 12:00 x")
    assert list(elsewhere.iterdir()) == []
    assert len(warnings_of(caplog)) == 2
    log = tmp_path / "state" / "inventory-log.jsonl"
    append_line(log, '{"items": {}}')
    append_line(log, '{"items": {"stick": 1}}\n')
    assert log.read_text() == '{"items": {}}\n{"items": {"stick": 1}}\n'
    assert log.stat().st_mode & 0o777 == 0o600


@pytest.mark.timeout(20)
def test_append_line_and_read_text_never_block_on_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "diary.md")
    append_line(tmp_path / "diary.md", "x")
    assert read_text(tmp_path / "diary.md", "none") == "none"


def test_write_atomic_replaces_a_link_never_writes_through_it_and_leaves_no_temp(
    tmp_path: Path,
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    state = tmp_path / "state"
    state.mkdir()
    (state / "goal.md").symlink_to(victim)
    write_atomic(state / "goal.md", b"make a furnace\n")
    assert victim.read_text() == "precious\n"
    assert not (state / "goal.md").is_symlink()
    assert (state / "goal.md").read_text() == "make a furnace\n"
    assert (state / "goal.md").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in state.iterdir()] == ["goal.md"]


def test_schema_errors_are_value_errors_with_the_field() -> None:
    with pytest.raises(SchemaError) as caught:
        task_schema().spec.check({"kind": "come", "operator": 7}, "")
    assert caught.value.where == "operator"
    assert isinstance(caught.value, ValueError)
