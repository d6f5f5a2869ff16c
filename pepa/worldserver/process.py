"""The embedded world: flying-squid on 127.0.0.1 in its own Node process.

flying-squid reads stdin as its console, so it never runs inside the JS
bridge's Node; it gets its own process with stdin closed. With a control
port (tests only) the project's plugin accepts scenario operations over a
line-based JSON TCP channel on 127.0.0.1.

The world's output goes to ``world.log``, never through a symbolic link
(:func:`open_world_log`), and bounded: over :data:`WORLD_LOG_CAP` at start it
is rotated to ``world.log.1``; during a run its standard output stops being
kept at the cap.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import socket
import stat
import subprocess
import threading
from pathlib import Path
from typing import Any

import orjson

from pepa.base.childenv import scrubbed
from pepa.base.node import WorldError, compile_cache_env, node_binary, node_modules
from pepa.game.versions import SANDBOX_VERSION
from pepa.state.files import open_append
from pepa.worldserver.profiles import PROFILES

__all__ = [
    "DEFAULT_VERSION",
    "PROFILES",
    "SERVER_JS",
    "WORLD_LOG_CAP",
    "EmbeddedWorld",
    "free_port",
    "open_world_log",
]

logger = logging.getLogger(__name__)

DEFAULT_VERSION = SANDBOX_VERSION
"""The survival sandbox's version (pepa.game.versions); a flat world runs any of ``PLAYED``."""
SERVER_JS = Path(__file__).resolve().parent / "js"
"""The world server's own JS: ``server.js``, the terrain generator, its plugins, mob life and
the scenario plugin the tests drive. It never requires the bot's JS (:mod:`pepa.link`)."""
READY = "PEPA_WORLD_READY "
NODE_FLAGS = ("--max-semi-space-size=32", "--single-threaded-gc")
"""The world's garbage collector, for a machine whose cores its players keep busy: no helper
threads (a parallel scavenge waits for its helpers to get a core), and room for a young
generation of 32 MiB a half. With 32 working bots the world's collections took 505 ms in an
80 s round instead of 1,241, and 6 took over 10 ms instead of 36 (docs/world.md)."""
WORLD_LOG_CAP = 50 * 1024 * 1024
"""Bytes of ``world.log``: rotated to ``world.log.1`` at start past it; output past it dropped."""


def open_world_log(path: Path, cap: int = WORLD_LOG_CAP) -> int | None:
    """A descriptor appending to ``world.log``; None (one warning) when it is refused.

    Over ``cap`` bytes it is first renamed to ``<name>.1`` (replacing an older
    one). Opened with :func:`pepa.state.files.open_append`: never through a symbolic
    link, a regular file only, 0600.
    """
    try:
        info: os.stat_result | None = os.lstat(path)
    except OSError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > cap:
        older = path.with_name(f"{path.name}.1")
        try:
            os.replace(path, older)
        except OSError as exc:
            logger.warning("cannot rotate %s: %s", path, exc.strerror or exc)
        else:
            logger.info("%s passed %d MiB: rotated to %s", path.name, cap >> 20, older.name)
    try:
        return open_append(path)
    except OSError as exc:
        why = "it is a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        logger.warning("not writing %s (%s): the world's output is not kept", path, why)
        return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class EmbeddedWorld:
    """One flying-squid server process."""

    def __init__(
        self,
        world_dir: Path,
        *,
        port: int = 25565,
        version: str = DEFAULT_VERSION,
        seed: int = 12345,
        control: bool = False,
        log_path: Path | None = None,
        sandbox: bool = False,
        profile: str = "gentle",
        online_mode: bool = False,
    ) -> None:
        if profile not in PROFILES:
            raise WorldError(f"sandbox profile {profile!r} is not one of {PROFILES}")
        self.world_dir = world_dir
        self.port = port
        self.version = version
        self.seed = seed
        self.control = control
        self.sandbox = sandbox
        """True: seeded survival terrain and the sandbox plugins (docs/sandbox.md)."""
        self.profile = profile
        """The sandbox's profile (docs/sandbox.md "Profiles"); server.js refuses an unknown one."""
        self.online_mode = online_mode
        """True: accounts are verified online (tests only: with no network every login fails)."""
        self.log_path = log_path or world_dir.parent / "world.log"
        self.control_port: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._buf = b""
        self._lock = threading.Lock()
        self._pump: threading.Thread | None = None
        self._ids = 0

    @property
    def address(self) -> str:
        """``127.0.0.1:port`` for people and clients."""
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> EmbeddedWorld:
        """Start the server and wait until it accepts players."""
        node = node_binary()
        modules = node_modules()
        self.world_dir.mkdir(parents=True, exist_ok=True)
        if _port_busy(self.port):
            raise WorldError(f"port {self.port} on 127.0.0.1 is taken: choose another with --port")
        argv = [
            str(node), *NODE_FLAGS, str(SERVER_JS / "server.js"), "--port", str(self.port),
            "--world", str(self.world_dir), "--version", self.version, "--seed", str(self.seed),
            "--control-port", "0" if self.control else "none", "--parent-pid", str(os.getpid()),
            "--sandbox", "1" if self.sandbox else "0", "--profile", self.profile,
            "--online-mode", "1" if self.online_mode else "0",
        ]  # fmt: skip
        # no pepa secret (AuthMe password, OpenAI key, database URL) in the world's Node
        env = scrubbed(NODE_PATH=str(modules), PEPA_NODE_MODULES=str(modules))
        env.update(compile_cache_env())
        log = open_world_log(self.log_path)  # the child's stderr, then the stdout pump's
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL if log is None else log,
                cwd=self.world_dir, env=env, start_new_session=True,
            )  # fmt: skip
        except BaseException:
            if log is not None:
                os.close(log)
            raise
        info = self._wait_ready(timeout, log)
        self.control_port = info.get("controlPort")
        if self.control and self.control_port:
            self._sock = socket.create_connection(("127.0.0.1", self.control_port), timeout=30)
        logger.info(
            "embedded world on %s (%s, %s, profile %s)",
            self.address, self.version, self.world_dir, self.profile,
        )  # fmt: skip
        return self

    def _wait_ready(self, timeout: float, log: int | None) -> dict[str, Any]:
        """Pump the world's stdout into ``log`` (which the pump closes) until READY, or fail."""
        assert self.proc is not None and self.proc.stdout is not None
        found: dict[str, Any] = {}
        done = threading.Event()
        stdout = self.proc.stdout

        def pump() -> None:
            keep = log
            try:
                for line in stdout:
                    if not done.is_set() and line.startswith(READY.encode()):
                        found.update(orjson.loads(line[len(READY) :]))
                        done.set()
                    if keep is not None:
                        keep = _keep_line(keep, line, self.log_path)
            except ValueError:
                pass  # stdout closed by stop() while a line was awaited: the end anyway
            finally:
                if keep is not None:
                    os.close(keep)
                done.set()

        self._pump = threading.Thread(target=pump, name="pepa-world-log", daemon=True)
        self._pump.start()
        if not done.wait(timeout) or not found:
            code = self.proc.poll()
            self.stop()
            reason = (
                f"exited with code {code}" if code is not None else f"not ready in {timeout:g}s"
            )
            where = f"; see {self.log_path}" if log is not None else ""
            raise WorldError(f"the embedded world {reason}{where}")
        return found

    def op(self, operation: str, /, **args: Any) -> Any:
        """Run a scenario operation of the scenario plugin (control channel only).

        ``id`` and ``op`` are the request's own fields, never operation arguments.
        """
        if "id" in args or "op" in args:
            raise ValueError("scenario operations take no 'id' or 'op' argument")
        if self._sock is None:
            raise WorldError("this world has no control channel")
        with self._lock:
            self._ids += 1
            request = orjson.dumps({**args, "id": self._ids, "op": operation}) + b"\n"
            self._sock.sendall(request)
            while b"\n" not in self._buf:
                chunk = self._sock.recv(65536)
                if not chunk:
                    raise WorldError("the world's control channel closed")
                self._buf += chunk
            line, self._buf = self._buf.split(b"\n", 1)
        reply = orjson.loads(line)
        if not reply.get("ok"):
            raise WorldError(f"{operation}: {reply.get('error')}")
        return reply.get("result")

    def alive(self) -> bool:
        """True while the server process runs."""
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 15.0) -> None:
        """Save and stop the server (SIGTERM, then SIGKILL past ``timeout``)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                logger.warning("the embedded world did not stop in %gs; killed", timeout)
                proc.kill()
                proc.wait()
        pump, self._pump = self._pump, None
        if pump is not None:
            pump.join(5.0)  # it reads to the end of the output, then the pipe can close
        if proc.stdout is not None and (pump is None or not pump.is_alive()):
            proc.stdout.close()  # (a pump still held by a lingering child closes it at exit)

    def __enter__(self) -> EmbeddedWorld:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _keep_line(log: int, line: bytes, path: Path, cap: int = WORLD_LOG_CAP) -> int | None:
    """Append ``line`` to the log; past ``cap`` one last line, the log closed: None."""
    try:
        if os.fstat(log).st_size < cap:
            os.write(log, line)
            return log
        os.write(log, f"pepa: {path.name} reached {cap >> 20} MiB; no more output kept\n".encode())
    except OSError as exc:
        logger.warning("cannot write %s: %s; the world's output is not kept", path, exc)
    os.close(log)
    return None


def _port_busy(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0
