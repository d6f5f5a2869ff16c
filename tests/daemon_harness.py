"""Run a real ``pepa start`` in a subprocess and follow its output line by line."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any

import pytest

from pepa.ipc.client import IpcClient, IpcClientError
from pepa.worldserver.process import EmbeddedWorld, free_port

VIEW_FIELDS = (
    "connected", "position", "moving", "hp", "food", "timeOfDay", "enclosure", "threats",
    "activeReflex", "currentSkill", "paused",
)  # fmt: skip
"""What :meth:`Daemon.view` shows of a snapshot."""


def wait_for_threat(client: IpcClient, name: str, timeout: float = 15.0) -> dict[str, Any]:
    """The first status from ``client`` whose view has a ``name`` among the threats.

    A test that kills the bot by a world op right after its fight began waits on this first:
    the post-mortem reads the fight from the first view with the mob (its health then), and
    perception takes that view 0.1 s after the spawn event (``SETTLE``). In a real fight the
    first blow comes a second or more after the mob is near; the op's comes at once."""
    return client.wait_for(
        lambda e: e["type"] == "status" and any(t.get("name") == name for t in e["threats"]),
        timeout=timeout,
    )


def take_on_a_zombie(
    world: EmbeddedWorld, daemon: Daemon, watching: IpcClient, player: str, line: str,
    *, start: int = 0,
) -> None:  # fmt: skip
    """Spawn a zombie 2 blocks from ``player`` until ``daemon`` says ``line`` (the bot took it
    on; a zombie the bot never saw, on a busy CI machine, is spawned again: three at most),
    then wait until ``watching`` shows the fight in the bot's view (:func:`wait_for_threat`)."""
    for _ in range(3):
        world.op("remove_mobs")
        world.op("spawn_mob", player=player, name="zombie", dx=2)
        try:
            daemon.wait_line(line, 15, start=start)
            break
        except AssertionError:
            continue
    else:
        pytest.fail(f"three zombies spawned 2 blocks away and {player} never took one on")
    wait_for_threat(watching, "zombie")


class Daemon:
    """A ``pepa start`` process; tests wait on its output lines, never sleep."""

    live: weakref.WeakSet[Daemon] = weakref.WeakSet()
    """Every daemon started in this process and not yet garbage: a failed test's report shows
    what each said meanwhile (``conftest.pytest_runtest_makereport``)."""

    def __init__(
        self,
        root: Path,
        *args: str,
        env: dict[str, str] | None = None,
        port: int | None = None,
        host: str | None = None,
        sandbox: bool = False,
        curriculum: bool = False,
        command: str = "start",
    ) -> None:
        """Start ``pepa start`` (or ``command``: ``fleet``); without ``host`` it plays in its own
        embedded world.

        That world is flat unless ``sandbox`` (the survival sandbox, pepa's default).
        The bot works no plan by itself unless ``curriculum`` (pepa's default is
        on): most scenarios want a bot that only reacts.
        """
        self.root = root
        self.state = root / "state"
        self.port = port or free_port()
        self.socket = self.state / f"{host or '127.0.0.1'}_{self.port}" / "bot.sock"
        where = ["--port", str(self.port)] + (["--host", host] if host else [])
        if host is None and not sandbox:
            where.append("--no-sandbox")
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
        full_env["PEPA_CURRICULUM"] = "1" if curriculum else "0"
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pepa", command, "--state-dir", str(self.state), *where, *args],
            cwd=root,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="daemon-reader", daemon=True)
        self._reader.start()
        Daemon.live.add(self)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self.lines.append("<eof>")
            self._cond.notify_all()

    def wait_line(self, text: str, timeout: float = 30.0, *, start: int = 0) -> int:
        """Index of the first line at or after ``start`` containing ``text``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for index in range(start, len(self.lines)):
                    if text in self.lines[index]:
                        return index
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.lines and self.lines[-1] == "<eof>"):
                    tail = "\n".join(self.lines[-30:])
                    raise AssertionError(f"no line with {text!r}; output ends:\n{tail}")
                self._cond.wait(remaining)

    def count(self, text: str, *, start: int = 0) -> int:
        """Lines at or after ``start`` containing ``text``."""
        with self._cond:
            return sum(text in line for line in self.lines[start:])

    def ready(self, timeout: float = 60.0, *, start: int = 0) -> int:
        """Wait until a worker listens on the socket; return that line's index."""
        return self.wait_line("listening on", timeout, start=start)

    def in_world(self, timeout: float = 60.0, *, start: int = 0) -> int:
        """Wait until the bot has spawned in the world; return that line's index."""
        return self.wait_line("in the world at", timeout, start=start)

    def view(self) -> str:
        """The bot's own view now (the main fields of its snapshot), or why there is none: for a
        failed test's report."""
        if self.proc.poll() is not None:
            return f"none: the daemon has exited ({self.proc.returncode})"
        try:
            with IpcClient.connect(self.socket, timeout=5.0) as client:
                hello = client.wait_for("hello", timeout=5.0)
        except (IpcClientError, OSError) as exc:  # TimeoutError is an OSError
            return f"none: {exc}"
        snapshot = hello.get("snapshot") or {}
        return repr({key: snapshot.get(key) for key in VIEW_FIELDS})

    def client(self) -> IpcClient:
        client = IpcClient.connect(self.socket, timeout=10.0)
        try:
            client.wait_for("hello", timeout=10.0)
        except BaseException:
            client.close()
            raise
        return client

    def worker_pid(self) -> int:
        for line in reversed(self.lines):
            if "worker " in line and " starting:" in line:
                return int(line.split("worker ", 1)[1].split()[0])
        raise AssertionError("no worker start line yet")

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def wait(self, timeout: float = 40.0) -> int:
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout)
        self._end_stragglers()
        return code

    def _end_stragglers(self) -> None:
        """A grandchild that outlived the daemon (a SIGKILLed worker's node bridge) keeps the
        output pipe open, so the reader never sees its end, and closing a pipe another thread
        still reads from blocks: kill what is left of the daemon's process group, then close."""
        if self._reader.is_alive():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self._reader.join(5)
        if self._reader.is_alive() and self.proc.stdout is not None:
            # one that left the group (a bridge in a session of its own) still holds the pipe
            for pid in _holders(self.proc.stdout.fileno()):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            self._reader.join(10)
        if self.proc.stdout is not None and not self._reader.is_alive():
            self.proc.stdout.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._reader.join(10)
        self._end_stragglers()


def _holders(fd: int) -> list[int]:
    """Other processes that hold the pipe whose read end is ``fd`` open (Linux's /proc)."""
    pipe = f"pipe:[{os.fstat(fd).st_ino}]"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if any(os.readlink(link) == pipe for link in (entry / "fd").iterdir()):
                found.append(int(entry.name))
    return found
