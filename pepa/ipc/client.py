"""A small blocking IPC client for one-shot tools (``pepa status``) and tests."""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from pepa.base.errors import PepaError, ProtocolError
from pepa.ipc.protocol import Command, LineSplitter, encode, encode_command

logger = logging.getLogger(__name__)

CLIENT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""Events from the daemon may be larger than commands (a big snapshot)."""

_PROBE_TIMEOUT = 0.5
_RECV_BYTES = 256 * 1024


class IpcClientError(PepaError, ConnectionError):
    """No daemon answers on the socket, or it closed the connection."""


class IpcClient:
    """One blocking connection to a daemon's socket.

    Not thread-safe: use it from one thread. Events are returned as dicts in
    the order the daemon sent them.
    """

    def __init__(
        self, sock: socket.socket, path: Path, *, max_line_bytes: int = CLIENT_MAX_LINE_BYTES
    ) -> None:
        self.path = path
        self._sock = sock
        self._splitter = LineSplitter(max_line_bytes)
        self._lines: deque[bytes] = deque()
        self._eof = False

    @classmethod
    def connect(
        cls, path: Path | str, timeout: float = 5.0, *, max_line_bytes: int = CLIENT_MAX_LINE_BYTES
    ) -> IpcClient:
        """Connect to the socket at ``path``; raise :class:`IpcClientError` if nobody answers."""
        path = Path(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(os.fspath(path))
        except FileNotFoundError as exc:
            sock.close()
            raise IpcClientError(f"no daemon socket at {path}") from exc
        except ConnectionRefusedError as exc:
            sock.close()
            raise IpcClientError(f"no daemon is listening on {path} (stale socket)") from exc
        except OSError as exc:
            sock.close()
            raise IpcClientError(f"cannot connect to {path}: {exc.strerror or exc}") from exc
        return cls(sock, path, max_line_bytes=max_line_bytes)

    def send(self, cmd: Command | Mapping[str, Any]) -> None:
        """Send a command dataclass, or a raw dict as-is (to test the daemon's checks)."""
        data = encode(cmd) if isinstance(cmd, Mapping) else encode_command(cmd)
        self.send_raw(data)

    def send_raw(self, data: bytes) -> None:
        """Send bytes exactly as given (no newline is added)."""
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise IpcClientError(f"the daemon closed the connection: {exc}") from exc

    def recv(self, timeout: float | None = 5.0) -> dict[str, Any]:
        """Return the next event; raise ``TimeoutError`` if none arrives in ``timeout`` seconds.

        Raises :class:`IpcClientError` once the daemon has closed the connection
        and every event before that has been returned.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._lines:
            if self._eof:
                raise IpcClientError("the daemon closed the connection")
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError(f"no event from {self.path} within {timeout} s")
            self._sock.settimeout(remaining)
            try:
                data = self._sock.recv(_RECV_BYTES)
            except TimeoutError:
                continue
            except OSError as exc:  # reset by the daemon
                self._eof = True
                raise IpcClientError(f"the daemon closed the connection: {exc}") from exc
            if not data:
                self._eof = True
                self._lines.extend(self._splitter.finish())
                continue
            self._lines.extend(self._splitter.feed(data))
        return _parse(self._lines.popleft())

    def wait_for(
        self, match: str | Callable[[dict[str, Any]], bool], timeout: float = 5.0
    ) -> dict[str, Any]:
        """Return the first event of type ``match`` (or satisfying it), skipping others."""
        predicate = (lambda ev: ev.get("type") == match) if isinstance(match, str) else match
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching event from {self.path} within {timeout} s")
            event = self.recv(remaining)
            if predicate(event):
                return event

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._sock.close()

    def __enter__(self) -> IpcClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _parse(line: bytes) -> dict[str, Any]:
    try:
        event = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError(f"the daemon sent a line that is not JSON: {exc}") from None
    if not isinstance(event, dict):
        raise ProtocolError("the daemon sent a JSON value that is not an object")
    return event


def find_sockets(state_root: Path) -> list[Path]:
    """Return ``<state_root>/*/bot.sock`` that accept a connection, sorted."""
    found = []
    for path in sorted(Path(state_root).glob("*/bot.sock")):
        try:
            if daemon_listening(path):
                found.append(path)
        except OSError as exc:
            logger.debug("cannot probe %s: %s", path, exc)
    return found


def daemon_listening(path: Path, timeout: float = _PROBE_TIMEOUT) -> bool:
    """Whether something accepts connections on the Unix socket at ``path``.

    A missing or refusing socket (a stale file) is ``False``; a connect that
    times out counts as listening (a busy daemon). Other errors, such as a
    permission error, are raised as ``OSError``.
    """
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(timeout)
    try:
        probe.connect(os.fspath(path))
    except (ConnectionRefusedError, FileNotFoundError):
        return False
    except TimeoutError:
        return True
    finally:
        probe.close()
    return True
