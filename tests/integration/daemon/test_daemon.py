"""The daemon as a user runs it: a real ``pepa start`` process, its socket, signals."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from pepa.ipc import protocol
from tests.daemon_harness import Daemon

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

ACTORS = [
    "knowledge", "ipc", "brain", "perception", "reflex", "watchdog", "curriculum", "coach",
    "persona",
]  # fmt: skip


@pytest.fixture
def daemon(short_tmp: Path) -> Iterator[Daemon]:
    """A daemon of the test's own, for a test that ends it."""
    d = Daemon(short_tmp, "--fault-injection")
    d.ready()
    yield d
    d.close()


serving_group = pytest.mark.xdist_group("daemon_serving")
CRASHED_ON_THE_FIRST = 5
"""The actors (of :data:`ACTORS`) whose crash tests share :func:`serving`; the rest share
:func:`serving_too`. A supervisor gives up after more than five restarts in 30 s
(``RestartIntensity``), and brain supervises six of the actors."""


def _serving_daemon() -> Iterator[Daemon]:
    root = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))
    d = Daemon(root, "--fault-injection")
    d.ready()
    yield d
    d.close()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def serving() -> Iterator[Daemon]:
    """One daemon for the tests that leave it serving (status, crashes, pauses): starting and
    stopping a daemon was most of each such test's time. Every test here is marked with
    ``serving_group``, so that they share it on one xdist worker."""
    yield from _serving_daemon()


@pytest.fixture(scope="module")
def serving_too() -> Iterator[Daemon]:
    """A second shared daemon, for the crash tests past :data:`CRASHED_ON_THE_FIRST`."""
    yield from _serving_daemon()


def pepa(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    return subprocess.run(
        [sys.executable, "-m", "pepa", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@serving_group
def test_status_prints_the_live_snapshot_as_json(serving: Daemon) -> None:
    result = pepa(
        "status", "--json", "--state-dir", str(serving.state), "--port", str(serving.port),
        cwd=serving.root,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    snapshot = orjson.loads(result.stdout)
    assert [a["name"] for a in snapshot["actors"]] == ACTORS
    assert all(a["state"] == "running" for a in snapshot["actors"])
    assert snapshot["paused"] is False
    for field in (
        "hp",
        "food",
        "position",
        "dimension",
        "timeOfDay",
        "threats",
        "inventory",
        "pendingProposals",
        "deaths",
        "uptime",
        "activeReflex",
        "currentSkill",
        "lastDeath",
        "learning",
    ):
        assert field in snapshot
    assert snapshot["learning"]["deaths"] == 0 and "lessonsInForce" in snapshot["learning"]


@serving_group
def test_status_prints_deaths_and_learning_lines(serving: Daemon) -> None:
    result = pepa(
        "status", "--state-dir", str(serving.state), "--port", str(serving.port), cwd=serving.root
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "deaths     0" in lines
    assert any(
        line.startswith("learning   ") and line.endswith("deaths by cause: none; near-misses: 0")
        for line in lines
    )


@serving_group
def test_socket_is_private(serving: Daemon) -> None:
    assert serving.socket.stat().st_mode & 0o777 == 0o600


@serving_group
@pytest.mark.parametrize("actor", ACTORS)
def test_injected_crash_of_any_actor_is_reported_and_the_daemon_keeps_serving(
    serving: Daemon, serving_too: Daemon, actor: str
) -> None:
    daemon = serving if ACTORS.index(actor) < CRASHED_ON_THE_FIRST else serving_too
    with daemon.client() as client:
        client.send(protocol.Fault(actor=actor, kind="crash"))
        restarted = client.wait_for(
            lambda e: e["type"] == "actor" and e["name"] == actor and e["state"] == "restarting",
            timeout=15,
        )
        assert "injected crash" in restarted["reason"]
        client.wait_for(
            lambda e: e["type"] == "actor" and e["name"] == actor and e["state"] == "running",
            timeout=15,
        )
        client.send(protocol.Snapshot())
        status = client.wait_for("status", timeout=15)
        row = next(a for a in status["actors"] if a["name"] == actor)
        assert row["restarts"] >= 1


@serving_group
def test_pause_and_resume_over_the_socket_reach_the_reflex_actor(serving: Daemon) -> None:
    with serving.client() as client:
        client.send(protocol.Pause())
        client.wait_for(lambda e: e["type"] == "status" and e["paused"] is True, timeout=10)
        client.send(protocol.Resume())
        client.wait_for(lambda e: e["type"] == "status" and e["paused"] is False, timeout=10)


@serving_group
def test_fault_on_an_unknown_actor_is_an_error_and_the_connection_stays(serving: Daemon) -> None:
    with serving.client() as client:
        client.send(protocol.Fault(actor="nobody", kind="crash"))
        error = client.wait_for("error", timeout=10)
        assert "nobody" in error["text"]
        client.send(protocol.Snapshot())
        client.wait_for("status", timeout=10)


def test_kill_9_of_the_worker_is_followed_by_a_new_worker_and_socket(daemon: Daemon) -> None:
    first = daemon.worker_pid()
    mark = len(daemon.lines)
    os.kill(first, signal.SIGKILL)
    line = daemon.wait_line("worker died (killed by SIGKILL)", start=mark)
    daemon.ready(start=line)
    assert daemon.worker_pid() != first
    with daemon.client() as client:
        client.send(protocol.Snapshot())
        assert client.wait_for("status", timeout=10)["actors"]


def test_sigterm_stops_everything_and_removes_the_socket(daemon: Daemon) -> None:
    daemon.signal(signal.SIGTERM)
    assert daemon.wait() == 0
    assert not daemon.socket.exists()
    assert daemon.count("worker exits with code 0") == 1


def test_sigint_stops_like_ctrl_c(daemon: Daemon) -> None:
    daemon.signal(signal.SIGINT)
    assert daemon.wait() == 0
    assert not daemon.socket.exists()


def test_cmd_stop_ends_the_daemon_with_exit_code_zero(daemon: Daemon) -> None:
    with daemon.client() as client:
        client.send(protocol.Stop())
    assert daemon.wait() == 0
    daemon.wait_line("worker stopped on request")


@serving_group
def test_a_second_daemon_on_the_same_state_directory_is_refused(serving: Daemon) -> None:
    result = pepa(
        "start", "--state-dir", str(serving.state), "--port", str(serving.port), cwd=serving.root
    )
    assert result.returncode == 1
    assert "another pepa daemon" in result.stderr
    assert result.stderr.count("\n") == 1


def test_status_without_a_daemon_says_so_and_fails(short_tmp: Path) -> None:
    result = pepa("status", "--state-dir", str(short_tmp / "state"), cwd=short_tmp)
    assert result.returncode == 1
    assert result.stderr.startswith("pepa: no daemon is running")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["start", "--port", "70000"], "out of range"),
        (["start", "--nope"], "unrecognized arguments"),
        (["start", "--username", "a b"], "not a Minecraft name"),
        (["start", "--llm", "gpt"], "is not one of"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_code_2(
    short_tmp: Path, args: list[str], message: str
) -> None:
    result = pepa(*args, cwd=short_tmp)
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_unreadable_dotenv_is_a_configuration_error(short_tmp: Path) -> None:
    (short_tmp / ".env").write_bytes(b"MC_PORT=\xff\xfe\n")
    result = pepa("status", cwd=short_tmp)
    assert result.returncode == 2
    assert ".env" in result.stderr


def test_start_failure_escalates_level_by_level_until_the_process_gives_up(
    short_tmp: Path,
) -> None:
    d = Daemon(
        short_tmp,
        "--fault-injection",
        "--max-restarts",
        "1",
        env={"PEPA_FAULT_START": "perception"},
    )
    try:
        assert d.wait(timeout=150) == 3
    finally:
        d.close()
    # brain allows 5 restarts of perception (6 starts), root allows 5 restarts of
    # brain (6 brains), the process supervisor 1 restart of the worker (2 workers)
    assert d.count("perception failed to start") == 6 * 6 * 2
    assert d.count("root gave up") >= 2
    final = [line for line in d.lines if line.startswith("pepa: giving up")]
    assert len(final) == 1
    assert "more than 1 times" in final[0]


def test_ask_pi_streams_the_stand_in_pi_output_to_the_socket(short_tmp: Path) -> None:
    bin_dir = short_tmp / "bin"
    bin_dir.mkdir()
    pi = bin_dir / "pi"
    pi.write_text(
        "#!/bin/sh\n"
        "for prompt; do :; done\n"  # the prompt is the last argument, after --
        'echo "thinking about: $prompt"\n'
        'echo "warning: stand-in" >&2\n'
        'echo "answer: flee"\n'
        "exit 3\n"
    )
    pi.chmod(0o755)
    d = Daemon(short_tmp, "--llm", "pi", env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    try:
        d.ready()
        with d.client() as client:
            client.send(protocol.AskPi(prompt="why did I die?"))
            chunks = []
            while True:
                event = client.wait_for(lambda e: e["type"].startswith("ask-pi"), timeout=15)
                if event["type"] == "ask-pi-done":
                    break
                chunks.append(event)
        assert event["code"] == 3
        stdout = "".join(c["text"] for c in chunks if c["stream"] == "stdout")
        assert stdout == "thinking about: why did I die?\nanswer: flee\n"
        assert any(c["stream"] == "stderr" and "stand-in" in c["text"] for c in chunks)
    finally:
        d.close()


@pytest.mark.integration
@pytest.mark.timeout(60)
def test_pepa_world_runs_the_world_alone_and_two_signals_stop_it(short_tmp: Path) -> None:
    from pepa.worldserver.process import free_port

    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pepa", "world", "--state-dir", str(short_tmp / "state"),
         "--port", str(free_port()), "--no-sandbox"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=short_tmp,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if "pepa: embedded world on" in line:
                break
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGTERM)  # a second, impatient signal must not hang it
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
