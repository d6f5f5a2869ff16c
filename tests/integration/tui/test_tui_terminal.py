"""``pepa tui`` in a real terminal (tmux) against a real daemon started by the test."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.ipc.protocol import Snapshot
from tests.daemon_harness import Daemon
from tests.tui_helpers import Tmux

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux"),
]

PROPOSAL = "20260101-0000-eat-earlier.md"


@pytest.fixture
def tmux(short_tmp: Path) -> Iterator[Tmux]:
    server = Tmux(short_tmp)
    yield server
    server.kill()


@pytest.fixture
def daemon(short_tmp: Path) -> Iterator[Daemon]:
    d = Daemon(short_tmp)
    d.in_world()
    yield d
    d.close()


def live(text: str) -> bool:
    """The dashboard is connected and shows the bot's status."""
    return "● connected" in text and "pepa_bot" in text and "hp " in text and "█" in text


def test_the_dashboard_shows_live_status_and_its_keys_reach_the_daemon(
    tmux: Tmux, daemon: Daemon
) -> None:
    errors = tmux.dashboard("main", daemon.socket, 120, 40)
    screen = tmux.wait_for("main", live)
    assert "┌─ status" in screen and "┌─ actors" in screen
    proposals = daemon.socket.parent / "proposals"
    proposals.mkdir(exist_ok=True)
    (proposals / PROPOSAL).write_text("# Eat at 14 food, not 16\n")
    tmux.wait_for("main", "[proposals 1, press y]")  # the knowledge actor rescans its folder
    with daemon.client() as watcher:
        tmux.keys("main", "p")
        watcher.wait_for(lambda e: e["type"] == "status" and e["paused"] is True, timeout=10)
        tmux.wait_for("main", "PAUSED")
        tmux.keys("main", "p")
        watcher.wait_for(lambda e: e["type"] == "status" and e["paused"] is False, timeout=10)

        tmux.keys("main", "c")
        tmux.wait_for("main", "say>")
        tmux.keys("main", "hello from tmux", literal=True)
        tmux.keys("main", "Enter")
        said = watcher.wait_for(lambda e: e["type"] == "chat" and e["kind"] == "self", timeout=10)
        assert said["text"] == "hello from tmux"
        tmux.wait_for("main", "<pepa_bot> hello from tmux")

        tmux.keys("main", "y")
        tmux.wait_for("main", PROPOSAL)
        tmux.keys("main", "y")
        status = watcher.wait_for(
            lambda e: e["type"] == "status" and e["pendingProposals"] == 0, 15
        )
        assert status["approvedProposals"] == [PROPOSAL]  # waiting for pepa propose apply
        tmux.wait_for("main", "1 approved: pepa propose apply")
    assert (daemon.socket.parent / "proposals" / "approved" / PROPOSAL).exists()

    tmux.keys("main", "q")
    tmux.wait_for("main", "EXIT:0")
    assert errors.read_text() == ""
    with daemon.client() as after:  # quitting the dashboard left the bot alone
        after.send(Snapshot())
        assert after.wait_for("status", timeout=10)["connected"] is True
    assert daemon.proc.poll() is None


def test_the_dashboard_reconnects_when_the_worker_is_killed(tmux: Tmux, daemon: Daemon) -> None:
    errors = tmux.dashboard("main", daemon.socket, 120, 40)
    tmux.wait_for("main", live)
    first = daemon.worker_pid()
    mark = len(daemon.lines)
    os.kill(first, signal.SIGKILL)
    line = daemon.wait_line("worker died (killed by SIGKILL)", start=mark)
    daemon.ready(start=line)
    screen = tmux.wait_for("main", lambda text: live(text) and "(reconnects 1)" in text)
    assert "connection lost, reconnecting" in screen  # the log panel keeps it
    with daemon.client() as watcher:  # and the new connection carries commands
        tmux.keys("main", "p")
        watcher.wait_for(lambda e: e["type"] == "status" and e["paused"] is True, timeout=10)
        tmux.wait_for("main", "PAUSED")  # p toggles on what the dashboard last saw
        tmux.keys("main", "p")
        watcher.wait_for(lambda e: e["type"] == "status" and e["paused"] is False, timeout=10)
    tmux.keys("main", "q")
    tmux.wait_for("main", "EXIT:0")
    assert errors.read_text() == ""


def test_two_dashboards_at_once_one_small_and_resizing(tmux: Tmux, daemon: Daemon) -> None:
    big = tmux.dashboard("big", daemon.socket, 120, 40)
    small = tmux.dashboard("small", daemon.socket, 60, 20)
    tmux.wait_for("big", live)
    screen = tmux.wait_for("small", live)
    rows = screen.splitlines()
    assert len(rows) <= 20 and all(len(row) <= 60 for row in rows)
    assert "p:pause s:stop r:snap c:chat a:ask y:prop ?:help q:quit" in screen
    assert "── log" in screen

    tmux("resize-window", "-t", "big", "-x", "60", "-y", "20")
    screen = tmux.wait_for("big", lambda text: "q:quit" in text and "┌─" not in text)
    assert live(screen)
    tmux("resize-window", "-t", "big", "-x", "120", "-y", "40")
    tmux.wait_for("big", lambda text: "┌─ actors" in text and "q quit" in text)

    tmux.keys("small", "q")
    tmux.wait_for("small", "EXIT:0")
    before = tmux.screen("big").splitlines()[0]  # the uptime in the header keeps moving
    tmux.wait_for("big", lambda text: live(text) and text.splitlines()[0] != before)
    tmux.keys("big", "q")
    tmux.wait_for("big", "EXIT:0")
    assert big.read_text() == "" and small.read_text() == ""
    assert daemon.proc.poll() is None
