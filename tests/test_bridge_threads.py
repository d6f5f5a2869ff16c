"""JSPyBridge as pepa runs it (pepa/world/jspy.py): many threads calling at once, calls that
time out, a late answer; every other call is answered, with its own answer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

PROBE = Path(__file__).resolve().parent / "probes" / "bridge_threads.py"


def test_threads_and_timed_out_calls_never_wedge_the_bridge_nor_cross_answers() -> None:
    result = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=200,
        cwd=PROBE.parents[2],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-2000:]
    outcome = orjson.loads(lines[-1])
    assert outcome["late_timed_out"] is True
    assert outcome["failed"] == []  # nothing wedged after the late answers
    assert outcome["calls"] == 8 * 150 and outcome["wrong"] == 0  # no answer crossed threads
    assert outcome["callback"] is True
