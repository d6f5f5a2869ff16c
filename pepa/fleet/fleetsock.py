"""The fleet's own socket: every bot's status in one answer, wherever the bot runs.

A fleet on Ray has bots on other machines, whose ``bot.sock`` this machine
cannot reach. ``pepa fleet --ray`` therefore serves ``<host>_<port>/fleet.sock``:
a client connects and gets one line, ``{"type": "fleet", "bots": [...]}``
(each bot as :class:`~pepa.ipc.fleet.BotLine` gives it; :func:`pepa.ipc.fleet.ask_fleet`
asks), and the
connection is closed. The supervisor gathers the lines from the groups (each
group asks its own bots' sockets on its node). The server reads nothing from
its clients, so no input can disturb it; a client that does not read its
answer within :data:`SEND_TIMEOUT` is dropped.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

__all__ = ["FleetSocket"]

logger = logging.getLogger(__name__)

SEND_TIMEOUT = 5.0
"""Seconds a client has to read its answer."""


class FleetSocket:
    """Serves ``lines()`` (a list of JSON-ready bot lines) to each client, one at a time."""

    def __init__(self, path: Path, lines: Callable[[], list[dict[str, Any]]]) -> None:
        self.path = path
        self._lines = lines
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()

    def start(self) -> FleetSocket:
        self.path.unlink(missing_ok=True)  # left by a fleet killed with -9 (the lock is ours)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # 0600 from birth: no window where others may connect
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        sock.listen(16)
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="fleet-socket", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
        if self._thread is not None:
            self._thread.join(SEND_TIMEOUT + 1)
        self.path.unlink(missing_ok=True)

    def _serve(self) -> None:
        assert self._sock is not None
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed
            with conn:
                try:
                    answer = orjson.dumps({"type": "fleet", "bots": self._lines()}) + b"\n"
                    conn.settimeout(SEND_TIMEOUT)
                    conn.sendall(answer)
                except OSError as exc:
                    logger.info("a fleet status client left early: %s", exc)
                except Exception:  # one bad answer must not end the service
                    logger.exception("cannot answer a fleet status client")
