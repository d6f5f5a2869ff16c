"""The dashboard's reader thread against a real IPC server on a Unix socket."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pepa.base.errors import PepaError
from pepa.ipc import protocol
from pepa.ipc.protocol import Chat, Command, Pause
from pepa.ipc.server import IpcServer
from tui import Connected, Connection, Disconnected

pytestmark = pytest.mark.integration

DEADLINE = 10.0


class FakeDaemon:
    """An IpcServer that greets like the daemon and records the commands it gets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.commands: queue.Queue[Command] = queue.Queue()
        self.server = self._server()

    def _server(self) -> IpcServer:
        server = IpcServer(
            self.path,
            on_command=lambda _cid, cmd: self.commands.put(cmd),
            on_connect=lambda cid: server.send(cid, protocol.hello({"hp": 20}, [])),
        )
        server.start()
        return server

    def restart(self) -> None:
        self.server.stop()
        self.server = self._server()

    def stop(self) -> None:
        self.server.stop()


class Inbox:
    """What the connection posts; tests wait on it with a deadline."""

    def __init__(self) -> None:
        self.items: queue.Queue[Any] = queue.Queue()

    def put(self, item: Any) -> None:
        self.items.put(item)

    def next(self, predicate: Callable[[Any], bool], timeout: float = DEADLINE) -> Any:
        """The first item (skipping others) that satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("nothing matching was posted before the deadline")
            try:
                item = self.items.get(timeout=remaining)
            except queue.Empty:
                continue
            if predicate(item):
                return item


def is_event(kind: str) -> Callable[[Any], bool]:
    return lambda item: isinstance(item, dict) and item.get("type") == kind


@pytest.fixture
def daemon(short_tmp: Path) -> Iterator[FakeDaemon]:
    fake = FakeDaemon(short_tmp / "bot.sock")
    yield fake
    fake.stop()


@pytest.fixture
def inbox() -> Inbox:
    return Inbox()


def test_connects_posts_the_hello_then_connected_then_events(
    daemon: FakeDaemon, inbox: Inbox
) -> None:
    with Connection(lambda: daemon.path, inbox.put):
        assert inbox.next(lambda _: True)["type"] == "hello"
        connected = inbox.next(lambda _: True)
        assert isinstance(connected, Connected) and connected.path == str(daemon.path)
        daemon.server.broadcast(protocol.chat("alice", "hi", "player"))
        assert inbox.next(is_event("chat"))["text"] == "hi"


def test_commands_go_out_on_the_same_connection_from_another_thread(
    daemon: FakeDaemon, inbox: Inbox
) -> None:
    with Connection(lambda: daemon.path, inbox.put) as connection:
        inbox.next(lambda item: isinstance(item, Connected))
        results: list[str | None] = []
        senders = [
            threading.Thread(target=lambda i=i: results.append(connection.send(Chat(text=f"{i}"))))
            for i in range(8)
        ]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(DEADLINE)
        assert results == [None] * 8
        got = {daemon.commands.get(timeout=DEADLINE) for _ in range(8)}
        assert got == {Chat(text=f"{i}") for i in range(8)}


def test_a_restarted_daemon_is_reconnected_with_backoff(daemon: FakeDaemon, inbox: Inbox) -> None:
    with Connection(lambda: daemon.path, inbox.put, max_backoff=0.3) as connection:
        inbox.next(lambda item: isinstance(item, Connected))
        daemon.stop()
        lost = inbox.next(lambda item: isinstance(item, Disconnected))
        assert lost.retry_in is None  # the loss itself, then one per failed attempt
        retry = inbox.next(lambda item: isinstance(item, Disconnected))
        assert retry.retry_in is not None and "no daemon" in retry.reason
        assert connection.send(Pause()) == "not connected"
        daemon.restart()
        inbox.next(is_event("hello"))
        inbox.next(lambda item: isinstance(item, Connected))
        assert connection.send(Pause()) is None
        assert daemon.commands.get(timeout=DEADLINE) == Pause()


def test_the_socket_is_resolved_again_until_the_first_success_then_pinned(
    short_tmp: Path, inbox: Inbox
) -> None:
    calls: list[int] = []
    target: list[Path] = []

    def resolve() -> Path:
        calls.append(1)
        if not target:
            raise PepaError("several daemons are running; choose one with --socket")
        return target[0]

    with Connection(resolve, inbox.put, max_backoff=0.2):
        failed = inbox.next(lambda item: isinstance(item, Disconnected))
        assert "several daemons" in failed.reason
        fake = FakeDaemon(short_tmp / "bot.sock")
        try:
            target.append(fake.path)
            inbox.next(lambda item: isinstance(item, Connected))
            target[0] = short_tmp / "elsewhere.sock"  # never consulted again
            before = len(calls)
            fake.restart()
            inbox.next(lambda item: isinstance(item, Connected))
            assert len(calls) == before
        finally:
            fake.stop()


def test_stop_ends_the_reader_thread_promptly_even_while_waiting_to_retry(
    short_tmp: Path, inbox: Inbox
) -> None:
    connection = Connection(
        lambda: short_tmp / "none.sock", inbox.put, initial_backoff=20.0, max_backoff=30.0
    )
    connection.start()
    inbox.next(lambda item: isinstance(item, Disconnected) and item.retry_in is not None)
    started = time.monotonic()
    connection.stop()
    assert time.monotonic() - started < 2.0
    assert not any(t.name == "tui-reader" for t in threading.enumerate())
