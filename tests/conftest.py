"""Shared fixtures: a real actor runtime, event recorders, leak checks."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pykka
import pytest
from hypothesis import HealthCheck, settings

from pepa.base.node import compile_cache_env
from pepa.runtime import Bus, Registry, Runtime, Scheduler
from tests.daemon_harness import Daemon
from tests.sandbox_terrain import terrain  # noqa: F401 - fixtures, for every test
from tests.waiting import Recorder
from tests.wiki_server import clock, pace, wiki  # noqa: F401

# CI machines are not quiet: another process may hold a core. Generation time is
# not what any property test checks, so no deadline and no "too slow" health check;
# a test's own @settings still chooses its number of examples and inherits the rest
# (a test that suppresses another health check lists ``*settings().suppress_health_check``
# first, so that it keeps these).
settings.register_profile(
    "pepa",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("pepa")

WORKERS_PER_CPU = 2
"""``-n auto`` (in addopts): most slow tests wait on Node servers and game ticks, not a core."""
MAX_WORKERS = 8


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """Workers for ``-n auto``: two per usable core, at most eight.

    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` (pytest-xdist's own setting) still decides when set.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return max(1, min(MAX_WORKERS, WORKERS_PER_CPU * len(os.sched_getaffinity(0))))


TESTS = Path(__file__).resolve().parent
INTEGRATION = TESTS / "integration"
"""The integration tier: every test under it starts real processes, sockets or servers."""
FAST = TESTS / "fast"
"""The fast tier: pure logic, actors on a fake clock, Node scripts with no server."""


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects: the marks below count
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test's folder is its tier: under ``integration/`` it is marked ``integration``; one
    under ``fast/`` that marks itself ``integration`` is in the wrong folder and fails.

    Then long work first: the groups that share one world on one worker, then the other
    tests with a server, then the fast ones, which fill the workers' tails (a long group
    collected last would otherwise run alone at the end). Stable: files keep their order."""
    for item in items:
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.integration)
        elif item.path.is_relative_to(FAST) and item.get_closest_marker("integration"):
            item.stash[_WRONG_TIER] = (
                f"{item.nodeid} is marked integration but lies in tests/fast/: "
                "move it to tests/integration/"
            )
    items.sort(
        key=lambda item: (
            item.get_closest_marker("xdist_group") is None,
            item.get_closest_marker("integration") is None,
        )
    )


_WRONG_TIER = pytest.StashKey[str]()


@pytest.fixture(autouse=True)
def in_its_tier(request: pytest.FixtureRequest) -> None:
    """Fail a test that lies in the fast tier's folder but is marked ``integration`` (see above):
    its place is tests/integration/."""
    wrong = request.node.stash.get(_WRONG_TIER, None)
    if wrong is not None:
        pytest.fail(wrong, pytrace=False)


_GROUPS_LOST = pytest.StashKey[str]()


def pytest_collection_finish(session: pytest.Session) -> None:
    """On an xdist worker with ``--dist loadgroup``, check that the groups hold. pytest-xdist
    marks a grouped test by a suffix on its node id; a pytest that ignores it (9.2:
    pytest-dev/pytest-xdist#1386) spreads each group over the workers, which builds every
    module's world again on each of them: slower, and nothing says why. Each such test
    then fails with the reason (:func:`groups_kept`); a collection error would reach the
    controller as a bare internal error."""
    if not getattr(session.config.option, "loadgroup", False):  # not an xdist worker
        return
    for item in session.items:
        if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid:
            item.stash[_GROUPS_LOST] = (
                f"--dist loadgroup lost its groups ({item.nodeid} has no @group suffix): this "
                "pytest and pytest-xdist do not work together (pyproject.toml pins pytest)"
            )


@pytest.fixture(autouse=True)
def groups_kept(request: pytest.FixtureRequest) -> None:
    """Fail a grouped test that xdist did not keep in its group (see above)."""
    lost = request.node.stash.get(_GROUPS_LOST, None)
    if lost is not None:
        pytest.fail(lost, pytrace=False)


_DAEMON_MARKS = pytest.StashKey[dict[int, int]]()
DAEMON_LINES_SHOWN = 400
"""A failed test's report shows at most this many of each daemon's last lines."""


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Where each running daemon's output stood as the test began (see below)."""
    item.stash[_DAEMON_MARKS] = {
        id(daemon): len(daemon.lines) if daemon.proc.poll() is None else -1
        for daemon in Daemon.live
    }  # -1: it had ended (an earlier module's, not yet garbage)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report holds what every daemon said during it (a module's shared
    daemon from the test's start, one of the test's own from its first line) and its bot's
    view at the end: a flake in CI then says what the bot was doing, not only what the test
    waited for."""
    report = yield
    if report.failed and call.when in ("setup", "call"):
        marks = item.stash.get(_DAEMON_MARKS, {})
        for daemon in list(Daemon.live):
            mark = marks.get(id(daemon), 0)
            if mark < 0:
                continue
            lines = daemon.lines[mark:]
            text = "\n".join([*lines[-DAEMON_LINES_SHOWN:], f"its view now: {daemon.view()}"])
            report.sections.append((f"daemon in {daemon.root}", text))
    return report


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    """A real runtime (registry, scheduler, bus) with fault injection on."""
    rt = Runtime(
        registry=Registry(), scheduler=Scheduler().start(), bus=Bus(), fault_injection=True
    )
    yield rt
    rt.hang_release.set()
    pykka.ActorRegistry.stop_all(block=True, timeout=5)
    rt.scheduler.stop()


@pytest.fixture
def recorder(runtime: Runtime) -> Recorder:
    """Every event published on the runtime's bus."""
    rec = Recorder()
    runtime.bus.listen(rec)
    return rec


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary directory with a short path (AF_UNIX paths are limited to 107 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def no_leftover_threads() -> Iterator[None]:
    """Fail a test that leaves threads running behind it."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 10.0
    for thread in set(threading.enumerate()) - before:
        thread.join(max(0.0, deadline - time.monotonic()))
    leftover = [
        t.name for t in set(threading.enumerate()) - before if t.is_alive() and not _ignorable(t)
    ]
    assert not leftover, f"threads left running: {leftover}"


def _ignorable(thread: threading.Thread) -> bool:
    # hypothesis and pytest-timeout may start helper threads of their own
    return thread.name.startswith(("hypothesis", "pytest_timeout")) or "Dummy" in thread.name


os.environ.setdefault("PEPA_TEST", "1")
# the tests' own Node scripts keep their compiled code between runs too, as pepa's do
for _name, _value in compile_cache_env().items():
    os.environ.setdefault(_name, _value)
