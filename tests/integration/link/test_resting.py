"""A bot at rest skips its physics ticks, yet falls when its ground goes and is knocked back
by a blow (real server and mineflayer; pepa/link/js/rest.js)."""

from __future__ import annotations

import pytest

from tests.probes import run_probe

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def test_a_bot_at_rest_skips_physics_yet_falls_and_is_knocked_back() -> None:
    outcome = run_probe("resting", timeout=150)
    assert outcome["skipped"] >= 20  # standing still, its ticks were skipped
    assert outcome["hit"] is True
    assert outcome["knocked"] >= 0.3  # the blow's velocity was simulated
    assert outcome["drop"] >= 2.5  # the blocks under it went: it fell
