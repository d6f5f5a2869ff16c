"""The pi and openai back ends alone, against real stand-ins: the ``pi`` stand-in is a shell
script first on PATH, the openai stand-in a loopback HTTP server. Tests wait on events, never
on sleeps."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from pepa.llm import (
    CancelToken,
    LlmCancelled,
    LlmError,
    LlmTimeout,
    LlmUnavailable,
    OpenAIBackend,
    PiBackend,
)
from pepa.worldserver.process import free_port
from tests.coach_harness import NEXT
from tests.llm_standins import OpenAIStandIn, Reply, install_pi
from tests.llm_standins.pi_script import calls, printing, records
from tests.waiting import eventually

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def live_with(mark: str) -> list[int]:
    """Processes that still run with ``PI_TEST_MARK=<mark>`` in their environment."""
    members = []
    wanted = f"PI_TEST_MARK={mark}".encode()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            found = wanted in environ.read_bytes().split(b"\0")
            state = (environ.parent / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue  # ended while we looked, or not ours to read
        if found and state != "Z":
            members.append(int(environ.parent.name))
    return members


def test_pi_complete_returns_stdout(bin_dir: Path) -> None:
    install_pi(bin_dir, printing(NEXT))
    assert PiBackend().complete("what next?", timeout=10).strip() == NEXT
    assert calls(bin_dir) == ["what next?"]


def test_pi_command_may_carry_arguments(bin_dir: Path) -> None:
    install_pi(bin_dir, 'echo "args: $ARGS"', name="agent")
    reply = PiBackend("agent --model small").complete("hi", timeout=10)
    assert reply.strip() == (
        "args: --model small --no-tools --no-extensions --no-skills --no-prompt-templates "
        "--no-context-files --no-session -p hi"
    )


def test_pi_failing_with_error_text_is_an_error_naming_the_exit_code(bin_dir: Path) -> None:
    install_pi(bin_dir, 'echo "Error: 429 rate limit exceeded" >&2\nexit 4')
    with pytest.raises(LlmError, match="exited with code 4: Error: 429 rate limit exceeded"):
        PiBackend().complete("why?", timeout=10)


def test_a_slow_pi_is_killed_with_everything_it_started(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = str(bin_dir)  # PI_* reaches pi: the shell and its sleep carry the mark
    monkeypatch.setenv("PI_TEST_MARK", mark)
    started = records(bin_dir) / "started"
    install_pi(bin_dir, f"touch '{started}'\nsleep 30\necho late")
    with pytest.raises(LlmTimeout, match=r"within 2s"):
        PiBackend().complete("why?", timeout=2)
    assert started.exists()  # it ran, with the mark, and was killed
    # the shell and its sleep are gone: SIGKILL is delivered at once, but a process busy on a
    # loaded machine may take a moment to die (the test waited no moment and failed once)
    eventually(lambda: live_with(mark) == [], 10, "the pi run to be gone")


def test_a_pi_call_can_be_cancelled_from_another_thread(bin_dir: Path) -> None:
    started = records(bin_dir) / "started"
    install_pi(bin_dir, f"touch '{started}'\nsleep 30")
    token = CancelToken()
    failure: list[BaseException] = []

    def call() -> None:
        try:
            PiBackend().complete("why?", timeout=30, cancel=token)
        except LlmError as exc:
            failure.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    pause = threading.Event()
    while not started.exists():
        pause.wait(0.01)
    token.cancel()
    worker.join(10)
    assert isinstance(failure[0], LlmCancelled)


def test_openai_complete_returns_the_message_content(server: OpenAIStandIn) -> None:
    server.reply = Reply(content=NEXT)
    backend = OpenAIBackend(server.url, model="qwen2.5:0.5b", api_key="sk-test")
    assert backend.complete("what next?", timeout=10) == NEXT
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.payload == {
        "model": "qwen2.5:0.5b",
        "messages": [{"role": "user", "content": "what next?"}],
        "stream": False,
    }
    assert request.headers["Authorization"] == "Bearer sk-test"


def test_openai_sends_no_key_and_no_model_when_none_is_set(server: OpenAIStandIn) -> None:
    server.reply = Reply(content="{}")
    OpenAIBackend(server.url).complete("x", timeout=10)
    (request,) = server.requests
    assert "Authorization" not in request.headers and "model" not in request.payload


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(body=b"<html>oops</html>"), "the reply is not JSON: <html>oops</html>"),
        (Reply(status=500, body=b'{"error": "model crashed"}'), "HTTP 500: .*model crashed"),
        (Reply(status=401, body=b"bad key"), "HTTP 401: bad key"),
        (Reply(body=b'{"error": {"message": "context too long"}}'), "error: context too long"),
        (Reply(body=b'{"choices": []}'), "not a chat completion"),
        (Reply(body=b'{"choices": [{"message": {"content": 5}}]}'), "content is not text"),
    ],
)
def test_openai_failures_are_one_clear_error(
    server: OpenAIStandIn, reply: Reply, message: str
) -> None:
    server.reply = reply
    with pytest.raises(LlmError, match=message):
        OpenAIBackend(server.url).complete("x", timeout=10)


def test_a_slow_openai_server_times_out(server: OpenAIStandIn) -> None:
    server.reply = Reply(content=NEXT, hold=True)
    with pytest.raises(LlmTimeout, match=r"within 0\.5s"):
        OpenAIBackend(server.url).complete("x", timeout=0.5)


def test_a_refused_connection_is_unavailable() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(LlmUnavailable, match="cannot connect to"):
        OpenAIBackend(url).complete("x", timeout=5)


@pytest.mark.parametrize("userinfo", ["user:pw-secret", "sk-token-secret", "u:"])
def test_the_openai_error_lines_never_show_the_urls_credentials(
    userinfo: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"http://{userinfo}@127.0.0.1:{free_port()}/v1"
    backend = OpenAIBackend(url)
    with pytest.raises(LlmUnavailable, match="cannot connect to") as refused:
        backend.complete("x", timeout=5)
    with pytest.raises(LlmUnavailable, match="not an http") as bad:
        OpenAIBackend(f"ftp://{userinfo}@host/v1")
    shown = [str(refused.value), str(bad.value), repr(backend), caplog.text]
    assert not [line for line in shown if "secret" in line or "pw" in line or "u:" in line]
    assert "http://***@127.0.0.1:" in str(refused.value)


def test_an_openai_call_can_be_cancelled(server: OpenAIStandIn) -> None:
    server.reply = Reply(content=NEXT, hold=True)
    token = CancelToken()
    failure: list[BaseException] = []

    def call() -> None:
        try:
            OpenAIBackend(server.url).complete("x", timeout=30, cancel=token)
        except LlmError as exc:
            failure.append(exc)

    worker = threading.Thread(target=call)
    worker.start()
    pause = threading.Event()
    while not server.requests:
        pause.wait(0.01)
    token.cancel()
    worker.join(10)
    assert isinstance(failure[0], LlmCancelled)


def test_openai_streams_deltas_as_they_arrive(server: OpenAIStandIn) -> None:
    server.reply = Reply(chunks=("Flee ", "the ", "zombie."), gate_after=1)
    chunks: list[tuple[str, str]] = []
    done = threading.Event()
    first = threading.Event()
    codes: list[int] = []

    def on_chunk(stream: str, text: str) -> None:
        chunks.append((stream, text))
        first.set()

    def on_done(code: int, ms: int) -> None:
        codes.append(code)
        done.set()

    running = OpenAIBackend(server.url).stream("x", on_chunk=on_chunk, on_done=on_done, timeout=20)
    assert first.wait(10) and not done.is_set()  # the server holds the rest back: streamed
    server.gate.set()
    assert done.wait(10)
    running.join()
    assert chunks == [("stdout", "Flee "), ("stdout", "the "), ("stdout", "zombie.")]
    assert codes == [0] and server.requests[0].payload["stream"] is True


def test_an_openai_stream_failing_ends_with_stderr_and_code_1(server: OpenAIStandIn) -> None:
    server.reply = Reply(status=503, body=b"overloaded")
    chunks: list[tuple[str, str]] = []
    done = threading.Event()
    running = OpenAIBackend(server.url).stream(
        "x",
        on_chunk=lambda s, t: chunks.append((s, t)),
        on_done=lambda c, m: done.set(),
        timeout=20,
    )
    assert done.wait(10)
    running.join()
    assert chunks == [("stderr", "openai: HTTP 503: overloaded\n")]


CAP = 200_000

SLACK = 16 * 1024 * 1024
"""What loopback socket buffers may hold between the server's count and the client's cap."""


def ended_near_the_cap(server: OpenAIStandIn) -> None:
    """The server's flood stopped (the client hung up) after about ``CAP`` bytes, not more."""
    assert server.flood_ended.wait(20), "the server is still sending: the client never hung up"
    assert server.sent < CAP + SLACK


@pytest.mark.parametrize("flood", ["body", "length"])
def test_an_endless_openai_body_ends_the_call_at_the_cap(server: OpenAIStandIn, flood: str) -> None:
    server.reply = Reply(flood=flood)
    started = time.monotonic()
    with pytest.raises(LlmError, match=f"the reply is larger than {CAP} bytes; stopped reading"):
        OpenAIBackend(server.url, max_body=CAP).complete("x", timeout=60)
    assert time.monotonic() - started < 20
    ended_near_the_cap(server)


@pytest.mark.parametrize(
    ("flood", "why"),
    [
        ("events", f"the streamed reply passed {CAP} bytes; stopped reading"),
        ("line", "a stream line is longer than 4096 bytes; stopped reading"),
    ],
)
def test_an_endless_openai_stream_ends_at_the_cap(
    server: OpenAIStandIn, flood: str, why: str
) -> None:
    server.reply = Reply(flood=flood)
    chunks: list[tuple[str, str]] = []
    codes: list[int] = []
    done = threading.Event()

    def on_done(code: int, ms: int) -> None:
        codes.append(code)
        done.set()

    backend = OpenAIBackend(server.url, max_stream=CAP, max_line=4096)
    started = time.monotonic()
    running = backend.stream(
        "x", on_chunk=lambda s, t: chunks.append((s, t)), on_done=on_done, timeout=60
    )
    assert done.wait(20), "the stream is still being read"
    running.join()
    assert time.monotonic() - started < 20
    assert codes == [1] and chunks[-1] == ("stderr", f"openai: {why}\n")
    assert sum(len(text) for stream, text in chunks if stream == "stdout") <= CAP
    ended_near_the_cap(server)
