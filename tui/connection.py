"""The dashboard's link to the daemon: a reader thread that reconnects, and a locked send.

:class:`Connection` owns one :class:`~pepa.ipc.client.IpcClient` at a time.
Its thread (``tui-reader``) connects, posts the daemon's ``hello``, then
:class:`~tui.state.Connected`, then every event the daemon sends to ``post``;
when the connection ends it posts :class:`~tui.state.Disconnected` and tries
again with exponential backoff and jitter (tenacity), posting a
``Disconnected`` with the delay before each retry. Until the first success
the socket path is resolved again on each attempt (a daemon may start after
the dashboard); after that it is pinned, so a restarted daemon is found at
the same place and the dashboard never wanders to another one.

:meth:`Connection.send` may be called from any thread (the app's main loop):
a lock serialises writers and the swap of the client on reconnection. Reading
and writing the same socket from two threads is safe at the OS level.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import tenacity

from pepa.base.errors import LineTooLong, PepaError, ProtocolError
from pepa.ipc.client import IpcClient, IpcClientError
from pepa.ipc.protocol import Command
from tui.state import Connected, Disconnected

__all__ = ["Connection"]

logger = logging.getLogger(__name__)

_RETRYABLE = (IpcClientError, PepaError, OSError, TimeoutError)


class _Closing(Exception):
    """Raised inside an attempt when the connection is being stopped."""


class Connection:
    """Keeps a connection to the daemon open on a thread of its own.

    ``resolve`` returns the socket path (called on the reader thread; it may
    raise :class:`~pepa.base.errors.PepaError`). ``post`` receives the daemon's
    events (dicts) and the connection's pseudo-events, on the reader thread:
    it must only enqueue.
    """

    def __init__(
        self,
        resolve: Callable[[], Path],
        post: Callable[[Any], None],
        *,
        connect_timeout: float = 2.0,
        poll: float = 0.2,
        initial_backoff: float = 0.1,
        max_backoff: float = 2.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._resolve = resolve
        self._post = post
        self._connect_timeout = connect_timeout
        self._poll = poll
        self._clock = clock
        self._initial_backoff = initial_backoff
        self._max_backoff = max_backoff
        self._pinned: Path | None = None
        self._client: IpcClient | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tui-reader", daemon=True)

    # -- any thread -----------------------------------------------------------------

    def start(self) -> Connection:
        """Start the reader thread; returns ``self``."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Close the connection and wait for the reader thread (idempotent)."""
        self._closing.set()
        if self._thread.is_alive():
            self._thread.join(timeout)  # the reader notices within one poll and closes
        with self._lock:
            client, self._client = self._client, None
        if client is not None:  # the thread never ran, or is stuck
            client.close()

    @property
    def connected(self) -> bool:
        """Whether a connection is open right now."""
        with self._lock:
            return self._client is not None

    def send(self, command: Command) -> str | None:
        """Send ``command``; return ``None`` on success, else why it was not sent."""
        with self._lock:
            client = self._client
            if client is None:
                return "not connected"
            try:
                client.send(command)
            except IpcClientError as exc:
                logger.debug("sending %s failed: %s", command.TYPE, exc)
                return str(exc)
        logger.debug("sent %s", command.TYPE)
        return None

    def __enter__(self) -> Connection:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- the reader thread ----------------------------------------------------------

    def _run(self) -> None:
        retrying = tenacity.Retrying(
            wait=self._backoff,
            retry=tenacity.retry_if_exception_type(_RETRYABLE),
            stop=tenacity.stop_when_event_set(self._closing),
            sleep=self._pause,
            before_sleep=self._report_retry,
            reraise=True,
        )
        try:
            while not self._closing.is_set():
                try:
                    client = retrying(self._open)
                except (_Closing, *_RETRYABLE):
                    return  # stop() was called while waiting
                self._pump(client)
        except Exception:  # a bug: say so in the dashboard rather than die silently
            logger.exception("the reader thread failed")
            self._post(Disconnected(reason="the reader thread failed", ts=self._clock()))

    def _open(self) -> IpcClient:
        """One attempt: resolve, connect, read the ``hello``, publish the client."""
        if self._closing.is_set():
            raise _Closing
        path = self._pinned or self._resolve()
        client = IpcClient.connect(path, timeout=self._connect_timeout)
        try:
            hello = client.recv(timeout=self._connect_timeout)
        except BaseException:
            client.close()
            raise
        with self._lock:
            if self._closing.is_set():
                client.close()
                raise _Closing
            self._client = client
        self._pinned = path
        logger.info("connected to %s", path)
        self._post(hello)  # its recent log lines come before the "connected" line
        self._post(Connected(path=str(path), ts=self._clock()))
        return client

    def _pump(self, client: IpcClient) -> None:
        """Forward events until the connection ends, then report it."""
        reason = "closed"
        while not self._closing.is_set():
            try:
                event = client.recv(timeout=self._poll)
            except TimeoutError:
                continue
            except LineTooLong as exc:
                reason = str(exc)
                break
            except ProtocolError as exc:  # one bad line; the stream is still in step
                logger.warning("skipping a bad line from the daemon: %s", exc)
                continue
            except (IpcClientError, OSError) as exc:
                reason = str(exc)
                break
            self._post(event)
        with self._lock:
            if self._client is client:
                self._client = None
        client.close()
        if not self._closing.is_set():
            logger.info("connection lost: %s", reason)
            self._post(Disconnected(reason=reason, ts=self._clock()))

    def _backoff(self, retry_state: tenacity.RetryCallState) -> float:
        """Exponential backoff with jitter: ~initial, 2x, 4x, ... up to the maximum."""
        delay = self._initial_backoff * 2 ** min(retry_state.attempt_number - 1, 30)
        return min(self._max_backoff, delay) + random.uniform(0, self._initial_backoff)

    def _pause(self, seconds: float) -> None:
        """tenacity's sleep, cut short by :meth:`stop`."""
        self._closing.wait(seconds)

    def _report_retry(self, retry_state: tenacity.RetryCallState) -> None:
        delay = retry_state.next_action.sleep if retry_state.next_action else None
        error = retry_state.outcome.exception() if retry_state.outcome else None
        reason = (str(error) or type(error).__name__) if error else "unknown"
        logger.debug(
            "attempt %d failed (%s); next in %s", retry_state.attempt_number, reason, delay
        )
        self._post(Disconnected(reason=reason, ts=self._clock(), retry_in=delay))
