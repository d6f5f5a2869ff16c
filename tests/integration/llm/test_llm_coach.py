"""The coach actor on the pi and openai back ends (real stand-ins: a script first on PATH, a
loopback HTTP server): post-mortems, the budget, questions, idle escalation, offline."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pepa.llm import (
    LlmSettings,
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
from tests.coach_harness import BUNDLE, NEXT, POSTMORTEM, pi_coach, start_coach
from tests.llm_standins import OpenAIStandIn, Reply, install_pi
from tests.llm_standins.pi_script import calls, printing, records
from tests.waiting import Recorder

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


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
    gate = records(bin_dir) / "gate"
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
    gate = records(bin_dir) / "gate"
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
