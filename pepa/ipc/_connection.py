"""One client of the IPC server, read with flow control. Every method runs on the server thread.

A client's lines are handed on (``on_command``) while it has room in flight; past
``max_in_flight`` commands not yet taken, or while its unread answers pass the high mark, its
socket is not read, so a flood waits in the client's own kernel buffer. A paused client that
sees no ``command_done`` for ``ack_timeout`` seconds has its commands taken as lost; a line
must end within ``line_timeout`` of its first byte while the client is being read.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import select
from typing import Protocol, cast

from pepa.base.errors import LineTooLong, ProtocolError
from pepa.ipc.protocol import Command, LineSplitter, decode_command, encode, error

__all__ = ["Connection", "Host"]

logger = logging.getLogger("pepa.ipc.server")


class Host(Protocol):
    """What a connection needs of its server (:class:`pepa.ipc.server.IpcServer`)."""

    max_line_bytes: int
    max_client_buffer: int
    max_in_flight: int
    line_timeout: float
    ack_commands: bool
    ack_timeout: float
    fault_injection: bool

    def opened(self, conn: Connection) -> None:
        """A transport was made (the server may refuse it: too many clients)."""

    def lost(self, conn: Connection) -> None:
        """Its transport is gone."""

    def hand_on(self, client_id: int, command: Command) -> None:
        """Give a command to ``on_command``."""

    def write(self, conn: Connection, data: bytes) -> None:
        """Write to the client (dropped when it stopped reading)."""

    def close_with_error(self, conn: Connection, text: str) -> None:
        """One ``error`` event, then close."""

    def count(self, name: str) -> None:
        """Add one to a counter of :class:`pepa.ipc.server.IpcStats`."""

    def peak(self, name: str, value: int) -> None:
        """Raise a peak of :class:`pepa.ipc.server.IpcStats`."""


class Connection(asyncio.Protocol):
    """One client connection and its reading's flow control."""

    transport: asyncio.Transport

    def __init__(self, host: Host, client_id: int) -> None:
        self.host = host
        self.client_id = client_id
        self.splitter = LineSplitter(host.max_line_bytes)
        self.closing = False  # no more reads or writes once set
        self.held: collections.deque[bytes] = collections.deque()  # lines not yet handed on
        self.in_flight = 0  # handed to on_command, not yet command_done
        self.acks_seen = 0
        self.paused = False  # its socket is not read while lines are held
        self.write_full = False  # nor while its unread answers pass the high mark
        self.eof = False
        self.line_timer: asyncio.TimerHandle | None = None
        self.stall_timer: asyncio.TimerHandle | None = None

    # -- asyncio's calls ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        high = max(self.host.max_client_buffer // 8, 64 * 1024)
        self.transport.set_write_buffer_limits(high=high, low=high // 4)
        self.host.opened(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        self.cancel_timers()
        self.held.clear()
        self.host.lost(self)

    def pause_writing(self) -> None:
        self.write_full_changed(True)

    def resume_writing(self) -> None:
        self.write_full_changed(False)

    def data_received(self, data: bytes) -> None:
        self.received(data)

    def eof_received(self) -> bool:
        # The client's last unterminated line counts. A client that only shut
        # down its write side (``socat``, ``nc -U``) keeps receiving; one that
        # closed altogether (POLLHUP on our end) is closed at once.
        self.received(None)
        sock = self.transport.get_extra_info("socket")
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLOUT)
        return not any(mask & select.POLLHUP for _, mask in poller.poll(0))

    # -- reading -----------------------------------------------------------------------------

    def received(self, data: bytes | None) -> None:
        """Bytes from the client (``None`` at its end of file): run each command line."""
        if self.closing:
            return
        try:
            lines = self.splitter.finish() if data is None else self.splitter.feed(data)
        except LineTooLong as exc:
            logger.info("IPC client %d sent an over-long line; closing it", self.client_id)
            self.host.close_with_error(self, str(exc))
            return
        if data is None:
            self.eof = True
            self.cancel_line_timer()
        else:
            self.watch_line(ended=b"\n" in data)
        if lines:
            self.held.extend(lines)
            self.host.peak("peak_held", len(self.held))
        self.dispatch()

    def dispatch(self) -> None:
        """Hand held lines on while the client has room in flight; pause its reads if not."""
        host, held = self.host, self.held
        while held and not self.closing and not self.write_full:
            if host.ack_commands and self.in_flight >= host.max_in_flight:
                break
            line = held.popleft()
            try:
                cmd = decode_command(line, fault_injection=host.fault_injection)
            except ProtocolError as exc:
                logger.debug("IPC client %d sent a bad line: %s", self.client_id, exc)
                host.write(self, encode(error("ipc", str(exc))))
                continue
            if host.ack_commands:
                self.in_flight += 1
                host.peak("peak_in_flight", self.in_flight)
            host.hand_on(self.client_id, cmd)
        if not self.closing:
            self.pause_reads(bool(held))

    def acked(self, count: int) -> None:
        """``count`` of its commands were taken (``command_done``): hand on what waits."""
        self.in_flight = max(0, self.in_flight - count)
        self.acks_seen += count
        self.dispatch()

    def pause_reads(self, paused: bool) -> None:
        """Stop or restart reading the client's socket (nothing to do after its EOF)."""
        if paused:
            if not self.paused:
                self.paused = True
                self.host.count("reads_paused")
                self.cancel_line_timer()  # not the client's fault while we do not read
                if not self.eof:
                    self.transport.pause_reading()
            if self.stall_timer is None:
                self.stall_timer = asyncio.get_running_loop().call_later(
                    self.host.ack_timeout, self.stalled, self.acks_seen
                )
            return
        if not self.paused:
            return
        self.paused = False
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        self.read_again()

    def read_again(self) -> None:
        """Read the client again, unless another reason to wait still holds."""
        if self.eof or self.closing or self.paused or self.write_full:
            return
        self.transport.resume_reading()
        self.watch_line(ended=False)

    def write_full_changed(self, full: bool) -> None:
        """The client's unread answers passed the high mark (or fell below the low one)."""
        self.write_full = full
        if not full:
            if self.held:
                self.dispatch()
            self.read_again()
            return
        self.host.count("writes_full")
        self.cancel_line_timer()  # not the client's fault while we do not read
        if not self.eof and not self.closing:
            self.transport.pause_reading()

    def stalled(self, acks_seen: int) -> None:
        """A paused client's timer: without any ack since, its commands count as lost."""
        self.stall_timer = None
        if self.closing or not self.paused or self.write_full:
            return  # a full write buffer is the client's wait, not lost commands
        timeout = self.host.ack_timeout
        if self.acks_seen != acks_seen:  # slow, not stuck: wait another period
            self.stall_timer = asyncio.get_running_loop().call_later(
                timeout, self.stalled, self.acks_seen
            )
            return
        logger.warning(
            "IPC client %d: %d command(s) not taken within %g s; taking them as lost",
            self.client_id, self.in_flight, timeout,
        )  # fmt: skip
        self.in_flight = 0
        self.dispatch()

    def watch_line(self, *, ended: bool) -> None:
        """(Re)arm the unfinished-line timer: it runs from a line's first byte to its end."""
        if ended:
            self.cancel_line_timer()
        waiting = self.paused or self.write_full
        if self.splitter.pending and self.line_timer is None and not waiting:
            self.line_timer = asyncio.get_running_loop().call_later(
                self.host.line_timeout, self.line_timed_out
            )

    def line_timed_out(self) -> None:
        self.line_timer = None
        if self.closing or self.paused or self.write_full or not self.splitter.pending:
            return
        timeout = self.host.line_timeout
        logger.info("IPC client %d left a line unfinished for %g s; closing it",
                    self.client_id, timeout)  # fmt: skip
        self.host.count("clients_timed_out")
        self.host.close_with_error(
            self,
            f"no end of line within {timeout:g} s "
            f"({self.splitter.pending} bytes waiting); closing this connection",
        )

    # -- timers ------------------------------------------------------------------------------

    def cancel_line_timer(self) -> None:
        if self.line_timer is not None:
            self.line_timer.cancel()
            self.line_timer = None

    def cancel_timers(self) -> None:
        self.cancel_line_timer()
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
