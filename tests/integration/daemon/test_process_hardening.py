"""Process hardening with real daemons: no secret reaches a child's environment or a log,
signal storms end every process cleanly and once, state directories that are not this
user's are refused."""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import select
import signal
import stat
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from pepa.base.dirs import PRIVATE
from pepa.daemon import handover
from pepa.ipc import protocol
from pepa.worldserver.process import free_port
from tests.daemon_harness import Daemon
from tests.pg_server import PostgresServer

NOBODY = 65534


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    env.update(extra)
    return env


def pepa(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pepa", *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def descendants(pid: int) -> list[int]:
    """Every live process under ``pid`` (from /proc/*/stat ppid fields)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def proc_bytes(pid: int, name: str) -> bytes:
    try:
        return (Path("/proc") / str(pid) / name).read_bytes()
    except OSError:
        return b""


@pytest.mark.integration
@pytest.mark.timeout(180)
def test_no_secret_reaches_a_child_environment_or_a_log(
    short_tmp: Path, postgres: PostgresServer
) -> None:
    password = f"authme-{secrets.token_hex(8)}"
    key = f"sk-test-{secrets.token_hex(8)}"
    db_password = f"dbpw{secrets.token_hex(8)}"
    url = postgres.create_database(f"hard_{secrets.token_hex(4)}")
    db_url = url.replace("postgresql://pepa@", f"postgresql://pepa:{db_password}@")
    (short_tmp / ".env").write_text(f"MC_PASSWORD={password}\n")  # only in the config
    values = [password.encode(), key.encode(), db_password.encode()]
    debug = {"DEBUG": "minecraft-protocol,prismarine-auth", "NODE_DEBUG": "net,tls"}
    d = Daemon(short_tmp, env={"OPENAI_API_KEY": key, "PEPA_DB_URL": db_url, **debug})
    try:
        d.in_world(timeout=90)
        worker = d.worker_pid()
        under_worker = descendants(worker)
        under_parent = descendants(d.proc.pid)
        assert worker in under_parent
        commands = {pid: proc_bytes(pid, "cmdline") for pid in under_parent}
        assert any(b"node" in commands[pid] for pid in under_worker), commands  # the bridge
        assert any(b"server.js" in cmd for cmd in commands.values()), commands  # the world
        for pid in under_parent:
            environ, cmdline = proc_bytes(pid, "environ"), commands[pid]
            for value in values:
                assert value not in environ, f"a secret in the environment of {cmdline!r}"
                assert value not in cmdline, f"a secret on the command line of {cmdline!r}"
            assert b"PEPA_WORKER_CONFIG" not in environ
            for name in debug:  # pepa start's own, no child's: Node's debug output prints
                assert f"\0{name}=".encode() not in b"\0" + environ, (name, cmdline)  # secrets
        with d.client() as client:
            client.send(protocol.Snapshot())
            client.wait_for("status", timeout=15)
    finally:
        d.close()
    assert any("postgresql://pepa:***@" in line for line in d.lines)  # redacted, not absent
    for value in values:
        assert not any(value.decode() in line for line in d.lines)
        for path in d.state.rglob("*"):
            if path.is_file() and not path.is_symlink():
                assert value not in path.read_bytes(), f"a secret in {path}"


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_a_signal_storm_on_pepa_start_stops_everything_once_and_cleanly(
    short_tmp: Path,
) -> None:
    d = Daemon(short_tmp)
    try:
        d.ready()
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGTERM, signal.SIGINT):
            d.signal(signum)
        assert d.wait(timeout=60) == 0
    finally:
        d.close()
    assert d.count("worker exits with code 0") == 1
    assert not d.socket.exists()
    assert not any("Traceback" in line or "Logging error" in line for line in d.lines)


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_a_signal_storm_on_the_worker_stops_it_on_request(short_tmp: Path) -> None:
    d = Daemon(short_tmp)
    try:
        d.ready()
        worker = d.worker_pid()
        for signum in (signal.SIGINT, signal.SIGTERM) * 3:
            os.kill(worker, signum)
        assert d.wait(timeout=60) == 0
    finally:
        d.close()
    d.wait_line("worker stopping (SIGINT)")
    d.wait_line("worker stopped on request")
    assert d.count("worker exits with code 0") == 1
    assert not any("Traceback" in line or "Logging error" in line for line in d.lines)


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_sigusr1_dumps_every_thread_and_the_worker_goes_on(
    short_tmp: Path,
) -> None:
    d = Daemon(short_tmp)
    try:
        d.ready()
        worker = d.worker_pid()
        mark = len(d.lines)
        for _ in range(3):
            os.kill(worker, signal.SIGUSR1)
        line = d.wait_line("SIGUSR1: the traceback of every thread follows", start=mark)
        d.wait_line("Current state of MainThread", start=line)
        with d.client() as client:
            client.send(protocol.Snapshot())
            client.wait_for("status", timeout=15)
        assert d.worker_pid() == worker
        d.signal(signal.SIGTERM)
        assert d.wait() == 0
    finally:
        d.close()
    logs = b"".join(p.read_bytes() for p in (d.socket.parent / "logs").glob("*.log"))
    assert b"SIGUSR1: the traceback of every thread follows" in logs
    assert b"Current state of MainThread" in logs


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_the_worker_refuses_a_server_dir_that_changed_hands_while_it_ran(
    short_tmp: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    d = Daemon(short_tmp)
    try:
        d.ready()
        os.chown(d.socket.parent, NOBODY, NOBODY)
        os.kill(d.worker_pid(), signal.SIGKILL)  # the next worker checks the directory again
        assert d.wait(timeout=60) == 2
    finally:
        d.close()
    d.wait_line(f"pepa worker: error: the state directory {d.socket.parent} is owned by uid")
    d.wait_line("worker refused its configuration")


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_pepa_start_makes_existing_state_directories_private_and_says_so(
    short_tmp: Path,
) -> None:
    port = free_port()
    server = short_tmp / "state" / f"127.0.0.1_{port}"
    server.mkdir(parents=True)
    (short_tmp / "state").chmod(0o755)
    server.chmod(0o775)
    d = Daemon(short_tmp, port=port)
    try:
        d.ready()
        assert mode(short_tmp / "state") == mode(server) == PRIVATE
        d.signal(signal.SIGTERM)
        assert d.wait() == 0
    finally:
        d.close()
    assert d.count("was mode 0775; it is 0700 now") == 1
    assert d.count("was mode 0755; it is 0700 now") == 1


@pytest.mark.integration
@pytest.mark.parametrize("command", ["start", "world"])
@pytest.mark.parametrize("which", ["root", "server"])
def test_pepa_refuses_a_state_directory_owned_by_someone_else(
    short_tmp: Path, command: str, which: str
) -> None:
    if os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    port = free_port()
    root = short_tmp / "state"
    server = root / f"127.0.0.1_{port}"
    server.mkdir(parents=True, mode=0o700)
    target = root if which == "root" else server
    os.chown(target, NOBODY, NOBODY)
    result = pepa(
        command, "--state-dir", str(root), "--port", str(port), "--no-sandbox", cwd=short_tmp
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == (
        f"pepa: error: the state directory {target} is owned by uid {NOBODY}, not by this user "
        "(uid 0); pepa keeps its state only in a directory of its own user\n"
    )
    assert not (server / "daemon.lock").exists()


@pytest.mark.integration
@pytest.mark.timeout(120)
def test_pepa_start_runs_with_a_state_root_that_is_a_symlink(short_tmp: Path) -> None:
    real = short_tmp / "usb"
    real.mkdir(mode=0o700)
    (short_tmp / "state").symlink_to(real)  # Daemon passes --state-dir <tmp>/state
    d = Daemon(short_tmp)
    try:
        d.ready()
        assert (real / d.socket.parent.name / "bot.sock").exists()
        assert mode(real / d.socket.parent.name) == PRIVATE
        d.signal(signal.SIGTERM)
        assert d.wait() == 0
    finally:
        d.close()
    assert not any("symbolic link" in line for line in d.lines)


@pytest.mark.integration
def test_pepa_start_refuses_a_symlinked_server_dir(short_tmp: Path) -> None:
    port = free_port()
    root = short_tmp / "state"
    root.mkdir(mode=0o700)
    (short_tmp / "elsewhere").mkdir()
    (root / f"127.0.0.1_{port}").symlink_to(short_tmp / "elsewhere")
    result = pepa("start", "--state-dir", str(root), "--port", str(port), cwd=short_tmp)
    assert result.returncode == 2
    assert "is a symbolic link" in result.stderr
    assert result.stderr.count("\n") == 1
    assert list((short_tmp / "elsewhere").iterdir()) == []


CURSOR_REQUEST = b"\x1b[6n"
"""Device status report 6: the terminal answers ``ESC [ row ; col R``."""


class Pty:
    """A pseudo-terminal whose output a thread collects; tests wait on it.

    Like a real terminal it answers a cursor position request (blessed ends its
    capability queries with one and would otherwise wait seconds for each).
    """

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.output = bytearray()
        self._scanned = 0
        self._cond = threading.Condition()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._closing.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            with self._cond:
                self.output += chunk
                self._cond.notify_all()
                while (at := self.output.find(CURSOR_REQUEST, self._scanned)) >= 0:
                    self._scanned = at + len(CURSOR_REQUEST)
                    os.write(self.master, b"\x1b[1;1R")  # the cursor is at the top left

    def wait_for(self, data: bytes, timeout: float = 20.0, start: int = 0) -> int:
        deadline = time.monotonic() + timeout
        with self._cond:
            while (index := self.output.find(data, start)) < 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no {data!r} on the terminal: {bytes(self.output)!r}")
                self._cond.wait(remaining)
        return index

    def close(self) -> None:
        self._closing.set()
        self._thread.join(5)
        os.close(self.master)
        os.close(self.slave)


@contextlib.contextmanager
def dashboard(tmp: Path) -> Iterator[tuple[subprocess.Popen[bytes], Pty]]:
    term = Pty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pepa", "tui", "--socket", str(tmp / "nobody.sock")],
        stdin=term.slave,
        stdout=term.slave,
        stderr=term.slave,
        cwd=tmp,
        env=clean_env(TERM="xterm-256color"),
        start_new_session=True,
    )
    try:
        yield proc, term
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        term.close()


@pytest.mark.integration
@pytest.mark.timeout(60)
def test_sigint_then_sigterm_quit_the_dashboard_and_restore_the_terminal(tmp_path: Path) -> None:
    with dashboard(tmp_path) as (proc, term):
        before = termios.tcgetattr(term.slave)
        painted = term.wait_for(b"connecting")
        assert termios.tcgetattr(term.slave) != before  # cbreak is on
        # The storm reaches the dashboard at once, while its handlers are in place: held
        # back by a stop, so that a busy machine cannot deliver the last SIGTERM only after
        # the dashboard has put the default handlers back on its way out (that one kills).
        proc.send_signal(signal.SIGSTOP)
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGTERM, signal.SIGINT):
            proc.send_signal(signum)
        proc.send_signal(signal.SIGCONT)
        assert proc.wait(timeout=20) == 0
        term.wait_for(b"\x1b[?1049l", start=painted)  # left the alternate screen
        assert termios.tcgetattr(term.slave) == before  # cbreak undone, echo back
        assert b"Traceback" not in term.output


@pytest.mark.integration
def test_the_worker_reads_its_configuration_from_the_pipe_only(tmp_path: Path) -> None:
    """A real worker process whose pipe carries a bad configuration refuses it (exit 2)."""
    fd = handover.send(orjson.dumps({"state_dir": str(tmp_path), "no_such_setting": 1}))
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pepa.daemon"],
            env=clean_env(**{handover.ENV_CONFIG_FD: str(fd)}),
            pass_fds=(fd,),
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(fd)
    assert result.returncode == 2
    assert "no usable configuration from pepa start (PEPA_CONFIG_FD)" in result.stderr
    assert "no_such_setting" in result.stderr
    without = subprocess.run(
        [sys.executable, "-m", "pepa.daemon"],
        env=clean_env(PEPA_WORKER_CONFIG=orjson.dumps({"state_dir": str(tmp_path)}).decode()),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert without.returncode == 2  # the environment is no way in any more
