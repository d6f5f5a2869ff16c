"""``world.log`` of a real world: a symlink in its place is refused and the world runs; an
oversized one is rotated at start."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.worldserver.process import (
    WORLD_LOG_CAP,
    EmbeddedWorld,
    free_port,
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
