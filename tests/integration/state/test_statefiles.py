"""State files in a running daemon and actors: a crash-loop task file is moved aside and the
daemon keeps running; no milestone whose skill does not exist is handed out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from pepa.actors.curriculum import Curriculum
from pepa.ipc import protocol
from pepa.runtime import ActorStateChanged, ChildSpec, Runtime, Supervisor, start_tree
from pepa.runtime.events import TaskSuggested, WorldObserved
from pepa.world.view import WorldView
from pepa.worldserver.process import free_port
from tests.daemon_harness import Daemon
from tests.waiting import Recorder

ACTORS = [
    "knowledge", "ipc", "brain", "perception", "reflex", "watchdog", "curriculum", "coach",
    "persona",
]  # fmt: skip

CRASH_LOOP_TASK = {"kind": "milestone", "skill": "gather.wood", "milestone": "x", "args": [1, 2]}
"""Before the schemas, this stopped the whole daemon (the curriculum's setup: dict([1, 2]))."""


def bad_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".bad-" in p.name)


def start_curriculum(runtime: Runtime, server_dir: Path) -> None:
    spec = ChildSpec(id="curriculum", actor_class=Curriculum, kwargs={"server_dir": server_dir})
    start_tree(
        ChildSpec(id="root", actor_class=Supervisor, kwargs={"children": [spec]}),
        runtime,
        lambda reason: None,
    )


@pytest.mark.integration
def test_the_curriculum_actor_starts_over_a_crash_loop_task_file_and_keeps_running(
    runtime: Runtime, recorder: Recorder, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "current-task.json").write_bytes(orjson.dumps(CRASH_LOOP_TASK))
    start_curriculum(runtime, tmp_path)
    recorder.wait_state("curriculum", "running")
    assert (
        runtime.registry.handle("curriculum").call("describe", timeout=5) == "I have no plan yet."
    )
    states = [e.state for e in recorder.events if isinstance(e, ActorStateChanged)]
    assert "restarting" not in states, states
    assert len(bad_files(tmp_path)) == 1
    assert 'current-task.json: field "args" must be an object, got [1, 2]' in caplog.text


@pytest.mark.integration
def test_the_curriculum_hands_out_no_milestone_whose_skill_does_not_exist(
    runtime: Runtime, recorder: Recorder, tmp_path: Path
) -> None:
    (tmp_path / "plan.md").write_text(
        "# Plan\n\n- [ ] 1 bogus (craft.bogus)\n- [ ] 3 oak_log (gather.wood)\n"
    )
    start_curriculum(runtime, tmp_path)
    recorder.wait_state("curriculum", "running")
    runtime.bus.publish(WorldObserved(view=WorldView(connected=True)))
    (suggested,) = recorder.wait_for(lambda e: isinstance(e, TaskSuggested))
    assert suggested.skill == "gather.wood"  # craft.bogus would crash the reflex chain


@pytest.fixture
def crash_loop_state(short_tmp: Path) -> Iterator[tuple[Path, int]]:
    """A state folder holding the files that crash-looped the daemon before the schemas."""
    port = free_port()
    state = short_tmp / "state" / f"127.0.0.1_{port}"
    state.mkdir(parents=True)
    for folder in (short_tmp / "state", state):
        folder.chmod(0o700)
    (state / "current-task.json").write_bytes(orjson.dumps(CRASH_LOOP_TASK))
    (state / "persona.json").write_bytes(b'{"last": 1e12, "recent": [], "moments": {}}')
    (state / "llm-budget.json").write_bytes(b'{"version": 1, "calls": {"analysis": 1}}')
    yield state, port


@pytest.mark.integration
@pytest.mark.timeout(180)
def test_crash_loop_files_are_moved_aside_and_the_daemon_keeps_running(
    short_tmp: Path, crash_loop_state: tuple[Path, int]
) -> None:
    state, port = crash_loop_state
    daemon = Daemon(short_tmp, port=port, curriculum=True)
    try:
        daemon.wait_line('current-task.json: field "args" must be an object, got [1, 2]', 60)
        daemon.wait_line('persona.json: field "last" must be a time', 30)
        daemon.wait_line('llm-budget.json: field "calls" must be a list', 30)
        daemon.in_world()
        # the curriculum works the default plan: it and the reflex chain are alive
        daemon.wait_line("task: gather.wood", 60)
        with daemon.client() as client:
            client.send(protocol.Snapshot())
            status = client.wait_for("status", timeout=15)
        assert [a["name"] for a in status["actors"]] == ACTORS
        assert all(a["state"] == "running" for a in status["actors"]), status["actors"]
        assert all(a["restarts"] == 0 for a in status["actors"]), status["actors"]
        assert daemon.count("worker died") == 0
        assert daemon.proc.poll() is None
        names = bad_files(state)
        for name in ("current-task.json", "persona.json", "llm-budget.json"):
            assert any(n.startswith(f"{name}.bad-") for n in names), names
    finally:
        daemon.close()
