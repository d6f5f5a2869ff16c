"""The daemon's Unix-socket server: fans events out, hands commands in.

:class:`IpcServer` runs an asyncio loop in its own daemon thread (``pepa-ipc``).
Other threads call ``send`` and ``broadcast``, which only append to a queue; the
server thread drains it once per loop iteration and writes everything pending
for a client in one ``transport.write``. A client that stops reading is dropped
once its buffer passes a limit, so it never slows the bot or the other clients.

**Hello gating.** A new client gets no broadcasts until the first ``send`` to it
has been queued: the daemon answers ``on_connect`` with ``send(id, hello(...))``
and from then on the client receives the event stream. Broadcasts queued before
that ``send`` are not delivered to it, so ``hello`` and the stream never overlap.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import os
import select
import socket
import stat
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pepa.errors import LineTooLong, PepaError, ProtocolError
from pepa.ipc.client import daemon_listening
from pepa.ipc.protocol import MAX_LINE_BYTES, Command, LineSplitter, decode_command, encode, error

logger = logging.getLogger(__name__)

AF_UNIX_PATH_MAX = 107 if sys.platform.startswith("linux") else 103
"""The longest socket path (in bytes) the kernel accepts."""

_START_TIMEOUT = 5.0  # seconds start() waits for the loop to be listening
_CLOSE_GRACE = 1.0  # seconds a closing connection may take to flush before it is aborted
_PROBE_TIMEOUT = 1.0  # seconds to decide whether an existing socket is alive


class IpcServerError(PepaError):
    """The IPC socket cannot be served (path too long, in use, or not bindable)."""


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


class IpcServer:
    """A Unix-socket server for the IPC protocol, served from its own thread.

    ``on_command(client_id, command)``, ``on_connect(client_id)`` and
    ``on_disconnect(client_id)`` run on the server thread and must return
    quickly (``tell`` an actor and return); an exception they raise is logged
    and otherwise ignored. A server is started once and stopped once.
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
    ) -> None:
        self.path = Path(path)
        self.fault_injection = fault_injection
        self.max_line_bytes = max_line_bytes
        self.max_client_buffer = max_client_buffer
        self._on_command = on_command
        self._on_connect = on_connect
        self._on_disconnect = on_disconnect
        self._ids = itertools.count(1)
        # Server thread only:
        self._clients: dict[int, _Connection] = {}
        self._live: dict[int, _Connection] = {}  # clients past their first send
        self._stop_future: asyncio.Future[None] | None = None
        # Any thread, under _lock:
        self._lock = threading.Lock()
        self._pending: collections.deque[tuple[int | None, bytes]] = collections.deque()
        self._flush_scheduled = False
        self._opened: set[int] = set()  # clients with a send queued
        self._running = False
        self._stopped = False
        self._counts = {"events_broadcast": 0, "events_sent": 0, "clients_dropped": 0}
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
        sock, self._inode = _bind(self.path)
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(sock, ready), name="pepa-ipc", daemon=True
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
        _unlink_if_ours(self.path, self._inode)
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
            if self._flush_scheduled:
                return  # one flush per loop iteration drains everything queued
            self._flush_scheduled = True
            loop = cast(asyncio.AbstractEventLoop, self._loop)
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
        server = await loop.create_unix_server(
            lambda: _Connection(self, next(self._ids)), sock=sock
        )
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
            for conn in list(self._clients.values()):
                conn.closing = True
                conn.transport.close()  # flushes what is queued, then closes
            deadline = loop.time() + _CLOSE_GRACE
            while self._clients and loop.time() < deadline:
                await asyncio.sleep(0.01)
            for conn in list(self._clients.values()):
                conn.transport.abort()
            await asyncio.sleep(0)  # abort() reports connection_lost on the next pass

    def _request_stop(self) -> None:
        if self._stop_future is not None and not self._stop_future.done():
            self._stop_future.set_result(None)

    def _attach(self, conn: _Connection) -> None:
        self._clients[conn.client_id] = conn
        logger.debug("IPC client %d connected", conn.client_id)
        if self._on_connect is not None:
            self._call(self._on_connect, conn.client_id)

    def _detach(self, conn: _Connection) -> None:
        if self._clients.pop(conn.client_id, None) is None:
            return
        self._live.pop(conn.client_id, None)
        with self._lock:
            self._opened.discard(conn.client_id)
        logger.debug("IPC client %d disconnected", conn.client_id)
        if self._on_disconnect is not None:
            self._call(self._on_disconnect, conn.client_id)

    def _received(self, conn: _Connection, data: bytes | None) -> None:
        """Bytes from a client (``None`` at its end of file): run each command line."""
        if conn.closing:
            return
        try:
            lines = conn.splitter.finish() if data is None else conn.splitter.feed(data)
        except LineTooLong as exc:
            self._reject(conn, exc)
            return
        for line in lines:
            if conn.closing:
                return
            try:
                cmd = decode_command(line, fault_injection=self.fault_injection)
            except ProtocolError as exc:
                logger.debug("IPC client %d sent a bad line: %s", conn.client_id, exc)
                self._write(conn, encode(error("ipc", str(exc))))
                continue
            self._call(self._on_command, conn.client_id, cmd)

    def _reject(self, conn: _Connection, exc: LineTooLong) -> None:
        logger.info("IPC client %d sent an over-long line; closing it", conn.client_id)
        self._write(conn, encode(error("ipc", str(exc))))
        conn.closing = True
        if not conn.transport.is_closing():
            conn.transport.close()  # flushes the error first; abort if it cannot
            asyncio.get_running_loop().call_later(_CLOSE_GRACE, conn.transport.abort)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        try:
            callback(*args)
        except Exception:
            logger.exception("IPC callback %r failed", callback)

    def _flush(self) -> None:
        with self._lock:
            self._flush_scheduled = False
            items, self._pending = self._pending, collections.deque()
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
                self._write(conn, parts[0] if len(parts) == 1 else b"".join(parts))

    def _write(self, conn: _Connection, data: bytes) -> None:
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
            self._live.pop(conn.client_id, None)
            with self._lock:
                self._counts["clients_dropped"] += 1
            transport.abort()


class _Connection(asyncio.Protocol):
    """One client connection. Every method runs on the server thread."""

    transport: asyncio.WriteTransport

    def __init__(self, server: IpcServer, client_id: int) -> None:
        self.server = server
        self.client_id = client_id
        self.splitter = LineSplitter(server.max_line_bytes)
        self.closing = False  # no more reads or writes once set

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.WriteTransport, transport)
        self.server._attach(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self.server._detach(self)

    def data_received(self, data: bytes) -> None:
        self.server._received(self, data)

    def eof_received(self) -> bool:
        # The client's last unterminated line counts. A client that only shut
        # down its write side (``socat``, ``nc -U``) keeps receiving; one that
        # closed altogether (POLLHUP on our end) is closed at once.
        self.server._received(self, None)
        sock = self.transport.get_extra_info("socket")
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLOUT)
        return not any(mask & select.POLLHUP for _, mask in poller.poll(0))


# ---------------------------------------------------------------------- the socket file


def _bind(path: Path) -> tuple[socket.socket, tuple[int, int]]:
    """Bind and listen on ``path`` with mode 0600; return the socket and file identity."""
    size = len(os.fsencode(path))
    if size > AF_UNIX_PATH_MAX:
        raise IpcServerError(
            f"socket path is {size} bytes, over the {AF_UNIX_PATH_MAX}-byte limit of "
            f"Unix sockets: {path} (use a shorter state directory)"
        )
    _clear_stale(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    inode = None
    try:
        # umask is process-wide; it is narrowed just for bind() so the socket file
        # is never group- or world-accessible, not even briefly.
        old_umask = os.umask(0o177)
        try:
            sock.bind(os.fspath(path))
        finally:
            os.umask(old_umask)
        st = os.lstat(path)
        inode = (st.st_dev, st.st_ino)
        os.chmod(path, 0o600)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        _unlink_if_ours(path, inode)
        raise IpcServerError(f"cannot listen on {path}: {exc.strerror or exc}") from exc
    return sock, inode


def _clear_stale(path: Path) -> None:
    """Remove a socket file nobody accepts on; refuse a live one or a non-socket."""
    try:
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise IpcServerError(f"{path} exists and is not a socket; remove it first")
        live = daemon_listening(path, _PROBE_TIMEOUT)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise IpcServerError(f"cannot check the existing socket {path}: {exc}") from exc
    if live:
        raise IpcServerError(f"another daemon is listening on {path}")
    logger.info("replacing stale socket %s", path)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _unlink_if_ours(path: Path, inode: tuple[int, int] | None) -> None:
    """Remove ``path`` if it is still the file identified by ``inode``."""
    if inode is None:
        return
    try:
        st = os.lstat(path)
        if (st.st_dev, st.st_ino) == inode:
            os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        logger.warning("could not remove socket %s: %s", path, exc)
