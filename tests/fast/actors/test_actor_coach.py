"""The coach without threads or a model: its policy objects, then the actor through ActorHarness.

The LLM is a stand-in back end object (``Model``) that answers from a script and
records what it was asked; structured asks run inline (the ``worker`` seam), so
the reply reaches the coach's mailbox before :meth:`ActorHarness.send` returns.
The real back ends and the threaded coach are in tests/integration/llm/test_llm_backends.py.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pepa.actors.coach import Coach
from pepa.llm import LlmError, LlmTimeout, LlmUnavailable
from pepa.llm.budget import COOLDOWNS, LlmBudget, load_budget, save_budget
from pepa.policy.coach.coaching import (
    Ask,
    AskGate,
    IdleStreak,
    Rejected,
    failure,
    judge,
    plan_skills,
)
from pepa.policy.coach.validate import SkillCatalog
from pepa.runtime.events import (
    AskLlm,
    DeathAnalysed,
    DeathAnalysisRequested,
    DraftPlan,
    ErrorRaised,
    LlmChunkReceived,
    LlmFinished,
    PlanDrafted,
    ReflectionWanted,
    ReflexTicked,
    RevisePlan,
    TaskSuggested,
    WorldObserved,
)
from pepa.testing import ActorHarness, entity, view
from pepa.world.view import WorldView
from tests.model_standin import BUNDLE, NEXT, PLAN, POSTMORTEM, Model, coach

pytestmark = pytest.mark.timeout(30)

CATALOG = SkillCatalog.from_registry()
KNOWN = plan_skills()
WINDOW = COOLDOWNS["escalation"]
"""The pacing window of idle suggestions: the budget's escalation cooldown."""


# -- stand-ins -------------------------------------------------------------------------------


def idle(h: ActorHarness[Coach], ticks: int, *, idle: bool = True) -> None:
    h.send(*[ReflexTicked(idle=idle) for _ in range(ticks)])


def died(death_id: int = 1) -> DeathAnalysisRequested:
    return DeathAnalysisRequested(death_id=death_id, reason="slain by Zombie", bundle=BUNDLE)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "pepa.actors.coach" and r.levelno >= logging.WARNING
    ]


# -- the policy, pure ------------------------------------------------------------------------


def test_the_idle_streak_earns_one_ask_per_streak_and_restarts_on_activity() -> None:
    streak = IdleStreak(3)
    here = view()
    assert [streak.tick(True, here) for _ in range(2)] == [False, False]
    assert streak.tick(False, here) is False  # something happened: count again
    assert [streak.tick(True, here) for _ in range(6)] == [False, False, True] * 2


def test_the_idle_streak_asks_nothing_for_a_bot_out_of_the_world() -> None:
    streak = IdleStreak(1)
    assert streak.tick(True, WorldView(connected=False)) is False
    assert streak.tick(True, None) is True  # nothing known yet: as before any snapshot


def test_the_gate_admits_one_ask_at_a_time_within_the_budget() -> None:
    gate = AskGate(LlmBudget(), offline=False)
    assert gate.admit(Ask(kind="escalation"), 0.0) is None
    busy = gate.admit(Ask(kind="analysis", death_id=1), 1.0)
    assert busy is not None and busy.why == "another ask is running"
    gate.finished()
    cooldown = gate.admit(Ask(kind="escalation"), WINDOW - 1)
    assert cooldown is not None and cooldown.why == "escalation cooldown (1s left)"
    assert gate.admit(Ask(kind="escalation"), WINDOW) is None


def test_the_gate_spends_nothing_without_a_model() -> None:
    gate = AskGate(LlmBudget(), offline=True)
    refusal = gate.admit(Ask(kind="analysis"), 0.0)
    assert refusal is not None and refusal.quiet and gate.budget.calls == []


def test_the_gate_refuses_when_the_hour_is_spent() -> None:
    budget = LlmBudget()
    for at in (0.0, 10.0, 20.0):
        budget.spend("reflection", at)
    refusal = AskGate(budget, offline=False).admit(Ask(kind="plan", goal="x"), 30.0)
    assert refusal is not None and "3 LLM calls in the last hour" in refusal.why


def test_a_good_reply_becomes_its_event() -> None:
    analysed = judge(
        Ask(kind="analysis", death_id=4), POSTMORTEM, backend="pi", catalog=CATALOG, known=KNOWN
    )
    assert isinstance(analysed, DeathAnalysed) and analysed.death_id == 4
    suggested = judge(Ask(kind="escalation"), NEXT, backend="pi", catalog=CATALOG, known=KNOWN)
    assert suggested == TaskSuggested(
        skill="nav.explore", reason="nothing threatens; look for wood", source="pi"
    )
    planned = judge(
        Ask(kind="plan", goal="a house"), PLAN, backend="pi", catalog=CATALOG, known=KNOWN
    )
    assert planned == PlanDrafted(
        goal="a house",
        milestones=("4 oak_log (gather.wood)", "1 crafting_table (craft.crafting_table)"),
        source="pi",
    )


@pytest.mark.parametrize(
    ("ask", "reply", "why"),
    [
        (Ask(kind="escalation"), "Sure! Let me think.", "reply rejected: not JSON"),
        (Ask(kind="escalation"), '{"skill": "nav.follow", "reason": "r"}', "may not be dispatched"),
        (Ask(kind="analysis"), "Error: rate limit exceeded", "reply rejected: error text"),
        (Ask(kind="plan", goal="g"), "3 diamond (dig.down)", "no milestone with a known skill"),
    ],
)
def test_garbage_is_rejected_with_its_beginning(ask: Ask, reply: str, why: str) -> None:
    rejected = judge(ask, reply, backend="pi", catalog=CATALOG, known=KNOWN)
    assert isinstance(rejected, Rejected) and why in rejected.why
    assert rejected.excerpt == reply[:200]


def test_a_failure_is_one_line_and_one_error_text() -> None:
    ask = Ask(kind="analysis", death_id=2)
    told = failure(ask, backend="pi", why="reply rejected: not JSON", excerpt="hello")
    assert told.level == logging.WARNING
    assert told.line == "pi post-mortem of death 2 reply rejected: not JSON; reply began 'hello'"
    assert told.error == "pi post-mortem of death 2: reply rejected: not JSON"
    quiet = failure(Ask(kind="escalation"), backend="openai", why="refused", unavailable=True)
    assert quiet.level == logging.INFO and quiet.line == "openai next action not asked: refused"


# -- idle suggestions ------------------------------------------------------------------------


def test_idle_ticks_suggest_a_task_at_most_once_per_pacing_window(tmp_path: Path) -> None:
    model = Model()
    h = coach(tmp_path, backend=model)
    h.send(WorldObserved(view=view(food=19)))
    idle(h, 19)
    idle(h, 1, idle=False)
    idle(h, 19)
    assert model.prompts == []
    idle(h, 1)
    (task,) = h.events(TaskSuggested)
    assert (task.skill, task.source) == ("nav.explore", "standin")
    assert "hp 20, food 19" in model.prompts[0] and "combat.attack-nearest" not in model.prompts[0]
    idle(h, 60)
    h.advance(WINDOW - 1)
    idle(h, 20)
    assert len(h.events(TaskSuggested)) == 1 and len(model.prompts) == 1
    h.advance(1)
    idle(h, 20)
    assert len(h.events(TaskSuggested)) == 2
    assert [kind for _, kind in load_budget(tmp_path / "llm-budget.json").calls] == [
        "escalation",
        "escalation",
    ]


def test_no_suggestion_is_asked_while_the_bot_is_out_of_the_world(tmp_path: Path) -> None:
    model = Model()
    h = coach(tmp_path, backend=model, idle_ticks=2)
    h.send(WorldObserved(view=WorldView(connected=False)))
    idle(h, 10)
    assert model.prompts == [] and h.published == []


def test_the_prompt_names_what_the_view_shows(tmp_path: Path) -> None:
    model = Model()
    h = coach(tmp_path, backend=model, idle_ticks=1)
    h.send(WorldObserved(view=view(hp=6, entities=[entity(9, "creeper", 5.0)])))
    idle(h, 1)
    assert "hp 6, food 20" in model.prompts[0] and "creeper at 5" in model.prompts[0]


def test_a_garbage_suggestion_is_one_error_and_nothing_dispatched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    h = coach(tmp_path, backend=Model(replies=["Explore! It is fun."]), idle_ticks=2)
    idle(h, 2)
    (error,) = h.events(ErrorRaised)
    assert error.source == "coach"
    assert error.text == "standin next action: reply rejected: not JSON"
    (line,) = warnings(caplog)
    assert "reply began 'Explore! It is fun.'" in line
    assert h.events(TaskSuggested) == []
    assert h.actor.gate.busy is False  # the next ask may start once the budget allows


def test_a_suggestion_the_coach_may_not_dispatch_is_rejected(tmp_path: Path) -> None:
    brave = '{"skill": "combat.attack-nearest", "reason": "be brave"}'
    h = coach(tmp_path, backend=Model(replies=[brave]), idle_ticks=1)
    idle(h, 1)
    assert "may not be dispatched" in h.last(ErrorRaised).text
    assert h.events(TaskSuggested) == []


# -- the budget -------------------------------------------------------------------------------


def test_a_spent_budget_asks_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    spent = LlmBudget()
    for kind in ("reflection", "escalation", "reflection"):
        spent.spend(kind, time.time() - 60)
    save_budget(tmp_path / "llm-budget.json", spent)
    model = Model(replies=[POSTMORTEM])
    caplog.set_level(logging.INFO, logger="pepa.actors.coach")
    h = coach(tmp_path, backend=model, idle_ticks=1)
    h.send(died(), DraftPlan(goal="a house"))
    idle(h, 3)
    assert model.prompts == [] and h.published == []
    assert any("3 LLM calls in the last hour" in r.getMessage() for r in caplog.records)
    assert warnings(caplog) == []


def test_the_budget_frees_up_as_the_clock_moves(tmp_path: Path) -> None:
    model = Model(replies=[POSTMORTEM])
    h = coach(tmp_path, backend=model)
    h.send(died(1), died(2))
    assert len(model.prompts) == 1  # 12 minutes between two post-mortems; death 2 waits
    h.advance(COOLDOWNS["analysis"])
    h.send(died(3))
    assert [e.death_id for e in h.events(DeathAnalysed)] == [1, 2]
    h.advance(COOLDOWNS["analysis"])
    assert [e.death_id for e in h.events(DeathAnalysed)] == [1, 2, 3]


def test_only_one_ask_runs_at_a_time(tmp_path: Path) -> None:
    jobs: list[Callable[[], None]] = []
    model = Model(replies=[POSTMORTEM, PLAN])
    h = coach(tmp_path, backend=model, worker=lambda job, name: jobs.append(job))
    h.send(died(1), DraftPlan(goal="a house"))
    assert len(jobs) == 1  # the plan found the analysis running
    jobs.pop()()
    h.advance(0)  # deliver the reply
    assert h.last(DeathAnalysed).death_id == 1
    h.send(DraftPlan(goal="a house"))
    jobs.pop()()
    h.advance(0)
    assert h.last(PlanDrafted).goal == "a house"


def test_the_offline_coach_asks_nothing_and_spends_nothing(tmp_path: Path) -> None:
    h = coach(tmp_path, backend="offline", idle_ticks=1)
    h.send(died(), DraftPlan(goal="a house"))
    idle(h, 3)
    assert h.published == [] and not (tmp_path / "llm-budget.json").exists()


# -- post-mortems and plans -------------------------------------------------------------------


def test_a_death_analysis_request_becomes_death_analysed(tmp_path: Path) -> None:
    model = Model(replies=["```json\n" + POSTMORTEM + "\n```"])
    h = coach(tmp_path, backend=model)
    h.send(died(7))
    analysed = h.last(DeathAnalysed)
    assert (analysed.death_id, analysed.backend) == (7, "standin")
    assert analysed.cause == "fought a zombie bare-handed"
    (lesson,) = analysed.lessons
    assert lesson["alternative"] == "survive.flee" and lesson["confidence"] == 0.8  # capped
    assert "slain by Zombie" in model.prompts[0] and "zombie at 1.5 blocks" in model.prompts[0]
    assert h.events(ErrorRaised) == []


def test_a_plan_keeps_only_milestones_with_a_registry_skill(tmp_path: Path) -> None:
    model = Model(replies=[PLAN])
    h = coach(tmp_path, backend=model)
    h.send(DraftPlan(goal="a wooden house"))
    plan = h.last(PlanDrafted)
    assert plan.goal == "a wooden house" and plan.source == "standin"
    assert plan.milestones == ("4 oak_log (gather.wood)", "1 crafting_table (craft.crafting_table)")
    assert "a wooden house" in model.prompts[0]


def test_a_plan_with_no_known_skill_is_rejected(tmp_path: Path) -> None:
    h = coach(tmp_path, backend=Model(replies=["1 diamond (dig.down)\nbuild it all"]))
    h.send(DraftPlan(goal="diamonds"))
    assert h.events(PlanDrafted) == []
    assert h.last(ErrorRaised).text == (
        "standin plan for 'diamonds': reply rejected: the plan has no milestone with a known skill"
    )


@pytest.mark.parametrize(
    ("error", "text", "level"),
    [
        (LlmTimeout("pi gave no reply within 1s"), "gave no reply within 1s", logging.WARNING),
        (LlmError("pi exited with code 4: Error: 429"), "exited with code 4", logging.WARNING),
        (LlmUnavailable("pi is not on PATH"), "pi is not on PATH", logging.INFO),
        (RuntimeError("a bug"), "RuntimeError('a bug')", logging.WARNING),  # and its traceback
    ],
)
def test_a_failed_ask_is_one_error_and_the_coach_goes_on(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
    text: str,
    level: int,
) -> None:
    caplog.set_level(logging.INFO, logger="pepa.actors.coach")
    model = Model(replies=[error, POSTMORTEM])
    h = coach(tmp_path, backend=model)
    h.send(died(1))
    (raised,) = h.events(ErrorRaised)
    assert raised.text.startswith("standin post-mortem of death 1") and text in raised.text
    assert h.events(DeathAnalysed) == []
    coach_lines = [r for r in caplog.records if r.name == "pepa.actors.coach" and text in r.message]
    assert max(r.levelno for r in coach_lines) == level
    h.advance(COOLDOWNS["analysis"])
    h.send(died(2))
    assert h.last(DeathAnalysed).death_id == 2


# -- free questions ---------------------------------------------------------------------------


def test_a_question_streams_with_tools_and_ends_once(tmp_path: Path) -> None:
    model = Model()
    h = coach(tmp_path, backend=model)
    h.send(AskLlm(prompt="why did I die?"))
    (running,) = model.streams
    assert running.prompt == "why did I die?" and running.tools is True
    running.on_chunk("stdout", "flee ")
    h.send(AskLlm(prompt="and now?"))
    assert h.last(ErrorRaised).text == "an LLM request is already running"
    running.on_done(0, 42)
    h.advance(0)
    assert h.last(LlmChunkReceived) == LlmChunkReceived(stream="stdout", text="flee ")
    assert h.last(LlmFinished) == LlmFinished(code=0, duration_ms=42)
    h.send(AskLlm(prompt="and now?"))
    assert len(model.streams) == 2
    h.stop()
    assert model.streams[1].cancelled


def test_the_offline_coach_answers_a_question_without_a_model(tmp_path: Path) -> None:
    h = coach(tmp_path, backend="offline")
    h.send(AskLlm(prompt="why?"))
    chunk = h.last(LlmChunkReceived)
    assert chunk.stream == "stderr" and "no LLM is configured" in chunk.text
    assert h.last(LlmFinished).code == 1 and h.events(ErrorRaised) == []


# -- the reflection, read by a model -------------------------------------------------------

REPORT = "# Reflection\n\nIn a loop: yes.\n- died 3 times to zombie (mob)\n"
AT = datetime(2026, 12, 2, 3, 30, tzinfo=UTC)


def test_a_models_reading_of_the_reflection_becomes_plan_lines(tmp_path: Path) -> None:
    reply = (
        "Here:\n1 stone_sword (craft.stone_sword)\n1 shield (craft.shield)\n2 diamond (dig.down)"
    )
    model = Model(replies=[reply])
    h = coach(tmp_path, backend=model)
    h.send(ReflectionWanted(report=REPORT, at=AT))
    assert h.last(RevisePlan) == RevisePlan(
        changes=("- [ ] 1 stone_sword (craft.stone_sword)", "- [ ] 1 shield (craft.shield)"),
        source="standin", at=AT,
    )  # fmt: skip
    prompt = model.prompts[0]
    assert "<<<\n# Reflection\n\nIn a loop: yes." in prompt and "answer NONE" in prompt
    assert [kind for _, kind in load_budget(tmp_path / "llm-budget.json").calls] == ["reflection"]


@pytest.mark.parametrize(
    ("reply", "changes", "error"),
    [
        ("NONE", (), ""),
        ("none.", (), ""),
        ("I think it should build a house", None, "no milestone with a known skill"),
        ("None needed.", (), ""),
        ("\n".join(["1 stone_sword (craft.stone_sword)"] * 6), None, "6 milestones, 5 at most"),
    ],
)
def test_nothing_to_add_adds_nothing_and_garbage_is_one_error(
    tmp_path: Path, reply: str, changes: tuple[str, ...] | None, error: str
) -> None:
    h = coach(tmp_path, backend=Model(replies=[reply]))
    h.send(ReflectionWanted(report=REPORT, at=AT))
    if changes is None:
        assert h.events(RevisePlan) == []
        assert error in h.last(ErrorRaised).text
        assert h.last(ErrorRaised).text.startswith("standin reading of the reflection of 03:30")
    else:
        assert h.last(RevisePlan).changes == changes and h.events(ErrorRaised) == []


def test_the_offline_coach_reads_no_reflection(tmp_path: Path) -> None:
    h = coach(tmp_path, backend="offline")
    h.send(ReflectionWanted(report=REPORT, at=AT))
    assert h.published == [] and not (tmp_path / "llm-budget.json").exists()
