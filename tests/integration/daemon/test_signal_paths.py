"""Who acts on a recorded signal, and when, in real processes: the worker acts on SIGUSR1 on a
thread of its own while stuck stopping; ``ProcessSupervisor.stop()`` from another thread cuts
a backoff sleep short."""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from pepa.daemon.config import Config
from pepa.daemon.parent import ProcessSupervisor
from pepa.ipc import protocol
from pepa.runtime import Backoff
from tests.daemon_harness import Daemon
from tests.descriptors import is_open


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_sigusr1_dumps_every_thread_while_the_worker_is_stuck_stopping(short_tmp: Path) -> None:
    """A hung actor keeps the worker's main thread in the teardown; SIGUSR1 still dumps."""
    d = Daemon(short_tmp, "--fault-injection")
    try:
        d.ready()
        worker = d.worker_pid()
        with d.client() as client:
            client.send(protocol.Fault(actor="reflex", kind="hang"))
            d.wait_line("reflex: injected hang fault")
        os.kill(worker, signal.SIGTERM)
        stopping = d.wait_line("worker stopping (SIGTERM)")
        os.kill(worker, signal.SIGUSR1)
        dump = d.wait_line("SIGUSR1: the traceback of every thread follows", start=stopping)
        main = d.wait_line("Current state of MainThread", start=dump)
        exits = d.wait_line("worker exits with code 0", start=stopping)
        assert d.wait(timeout=60) == 0
    finally:
        d.close()
    assert main < exits  # dumped while the main thread was still tearing down
    stack = d.lines[main + 1 : next(i for i in range(main + 1, len(d.lines))
                                    if "Current state of" in d.lines[i] or i == exits)]  # fmt: skip
    assert any(line.endswith(", in _run") for line in stack), stack  # Worker._run's teardown
    assert not any("wait_for_stop" in line for line in stack), stack


class Out(io.StringIO):
    """``pepa start``'s lines; a test waits for one."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()

    def write(self, text: str) -> int:
        with self.changed:
            written = super().write(text)
            self.changed.notify_all()
        return written

    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: text in self.getvalue(), timeout):
                raise AssertionError(f"no {text!r} in {self.getvalue()!r}")


@pytest.mark.integration
@pytest.mark.timeout(60)
def test_stop_from_another_thread_cuts_a_backoff_sleep_short(tmp_path: Path) -> None:
    out = Out()
    supervisor = ProcessSupervisor(
        Config(state_dir=tmp_path / "state"),
        worker_argv=[sys.executable, "-c", "raise SystemExit(1)"],  # dies at once, each time
        backoff=Backoff(base=600.0, factor=1.0, cap=600.0),  # the second restart waits 10 min
        out=out,
    )
    pipe = (supervisor._signals._read, supervisor._signals._write)
    stopped_at: list[float] = []

    def stop_during_the_sleep() -> None:
        out.wait_for("restart 2 in")
        stopped_at.append(time.monotonic())
        supervisor.stop("test")

    stopper = threading.Thread(target=stop_during_the_sleep, name="stopper")
    stopper.start()
    try:
        assert supervisor.run() == 0
        returned = time.monotonic()
    finally:
        stopper.join(10)
    assert returned - stopped_at[0] < 10  # not 600 s later
    assert not any(map(is_open, pipe))
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
