"""The ipc actor's rate behind a real server (a stand-in curriculum that cannot keep up), and a
real ``pepa start`` under a command flood."""

from __future__ import annotations

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
from pepa.ipc.client import IpcClient
from pepa.ipc.protocol import Goal, Snapshot
from pepa.ipc.ratelimit import COMMAND_BURST, COMMAND_RATE
from pepa.ipc.server import IpcServer
from pepa.runtime import ChildSpec, Runtime, SupervisedActor, Supervisor, start_tree
from pepa.runtime.events import ClientConnected, CommandReceived, GoalSet
from pepa.runtime.events.queries import ProposalIds, Proposals
from tests.daemon_harness import Daemon
from tests.ipc_clients import DEADLINE, SNAPSHOT_LINE, flood_writer, raw_connect
from tests.waiting import Recorder, eventually

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]


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
