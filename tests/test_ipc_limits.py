"""The IPC server's bounds over real Unix sockets: clients, unfinished lines, command floods.

The server-level tests run an :class:`IpcServer` in this process with a consumer
thread standing in for the ipc actor (it answers ``cmd:snapshot`` and calls
``command_done``); the rate tests put the real ipc actor behind the server, with
a stand-in curriculum that cannot keep up; the last test floods a real ``pepa start``.
"""

from __future__ import annotations

import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.actors.ipc import Ipc
from pepa.base.logs import RingBuffer
from pepa.base.repeats import REPEAT_LIMIT
from pepa.cli.commands import main as pepa_main
from pepa.ipc import protocol
from pepa.ipc.client import IpcClient
from pepa.ipc.protocol import Chat, Command, Goal, Snapshot
from pepa.ipc.ratelimit import COMMAND_BURST, COMMAND_RATE
from pepa.ipc.server import IpcServer
from pepa.runtime import ChildSpec, Runtime, SupervisedActor, Supervisor, start_tree
from pepa.runtime.events import ClientConnected, CommandReceived, GoalSet
from pepa.runtime.events.queries import ProposalIds, Proposals
from tests.daemon_harness import Daemon
from tests.waiting import Recorder, eventually

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]

DEADLINE = 10.0
SNAPSHOT_LINE = b'{"type":"cmd:snapshot"}\n'


def chat_line(seq: int) -> bytes:
    return orjson.dumps({"type": "cmd:chat", "text": f"flood {seq}"}) + b"\n"


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


def raw_connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(DEADLINE)
    sock.connect(os.fspath(path))
    return sock


def flood_writer(
    sock: socket.socket,
    total: int,
    sent: threading.Event,
    errors: list[BaseException],
    hold: threading.Event,
) -> threading.Thread:
    """A thread that writes ``total`` commands (snapshots and chat lines) as fast as it can,
    all but the last thousand, which wait for ``hold``: until then the flood is unfinished."""

    def write() -> None:
        try:
            lines = [SNAPSHOT_LINE if seq % 2 else chat_line(seq) for seq in range(total)]
            for start in range(0, total, 1000):
                if start + 1000 >= total and not hold.wait(300):
                    raise TimeoutError("the flood's last lines were held for 300 s")
                sock.sendall(b"".join(lines[start : start + 1000]))
            sent.set()
        except BaseException as exc:
            errors.append(exc)

    return threading.Thread(target=write, name="test-flood-writer")


def while_answered(
    progress: threading.Condition,
    answers: Callable[[], int],
    done: Callable[[], bool],
    stall: float = 60,
) -> None:
    """Wait for ``done()`` while the flood's answers keep coming: none for ``stall`` s fails."""
    with progress:
        while not done():
            before = answers()
            moved = lambda before=before: done() or answers() > before  # noqa: E731
            progress.wait_for(moved, stall)
            assert moved(), f"no answer for {stall} s after {before}"


def read_to_eof(sock: socket.socket) -> list[dict[str, object]]:
    """Every event until the server closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return [orjson.loads(line) for line in data.splitlines() if line]


# --------------------------------------------------------------------------- clients


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


# --------------------------------------------------------------------------- unfinished lines


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


# --------------------------------------------------------------------------- command floods


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


# --------------------------------------------------------------------------- the ipc actor's rate


class SlowCurriculum(SupervisedActor):
    """Stands in for the curriculum: every goal is held until the test opens ``gate`` (three
    fsync'd writes and a planner call take time; here as long as the test wants)."""

    def __init__(self, *, supervision: Any, gate: threading.Event) -> None:
        super().__init__(supervision=supervision)
        self.gate = gate

    def setup(self) -> None:
        self.runtime.bus.subscribe(GoalSet, self.handle)

    def on_message(self, message: Any) -> Any:
        if isinstance(message, GoalSet):
            self.gate.wait(DEADLINE * 6)
            return None
        return super().on_message(message)


class NoProposals(SupervisedActor):
    """Stands in for the knowledge actor, which the ipc actor asks for proposals at start."""

    def on_message(self, message: object) -> object:
        if isinstance(message, Proposals):
            return ProposalIds(pending=(), approved=())
        return super().on_message(message)


@pytest.fixture
def ipc_actor(
    runtime: Runtime, recorder: Recorder, short_tmp: Path
) -> Iterator[tuple[IpcServer, threading.Event]]:
    """A real IpcServer on a real socket, the real ipc actor behind it, a slow curriculum."""
    gate = threading.Event()
    ipc = runtime.registry.handle("ipc")
    server = IpcServer(
        short_tmp / "bot.sock",
        on_command=lambda client, command: ipc.tell(
            CommandReceived(client_id=client, command=command)
        ),
        on_connect=lambda client: ipc.tell(ClientConnected(client_id=client)),
        ack_commands=True,  # as the worker does
    )
    children = [
        ChildSpec(id="knowledge", actor_class=NoProposals),
        ChildSpec(id="curriculum", actor_class=SlowCurriculum, kwargs={"gate": gate}),
        ChildSpec(
            id="ipc", actor_class=Ipc,
            kwargs={
                "server": server, "ring": RingBuffer(), "started_at": time.time(),
                "server_label": "test", "username": "pepa_bot", "request_stop": lambda: None,
            },
        ),
    ]  # fmt: skip
    root = ChildSpec(id="root", actor_class=Supervisor, kwargs={"children": children})
    start_tree(root, runtime, lambda reason: None)
    recorder.wait_state("ipc", "running")
    server.start()
    try:
        yield server, gate
    finally:
        gate.set()
        server.stop()


def dropped_in(event: dict[str, Any]) -> int:
    """The count an ipc actor's ``… command(s) dropped …`` error reports; 0 for other events."""
    text = str(event.get("text", ""))
    if event.get("type") != "error" or "command(s) dropped" not in text:
        return 0
    return int(text.split(" ", 1)[0])


@pytest.mark.timeout(60)
def test_a_goal_flood_is_dropped_past_the_rate_and_the_curriculum_mailbox_stays_bounded(
    ipc_actor: tuple[IpcServer, threading.Event], runtime: Runtime, recorder: Recorder
) -> None:
    server, gate = ipc_actor
    total = 3000

    def goals(prefix: str) -> list[GoalSet]:
        return [e for e in recorder.events if isinstance(e, GoalSet) and e.text.startswith(prefix)]

    with (
        IpcClient.connect(server.path, timeout=DEADLINE) as flood,
        IpcClient.connect(server.path, timeout=DEADLINE) as other,
    ):
        assert flood.recv(DEADLINE)["type"] == "hello" and other.recv(DEADLINE)["type"] == "hello"
        started = time.monotonic()
        flood.send_raw(b"".join(encode_goal(f"flood {seq}") for seq in range(total)))
        errors: list[dict[str, Any]] = []
        while sum(map(dropped_in, errors)) + len(goals("flood")) < total:
            event = flood.recv(DEADLINE)  # every drop is reported within a second or so
            if dropped_in(event):
                errors.append(event)
        elapsed = time.monotonic() - started

        # the other client is served while the flooder is over its rate
        other.send(Snapshot())
        assert other.wait_for("status", DEADLINE)
        other.send(Goal(text="the other client's goal"))
        recorder.wait_for(lambda e: isinstance(e, GoalSet) and e.text.startswith("the other"))

        allowed = COMMAND_BURST + COMMAND_RATE * elapsed + 1
        published = len(goals("flood"))
        assert COMMAND_BURST <= published <= allowed, (published, elapsed)
        curriculum = runtime.registry.current("curriculum")
        assert curriculum is not None
        assert curriculum.actor_inbox.qsize() <= allowed + 1  # the goal it holds is not queued
        assert 1 <= len(errors) <= elapsed / 1.0 + 2  # at most one error a second
        assert all(e["source"] == "ipc" and "more than 10 a second" in e["text"] for e in errors)

        gate.set()  # the curriculum catches up: the other client's goal was not lost
        eventually(lambda: curriculum.actor_inbox.qsize() == 0, DEADLINE, "the backlog taken")
        flood.send(Snapshot())  # not limited, even right after the flood
        assert flood.wait_for("status", DEADLINE)


@pytest.mark.timeout(60)
def test_each_client_has_its_own_rate_and_snapshots_cost_nothing(
    ipc_actor: tuple[IpcServer, threading.Event], recorder: Recorder
) -> None:
    server, gate = ipc_actor
    gate.set()
    with (
        IpcClient.connect(server.path, timeout=DEADLINE) as first,
        IpcClient.connect(server.path, timeout=DEADLINE) as second,
    ):
        for client in (first, second):
            assert client.recv(DEADLINE)["type"] == "hello"
        first.send_raw(SNAPSHOT_LINE * 200)  # snapshots: answered here, never dropped
        answers = 0
        while answers < 200:
            event = first.recv(DEADLINE)
            assert not dropped_in(event)
            answers += event["type"] == "status"
        for client, name in ((first, "first"), (second, "second")):
            client.send_raw(b"".join(encode_goal(f"{name} {seq}") for seq in range(COMMAND_BURST)))
        recorder.wait_for(lambda e: isinstance(e, GoalSet), count=2 * COMMAND_BURST)


def encode_goal(text: str) -> bytes:
    return orjson.dumps({"type": "cmd:goal", "text": text}) + b"\n"


# --------------------------------------------------------------------------- the daemon


@pytest.mark.timeout(480)
def test_a_real_daemon_under_a_command_flood_keeps_serving_and_its_warnings_stay_few(
    short_tmp: Path,
) -> None:
    """100 000 commands from one client: the dashboard beside it is answered and never dropped."""
    daemon = Daemon(short_tmp)
    try:
        daemon.ready()
        daemon.in_world()
        worker = daemon.worker_pid()
        total = 100_000
        flood = raw_connect(daemon.socket)
        watcher = raw_connect(daemon.socket)  # after the flood: it sees no broadcast the flood
        errors: list[BaseException] = []  # does not; it asks nothing
        sent = threading.Event()
        # status events each got: the flood's answers and the broadcasts both get
        statuses = {"flood": 0, "watcher": 0}
        progress = threading.Condition()

        def answers() -> int:
            """The flood's snapshots answered (at most, while a broadcast is on its way)."""
            return statuses["flood"] - statuses["watcher"]

        def drain(sock: socket.socket, name: str) -> threading.Thread:
            def read() -> None:
                tail = b""
                try:
                    while chunk := sock.recv(1 << 16):
                        *lines, tail = (tail + chunk).split(b"\n")
                        found = sum(line.startswith(b'{"type":"status"') for line in lines)
                        with progress:
                            statuses[name] += found
                            progress.notify_all()
                except OSError:
                    pass

            return threading.Thread(target=read, name=f"test-{name}-drainer")

        hold = threading.Event()
        writer = flood_writer(flood, total, sent, errors, hold)
        drainers = [drain(flood, "flood"), drain(watcher, "watcher")]
        started = time.monotonic()
        with daemon.client() as other:
            writer.start()
            for drainer in drainers:
                drainer.start()
            try:
                for round_ in range(1, 11):  # the dashboard keeps getting its answers
                    # asked in the middle of the flood: another 500 of its snapshots
                    # answered, and its last thousand lines not sent yet
                    with progress:
                        flowing = progress.wait_for(lambda: answers() >= 500 * round_, 60)  # noqa: B023
                        assert flowing, f"the flood's answers stopped at {answers()}"
                    assert not sent.is_set()
                    other.send(Snapshot())
                    assert other.wait_for("status", 15)["actors"]
                hold.set()
                # a slow machine may take minutes; only a stall of the answers fails
                while_answered(progress, answers, lambda: sent.is_set() or bool(errors))
                said = [line for line in daemon.lines if "IPC client" in line]
                assert sent.is_set() and not errors, (errors, said[-5:])
                # every snapshot of the flood was answered
                while_answered(progress, answers, lambda: answers() >= total // 2)
                other.send(Snapshot())
                status = other.wait_for("status", 15)
                assert status["actors"] and all(a["state"] == "running" for a in status["actors"])
            finally:
                hold.set()
                for sock in (flood, watcher):
                    sock.shutdown(socket.SHUT_RDWR)
                writer.join(DEADLINE)
                for drainer in drainers:
                    drainer.join(DEADLINE)
                flood.close()
                watcher.close()
        minutes = (time.monotonic() - started) / 60
        assert daemon.worker_pid() == worker  # no worker restart
        assert daemon.proc.poll() is None
        # ~50 000 lines were dropped from the chat queue; the warning is rate-limited
        dropped_lines = daemon.count("chat queue full; dropped: flood")
        assert 1 <= dropped_lines <= REPEAT_LIMIT * (int(minutes) + 2)
    finally:
        daemon.close()
    summaries = [line for line in daemon.lines if "similar messages" in line]
    assert any("chat queue full" in line for line in summaries)  # counted, at the latest at exit
