"""``pepa start --reload`` with a real daemon reloading a copy of the checkout."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.base.node import REPO_ROOT
from pepa.ipc.client import IpcClientError
from tests.daemon_harness import Daemon

REPO = REPO_ROOT


def copy_project(root: Path) -> None:
    """The package tree as a separate project in ``root``; its Node packages are shared."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pepa", "skills", "tui"):
        shutil.copytree(REPO / name, root / name, ignore=ignore)
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    (root / "node_modules").symlink_to(REPO / "node_modules")


def children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def world_pid(daemon: Daemon) -> int:
    """The embedded world's Node process (a child of ``pepa start``)."""
    for pid in children(daemon.proc.pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:
            continue
        if Path(os.fsdecode(argv[0])).name == "node":
            return pid
    raise AssertionError("no embedded world process")


@pytest.fixture
def project(short_tmp: Path) -> Iterator[Daemon]:
    copy_project(short_tmp)
    # --max-restarts 0: one crash would end the daemon, so reloads must not count as crashes
    d = Daemon(short_tmp, "--reload", "--max-restarts", "0", env={"PYTHONPATH": str(short_tmp)})
    try:
        yield d
    finally:
        d.close()


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_reload_restarts_the_worker_keeps_world_and_socket_and_refuses_broken_code(
    project: Daemon,
) -> None:
    d, root = project, project.root
    nav = root / "skills" / "nav.py"
    original = nav.read_text()
    # the copy is what runs, not the editable install
    watching = d.lines[d.wait_line("--reload: watching")]
    assert f"{root}/pepa" in watching and f"{root}/skills" in watching
    assert str(REPO) not in watching
    d.ready()
    first, world = d.worker_pid(), world_pid(d)

    # 1. a harmless change: a new worker, the same world and socket, clients reconnect
    with d.client() as client:
        mark = len(d.lines)
        nav.write_text(original + '\nprint("reload probe 1", __file__, flush=True)\n')
        line = d.wait_line("reloading after change in skills/nav.py", start=mark)
        with pytest.raises(IpcClientError):
            client.wait_for(lambda _e: False, timeout=60)  # the old worker closed it
    d.wait_line(f"reload probe 1 {nav}", start=line)  # the new worker imported the copy
    d.ready(start=line)
    second = d.worker_pid()
    assert second != first
    assert world_pid(d) == world
    assert d.socket == root / "state" / f"127.0.0.1_{d.port}" / "bot.sock"
    assert d.count("worker died") == 0  # a reload is not a crash
    assert d.count("listening on") == 2

    # 2. code that does not import: the old worker stays and every client hears why
    with d.client() as client:
        mark = len(d.lines)
        nav.write_text(original + "\nbroken = (\n")
        refused = d.lines[d.wait_line("reload refused after change in skills/nav.py", start=mark)]
        assert "the old worker keeps running" in refused and "SyntaxError" in refused
        error = client.wait_for(
            lambda e: e["type"] == "error" and e["source"] == "reload", timeout=30
        )
        assert f"{nav}, line" in error["text"] and "SyntaxError" in error["text"]
        assert d.worker_pid() == second
        os.kill(second, 0)  # still alive
        # only pepa start holds the token
        client.send({"type": "cmd:reload-failed", "error": "fake", "token": "guess"})
        refusal = client.wait_for(lambda e: e["type"] == "error", timeout=10)
        assert refusal["source"] == "ipc" and "only from pepa start --reload" in refusal["text"]

        # 3. fixing the file reloads
        mark = len(d.lines)
        nav.write_text(original + '\nprint("reload probe 2", __file__, flush=True)\n')
        line = d.wait_line("reloading after change in skills/nav.py", start=mark)
    d.wait_line(f"reload probe 2 {nav}", start=line)
    d.ready(start=line)
    assert d.worker_pid() not in (first, second)
    assert world_pid(d) == world
    with d.client() as client:
        client.send({"type": "cmd:snapshot"})
        assert client.wait_for("status", timeout=10)["actors"]
    assert d.count("worker died") == 0 and d.count("giving up") == 0
    d.signal(signal.SIGTERM)
    assert d.wait() == 0
    assert not d.socket.exists()
