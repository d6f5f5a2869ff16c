"""A busy bridge is not a dead one: a createBot that answers too late is retried, the bot it
made anyway is replaced, and the group is not restarted (real server and mineflayer)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

PROBE = Path(__file__).resolve().parent / "probes" / "busy_bridge.py"


def test_a_create_bot_that_times_out_is_retried_and_its_bot_replaced() -> None:
    result = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=150,
        cwd=PROBE.parents[2],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-2000:]
    outcome = orjson.loads(lines[-1])
    assert outcome["dead"] == []  # never taken for a dead bridge (which ends the whole group)
    assert outcome["joined"] is True and outcome["connects"] == 1
    assert outcome["players"] == 1  # the bot of the call that timed out is gone
    assert outcome["still"] is True  # and its end never reached the link
