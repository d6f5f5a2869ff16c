"""JSPyBridge as pepa runs it (pepa/link/jspy.py): many threads calling at once, calls that
time out, a late answer; every other call is answered, with its own answer."""

from __future__ import annotations

import pytest

from tests.probes import run_probe

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]


def test_threads_and_timed_out_calls_never_wedge_the_bridge_nor_cross_answers() -> None:
    outcome = run_probe("bridge_threads", timeout=200)
    assert outcome["late_timed_out"] is True
    assert outcome["failed"] == []  # nothing wedged after the late answers
    assert outcome["calls"] == 8 * 150 and outcome["wrong"] == []  # no answer crossed threads
    assert outcome["callback"] is True
    # an answer its caller is slow to take holds no other (JSPyBridge's loop waited 5 s on it)
    assert outcome["after_unclaimed_ms"] < 2500
    # JS's calls to Python, numbered as Python's own calls were: none taken for an answer
    crossing = outcome["crossing"]
    assert crossing["failed"] == [] and crossing["wrong"] == []
    assert crossing["calls"] == 5 * 8 * 150 and crossing["heard"] == 5 * 3000
