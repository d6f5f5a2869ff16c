"""The IPC server over a real Unix socket in a short temporary directory."""

from __future__ import annotations

import os
import queue
import shutil
import socket
import stat
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pepa.ipc import protocol
from pepa.ipc.client import IpcClient, IpcClientError, daemon_listening, find_sockets
from pepa.ipc.protocol import Chat, Command, Fault, Snapshot, Stop
from pepa.ipc.server import AF_UNIX_PATH_MAX, IpcServer, IpcServerError
from tests.ipc_clients import raw_connect

pytestmark = pytest.mark.integration

DEADLINE = 5.0


def wait_until(condition: Callable[[], bool], timeout: float = DEADLINE) -> None:
    """Poll ``condition`` until it holds, failing the test at the deadline."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()  # never set: a bounded wait between two looks
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met before the deadline")
        pause.wait(0.005)


class Harness:
    """An IpcServer whose callbacks record into queues; greets clients like the daemon."""

    def __init__(self, path: Path, *, greet: bool = True, **options: object) -> None:
        self.commands: queue.Queue[tuple[int, Command]] = queue.Queue()
        self.connected: queue.Queue[int] = queue.Queue()
        self.disconnected: queue.Queue[int] = queue.Queue()
        self.greet = greet
        self.server = IpcServer(
            path,
            on_command=lambda cid, cmd: self.commands.put((cid, cmd)),
            on_connect=self._connected,
            on_disconnect=self.disconnected.put,
            **options,  # type: ignore[arg-type]
        )

    def _connected(self, client_id: int) -> None:
        self.connected.put(client_id)
        if self.greet:
            self.server.send(client_id, protocol.hello({"hp": 20}, []))

    def client(self) -> IpcClient:
        """A client past its hello, so it receives broadcasts."""
        client = IpcClient.connect(self.server.path)
        assert client.recv(DEADLINE)["type"] == "hello"
        return client

    def next_command(self) -> tuple[int, Command]:
        return self.commands.get(timeout=DEADLINE)


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def make_harness(sock_dir: Path) -> Iterator[Callable[..., Harness]]:
    started: list[Harness] = []

    def make(**options: object) -> Harness:
        harness = Harness(sock_dir / "bot.sock", **options)  # type: ignore[arg-type]
        harness.server.start()
        started.append(harness)
        return harness

    yield make
    for harness in started:
        harness.server.stop()


@pytest.fixture
def harness(make_harness: Callable[..., Harness]) -> Harness:
    return make_harness()


# --------------------------------------------------------------------------- the socket file


def test_the_socket_is_created_with_mode_0600(harness: Harness) -> None:
    mode = os.stat(harness.server.path).st_mode
    assert stat.S_ISSOCK(mode)
    assert stat.S_IMODE(mode) == 0o600


def test_start_leaves_the_process_umask_as_it_was(sock_dir: Path) -> None:
    before = os.umask(0o022)
    os.umask(before)
    server = IpcServer(sock_dir / "bot.sock", on_command=lambda cid, cmd: None)
    server.start()
    server.stop()
    after = os.umask(0o022)
    os.umask(after)
    assert after == before


def test_a_stale_socket_is_replaced(sock_dir: Path) -> None:
    path = sock_dir / "bot.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))
    dead.close()  # the file stays, nobody listens: what a killed daemon leaves
    server = IpcServer(path, on_command=lambda cid, cmd: None)
    server.start()
    try:
        with IpcClient.connect(path):
            pass
    finally:
        server.stop()


def test_a_live_socket_is_refused_and_left_alone(harness: Harness) -> None:
    second = IpcServer(harness.server.path, on_command=lambda cid, cmd: None)
    with pytest.raises(IpcServerError, match="another daemon is listening on"):
        second.start()
    second.stop()
    with harness.client() as client:
        client.send(Snapshot())
        assert harness.next_command()[1] == Snapshot()


def test_a_regular_file_at_the_socket_path_is_refused(sock_dir: Path) -> None:
    path = sock_dir / "bot.sock"
    path.write_text("mine")
    with pytest.raises(IpcServerError, match="not a socket"):
        IpcServer(path, on_command=lambda cid, cmd: None).start()
    assert path.read_text() == "mine"


def test_a_path_over_the_af_unix_limit_is_refused_clearly(sock_dir: Path) -> None:
    path = sock_dir / ("d" * (AF_UNIX_PATH_MAX + 1)) / "bot.sock"
    with pytest.raises(IpcServerError, match="limit of Unix sockets"):
        IpcServer(path, on_command=lambda cid, cmd: None).start()


def test_a_missing_directory_is_a_server_error(sock_dir: Path) -> None:
    with pytest.raises(IpcServerError, match="cannot listen"):
        IpcServer(sock_dir / "nope" / "bot.sock", on_command=lambda cid, cmd: None).start()


def test_stop_removes_the_socket_and_leaves_no_threads(sock_dir: Path) -> None:
    before = set(threading.enumerate())
    harness = Harness(sock_dir / "bot.sock")
    harness.server.start()
    assert any(t.name == "pepa-ipc" for t in threading.enumerate())
    client = harness.client()
    harness.server.stop()
    harness.server.stop()  # idempotent
    assert not harness.server.path.exists()
    with pytest.raises(IpcClientError):
        client.recv(DEADLINE)  # the server closed our connection
    client.close()
    wait_until(lambda: set(threading.enumerate()) <= before)


def test_stop_leaves_a_socket_file_that_is_no_longer_ours(harness: Harness) -> None:
    path = harness.server.path
    os.unlink(path)
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    other.bind(os.fspath(path))
    try:
        harness.server.stop()
        assert path.exists()
    finally:
        other.close()


def test_find_sockets_lists_only_live_daemons(harness: Harness, sock_dir: Path) -> None:
    stale_dir = sock_dir / "old_25565"
    stale_dir.mkdir()
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(stale_dir / "bot.sock"))
    dead.close()
    # The harness socket is <sock_dir>/bot.sock: search from the parent of a copy link.
    live_dir = sock_dir / "live_25565"
    live_dir.mkdir()
    os.symlink(harness.server.path, live_dir / "bot.sock")
    assert find_sockets(sock_dir) == [live_dir / "bot.sock"]


def test_daemon_listening_tells_live_from_stale_and_missing(
    harness: Harness, sock_dir: Path
) -> None:
    stale = sock_dir / "stale.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(stale))
    dead.close()
    assert daemon_listening(harness.server.path)
    assert not daemon_listening(stale)
    assert not daemon_listening(sock_dir / "missing.sock")


def test_send_and_broadcast_never_raise_for_gone_clients_or_a_stopped_server(
    harness: Harness,
) -> None:
    harness.server.send(12345, protocol.error("x", "nobody"))
    harness.server.broadcast(protocol.error("x", "nobody"))
    with harness.client():
        pass
    client_id = harness.disconnected.get(timeout=DEADLINE)
    harness.server.send(client_id, protocol.error("x", "gone"))
    harness.server.stop()
    harness.server.send(client_id, protocol.error("x", "stopped"))
    harness.server.broadcast(protocol.error("x", "stopped"))
    assert harness.server.stats().events_broadcast == 2


def test_connecting_to_a_missing_socket_is_a_client_error(sock_dir: Path) -> None:
    with pytest.raises(IpcClientError, match="no daemon socket"):
        IpcClient.connect(sock_dir / "bot.sock")


# --------------------------------------------------------------------------- events


def test_a_client_gets_no_broadcasts_before_its_first_send(make_harness: Callable) -> None:
    harness = make_harness(greet=False)
    with IpcClient.connect(harness.server.path) as client:
        client_id = harness.connected.get(timeout=DEADLINE)
        harness.server.broadcast(protocol.log(1, "info", "t", "before hello"))
        harness.server.send(client_id, protocol.hello({}, []))
        harness.server.broadcast(protocol.log(2, "info", "t", "after hello"))
        assert client.recv(DEADLINE)["type"] == "hello"
        assert client.recv(DEADLINE)["text"] == "after hello"


def test_send_reaches_only_its_client(harness: Harness) -> None:
    with harness.client() as first, harness.client() as second:
        first_id = harness.connected.get(timeout=DEADLINE)
        harness.server.send(first_id, protocol.error("x", "just you"))
        harness.server.broadcast(protocol.chat("a", "everyone", "player"))
        assert first.recv(DEADLINE)["text"] == "just you"
        assert first.recv(DEADLINE)["text"] == "everyone"
        assert second.recv(DEADLINE)["text"] == "everyone"


def test_broadcasts_from_many_threads_all_arrive(harness: Harness) -> None:
    with harness.client() as client:

        def produce(source: str) -> None:
            for i in range(500):
                harness.server.broadcast(protocol.log(i, "info", source, "x"))

        threads = [threading.Thread(target=produce, args=(f"t{n}",)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(DEADLINE)
        seen: dict[str, list[int]] = {}
        for _ in range(2000):
            event = client.recv(DEADLINE)
            seen.setdefault(event["source"], []).append(event["ts"])
        assert seen == {f"t{n}": list(range(500)) for n in range(4)}
        assert harness.server.stats().events_broadcast == 2000


# --------------------------------------------------------------------------- commands


def test_commands_reach_on_command_with_the_client_id(harness: Harness) -> None:
    with harness.client() as client:
        client_id = harness.connected.get(timeout=DEADLINE)
        client.send(Chat(text="hi"))
        client.send({"type": "cmd:stop"})
        assert harness.next_command() == (client_id, Chat(text="hi"))
        assert harness.next_command() == (client_id, Stop())


def test_a_malformed_line_gets_an_error_and_the_connection_stays_open(harness: Harness) -> None:
    with harness.client() as client:
        client.send_raw(b"{not json\n")
        event = client.recv(DEADLINE)
        assert event["type"] == "error"
        assert event["source"] == "ipc"
        assert "not valid JSON" in event["text"]
        client.send(Snapshot())
        assert harness.next_command()[1] == Snapshot()


def test_an_unknown_type_gets_an_error_listing_known_types(harness: Harness) -> None:
    with harness.client() as client:
        client.send({"type": "cmd:dance"})
        assert "known types: cmd:ask-pi" in client.wait_for("error", DEADLINE)["text"]
        client.send(Snapshot())
        assert harness.next_command()[1] == Snapshot()


def test_a_missing_field_gets_an_error_naming_it(harness: Harness) -> None:
    with harness.client() as client:
        client.send({"type": "cmd:chat"})
        assert client.wait_for("error", DEADLINE)["text"] == 'cmd:chat needs a "text" field'
        client.send(Chat(text="ok"))
        assert harness.next_command()[1] == Chat(text="ok")


def test_fault_commands_follow_the_fault_injection_switch(make_harness: Callable) -> None:
    harness = make_harness(fault_injection=True)
    with harness.client() as client:
        client.send(Fault(actor="reflex", kind="hang"))
        assert harness.next_command()[1] == Fault(actor="reflex", kind="hang")


def test_a_half_closed_client_still_gets_its_answer(harness: Harness) -> None:
    with harness.client() as client:
        client.send_raw(b'{"type":"cmd:nope"}')  # no newline: EOF ends the line
        client._sock.shutdown(socket.SHUT_WR)
        assert "unknown command type" in client.wait_for("error", DEADLINE)["text"]


def test_a_callback_that_raises_does_not_kill_the_server(
    sock_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    calls: queue.Queue[Command] = queue.Queue()

    def on_command(client_id: int, cmd: Command) -> None:
        calls.put(cmd)
        raise RuntimeError("boom")

    def on_connect(client_id: int) -> None:
        raise ZeroDivisionError("bang")

    server = IpcServer(sock_dir / "bot.sock", on_command=on_command, on_connect=on_connect)
    server.start()
    try:
        with IpcClient.connect(server.path) as client:
            client.send(Snapshot())
            client.send(Stop())
            assert calls.get(timeout=DEADLINE) == Snapshot()
            assert calls.get(timeout=DEADLINE) == Stop()
    finally:
        server.stop()
    assert "IPC callback" in caplog.text


# --------------------------------------------------------------------------- hostile clients


def test_an_over_long_line_closes_only_that_connection(harness: Harness) -> None:
    with harness.client() as good, harness.client() as bad:
        bad.send_raw(b"x" * (harness.server.max_line_bytes + 10))
        event = bad.wait_for("error", DEADLINE)
        assert "longer than" in event["text"]
        with pytest.raises(IpcClientError):
            bad.recv(DEADLINE)
        good.send(Snapshot())
        assert harness.next_command()[1] == Snapshot()
        harness.server.broadcast(protocol.log(1, "info", "t", "still here"))
        assert good.recv(DEADLINE)["text"] == "still here"


def test_an_abrupt_reset_is_harmless(harness: Harness) -> None:
    for _ in range(5):
        sock = raw_connect(harness.server.path)
        sock.sendall(b'{"type":"cmd:snap')
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    with harness.client() as client:
        client.send(Snapshot())
        assert harness.next_command()[1] == Snapshot()


def test_binary_garbage_never_breaks_the_server(harness: Harness) -> None:
    @settings(
        max_examples=50,
        suppress_health_check=[
            *settings().suppress_health_check,
            HealthCheck.function_scoped_fixture,
        ],
    )
    @given(
        garbage=st.binary(max_size=4096),
        close=st.sampled_from(["close", "half-close", "read-then-close"]),
    )
    def one_client(garbage: bytes, close: str) -> None:
        sock = raw_connect(harness.server.path)
        try:
            sock.sendall(garbage)
            if close == "half-close":
                sock.shutdown(socket.SHUT_WR)
            elif close == "read-then-close":
                sock.recv(65536)
        finally:
            sock.close()
        with harness.client() as client:
            client.send(Snapshot())
            while harness.next_command()[1] != Snapshot():
                pass  # the garbage may have held a valid command

    one_client()


def test_a_client_that_never_reads_is_dropped_and_others_get_everything(
    make_harness: Callable,
) -> None:
    harness = make_harness(max_client_buffer=256 * 1024)
    total, batch = 2000, 100
    received: list[int] = []
    progress = threading.Condition()
    errors: list[BaseException] = []

    stalled = raw_connect(harness.server.path)
    stalled_id = harness.connected.get(timeout=DEADLINE)
    reader = harness.client()
    harness.connected.get(timeout=DEADLINE)

    def read_all() -> None:
        try:
            while len(received) < total:
                event = reader.recv(DEADLINE)
                with progress:
                    received.append(event["details"]["seq"])
                    progress.notify_all()
        except BaseException as exc:
            errors.append(exc)
            with progress:
                progress.notify_all()

    thread = threading.Thread(target=read_all, name="test-reader")
    thread.start()
    try:
        payload = "p" * 1000
        for seq in range(total):
            harness.server.broadcast(protocol.log(seq, "info", "t", payload, {"seq": seq}))
            if seq % batch == batch - 1:  # keep the reader within one batch of the writer
                floor = seq - batch
                with progress:
                    assert progress.wait_for(
                        lambda: len(received) > floor or bool(errors),  # noqa: B023
                        DEADLINE,
                    )
        thread.join(DEADLINE)
        assert not errors
        assert received == list(range(total))
        assert harness.disconnected.get(timeout=DEADLINE) == stalled_id
        assert harness.server.stats().clients_dropped == 1
        assert harness.server.client_count() == 1
    finally:
        stalled.close()
        reader.close()
        thread.join(DEADLINE)
