"""Retention: the pure choosers, the settings, then real files, a real database and the actor."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.base.errors import ConfigError
from pepa.daemon.config import resolve
from pepa.state.knowledge._models import utcnow
from pepa.state.retention import (
    MIB,
    DatedFile,
    RetentionPolicy,
    log_day,
    logs_to_prune,
    prune_logs,
    prune_reflections,
    reflection_time,
    reflections_to_prune,
)

TODAY = date(2026, 12, 1)

NOW = datetime(2026, 12, 1, 12, 0, 0)


def day_file(day: date, size: int = 10) -> DatedFile:
    return DatedFile(name=f"{day:%Y-%m-%d}.log", day=day, size=size)


def test_names_are_read_as_pepa_writes_them_and_nothing_else() -> None:
    assert log_day("2026-12-01.log") == date(2026, 12, 1)
    for name in ("2026-13-01.log", "2026-12-01.log.bak", "notes.log", "2026-12-1.log", ".log"):
        assert log_day(name) is None
    assert reflection_time("20261201-041500.md") == datetime(2026, 12, 1, 4, 15)
    for name in ("20261301-041500.md", "20261201-0415.md", "readme.md", "20261201-041500.txt"):
        assert reflection_time(name) is None


def test_log_files_older_than_the_window_go() -> None:
    policy = RetentionPolicy(days=30)
    files = [day_file(TODAY - timedelta(days=n)) for n in (0, 1, 29, 30, 31, 400)]
    dropped = logs_to_prune(files, today=TODAY, policy=policy)
    assert dropped == ["2025-10-27.log", "2026-10-31.log"]  # 400 and 31 days back


def test_over_the_cap_the_oldest_log_files_go_first_and_today_never() -> None:
    policy = RetentionPolicy(days=30, log_max_bytes=100)
    files = [day_file(TODAY - timedelta(days=n), size=40) for n in range(5)]  # 200 bytes
    assert logs_to_prune(files, today=TODAY, policy=policy) == [
        "2026-11-27.log",
        "2026-11-28.log",
        "2026-11-29.log",
    ]
    alone = [day_file(TODAY, size=500), day_file(TODAY + timedelta(days=1), size=500)]
    assert logs_to_prune(alone, today=TODAY, policy=policy) == []  # today and a clock skew stay


@settings(max_examples=150)
@given(
    dated=st.lists(
        st.tuples(st.integers(min_value=-3, max_value=90), st.integers(min_value=0, max_value=50)),
        unique_by=lambda pair: pair[0],
        max_size=30,
    ),
    days=st.integers(min_value=1, max_value=60),
    cap=st.integers(min_value=1, max_value=600),
)
def test_log_pruning_keeps_the_window_under_the_cap_and_prunes_oldest_first(
    dated: list[tuple[int, int]], days: int, cap: int
) -> None:
    files = [day_file(TODAY - timedelta(days=n), size) for n, size in dated]
    policy = RetentionPolicy(days=days, log_max_bytes=cap)
    dropped = set(logs_to_prune(files, today=TODAY, policy=policy))
    kept = [f for f in files if f.name not in dropped]
    assert dropped <= {f.name for f in files}
    assert all(f.day >= TODAY - timedelta(days=days) for f in kept)
    assert not any(f.day >= TODAY for f in files if f.name in dropped)
    past_kept = [f for f in kept if f.day < TODAY]
    if sum(f.size for f in kept) > cap:
        assert not past_kept  # only today's (and future) files may leave it over the cap
    oldest_kept = min((f.day for f in past_kept), default=None)
    in_window_dropped = [
        f.day for f in files if f.name in dropped and f.day >= TODAY - timedelta(days=days)
    ]
    if oldest_kept is not None:
        assert all(day < oldest_kept for day in in_window_dropped)  # oldest first


def test_reflections_older_than_the_window_go_and_unknown_names_stay() -> None:
    names = ["20261101-115959.md", "20261101-120001.md", "20261130-000000.md", "notes.md"]
    dropped = reflections_to_prune(names, now=NOW, policy=RetentionPolicy(days=30))
    assert dropped == ["20261101-115959.md"]


def test_a_policy_must_keep_something() -> None:
    with pytest.raises(ValueError):
        RetentionPolicy(days=0)
    with pytest.raises(ValueError):
        RetentionPolicy(log_max_bytes=0)
    assert RetentionPolicy().describe() == "30 days, 200 MiB of logs"


def test_retention_settings_default_to_30_days_and_200_mib() -> None:
    config = resolve({}, {}, {})
    assert (config.retention_days, config.log_max_mb) == (30, 200)
    config = resolve({}, {"PEPA_RETENTION_DAYS": "7"}, {"PEPA_LOG_MAX_MB": "50"})
    assert (config.retention_days, config.log_max_mb) == (7, 50)


@pytest.mark.parametrize(
    ("var", "value", "message"),
    [
        ("PEPA_RETENTION_DAYS", "0", "out of range (1-3650 days)"),
        ("PEPA_RETENTION_DAYS", "-3", "not a whole number of days"),
        ("PEPA_RETENTION_DAYS", "7.5", "not a whole number of days"),
        ("PEPA_RETENTION_DAYS", "30\n", "not a whole number of days"),
        ("PEPA_RETENTION_DAYS", "thirty", "not a whole number of days"),
        ("PEPA_LOG_MAX_MB", "0", "out of range (1-1048576 MiB)"),
        ("PEPA_LOG_MAX_MB", "2000000", "out of range (1-1048576 MiB)"),
        ("PEPA_LOG_MAX_MB", "1e3", "not a whole number of MiB"),
    ],
)
def test_bad_retention_settings_are_one_clear_error(var: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve({}, {var: value}, {})


def touch(path: Path, size: int = 10) -> Path:
    path.write_bytes(b"x" * size)
    return path


def test_prune_logs_removes_old_files_only_and_never_follows_a_symlink(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    outside = touch(tmp_path / "precious.txt")
    today = date.today()
    touch(logs / f"{today:%Y-%m-%d}.log")
    touch(logs / f"{today - timedelta(days=1):%Y-%m-%d}.log")
    touch(logs / "2001-01-01.log")
    (logs / "2001-01-02.log").symlink_to(outside)  # an old name, but a symlink: not ours
    (logs / "2001-01-03.log").mkdir()  # a directory with a log name
    touch(logs / "notes.txt")
    removed = prune_logs(logs, today=today, policy=RetentionPolicy(days=30))
    assert removed == ["2001-01-01.log"]
    left = sorted(p.name for p in logs.iterdir())
    assert left == sorted(
        [
            f"{today:%Y-%m-%d}.log",
            f"{today - timedelta(days=1):%Y-%m-%d}.log",
            "2001-01-02.log",
            "2001-01-03.log",
            "notes.txt",
        ]
    )
    assert outside.read_bytes() == b"x" * 10


def test_prune_logs_applies_the_size_cap_to_real_files(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    today = date.today()
    for n in range(4):
        touch(logs / f"{today - timedelta(days=n):%Y-%m-%d}.log", size=MIB // 2)
    removed = prune_logs(logs, today=today, policy=RetentionPolicy(days=30, log_max_bytes=MIB))
    assert removed == [f"{today - timedelta(days=n):%Y-%m-%d}.log" for n in (3, 2)]
    assert sum(p.stat().st_size for p in logs.iterdir()) == MIB


def test_a_symlinked_folder_is_refused_and_a_missing_one_is_empty(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    old = touch(real / "2001-01-01.log")
    (tmp_path / "logs").symlink_to(real)
    with pytest.raises(OSError, match="not a plain directory"):
        prune_logs(tmp_path / "logs", today=date.today(), policy=RetentionPolicy())
    assert old.exists()
    assert prune_reflections(tmp_path / "missing", now=utcnow(), policy=RetentionPolicy()) == []
