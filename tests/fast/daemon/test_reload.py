"""``pepa start --reload``: the watcher and the import check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pepa.base.node import REPO_ROOT
from pepa.daemon.reload import (
    Debouncer,
    Reloader,
    SourceWatcher,
    changed_paths,
    check_imports,
    describe,
    module_name,
    report_failure,
    scan,
)

REPO = REPO_ROOT


def touch(path: Path, text: str, mtime_ns: int) -> None:
    """Write ``text`` with an explicit mtime (coarse file-system clocks cannot hide a change)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small package ``pkg`` with two modules."""
    touch(tmp_path / "pkg" / "__init__.py", "", 1_000_000_000)
    touch(tmp_path / "pkg" / "a.py", "A = 1\n", 1_000_000_000)
    touch(tmp_path / "pkg" / "sub" / "b.py", "B = 2\n", 1_000_000_000)
    return tmp_path


def test_scan_stamps_python_files_and_skips_caches_hidden_and_node_dirs(tree: Path) -> None:
    pkg = tree / "pkg"
    touch(pkg / "__pycache__" / "a.cpython-311.py", "", 1)
    touch(pkg / ".hidden" / "c.py", "", 1)
    touch(pkg / "node_modules" / "d.py", "", 1)
    touch(pkg / "notes.txt", "", 1)
    assert set(scan([pkg])) == {pkg / "__init__.py", pkg / "a.py", pkg / "sub" / "b.py"}


def test_scan_of_a_missing_root_is_empty(tmp_path: Path) -> None:
    assert scan([tmp_path / "nowhere"]) == {}


def test_changed_paths_are_the_added_removed_and_modified_files(tree: Path) -> None:
    pkg = tree / "pkg"
    before = scan([pkg])
    touch(pkg / "a.py", "A = 10\n", 2_000_000_000)
    (pkg / "sub" / "b.py").unlink()
    touch(pkg / "new.py", "", 1)
    assert changed_paths(before, scan([pkg])) == {
        pkg / "a.py",
        pkg / "sub" / "b.py",
        pkg / "new.py",
    }
    assert changed_paths(before, before) == frozenset()


def test_a_same_size_rewrite_is_seen_through_its_mtime(tree: Path) -> None:
    before = scan([tree / "pkg"])
    touch(tree / "pkg" / "a.py", "A = 9\n", 1_000_000_001)
    assert changed_paths(before, scan([tree / "pkg"])) == {tree / "pkg" / "a.py"}


def test_debouncer_releases_a_burst_once_it_has_been_quiet() -> None:
    d = Debouncer(quiet=1.0, max_wait=10.0)
    d.add([Path("a.py")], now=0.0)
    d.add([Path("b.py")], now=0.5)
    assert d.due(1.4) is None
    assert d.due(1.5) == {Path("a.py"), Path("b.py")}
    assert d.due(5.0) is None
    assert d.pending == frozenset()


def test_debouncer_ignores_empty_changes() -> None:
    d = Debouncer(quiet=1.0)
    d.add([Path("a.py")], now=0.0)
    d.add([], now=0.9)
    assert d.due(1.0) == {Path("a.py")}


def test_debouncer_gives_up_waiting_for_quiet_after_max_wait() -> None:
    d = Debouncer(quiet=1.0, max_wait=3.0)
    now = 0.0
    while now < 3.0:
        d.add([Path(f"f{now}.py")], now)
        assert d.due(now) is None
        now += 0.5
    d.add([Path("last.py")], now)
    batch = d.due(now)
    assert batch is not None and len(batch) == 7


def test_watcher_reports_a_burst_of_writes_as_one_batch_after_the_quiet_period(
    tree: Path,
) -> None:
    pkg = tree / "pkg"
    watcher = SourceWatcher([pkg], interval=0.5, quiet=1.0)
    assert watcher.files == 3
    assert watcher.poll(0.0) is None  # the first scan: nothing changed
    touch(pkg / "a.py", "A = 2\n", 2_000_000_000)
    assert watcher.poll(0.5) is None  # seen, not quiet yet
    touch(pkg / "sub" / "b.py", "B = 3\n", 2_000_000_000)
    assert watcher.poll(1.0) is None  # still writing
    assert watcher.poll(1.5) is None
    assert watcher.poll(2.0) == {pkg / "a.py", pkg / "sub" / "b.py"}
    assert watcher.poll(2.5) is None


def test_watcher_scans_only_every_interval(tree: Path) -> None:
    pkg = tree / "pkg"
    watcher = SourceWatcher([pkg], interval=0.5, quiet=0.0)
    watcher.poll(0.0)
    touch(pkg / "a.py", "A = 2\n", 2_000_000_000)
    assert watcher.poll(0.4) is None  # no scan before 0.5
    assert watcher.poll(0.5) == {pkg / "a.py"}


def test_module_names_follow_the_package_layout(tree: Path) -> None:
    roots = [tree / "pkg"]
    assert module_name(tree / "pkg" / "sub" / "b.py", roots) == "pkg.sub.b"
    assert module_name(tree / "pkg" / "__init__.py", roots) == "pkg"
    assert module_name(tree / "pkg" / "my-script.py", roots) is None
    assert module_name(tree / "elsewhere.py", roots) is None


def test_describe_names_files_relative_to_their_package_and_caps_the_list(tree: Path) -> None:
    roots = [tree / "pkg"]
    assert describe([tree / "pkg" / "a.py"], roots) == "pkg/a.py"
    many = [tree / "pkg" / f"m{i}.py" for i in range(7)]
    assert describe(many, roots, limit=2) == "pkg/m0.py, pkg/m1.py and 5 more"


def test_import_check_passes_for_the_project_itself() -> None:
    assert check_imports([REPO / "skills" / "nav.py"], [REPO / "pepa", REPO / "skills"]).ok


def test_import_check_names_the_file_and_line_of_a_syntax_error(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    bad = tree / "pkg" / "sub" / "b.py"
    bad.write_text("B = 2\nx = (\n")
    result = check_imports([bad], [tree / "pkg"], modules=("pkg",))
    assert not result.ok
    assert f"{bad}, line 2: SyntaxError:" in result.error


def test_import_check_imports_the_changed_modules_and_names_the_failing_one(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    bad = tree / "pkg" / "sub" / "b.py"
    bad.write_text("B = 2\nimport pepa_no_such_module\n")
    result = check_imports([bad], [tree / "pkg"], modules=())
    assert not result.ok
    assert result.error == (
        f"{bad}, line 2: ModuleNotFoundError: No module named 'pepa_no_such_module'"
    )


def test_import_check_that_hangs_fails_after_its_timeout(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    slow = tree / "pkg" / "a.py"
    slow.write_text("import threading\nthreading.Event().wait()  # an import that never ends\n")
    result = check_imports([slow], [tree / "pkg"], modules=(), timeout=0.5)
    assert result == type(result)(ok=False, error="the import check did not finish in 0.5s")


def test_import_check_stops_when_cancelled(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    slow = tree / "pkg" / "a.py"
    slow.write_text("import threading\nthreading.Event().wait()  # an import that never ends\n")
    assert not check_imports([slow], [tree / "pkg"], modules=(), cancelled=lambda: True).ok


def test_report_without_a_running_worker_is_a_warning_not_an_error(tmp_path: Path) -> None:
    assert report_failure(tmp_path / "bot.sock", "token", "text", timeout=1.0) is False


def test_reloader_refuses_broken_code_then_releases_the_fixed_batch(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    said: list[str] = []
    reloader = Reloader(
        [tree / "pkg"],
        socket_path=tree / "no.sock",
        say=said.append,
        quiet=1.0,
        modules=("pkg",),
    )
    assert len(reloader.token) == 32
    reloader.poll(0.0)
    touch(tree / "pkg" / "a.py", "A = (\n", 2_000_000_000)
    assert reloader.poll(0.5) is None
    assert reloader.poll(1.5) is None
    assert len(said) == 1
    assert said[0].startswith("reload refused after change in pkg/a.py; the old worker keeps")
    assert "line 1: SyntaxError" in said[0]
    touch(tree / "pkg" / "a.py", "A = 3\n", 3_000_000_000)
    assert reloader.poll(2.0) is None
    assert reloader.poll(3.0) == {tree / "pkg" / "a.py"}
    assert len(said) == 1


def test_reload_is_off_by_default() -> None:
    from pepa.cli.parser import build_parser

    args = build_parser().parse_args(["start"])
    assert args.reload is False
    assert build_parser().parse_args(["start", "--reload"]).reload is True
