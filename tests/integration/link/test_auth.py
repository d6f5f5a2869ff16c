"""A server in online mode that refuses an offline bot ends the daemon with one line that says
what to do, after a few tries, never a reconnect storm (a real online-mode flying-squid)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon

pytestmark = pytest.mark.timeout(60)


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_an_online_mode_server_refuses_the_offline_bot_with_one_line_and_no_storm(
    short_tmp: Path,
) -> None:
    world = EmbeddedWorld(short_tmp / "world", port=free_port(), online_mode=True).start()
    daemon = Daemon(short_tmp, host="127.0.0.1", port=world.port)
    try:
        assert daemon.wait(timeout=90) == 2  # a setting to change: no restart by the parent
    finally:
        daemon.close()
        world.stop()
    log = "\n".join(daemon.lines)
    said = [line for line in daemon.lines if "online mode and this is an offline account" in line]
    errors = [line for line in said if logging.getLevelName(logging.ERROR) in line]
    assert len(errors) == 1 and "start with --auth microsoft" in errors[0], log
    last = [line for line in daemon.lines if line != "<eof>"][-1]
    assert last.startswith("pepa: worker refused its configuration"), log
    assert "start with --auth microsoft" in last  # the last word, for the person
    kicks = sum("Failed to verify username" in line and "kicked" in line for line in daemon.lines)
    assert kicks == 3, log  # REFUSALS tries, then no more
