"""A busy bridge is not a dead one: a createBot that answers too late is retried, the bot it
made anyway is replaced, and the group is not restarted; a handle on bot_helper.js that is not
one is loaded again (real server and mineflayer)."""

from __future__ import annotations

import pytest

from tests.probes import run_probe

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def test_a_create_bot_that_times_out_is_retried_and_its_bot_replaced() -> None:
    outcome = run_probe("busy_bridge", timeout=150)
    assert outcome["dead"] == []  # never taken for a dead bridge (which ends the whole group)
    assert outcome["joined"] is True and outcome["connects"] == 1
    assert outcome["players"] == 1  # the bot of the call that timed out is gone
    assert outcome["still"] is True  # and its end never reached the link


def test_a_handle_on_bot_helper_that_is_another_call_s_answer_is_loaded_again() -> None:
    """Session 45's lost bot: its link's handle had been answered with a list, and every
    attempt to join failed on "'list' object has no attribute 'createBot'" for good."""
    outcome = run_probe("busy_bridge", 150, "crossed")
    assert outcome["dead"] == [] and outcome["loads"] == 2
    assert outcome["joined"] is True and outcome["connects"] == 1
    assert outcome["players"] == 1 and outcome["still"] is True
