"""Logging bounds: repeated warnings rate-limited (pure, fake clock); the daily file, real files."""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.base import logs
from pepa.base.logs import BusHandler, DailyFileHandler
from pepa.base.repeats import RepeatFilter, RepeatLimiter


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class ListHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def messages(self) -> list[str]:
        return [r.getMessage() for r in self.records]


@pytest.fixture
def isolated_logger() -> Iterator[logging.Logger]:
    """A logger of its own that does not propagate to pytest's handlers."""
    log = logging.getLogger("pepa.test_limits")
    log.setLevel(logging.DEBUG)
    log.propagate = False
    yield log
    for handler in list(log.handlers):
        log.removeHandler(handler)
        handler.close()
    log.propagate = True


@pytest.fixture
def root_restored() -> Iterator[None]:
    """``logs.configure`` replaces the root handlers: put pytest's back afterwards."""
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
        if handler not in saved:
            handler.close()
    for handler in saved:
        root.addHandler(handler)
    root.setLevel(level)
    logs._active_repeats = None


# --------------------------------------------------------------------------- the limiter (pure)


def test_five_per_window_pass_then_one_count_when_the_window_rolls() -> None:
    limiter = RepeatLimiter(limit=5, period=60.0)
    verdicts = [limiter.check("k", 1000.0 + n)[0] for n in range(12)]
    assert verdicts == [True] * 5 + [False] * 7
    assert limiter.roll(1059.9) == []
    assert limiter.roll(1060.0) == [("k", 7)]
    allowed, closed = limiter.check("k", 1061.0)  # a new window
    assert (allowed, closed) == (True, [])


def test_keys_are_limited_separately_and_quiet_windows_report_nothing() -> None:
    limiter = RepeatLimiter(limit=1, period=10.0)
    assert limiter.check("a", 0.0) == (True, [])
    assert limiter.check("b", 1.0) == (True, [])
    assert limiter.check("a", 2.0) == (False, [])
    assert limiter.check("c", 11.0) == (True, [("a", 1)])  # b's window closed quietly


def test_distinct_messages_cannot_grow_the_limiter_without_bound() -> None:
    limiter = RepeatLimiter(limit=1, period=60.0, max_keys=3)
    limiter.check("a", 0.0)
    limiter.check("a", 0.0)
    for n, key in enumerate("bcd"):
        _, closed = limiter.check(key, float(n))
    assert closed == [("a", 1)]  # the oldest window was closed early, its count reported
    assert len(limiter._windows) == 3


@settings(max_examples=100)
@given(
    events=st.lists(
        st.tuples(st.sampled_from("abc"), st.floats(min_value=0, max_value=30)), max_size=200
    ),
    limit=st.integers(min_value=1, max_value=6),
)
def test_every_record_is_either_passed_or_counted_in_a_summary(
    events: list[tuple[str, float]], limit: int
) -> None:
    limiter = RepeatLimiter(limit=limit, period=10.0)
    now, passed, reported = 0.0, 0, 0
    per_window: dict[tuple[str, int], int] = {}
    starts: dict[str, float] = {}
    for key, step in events:
        now += step
        allowed, closed = limiter.check(key, now)
        reported += sum(count for _, count in closed)
        if key not in starts or now - starts[key] >= 10.0:
            starts[key] = now
        if allowed:
            passed += 1
            window = (key, int(starts[key] * 1000))
            per_window[window] = per_window.get(window, 0) + 1
    reported += sum(count for _, count in limiter.close_all())
    assert passed + reported == len(events)
    assert all(n <= limit for n in per_window.values())


# --------------------------------------------------------------------------- the filter


def test_the_filter_limits_warnings_across_handlers_and_reports_the_rest(
    isolated_logger: logging.Logger,
) -> None:
    clock = FakeClock()
    repeats = RepeatFilter(limit=5, period=60.0, clock=clock)
    first, second = ListHandler(), ListHandler()
    for handler in (first, second):
        handler.addFilter(repeats)
        isolated_logger.addHandler(handler)
    for n in range(20):
        isolated_logger.warning("chat queue full; dropped: %s", f"line {n}")
        isolated_logger.info("routine %d", n)  # never limited
    assert first.messages() == second.messages()  # both handlers agree: counted once
    dropped = [m for m in first.messages() if m.startswith("chat queue full")]
    assert dropped == [f"chat queue full; dropped: line {n}" for n in range(5)]
    assert sum(m.startswith("routine") for m in first.messages()) == 20
    clock.now += 61
    isolated_logger.info("a minute later")
    assert first.messages()[-2:] == [
        "suppressed 15 similar messages in 60 s: chat queue full; dropped: %s",
        "a minute later",
    ]
    assert first.records[-2].levelno == logging.WARNING
    assert first.records[-2].name == "pepa.test_limits"
    isolated_logger.warning("chat queue full; dropped: %s", "fresh")
    assert first.messages()[-1] == "chat queue full; dropped: fresh"
    for _ in range(9):
        isolated_logger.warning("chat queue full; dropped: %s", "more")
    repeats.flush()  # the window has not ended: nothing yet
    assert first.messages()[-1] == "chat queue full; dropped: more"
    repeats.flush(final=True)  # at exit, what was hidden is still reported
    assert first.messages()[-1].startswith("suppressed 5 similar messages")


def test_supervision_reports_are_never_limited_and_bare_templates_are_keyed_by_text() -> None:
    repeats = RepeatFilter(limit=1, period=60.0, clock=FakeClock())

    def passes(name: str, msg: str, *args: object) -> bool:
        rec = logging.LogRecord(name, logging.ERROR, __file__, 1, msg, args, None)
        return repeats.filter(rec)

    # bounded by restart intensity, and one template for every actor: all pass
    crashes = [
        passes("pepa.runtime._actor", "%s %s: %s", "perception", "crashed", "x") for _ in range(10)
    ]
    assert all(crashes)
    assert [passes("pepa.x", "%s", text) for text in ("a gave up", "b gave up", "a gave up")] == [
        True,
        True,
        False,
    ]
    assert [passes("pepa.x", "queue full: %d", n) for n in range(3)] == [True, False, False]


def test_configure_shares_one_filter_with_the_bus_handler(
    root_restored: None, tmp_path: Path
) -> None:
    clock = FakeClock()
    published: list[object] = []
    out = open(os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        logs.configure(logs_dir=None, stream=out, repeats=RepeatFilter(clock=clock))
        bus = BusHandler(published.append)
        logging.getLogger().addHandler(bus)
        noisy = logging.getLogger("pepa.test_noisy")
        for _ in range(50):
            noisy.error("the same failure: %s", "again")
        assert len(published) == 5
    finally:
        out.close()


# --------------------------------------------------------------------------- the daily file


def today_name() -> str:
    return time.strftime("%Y-%m-%d") + ".log"


def record(text: str, level: int = logging.INFO) -> logging.LogRecord:
    return logging.LogRecord("pepa.test", level, __file__, 1, text, None, None)


def test_the_daily_file_is_0600_in_a_0700_folder(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    stale = folder / today_name()
    stale.write_text("old line\n")
    os.chmod(stale, 0o644)
    handler = DailyFileHandler(folder)
    try:
        handler.handle(record("hello"))
    finally:
        handler.close()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(stale.stat().st_mode) == 0o600
    assert stale.read_text().splitlines()[0] == "old line"
    assert stale.read_text().splitlines()[1].endswith("pepa.test: hello")
    fresh = tmp_path / "new" / "logs"
    handler = DailyFileHandler(fresh)
    try:
        handler.handle(record("hello"))
    finally:
        handler.close()
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    assert stat.S_IMODE((fresh / today_name()).stat().st_mode) == 0o600


def test_a_symlink_at_todays_log_is_refused_with_one_warning_and_logging_goes_on(
    root_restored: None, tmp_path: Path
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    target = tmp_path / "victim.txt"
    target.write_text("do not touch\n")
    (folder / today_name()).symlink_to(target)
    others = ListHandler()
    out = open(os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        logs.configure(logs_dir=folder, stream=out)
        logging.getLogger().addHandler(others)
        for n in range(3):
            logging.getLogger("pepa.test").warning("line %d", n)
    finally:
        out.close()
    assert target.read_text() == "do not touch\n"
    assert (folder / today_name()).is_symlink()
    refusals = [m for m in others.messages() if "not writing" in m]
    assert len(refusals) == 1
    assert "symlink" in refusals[0]
    assert [m for m in others.messages() if m.startswith("line")] == ["line 0", "line 1", "line 2"]


def test_a_fifo_at_todays_log_is_refused_without_blocking(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    os.mkfifo(folder / today_name())
    handler = DailyFileHandler(folder)
    try:
        handler.handle(record("into a fifo?"))  # would block forever on a plain open()
    finally:
        handler.close()
    assert stat.S_ISFIFO(os.lstat(folder / today_name()).st_mode)


def test_a_symlinked_log_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    (tmp_path / "logs").symlink_to(real)
    handler = DailyFileHandler(tmp_path / "logs")
    try:
        handler.handle(record("hello"))
    finally:
        handler.close()
    assert list(real.iterdir()) == []


def test_the_daily_file_stops_at_the_cap_with_one_last_line(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    handler = DailyFileHandler(folder, max_bytes=4096)
    try:
        for n in range(500):
            handler.handle(record(f"line {n:04d} " + "x" * 40))
        size = (folder / today_name()).stat().st_size
    finally:
        handler.close()
    text = (folder / today_name()).read_text()
    assert size <= 4096 + 200
    assert text.rstrip("\n").endswith("nothing more is written to it today")
    assert text.count("log cap") == 1
    again = DailyFileHandler(folder, max_bytes=4096)  # a restart the same day: still full
    try:
        again.handle(record("after a restart"))
    finally:
        again.close()
    assert (folder / today_name()).stat().st_size == size
