"""Pure restart policy: backoff and intensity, with no threads and no clock."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from pepa.runtime import Backoff, RestartIntensity


def test_first_restart_of_a_failure_run_is_immediate() -> None:
    assert Backoff().delay(1) == 0.0


def test_backoff_grows_exponentially_without_jitter() -> None:
    backoff = Backoff(base=0.01, factor=2.0, cap=10.0, jitter=0.0)
    assert [backoff.delay(n) for n in range(2, 6)] == [0.01, 0.02, 0.04, 0.08]


def test_backoff_is_capped() -> None:
    backoff = Backoff(base=1.0, factor=10.0, cap=3.0, jitter=0.0)
    assert backoff.delay(9) == 3.0


@given(attempt=st.integers(min_value=2, max_value=60), seed=st.integers())
def test_jitter_stays_within_its_band(attempt: int, seed: int) -> None:
    backoff = Backoff(base=0.01, factor=2.0, cap=2.0, jitter=0.5)
    raw = min(2.0, 0.01 * 2.0 ** (attempt - 2))
    delay = backoff.delay(attempt, random.Random(seed))
    assert 0.5 * raw <= delay <= 1.5 * raw


def test_intensity_allows_r_restarts_then_refuses() -> None:
    intensity = RestartIntensity(max_restarts=3, period=10.0)
    assert [intensity.allow(t) for t in (0.0, 1.0, 2.0)] == [True, True, True]
    assert intensity.allow(3.0) is False


def test_intensity_window_slides() -> None:
    intensity = RestartIntensity(max_restarts=2, period=10.0)
    assert intensity.allow(0.0) and intensity.allow(5.0)
    assert intensity.allow(10.5)  # the restart at 0.0 left the window
    assert intensity.recent(10.5) == 2
