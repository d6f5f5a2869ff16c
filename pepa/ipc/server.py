"""The daemon's Unix-socket server: fans events out, hands commands in.

:class:`IpcServer` runs an asyncio loop in its own daemon thread (``pepa-ipc``).
Other threads call ``send`` and ``broadcast``, which only append to a queue; the
server thread drains it once per loop iteration and writes everything pending
for a client in one ``transport.write``. A client that reads slowly is slowed:
once its unread answers pass an eighth of ``max_client_buffer`` its commands
are not read until it has read most of them, so a flood never outruns its own
reader. A client that stops reading is dropped once its buffer passes
``max_client_buffer``, so it never slows the bot or the other clients.

**Hello gating.** A new client gets no broadcasts until the first ``send`` to it
has been queued: the daemon answers ``on_connect`` with ``send(id, hello(...))``
and from then on the client receives the event stream. Broadcasts queued before
that ``send`` are not delivered to it, so ``hello`` and the stream never overlap.

**Bounds.** At most ``max_clients`` connections (the next one gets one
``error`` event and is closed); a line may be ``max_line_bytes`` long and must
end within ``line_timeout`` seconds of its first byte (a client that sends
nothing, such as a dashboard that only reads, may stay forever); a client has
at most ``max_in_flight`` commands handed to ``on_command`` and not yet taken
(``command_done``): past that the server stops reading its socket, so a flood
waits in the client's own kernel buffer, never in the daemon's memory. What
the server holds per client is bounded by one socket read (256 KiB) of lines.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pepa.base.threads import thread_name
from pepa.ipc._connection import Connection
from pepa.ipc._socketfile import AF_UNIX_PATH_MAX, IpcServerError, bind, unlink_if_ours
from pepa.ipc.protocol import MAX_LINE_BYTES, Command, encode, error

__all__ = [
    "ACK_TIMEOUT",
    "AF_UNIX_PATH_MAX",
    "LINE_TIMEOUT",
    "MAX_CLIENTS",
    "MAX_IN_FLIGHT",
    "IpcServer",
    "IpcServerError",
    "IpcStats",
]

logger = logging.getLogger(__name__)

MAX_CLIENTS = 32
"""Connections served at once; one more gets an ``error`` event and is closed."""
LINE_TIMEOUT = 30.0
"""Seconds an unfinished line may wait for its ``\\n`` before the connection is closed."""
MAX_IN_FLIGHT = 64
"""Commands of one client handed on and not yet taken before its socket is no longer read."""
ACK_TIMEOUT = 30.0
"""Seconds without any ``command_done`` for a paused client before its commands count as lost."""

_START_TIMEOUT = 5.0  # seconds start() waits for the loop to be listening
_CLOSE_GRACE = 1.0  # seconds a closing connection may take to flush before it is aborted


@dataclass(frozen=True, slots=True, kw_only=True)
class IpcStats:
    """Counters of one server, for tests and benchmarks."""

    clients: int
    """Connections open now."""
    events_broadcast: int
    """Calls to ``broadcast``."""
    events_sent: int
    """Calls to ``send``."""
    clients_dropped: int
    """Connections aborted because the client stopped reading."""
    clients_refused: int = 0
    """Connections closed at once because ``max_clients`` were open."""
    clients_timed_out: int = 0
    """Connections closed because a line did not end within ``line_timeout``."""
    reads_paused: int = 0
    """Times a client's socket stopped being read because of its commands in flight."""
    writes_full: int = 0
    """Times a client's socket stopped being read because it had not read its answers."""
    peak_in_flight: int = 0
    """The most commands one client ever had in flight (never above ``max_in_flight``)."""
    peak_held: int = 0
    """The most complete lines one client ever had waiting in the server."""


class IpcServer:
    """A Unix-socket server for the IPC protocol, served from its own thread.

    ``on_command(client_id, command)``, ``on_connect(client_id)`` and
    ``on_disconnect(client_id)`` run on the server thread and must return
    quickly (``tell`` an actor and return); an exception they raise is logged
    and otherwise ignored. A server is started once and stopped once.

    With ``ack_commands`` the consumer calls :meth:`command_done` once for
    every command it has taken (handled, from any thread), and a command is in
    flight until then; without it a command is taken when ``on_command``
    returns. If a paused client sees no ``command_done`` for ``ack_timeout``
    seconds its commands are taken as lost (a warning) and it is read again.
    """

    def __init__(
        self,
        path: Path,
        *,
        on_command: Callable[[int, Command], None],
        on_connect: Callable[[int], None] | None = None,
        on_disconnect: Callable[[int], None] | None = None,
        fault_injection: bool = False,
        max_line_bytes: int = MAX_LINE_BYTES,
        max_client_buffer: int = 8 * 1024 * 1024,
        max_clients: int = MAX_CLIENTS,
        line_timeout: float = LINE_TIMEOUT,
        max_in_flight: int = MAX_IN_FLIGHT,
        ack_commands: bool = False,
        ack_timeout: float = ACK_TIMEOUT,
        label: str = "",
    ) -> None:
        if max_clients < 1 or max_in_flight < 1 or line_timeout <= 0 or ack_timeout <= 0:
            raise ValueError("IpcServer limits must be positive")
        self.path = Path(path)
        self.label = label
        """The bot this server is for, in a fleet worker (its thread's name: pepa.base.threads)."""
        self.fault_injection = fault_injection
        self.max_line_bytes = max_line_bytes
        self.max_client_buffer = max_client_buffer
        self.max_clients = max_clients
        self.line_timeout = line_timeout
        self.max_in_flight = max_in_flight
        self.ack_commands = ack_commands
        self.ack_timeout = ack_timeout
        self._on_command = on_command
        self._on_connect = on_connect
        self._on_disconnect = on_disconnect
        self._ids = itertools.count(1)
        # Server thread only:
        self._clients: dict[int, Connection] = {}
        self._open: set[Connection] = set()  # every transport not yet lost, refused ones too
        self._live: dict[int, Connection] = {}  # clients past their first send
        self._stop_future: asyncio.Future[None] | None = None
        # Any thread, under _lock:
        self._lock = threading.Lock()
        self._pending: collections.deque[tuple[int | None, bytes]] = collections.deque()
        self._acks: dict[int, int] = {}  # command_done calls not yet applied, by client
        self._flush_scheduled = False
        self._opened: set[int] = set()  # clients with a send queued
        self._running = False
        self._stopped = False
        self._counts = dict.fromkeys(
            (
                "events_broadcast", "events_sent", "clients_dropped", "clients_refused",
                "clients_timed_out", "reads_paused", "writes_full", "peak_in_flight", "peak_held",
            ),
            0,
        )  # fmt: skip
        # Set by start():
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._start_error: BaseException | None = None
        self._inode: tuple[int, int] | None = None

    # ------------------------------------------------------------------ any thread

    def start(self) -> None:
        """Bind the socket (mode 0600) and start serving; return once listening.

        A stale socket file left by a dead daemon is replaced. Raises
        :class:`IpcServerError` if the path is too long, something else is
        listening there, or the socket cannot be bound.
        """
        if self._thread is not None or self._stopped:
            raise IpcServerError("an IpcServer can only be started once")
        sock, self._inode = bind(self.path)
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run,
            args=(sock, ready),
            name=thread_name("pepa-ipc", self.label),
            daemon=True,
        )
        self._thread.start()
        if not ready.wait(_START_TIMEOUT) or self._start_error is not None:
            reason = self._start_error or "timed out"
            self.stop()
            raise IpcServerError(f"cannot serve {self.path}: {reason}")
        logger.debug("IPC server listening on %s", self.path)

    def stop(self, timeout: float = 5.0) -> None:
        """Close the listener and every client, remove the socket file, join the thread.

        Idempotent. The socket file is removed only if it is still the one this
        server bound. Must not be called from a callback (the server thread).
        """
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self._running = False
        thread, loop = self._thread, self._loop
        if thread is not None and loop is not None:
            try:
                loop.call_soon_threadsafe(self._request_stop)
            except RuntimeError:  # the loop already ended
                pass
            if threading.current_thread() is not thread:
                thread.join(timeout)
                if thread.is_alive():
                    logger.warning("IPC server thread did not stop within %.1f s", timeout)
        unlink_if_ours(self.path, self._inode)
        self._inode = None

    def send(self, client_id: int, event: Mapping[str, Any]) -> None:
        """Queue ``event`` for one client; from then on it also gets broadcasts.

        Thread-safe and non-blocking. Events for a client that has gone are dropped.
        """
        self._enqueue(client_id, encode(event))

    def broadcast(self, event: Mapping[str, Any]) -> None:
        """Queue ``event`` for every client past its first ``send``; encoded once.

        Thread-safe and non-blocking.
        """
        if not self._opened:  # nobody listens: skip the encoding too
            with self._lock:
                self._counts["events_broadcast"] += 1
            return
        self._enqueue(None, encode(event))

    def listening(self) -> bool:
        """Whether a broadcast would reach any client now (one past its first ``send``); a
        caller may skip building one when not. Thread-safe (a read of one set's size)."""
        return bool(self._opened)

    def command_done(self, client_id: int) -> None:
        """One command of ``client_id`` has been taken (``ack_commands``); thread-safe.

        Unknown or gone clients are ignored.
        """
        with self._lock:
            if not self._running:
                return
            self._acks[client_id] = self._acks.get(client_id, 0) + 1
            loop = self._schedule_flush_locked()
        if loop is not None:
            self._wake(loop)

    def client_count(self) -> int:
        """Connections open now."""
        return len(self._clients)

    def stats(self) -> IpcStats:
        """A snapshot of the counters."""
        with self._lock:
            return IpcStats(clients=len(self._clients), **self._counts)

    def _enqueue(self, target: int | None, data: bytes) -> None:
        with self._lock:
            self._counts["events_broadcast" if target is None else "events_sent"] += 1
            if not self._running:
                return
            if target is not None:
                self._opened.add(target)
            self._pending.append((target, data))
            loop = self._schedule_flush_locked()
        if loop is not None:
            self._wake(loop)

    def _schedule_flush_locked(self) -> asyncio.AbstractEventLoop | None:
        """Under ``_lock``: the loop to wake, or None when a flush is already due."""
        if self._flush_scheduled:
            return None  # one flush per loop iteration drains everything queued
        self._flush_scheduled = True
        return cast(asyncio.AbstractEventLoop, self._loop)

    def _wake(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            loop.call_soon_threadsafe(self._flush)
        except RuntimeError:  # the loop closed under us: the server is stopping
            pass

    # ------------------------------------------------------------------ server thread

    def _run(self, sock: socket.socket, ready: threading.Event) -> None:
        loop = cast(asyncio.AbstractEventLoop, self._loop)
        try:
            loop.run_until_complete(self._serve(sock, ready))
        except BaseException as exc:
            logger.exception("IPC server loop failed")
            self._start_error = self._start_error or exc
            sock.close()
        finally:
            with self._lock:
                self._running = False
            ready.set()  # never leave start() waiting
            loop.close()

    async def _serve(self, sock: socket.socket, ready: threading.Event) -> None:
        loop = asyncio.get_running_loop()
        self._stop_future = loop.create_future()
        server = await loop.create_unix_server(lambda: Connection(self, next(self._ids)), sock=sock)
        with self._lock:
            self._running = not self._stopped
            if self._stopped:  # stop() came while we were starting
                self._stop_future.set_result(None)
        ready.set()
        try:
            await self._stop_future
        finally:
            # Stop accepting, then give connections accepted in this very iteration
            # a loop pass to get their transport: on Python 3.11, closing a Server
            # before that trips an assertion inside asyncio and leaks the socket.
            for listener in server.sockets:
                loop.remove_reader(listener.fileno())
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            server.close()
            for conn in list(self._open):
                conn.closing = True
                conn.transport.close()  # flushes what is queued, then closes
            deadline = loop.time() + _CLOSE_GRACE
            while self._open and loop.time() < deadline:
                await asyncio.sleep(0.01)
            for conn in list(self._open):
                conn.transport.abort()
            await asyncio.sleep(0)  # abort() reports connection_lost on the next pass

    def _request_stop(self) -> None:
        if self._stop_future is not None and not self._stop_future.done():
            self._stop_future.set_result(None)

    # -- the connections' host (pepa.ipc._connection.Host): server thread only -------------
    # (send, broadcast and command_done above are the methods for other threads)

    def opened(self, conn: Connection) -> None:
        """A transport was made: count it open, and attach it (or refuse it: too many)."""
        self._open.add(conn)
        self._attach(conn)

    def lost(self, conn: Connection) -> None:
        """Its transport is gone."""
        self._open.discard(conn)
        self._detach(conn)

    def hand_on(self, client_id: int, command: Command) -> None:
        """Give a client's command to ``on_command``."""
        self._call(self._on_command, client_id, command)

    def _attach(self, conn: Connection) -> None:
        if len(self._clients) >= self.max_clients:
            logger.warning(
                "IPC client %d refused: %d clients already connected",
                conn.client_id,
                len(self._clients),
            )
            self.count("clients_refused")
            self.close_with_error(
                conn, f"too many clients ({self.max_clients}); closing this connection"
            )
            return
        self._clients[conn.client_id] = conn
        logger.debug("IPC client %d connected", conn.client_id)
        if self._on_connect is not None:
            self._call(self._on_connect, conn.client_id)

    def _detach(self, conn: Connection) -> None:
        if self._clients.pop(conn.client_id, None) is None:
            return
        self._live.pop(conn.client_id, None)
        with self._lock:
            self._opened.discard(conn.client_id)
        logger.debug("IPC client %d disconnected", conn.client_id)
        if self._on_disconnect is not None:
            self._call(self._on_disconnect, conn.client_id)

    def close_with_error(self, conn: Connection, text: str) -> None:
        """One ``error`` event, then close (flushing it first; aborted if that hangs). Server
        thread only."""
        self.write(conn, encode(error("ipc", text)))
        conn.closing = True
        conn.cancel_timers()
        self._live.pop(conn.client_id, None)
        if not conn.transport.is_closing():
            conn.transport.close()  # flushes the error first; abort if it cannot
            asyncio.get_running_loop().call_later(_CLOSE_GRACE, conn.transport.abort)

    def count(self, name: str) -> None:
        """Add one to a counter of :class:`IpcStats`. Server thread only."""
        with self._lock:
            self._counts[name] += 1

    def peak(self, name: str, value: int) -> None:
        """Raise a peak of :class:`IpcStats`. Server thread only."""
        if value > self._counts[name]:  # only the server thread writes peaks
            with self._lock:
                self._counts[name] = max(self._counts[name], value)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        try:
            callback(*args)
        except Exception:
            logger.exception("IPC callback %r failed", callback)

    def _flush(self) -> None:
        with self._lock:
            self._flush_scheduled = False
            items, self._pending = self._pending, collections.deque()
            acks, self._acks = self._acks, {}
        for client_id, count in acks.items():
            acked = self._clients.get(client_id)
            if acked is not None and not acked.closing:
                acked.acked(count)
        out: dict[int, list[bytes]] = {}
        run: list[bytes] = []  # consecutive broadcasts, joined once for every client

        def fan_out() -> None:
            blob = run[0] if len(run) == 1 else b"".join(run)
            for client_id in self._live:
                out.setdefault(client_id, []).append(blob)
            run.clear()

        for target, data in items:
            if target is None:
                run.append(data)
                continue
            if run:
                fan_out()
            conn = self._clients.get(target)
            if conn is not None and not conn.closing:
                self._live[target] = conn
                out.setdefault(target, []).append(data)
            elif conn is None:  # sent to a client that has already gone
                with self._lock:
                    self._opened.discard(target)
        if run:
            fan_out()
        for client_id, parts in out.items():
            conn = self._clients.get(client_id)
            if conn is not None:
                self.write(conn, parts[0] if len(parts) == 1 else b"".join(parts))

    def write(self, conn: Connection, data: bytes) -> None:
        """Write to one client; drop it when it stopped reading. Server thread only (other
        threads :meth:`send`)."""
        transport = conn.transport
        if conn.closing or transport.is_closing():
            return
        transport.write(data)
        queued = transport.get_write_buffer_size()
        if queued > self.max_client_buffer:
            logger.warning(
                "IPC client %d stopped reading (%d bytes queued); dropping it",
                conn.client_id,
                queued,
            )
            conn.closing = True
            conn.cancel_timers()
            self._live.pop(conn.client_id, None)
            self.count("clients_dropped")
            transport.abort()
