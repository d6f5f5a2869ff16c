"""The pathfinder goes around a danger area the watchdog remembered (real server and mineflayer)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

PROBE = Path(__file__).resolve().parent / "probes" / "steering.py"


def test_a_walk_bends_around_a_danger_area() -> None:
    result = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=90,
        cwd=PROBE.parents[2],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-2000:]
    outcome = orjson.loads(lines[-1])
    assert outcome["ok"] is True
    assert outcome["max_dz"] >= 2.0  # the straight line stays within half a block
