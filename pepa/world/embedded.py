"""The embedded world: flying-squid on 127.0.0.1 in its own Node process.

flying-squid reads stdin as its console, so it never runs inside the JS
bridge's Node; it gets its own process with stdin closed. With a control
port (tests only) the project's plugin accepts scenario operations over a
line-based JSON TCP channel on 127.0.0.1.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

import orjson

from pepa.world.node import JS_DIR, WorldError, node_binary, node_modules

__all__ = ["DEFAULT_VERSION", "EmbeddedWorld", "free_port"]

logger = logging.getLogger(__name__)

DEFAULT_VERSION = "1.16.5"
"""flying-squid's mobs spawn, take hits and kill on 1.16.5; spawning breaks on 1.20.4."""
READY = "PEPA_WORLD_READY "


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
    ) -> None:
        self.world_dir = world_dir
        self.port = port
        self.version = version
        self.seed = seed
        self.control = control
        self.sandbox = sandbox
        """True: seeded survival terrain and the sandbox plugins (docs/sandbox.md)."""
        self.log_path = log_path or world_dir.parent / "world.log"
        self.control_port: int | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._buf = b""
        self._lock = threading.Lock()
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
            str(node), str(JS_DIR / "server.js"), "--port", str(self.port),
            "--world", str(self.world_dir), "--version", self.version, "--seed", str(self.seed),
            "--control-port", "0" if self.control else "none", "--parent-pid", str(os.getpid()),
            "--sandbox", "1" if self.sandbox else "0",
        ]  # fmt: skip
        env = dict(os.environ, NODE_PATH=str(modules), PEPA_NODE_MODULES=str(modules))
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child writes to it for its whole life
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
                cwd=self.world_dir, env=env, start_new_session=True,
            )  # fmt: skip
        finally:
            log.close()
        info = self._wait_ready(timeout)
        self.control_port = info.get("controlPort")
        if self.control and self.control_port:
            self._sock = socket.create_connection(("127.0.0.1", self.control_port), timeout=30)
        logger.info("embedded world on %s (%s, %s)", self.address, self.version, self.world_dir)
        return self

    def _wait_ready(self, timeout: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        found: dict[str, Any] = {}
        done = threading.Event()
        stdout = self.proc.stdout

        def pump() -> None:
            with open(self.log_path, "ab") as log:
                for line in stdout:
                    if not done.is_set() and line.startswith(READY.encode()):
                        found.update(orjson.loads(line[len(READY) :]))
                        done.set()
                    log.write(line)
                    log.flush()
            done.set()

        threading.Thread(target=pump, name="pepa-world-log", daemon=True).start()
        if not done.wait(timeout) or not found:
            code = self.proc.poll()
            self.stop()
            reason = (
                f"exited with code {code}" if code is not None else f"not ready in {timeout:g}s"
            )
            raise WorldError(f"the embedded world {reason}; see {self.log_path}")
        return found

    def op(self, operation: str, /, **args: Any) -> Any:
        """Run a scenario operation of the test plugin (control channel only).

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
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> EmbeddedWorld:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _port_busy(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0
