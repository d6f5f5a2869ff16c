"""The pi and openai back ends against real stand-ins, and the coach actor on top of them.

The ``pi`` stand-in is a shell script first on PATH; the openai stand-in a
loopback HTTP server. Tests wait on events, never on sleeps.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.llm import (
    CancelToken,
    LlmCancelled,
    LlmError,
    LlmSettings,
    LlmTimeout,
    LlmUnavailable,
    OpenAIBackend,
    PiBackend,
)
from pepa.llm.budget import LlmBudget, load_budget, save_budget
from pepa.runtime import InjectFault, Ping, Runtime
from pepa.runtime.events import (
    AskLlm,
    DeathAnalysed,
    DeathAnalysisRequested,
    ErrorRaised,
    LlmChunkReceived,
    LlmFinished,
    ReflexTicked,
    TaskSuggested,
    WorldObserved,
)
from pepa.testing import view
from pepa.worldserver.process import free_port
from tests.coach_harness import BUNDLE, pi_coach, start_coach
from tests.llm_standins import OpenAIStandIn, Reply, install_pi
from tests.llm_standins.pi_script import calls, printing
from tests.waiting import Recorder, eventually

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

POSTMORTEM = orjson.dumps(
    {
        "cause": "fought a zombie bare-handed",
        "analysis": "hp fell from 20 to 0 in eight seconds of melee at night",
        "lessons": [
            {
                "skill": "combat.attack-nearest",
                "verdict": "avoid",
                "alternative": "survive.flee",
                "hostile": "zombie",
                "situation": "night, no weapon",
                "text": "flee zombies until you hold a sword",
                "confidence": 0.95,
            }
        ],
    }
).decode()
NEXT = '{"skill": "nav.explore", "reason": "nothing threatens; look for wood"}'


# -- fixtures and helpers ------------------------------------------------------------


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory first on PATH, for the stand-in ``pi``."""
    path = tmp_path / "bin"
    path.mkdir()
    monkeypatch.setenv("PATH", f"{path}{os.pathsep}{os.environ['PATH']}")
    return path


@pytest.fixture
def server() -> Iterator[OpenAIStandIn]:
    with OpenAIStandIn() as standin:
        yield standin


def live_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that still run (zombies waiting for init do not count)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while we looked
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def settled(runtime: Runtime) -> None:
    """Every event published so far has been handled by the coach (mailboxes are FIFO)."""
    runtime.registry.handle("coach").ask(Ping(), timeout=5.0)


def died(runtime: Runtime, death_id: int = 1) -> None:
    runtime.bus.publish(
        DeathAnalysisRequested(
            death_id=death_id, reason="pepa_bot was slain by Zombie", bundle=BUNDLE
        )
    )


def coach_error(recorder: Recorder, timeout: float = 20.0) -> ErrorRaised:
    event = recorder.wait_for(lambda e: isinstance(e, ErrorRaised) and e.source == "coach", timeout)
    return event[0]  # type: ignore[no-any-return]


def kinds(recorder: Recorder, kind: type) -> list[Any]:
    return [e for e in recorder.events if isinstance(e, kind)]


# -- pi: the back end alone ----------------------------------------------------------------


def test_pi_complete_returns_stdout(bin_dir: Path) -> None:
    install_pi(bin_dir, printing(NEXT))
    assert PiBackend().complete("what next?", timeout=10).strip() == NEXT
    assert calls(bin_dir) == ["what next?"]


def test_pi_command_may_carry_arguments(bin_dir: Path) -> None:
    install_pi(bin_dir, 'echo "args: $ARGS"', name="agent")
    reply = PiBackend("agent --model small").complete("hi", timeout=10)
    assert reply.strip() == (
        "args: --model small --no-tools --no-extensions --no-skills --no-prompt-templates "
        "--no-context-files --no-session -p -- hi"
    )


def test_pi_failing_with_error_text_is_an_error_naming_the_exit_code(bin_dir: Path) -> None:
    install_pi(bin_dir, 'echo "Error: 429 rate limit exceeded" >&2\nexit 4')
    with pytest.raises(LlmError, match="exited with code 4: Error: 429 rate limit exceeded"):
        PiBackend().complete("why?", timeout=10)


def test_a_slow_pi_is_killed_with_everything_it_started(bin_dir: Path, tmp_path: Path) -> None:
    pgid = tmp_path / "pgid"
    install_pi(bin_dir, f"echo $$ > '{pgid}'\nsleep 30\necho late")
    with pytest.raises(LlmTimeout, match=r"within 0\.5s"):
        PiBackend().complete("why?", timeout=0.5)
    # the shell and its sleep are gone: SIGKILL is delivered at once, but a process busy on a
    # loaded machine may take a moment to die (the test waited no moment and failed once)
    group = int(pgid.read_text())
    eventually(lambda: live_members(group) == [], 10, "the pi group to be gone")


def test_a_pi_call_can_be_cancelled_from_another_thread(bin_dir: Path, tmp_path: Path) -> None:
    started = tmp_path / "started"
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


# -- openai: the back end alone --------------------------------------------------------------


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


# -- openai: replies bounded while they arrive ---------------------------------------------

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


# -- the coach with pi -------------------------------------------------------------------------


def test_a_good_pi_post_mortem_becomes_death_analysed(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    install_pi(bin_dir, printing("```json\n" + POSTMORTEM + "\n```"))
    budget = pi_coach(runtime, recorder, tmp_path)
    died(runtime, death_id=7)
    (analysed,) = recorder.wait_for(lambda e: isinstance(e, DeathAnalysed), 20)
    assert (analysed.death_id, analysed.backend) == (7, "pi")
    assert analysed.cause == "fought a zombie bare-handed"
    (lesson,) = analysed.lessons
    assert lesson["alternative"] == "survive.flee" and lesson["confidence"] == 0.8  # capped
    (prompt,) = calls(bin_dir)
    assert "slain by Zombie" in prompt and "zombie at 1.5 blocks" in prompt
    assert "survive.flee*" in prompt and "20 → 9 → 2 → 0" in prompt
    assert [kind for _, kind in load_budget(budget).calls] == ["analysis"]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (printing("The bot died because it fought a zombie. " + POSTMORTEM), "prose around"),
        (printing("Error: rate limit exceeded"), "error text"),
        (
            printing('{"cause": "zombie", "analysis": "x", "lessons": [{"skill": "dig.down"}]}'),
            "unknown skill 'dig.down'",
        ),
        ('echo "Error: 500 upstream failed" >&2\nexit 1', "exited with code 1: Error: 500"),
        (printing(""), "empty reply"),
    ],
)
def test_bad_pi_post_mortems_are_rejected_and_never_published(
    runtime: Runtime,
    recorder: Recorder,
    bin_dir: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    body: str,
    why: str,
) -> None:
    install_pi(bin_dir, body)
    pi_coach(runtime, recorder, tmp_path)
    died(runtime)
    error = coach_error(recorder)
    assert why in error.text and error.text.startswith("pi post-mortem of death 1")
    settled(runtime)
    assert kinds(recorder, DeathAnalysed) == []
    warnings = [r for r in caplog.records if r.name == "pepa.actors.coach" and r.levelno >= 30]
    (line,) = [r.getMessage() for r in warnings]
    assert why in line and ("reply began" in line or "exited" in line)


def test_a_slow_pi_post_mortem_times_out(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    install_pi(bin_dir, "sleep 30\n" + printing(POSTMORTEM))
    pi_coach(runtime, recorder, tmp_path, timeout=1.0)
    died(runtime)
    error = coach_error(recorder)
    assert "gave no reply within 1s" in error.text
    assert kinds(recorder, DeathAnalysed) == []


def test_the_budget_holds_back_a_second_post_mortem(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    install_pi(bin_dir, printing(POSTMORTEM))
    pi_coach(runtime, recorder, tmp_path)
    died(runtime, death_id=1)
    recorder.wait_for(lambda e: isinstance(e, DeathAnalysed), 20)
    died(runtime, death_id=2)
    settled(runtime)
    assert len(calls(bin_dir)) == 1  # 12-minute cooldown between analyses


def test_a_spent_budget_on_disk_outlives_the_coach(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    install_pi(bin_dir, printing(POSTMORTEM))
    spent = LlmBudget()
    now = time.time()
    for kind in ("reflection", "escalation", "reflection"):
        spent.spend(kind, now - 60)
    save_budget(tmp_path / "llm-budget.json", spent)
    pi_coach(runtime, recorder, tmp_path)
    died(runtime)
    settled(runtime)
    assert calls(bin_dir) == []


def test_a_late_reply_reaches_the_restarted_coach(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    install_pi(bin_dir, f"while [ ! -e '{gate}' ]; do sleep 0.02; done\n" + printing(POSTMORTEM))
    pi_coach(runtime, recorder, tmp_path)
    died(runtime, death_id=3)
    settled(runtime)
    runtime.registry.handle("coach").tell(InjectFault(kind="crash"))
    recorder.wait_state("coach", "running", count=2)
    gate.touch()
    (analysed,) = recorder.wait_for(lambda e: isinstance(e, DeathAnalysed), 20)
    assert analysed.death_id == 3


def test_pi_streams_an_operator_question_line_by_line(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    install_pi(
        bin_dir,
        f"echo \"thinking about: $2\"\nwhile [ ! -e '{gate}' ]; do sleep 0.02; done\n"
        'echo "answer: flee"\necho "note" >&2',
    )
    pi_coach(runtime, recorder, tmp_path)
    runtime.bus.publish(AskLlm(prompt="why did I die?"))
    recorder.wait_for(lambda e: isinstance(e, LlmChunkReceived))
    assert kinds(recorder, LlmFinished) == []  # the first line came before the end
    gate.touch()
    (done,) = recorder.wait_for(lambda e: isinstance(e, LlmFinished), 20)
    stdout = "".join(c.text for c in kinds(recorder, LlmChunkReceived) if c.stream == "stdout")
    assert stdout == "thinking about: why did I die?\nanswer: flee\n"
    assert done.code == 0


def test_a_missing_pi_answers_the_question_with_an_error(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    pi_coach(runtime, recorder, tmp_path)
    runtime.bus.publish(AskLlm(prompt="why?"))
    (done,) = recorder.wait_for(lambda e: isinstance(e, LlmFinished))
    assert done.code == 127
    assert "not on PATH" in coach_error(recorder).text


# -- idle escalation ----------------------------------------------------------------------------


def idle(runtime: Runtime, ticks: int, *, idle: bool = True) -> None:
    for _ in range(ticks):
        runtime.bus.publish(ReflexTicked(idle=idle))


def test_twenty_idle_ticks_in_a_row_ask_for_a_next_action(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    install_pi(bin_dir, printing(NEXT))
    pi_coach(runtime, recorder, tmp_path)
    runtime.bus.publish(WorldObserved(view=view(food=19)))
    idle(runtime, 19)
    idle(runtime, 1, idle=False)  # something happened: the count starts again
    idle(runtime, 19)
    settled(runtime)
    assert calls(bin_dir) == []
    idle(runtime, 1)
    (task,) = recorder.wait_for(lambda e: isinstance(e, TaskSuggested), 20)
    assert (task.skill, task.source) == ("nav.explore", "pi")
    (prompt,) = calls(bin_dir)
    assert "hp 20, food 19" in prompt and "combat.attack-nearest" not in prompt
    idle(runtime, 40)  # the escalation cooldown holds back the next ones
    settled(runtime)
    assert len(calls(bin_dir)) == 1


def test_a_next_action_the_coach_may_not_dispatch_is_rejected(
    runtime: Runtime, recorder: Recorder, bin_dir: Path, tmp_path: Path
) -> None:
    install_pi(bin_dir, printing('{"skill": "combat.attack-nearest", "reason": "be brave"}'))
    pi_coach(runtime, recorder, tmp_path, idle_ticks=3)
    idle(runtime, 3)
    assert "may not be dispatched" in coach_error(recorder).text
    settled(runtime)
    assert kinds(recorder, TaskSuggested) == []


# -- the coach with openai and offline --------------------------------------------------------


def openai_coach(runtime: Runtime, recorder: Recorder, server: OpenAIStandIn, **kw: Any) -> None:
    settings = LlmSettings(openai_url=server.url, openai_model="m", timeout=kw.pop("timeout", 20))
    start_coach(runtime, recorder, backend="openai", settings=settings, **kw)


def test_a_good_openai_post_mortem_becomes_death_analysed(
    runtime: Runtime, recorder: Recorder, server: OpenAIStandIn
) -> None:
    server.reply = Reply(content=POSTMORTEM)
    openai_coach(runtime, recorder, server)
    died(runtime, death_id=5)
    (analysed,) = recorder.wait_for(lambda e: isinstance(e, DeathAnalysed), 20)
    assert (analysed.death_id, analysed.backend) == (5, "openai")
    assert "slain by Zombie" in server.requests[0].payload["messages"][0]["content"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Reply(body=b"not json at all"), "the reply is not JSON"),
        (Reply(status=500, body=b"Internal Server Error"), "HTTP 500"),
        (Reply(content="I am sorry, I cannot help with that."), "reply rejected: not JSON"),
        (Reply(content='{"cause": 1, "analysis": "x"}'), "cause is not a string"),
    ],
)
def test_bad_openai_post_mortems_are_rejected(
    runtime: Runtime, recorder: Recorder, server: OpenAIStandIn, reply: Reply, why: str
) -> None:
    server.reply = reply
    openai_coach(runtime, recorder, server)
    died(runtime)
    assert why in coach_error(recorder).text
    settled(runtime)
    assert kinds(recorder, DeathAnalysed) == []


def test_a_slow_openai_post_mortem_times_out(
    runtime: Runtime, recorder: Recorder, server: OpenAIStandIn
) -> None:
    server.reply = Reply(content=POSTMORTEM, hold=True)
    openai_coach(runtime, recorder, server, timeout=1.0)
    died(runtime)
    assert "gave no reply within 1s" in coach_error(recorder).text
    server.release_all()
    settled(runtime)
    assert kinds(recorder, DeathAnalysed) == []


def test_openai_streams_an_operator_question(
    runtime: Runtime, recorder: Recorder, server: OpenAIStandIn
) -> None:
    server.reply = Reply(chunks=("Run ", "away."))
    openai_coach(runtime, recorder, server)
    runtime.bus.publish(AskLlm(prompt="what now?"))
    (done,) = recorder.wait_for(lambda e: isinstance(e, LlmFinished), 20)
    text = "".join(c.text for c in kinds(recorder, LlmChunkReceived))
    assert (text, done.code) == ("Run away.", 0)


def test_openai_escalation_suggests_a_task(
    runtime: Runtime, recorder: Recorder, server: OpenAIStandIn
) -> None:
    server.reply = Reply(content=NEXT)
    openai_coach(runtime, recorder, server, idle_ticks=2)
    idle(runtime, 2)
    (task,) = recorder.wait_for(lambda e: isinstance(e, TaskSuggested), 20)
    assert (task.skill, task.source) == ("nav.explore", "openai")


def test_the_offline_coach_answers_without_a_model_and_asks_nothing(
    runtime: Runtime, recorder: Recorder, tmp_path: Path
) -> None:
    start_coach(runtime, recorder, backend="offline", budget_path=tmp_path / "b.json", idle_ticks=2)
    runtime.bus.publish(AskLlm(prompt="why?"))
    (done,) = recorder.wait_for(lambda e: isinstance(e, LlmFinished))
    assert done.code == 1
    (chunk,) = kinds(recorder, LlmChunkReceived)
    assert chunk.stream == "stderr" and "no LLM is configured" in chunk.text
    died(runtime)
    idle(runtime, 4)
    settled(runtime)
    assert kinds(recorder, DeathAnalysed) == [] and kinds(recorder, TaskSuggested) == []
    assert not (tmp_path / "b.json").exists()
