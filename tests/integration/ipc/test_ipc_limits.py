"""The IPC server's bounds over real Unix sockets: clients, unfinished lines, command floods.

The tests run an :class:`IpcServer` in this process with a consumer thread standing in for the
ipc actor (it answers ``cmd:snapshot`` and calls ``command_done``).
"""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from pepa.cli.commands import main as pepa_main
from pepa.ipc import protocol
from pepa.ipc.client import IpcClient
from pepa.ipc.protocol import Chat, Command, Snapshot
from pepa.ipc.server import IpcServer
from tests.ipc_clients import DEADLINE, SNAPSHOT_LINE, flood_writer, raw_connect
from tests.waiting import eventually

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]


class Consumer:
    """The ipc actor's part: takes commands one by one, answers snapshots, acknowledges.

    It measures, for each client, how many commands were handed to it and not yet
    taken — what the server must keep bounded — and, for each snapshot it answers, how
    many commands of each client it had taken when the snapshot was handed to it and when
    it answered (``answered``); ``progress`` is notified at each command taken.
    """

    def __init__(self, path: Path, **options: object) -> None:
        self.inbox: queue.Queue[tuple[int, Command, dict[int, int]] | None] = queue.Queue()
        self.connected: queue.Queue[int] = queue.Queue()
        self.lock = threading.Lock()
        self.progress = threading.Condition(self.lock)
        self.handed: dict[int, int] = {}
        self.taken: dict[int, int] = {}
        self.peak_outstanding = 0
        self.chats: dict[int, list[str]] = {}
        self.answered: list[tuple[int, dict[int, int], dict[int, int]]] = []
        self.server = IpcServer(
            path,
            on_command=self._on_command,
            on_connect=self._on_connect,
            **options,  # type: ignore[arg-type]
        )
        self.thread = threading.Thread(target=self._run, name="test-consumer")

    def _on_connect(self, client_id: int) -> None:
        self.connected.put(client_id)
        self.server.send(client_id, protocol.hello({"hp": 20}, []))

    def _on_command(self, client_id: int, command: Command) -> None:
        with self.lock:
            self.handed[client_id] = self.handed.get(client_id, 0) + 1
            outstanding = self.handed[client_id] - self.taken.get(client_id, 0)
            self.peak_outstanding = max(self.peak_outstanding, outstanding)
            taken = dict(self.taken)
        self.inbox.put((client_id, command, taken))

    def _run(self) -> None:
        while (item := self.inbox.get()) is not None:
            client_id, command, taken_when_handed = item
            if isinstance(command, Snapshot):
                with self.lock:
                    self.answered.append((client_id, taken_when_handed, dict(self.taken)))
                self.server.send(client_id, protocol.status({"asker": client_id}))
            elif isinstance(command, Chat):
                self.chats.setdefault(client_id, []).append(command.text)
            with self.progress:
                self.taken[client_id] = self.taken.get(client_id, 0) + 1
                self.progress.notify_all()
            self.server.command_done(client_id)

    def start(self) -> Consumer:
        self.thread.start()
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()
        self.inbox.put(None)
        self.thread.join(DEADLINE)

    def client(self) -> IpcClient:
        client = IpcClient.connect(self.server.path, timeout=DEADLINE)
        assert client.recv(DEADLINE)["type"] == "hello"
        return client


@pytest.fixture
def make_consumer(short_tmp: Path) -> Iterator[Callable[..., Consumer]]:
    started: list[Consumer] = []

    def make(**options: object) -> Consumer:
        consumer = Consumer(short_tmp / "bot.sock", **options).start()
        started.append(consumer)
        return consumer

    yield make
    for consumer in started:
        consumer.stop()


def read_to_eof(sock: socket.socket) -> list[dict[str, object]]:
    """Every event until the server closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return [orjson.loads(line) for line in data.splitlines() if line]


def test_the_33rd_client_gets_one_clear_error_and_the_32_others_are_unaffected(
    make_consumer: Callable[..., Consumer],
) -> None:
    consumer = make_consumer(ack_commands=True)
    clients = [consumer.client() for _ in range(32)]
    try:
        extra = raw_connect(consumer.server.path)
        with extra:
            events = read_to_eof(extra)
        assert len(events) == 1, events
        assert events[0]["type"] == "error"
        assert "too many clients (32)" in str(events[0]["text"])
        stats = consumer.server.stats()
        assert stats.clients == 32 and stats.clients_refused == 1

        consumer.server.broadcast(protocol.log(1.0, "info", "t", "to all", None))
        for client in clients:
            assert client.wait_for("log", DEADLINE)["text"] == "to all"
        clients[7].send(Snapshot())
        assert clients[7].wait_for("status", DEADLINE)["asker"] > 0

        clients.pop().close()  # a slot frees up: the next one is served again
        eventually(lambda: consumer.server.client_count() == 31, DEADLINE, "the slot freed")
        assert consumer.server.stats().clients_refused == 1
        with consumer.client() as again:
            again.send(Snapshot())
            assert again.wait_for("status", DEADLINE)
    finally:
        for client in clients:
            client.close()


def test_pepa_status_at_a_full_daemon_says_why_in_one_line(
    make_consumer: Callable[..., Consumer], capsys: pytest.CaptureFixture[str]
) -> None:
    consumer = make_consumer(max_clients=1)
    with consumer.client():
        code = pepa_main(["status", "--socket", str(consumer.server.path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1
    assert err[0].startswith("pepa: the daemon refused this connection: too many clients (1)")


def test_a_half_line_client_is_closed_after_the_timeout_while_a_silent_reader_stays(
    make_consumer: Callable[..., Consumer],
) -> None:
    consumer = make_consumer(line_timeout=0.5)
    reader = consumer.client()  # a dashboard: it sends one command, then only reads
    reader.send(Snapshot())
    assert reader.wait_for("status", DEADLINE)
    half = raw_connect(consumer.server.path)
    try:
        half.sendall(b'{"type":"cmd:snap')  # and never the rest
        events = read_to_eof(half)  # the server closes it; the test never sleeps
        assert [e["type"] for e in events] == ["hello", "error"]
        assert "no end of line within 0.5 s" in str(events[1]["text"])
    finally:
        half.close()
    assert consumer.server.stats().clients_timed_out == 1
    # the reader was silent for longer than the timeout and is still served
    consumer.server.broadcast(protocol.log(2.0, "info", "t", "still here", None))
    assert reader.wait_for("log", DEADLINE)["text"] == "still here"
    assert consumer.server.client_count() == 1
    reader.close()


def test_a_line_finished_in_pieces_is_not_a_half_line(
    make_consumer: Callable[..., Consumer],
) -> None:
    consumer = make_consumer(line_timeout=5.0)
    with consumer.client() as client:
        for piece in (b'{"type":', b'"cmd:snap', b'shot"}\n'):
            client.send_raw(piece)
        assert client.wait_for("status", DEADLINE)
    assert consumer.server.stats().clients_timed_out == 0


def test_a_command_flood_is_slowed_and_bounded_while_another_client_is_served(
    make_consumer: Callable[..., Consumer],
) -> None:
    cap, total = 16, 100_000
    consumer = make_consumer(ack_commands=True, max_in_flight=cap)
    flood = raw_connect(consumer.server.path)
    flood_id = consumer.connected.get(timeout=DEADLINE)
    other = consumer.client()
    other_id = consumer.connected.get(timeout=DEADLINE)
    errors: list[BaseException] = []
    sent = threading.Event()
    hold = threading.Event()

    def drain_flood() -> None:
        try:
            while flood.recv(1 << 16):
                pass
        except OSError:
            pass

    def flood_taken(count: int) -> Callable[[], bool]:
        return lambda: consumer.taken.get(flood_id, 0) >= count

    writer = flood_writer(flood, total, sent, errors, hold)
    drainer = threading.Thread(target=drain_flood, name="test-flood-drainer")
    writer.start()
    drainer.start()
    try:
        for round_ in range(1, 21):
            # the flood under way (another thousand of it taken) and unfinished (its last
            # thousand lines held back): the other client asks in the middle of it
            with consumer.progress:
                assert consumer.progress.wait_for(flood_taken(1000 * round_), 60), errors
            other.send(Snapshot())
            assert other.wait_for("status", DEADLINE)["asker"] == other_id
        hold.set()

        writer.join(60)
        assert sent.is_set() and not errors
        with consumer.progress:
            assert consumer.progress.wait_for(flood_taken(total), 60), (
                "the flood not worked through"
            )
    finally:
        hold.set()
        flood.shutdown(socket.SHUT_RDWR)
        writer.join(DEADLINE)
        drainer.join(DEADLINE)
        flood.close()
        other.close()

    # each of the other client's snapshots came in the middle of the flood and waited
    # behind at most the flood's cap of commands, never behind the flood
    served = [(handed, done) for asker, handed, done in consumer.answered if asker == other_id]
    assert len(served) == 20
    for handed, done in served:
        assert 0 < handed.get(flood_id, 0) <= done[flood_id] < total, (handed, done)
        assert done[flood_id] - handed[flood_id] <= cap, (handed, done)
    stats = consumer.server.stats()
    assert consumer.peak_outstanding <= cap  # never more handed on than taken + cap
    assert stats.peak_in_flight == cap
    assert stats.reads_paused >= 1  # the flood waited in its own socket, not in the daemon
    assert stats.peak_held <= (256 * 1024) // len(SNAPSHOT_LINE) + 1  # one socket read of lines
    chats = consumer.chats[flood_id]
    assert chats == [f"flood {seq}" for seq in range(0, total, 2)]  # nothing lost, in order


def test_a_client_that_reads_its_answers_late_is_slowed_not_dropped(
    make_consumer: Callable[..., Consumer],
) -> None:
    """Answers past the buffer limit, unread for a while: the client waits, and loses none."""
    limit, total = 256 * 1024, 60_000  # ~3 MiB of answers, twelve times the limit
    consumer = make_consumer(ack_commands=True, max_client_buffer=limit)
    flood = raw_connect(consumer.server.path)
    flood_id = consumer.connected.get(timeout=DEADLINE)
    errors: list[BaseException] = []
    sent = threading.Event()

    def write() -> None:
        try:
            flood.sendall(SNAPSHOT_LINE * total)
            sent.set()
        except BaseException as exc:
            errors.append(exc)

    def behind() -> bool:
        """The server stopped reading this client's commands, or dropped it."""
        stats = consumer.server.stats()
        return stats.writes_full >= 1 or stats.clients_dropped >= 1

    writer = threading.Thread(target=write, name="test-late-reader-writer")
    writer.start()
    try:
        eventually(behind, DEADLINE * 3, "the server to stop reading the client")
        with consumer.lock:
            taken = consumer.taken.get(flood_id, 0)
        assert taken < total, "every command was taken while its answers went unread"
        answers = 0
        tail = b""
        flood.settimeout(DEADLINE * 3)
        while answers < total + 1:  # the hello, then one status per snapshot
            chunk = flood.recv(1 << 16)
            assert chunk, f"closed by the server after {answers} answers"
            *lines, tail = (tail + chunk).split(b"\n")
            answers += len(lines)
        writer.join(DEADLINE)
        assert sent.is_set() and not errors
    finally:
        flood.close()
        writer.join(DEADLINE)
    assert consumer.server.stats().clients_dropped == 0


def test_commands_never_acknowledged_count_as_lost_after_the_ack_timeout(
    short_tmp: Path,
) -> None:
    handed: queue.Queue[Command] = queue.Queue()
    server = IpcServer(
        short_tmp / "bot.sock",
        on_command=lambda client_id, command: handed.put(command),
        ack_commands=True,
        max_in_flight=4,
        ack_timeout=0.3,
    )
    server.start()
    try:
        with IpcClient.connect(server.path, timeout=DEADLINE) as client:
            client.send_raw(SNAPSHOT_LINE * 10)
            got = [handed.get(timeout=DEADLINE) for _ in range(10)]  # 4, then 4, then 2
            assert got == [Snapshot()] * 10
        stats = server.stats()
        assert stats.peak_in_flight == 4 and stats.reads_paused >= 1
    finally:
        server.stop()


def test_a_half_closed_client_gets_every_held_command_worked_through(
    make_consumer: Callable[..., Consumer],
) -> None:
    consumer = make_consumer(ack_commands=True, max_in_flight=2)
    sock = raw_connect(consumer.server.path)
    try:
        sock.sendall(SNAPSHOT_LINE * 50)
        sock.shutdown(socket.SHUT_WR)
        events = read_to_eof_or(
            sock, lambda events: sum(e["type"] == "status" for e in events) >= 50
        )
        assert sum(e["type"] == "status" for e in events) == 50
    finally:
        sock.close()


def read_to_eof_or(
    sock: socket.socket, done: Callable[[list[dict[str, object]]], bool]
) -> list[dict[str, object]]:
    """Events until ``done`` holds for them or the server closes the connection."""
    data = b""
    while True:
        complete = data.split(b"\n")[:-1]  # the last piece is an unfinished line, if any
        events = [orjson.loads(line) for line in complete if line]
        if done(events):
            return events
        chunk = sock.recv(65536)
        if not chunk:
            return events
        data += chunk
