"""Retention: the pure choosers, the settings, then real files, a real database and the actor."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest

from pepa.actors.knowledge import Knowledge
from pepa.runtime import ChildSpec, Runtime, Supervisor, start_tree
from pepa.state.knowledge import KnowledgeStore
from pepa.state.knowledge._models import utcnow
from pepa.state.retention import (
    RetentionPolicy,
)
from tests.store_cases import age
from tests.waiting import Recorder, eventually


def touch(path: Path, size: int = 10) -> Path:
    path.write_bytes(b"x" * size)
    return path


@pytest.mark.integration
def test_the_knowledge_actor_prunes_at_start_and_keeps_pruning_when_a_part_fails(
    runtime: Runtime, recorder: Recorder, tmp_path: Path
) -> None:
    server_dir = tmp_path / "server"
    (server_dir / "reflections").mkdir(parents=True)
    old_report = touch(server_dir / "reflections" / "20010101-000000.md")
    new_report = touch(server_dir / "reflections" / f"{utcnow():%Y%m%d-%H%M%S}.md")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    old_log = touch(elsewhere / "2001-01-01.log")
    (server_dir / "logs").symlink_to(elsewhere)  # pruning logs fails: not a plain directory
    seeded = KnowledgeStore(server_dir / "knowledge.db").open()
    seeded.log_chat(speaker="alice", direction="in", text="long ago")
    age(seeded, "ChatLine", "at", utcnow() - timedelta(days=400))
    seeded.close()

    spec = ChildSpec(
        id="knowledge",
        actor_class=Knowledge,
        kwargs={
            "server_dir": server_dir,
            "reflect_every": 0,
            "retention": RetentionPolicy(days=30),
            "prune_every": 0.2,
        },
    )
    start_tree(
        ChildSpec(id="root", actor_class=Supervisor, kwargs={"children": [spec]}),
        runtime,
        lambda reason: None,
    )
    recorder.wait_state("knowledge", "running")
    eventually(lambda: not old_report.exists(), timeout=10, what="the old reflection pruned")
    assert new_report.exists() and old_log.exists()
    probe = KnowledgeStore(server_dir / "knowledge.db").open()
    try:
        eventually(lambda: probe.counts()["chat_log"] == 0, timeout=10, what="old chat pruned")
    finally:
        probe.close()
    # the failing part did not stop the timer: a new old report goes on the next round
    later = touch(server_dir / "reflections" / "20020202-000000.md")
    eventually(lambda: not later.exists(), timeout=10, what="the timer still prunes")
    assert runtime.registry.state("knowledge") == "running"
    assert recorder.states("knowledge").count("restarting") == 0
    assert os.path.islink(server_dir / "logs") and old_log.exists()
