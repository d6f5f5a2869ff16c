"""``world.log``: never opened through a symbolic link, bounded in size (the opening rules)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from pepa.worldserver.process import (
    _keep_line,
    open_world_log,
)

pytestmark = pytest.mark.timeout(60)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


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
