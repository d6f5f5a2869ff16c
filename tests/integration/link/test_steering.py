"""The pathfinder goes around a danger area the watchdog remembered (real server and mineflayer)."""

from __future__ import annotations

import pytest

from tests.probes import run_probe

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def test_a_walk_bends_around_a_danger_area() -> None:
    outcome = run_probe("steering", timeout=90)
    assert outcome["ok"] is True
    assert outcome["max_dz"] >= 2.0  # the straight line stays within half a block
