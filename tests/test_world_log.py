"""``world.log``: never written through a symbolic link, bounded in size."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.worldserver.process import (
    WORLD_LOG_CAP,
    EmbeddedWorld,
    _keep_line,
    free_port,
    open_world_log,
)
from tests.waiting import eventually

pytestmark = pytest.mark.timeout(60)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.fixture
def state(short_tmp: Path) -> Iterator[Path]:
    folder = short_tmp / "state"
    folder.mkdir(mode=0o700)
    yield folder


def started(state: Path) -> EmbeddedWorld:
    return EmbeddedWorld(state / "world", port=free_port(), log_path=state / "world.log").start()


@pytest.mark.integration
def test_a_symlink_at_world_log_is_refused_its_target_untouched_and_the_world_runs(
    state: Path, short_tmp: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: ``open(world.log, "ab")`` appended the world's output to the link's target."""
    victim = short_tmp / "victim"
    victim.write_text("precious\n")
    (state / "world.log").symlink_to(victim)
    world = started(state)
    try:
        assert world.alive()
    finally:
        world.stop()
    assert victim.read_text() == "precious\n"
    assert (state / "world.log").is_symlink()  # left alone, not followed
    (warning,) = warnings_of(caplog)
    assert warning == (
        f"not writing {state / 'world.log'} (it is a symbolic link): the world's output is not kept"
    )


@pytest.mark.integration
def test_an_oversized_world_log_is_rotated_at_start_and_a_fresh_one_written(
    state: Path, short_tmp: Path
) -> None:
    """Before: world.log grew without bound, run after run."""
    log = state / "world.log"
    with open(log, "wb") as handle:
        handle.truncate(WORLD_LOG_CAP + 1)  # sparse: 50 MiB that take no disk
    victim = short_tmp / "victim"
    victim.write_text("precious\n")
    (state / "world.log.1").symlink_to(victim)  # an older rotation, or a planted link
    world = started(state)
    try:
        eventually(lambda: b"Server listening" in log.read_bytes(), 10, "the world's output")
    finally:
        world.stop()
    rotated = state / "world.log.1"
    assert not rotated.is_symlink() and rotated.stat().st_size == WORLD_LOG_CAP + 1
    assert victim.read_text() == "precious\n"
    assert log.stat().st_size < 1024 * 1024
    assert log.stat().st_mode & 0o777 == 0o600


def test_a_log_under_the_cap_is_appended_to_and_made_private(tmp_path: Path) -> None:
    log = tmp_path / "world.log"
    log.write_bytes(b"earlier run\n")
    log.chmod(0o644)
    fd = open_world_log(log, cap=100)
    assert fd is not None
    try:
        os.write(fd, b"this run\n")
    finally:
        os.close(fd)
    assert log.read_bytes() == b"earlier run\nthis run\n"
    assert log.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "world.log.1").exists()


@pytest.mark.timeout(20)
def test_a_fifo_at_world_log_is_refused_without_blocking(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    os.mkfifo(tmp_path / "world.log")
    assert open_world_log(tmp_path / "world.log") is None
    assert len(warnings_of(caplog)) == 1


def test_the_pump_stops_keeping_output_at_the_cap_with_one_last_line(tmp_path: Path) -> None:
    log = tmp_path / "world.log"
    fd = open_world_log(log)
    assert fd is not None
    kept: int | None = fd
    lines = 0
    while kept is not None and lines < 100:
        kept = _keep_line(kept, b"x" * 9 + b"\n", log, cap=50)
        lines += 1
    assert kept is None and lines == 6  # 5 lines reach the cap, the 6th is the last word
    assert (
        log.read_bytes()
        == b"xxxxxxxxx\n" * 5 + b"pepa: world.log reached 0 MiB; no more output kept\n"
    )
