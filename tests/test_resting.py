"""A bot at rest skips its physics ticks, yet falls when its ground goes and is knocked back
by a blow (real server and mineflayer; pepa/world/js/rest.js)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

PROBE = Path(__file__).resolve().parent / "probes" / "resting.py"


def test_a_bot_at_rest_skips_physics_yet_falls_and_is_knocked_back() -> None:
    result = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=150,
        cwd=PROBE.parents[2],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-2000:]
    outcome = orjson.loads(lines[-1])
    assert outcome["skipped"] >= 20  # standing still, its ticks were skipped
    assert outcome["hit"] is True
    assert outcome["knocked"] >= 0.3  # the blow's velocity was simulated
    assert outcome["drop"] >= 2.5  # the blocks under it went: it fell
