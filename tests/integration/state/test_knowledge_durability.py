"""kill -9 in the middle of a burst of writes loses no acknowledged row.

A child process writes through the very :class:`KnowledgeStore` the worker
uses (chat lines and deaths, each in its own transaction) and prints ``ack N``
after each write returned. The test kills it with SIGKILL mid-burst, then
opens the file again: every acknowledged row is there and the file is sound.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest

from pepa.base.node import REPO_ROOT
from pepa.state.knowledge import KnowledgeStore

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from pepa.state.knowledge import KnowledgeStore

    store = KnowledgeStore(Path(sys.argv[1])).open()
    n = 0
    while True:
        n += 1
        store.log_chat(speaker="alice", direction="in", text=f"line {n}")
        if n % 5 == 0:
            store.record_death(
                reason=f"death {n}", position={"x": n, "y": 5.0, "z": 0.0},
                bundle={"snapshots": [{"hp": 0}] * 20, "last_skill": "idle"},
            )
        print(f"ack {n}", flush=True)
    """
)


@pytest.mark.parametrize("kill_after", [50, 400])
def test_kill_9_during_a_write_burst_loses_no_acknowledged_row(
    tmp_path: Path, kill_after: int
) -> None:
    db = tmp_path / "knowledge.db"
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    assert child.stdout is not None
    acked = 0
    for line in child.stdout:
        acked = int(line.split()[1])
        if acked >= kill_after:
            child.send_signal(signal.SIGKILL)  # mid-burst: the next write is under way
            break
    child.wait(timeout=10)
    for line in child.stdout:  # acks printed before the kill landed still count
        acked = int(line.split()[1])
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert acked >= kill_after

    with closing(sqlite3.connect(db)) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        lines = {row[0] for row in raw.execute("select text from chat_log")}
        deaths = {row[0] for row in raw.execute("select reason from deaths")}
    assert {f"line {n}" for n in range(1, acked + 1)} <= lines
    assert {f"death {n}" for n in range(5, acked + 1, 5)} <= deaths
    store = KnowledgeStore(db).open()  # and the worker's next start opens it as usual
    try:
        assert store.counts()["chat_log"] >= acked
    finally:
        store.close()
