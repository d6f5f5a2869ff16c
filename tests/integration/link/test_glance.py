"""An idle bot's glance is one look packet (tests/js/glance.js: the embedded world and one bot
made by bot_helper.js in one Node process).

At mineflayer's head speed a glance was a look every tick for up to a second, and the server
sends each look to every player near: 32 idle bots in one place sent each bridge of 8 bots 880
look packets a second (bench/fleet.py --idle, a packet count). Tried: the turn at head speed
sends the looks between (4 for this turn), and fails it.
"""

from __future__ import annotations

import pytest

from tests.js import run_script

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def test_an_idle_glance_is_one_look_packet() -> None:
    out = run_script("glance.js", timeout=110)
    assert out["glance"]["reached"] is True, out["glance"]
    assert out["glance"]["steps"] == [], out["glance"]
