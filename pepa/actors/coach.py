"""Coach: the LLM side of the bot — operator questions, post-mortems, idle escalation.

Three jobs, one back end (``pi``, ``openai`` or ``offline``; see docs/llm.md):

- ``AskLlm`` (``cmd:ask-pi``) streams the answer as :class:`LlmChunkReceived`
  events and ends with :class:`LlmFinished`; one question at a time; the
  ``offline`` back end answers that no model is configured. This is the one
  call that runs the back end with its tools (``stream(..., tools=True)``):
  ``AskLlm`` is published only by the IPC actor for a socket client, the
  daemon's own user. Everything else, chat goals included, is a structured ask
  through ``complete()``, which never has tools (docs/llm.md, "Isolation").
- ``DeathAnalysisRequested`` (the knowledge actor, after its own offline
  post-mortem) asks the model why the bot died; a reply that passes
  :func:`pepa.llm.validate.validate_postmortem` becomes :class:`DeathAnalysed`.
- :data:`IDLE_TICKS` idle :class:`ReflexTicked` in a row ask the model for a
  next action among the skills the coach may dispatch; a valid reply becomes
  :class:`TaskSuggested`.

Structured asks draw on one shared :class:`pepa.llm.budget.LlmBudget` (kept in
``llm-budget.json``) and run on a worker thread, never in the actor's thread.
The reply comes back as a message to the coach's stable handle, carrying all
it needs, so a coach restarted meanwhile finishes it. Garbage, error text,
failures and timeouts are logged once, published as :class:`ErrorRaised`,
and never published as lessons or tasks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import skills
from pepa.errors import SupervisionError
from pepa.events import (
    AskLlm,
    DeathAnalysed,
    DeathAnalysisRequested,
    ErrorRaised,
    LlmChunkReceived,
    LlmFinished,
    PlanProposed,
    PlanWanted,
    ReflexTicked,
    TaskSuggested,
    WorldObserved,
)
from pepa.llm import LlmError, LlmSettings, LlmUnavailable, Running, make_backend
from pepa.llm.budget import load_budget, save_budget
from pepa.llm.prompts import next_action_prompt, plan_prompt, postmortem_prompt
from pepa.llm.validate import (
    ReplyRejected,
    SkillCatalog,
    validate_next_action,
    validate_postmortem,
)
from pepa.supervision import ActorHandle, SupervisedActor, SupervisionContext
from pepa.survival.curriculum import validate_plan

__all__ = ["IDLE_TICKS", "QUESTION_TIMEOUT", "Coach"]

logger = logging.getLogger(__name__)

IDLE_TICKS = 20
"""Idle reflex ticks in a row before the coach asks for a next action."""
QUESTION_TIMEOUT = 600.0
"""Seconds an operator's free question may stream."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Finished:
    """The running free question ended."""

    code: int
    """Exit code (0: the answer is complete)."""
    duration_ms: int
    """Wall time."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Replied:
    """A structured ask ended on its worker thread; any coach instance can finish it."""

    kind: str
    """``analysis`` or ``escalation``."""
    backend: str
    """The back end that answered."""
    death_id: int = 0
    """The death explained (analysis only)."""
    reply: str = ""
    """The raw reply, not yet validated."""
    goal: str = ""
    """The goal planned for (plan only)."""
    error: str = ""
    """Why there is no reply (timeout, HTTP error, non-zero exit …)."""
    unavailable: bool = False
    """The back end could not be asked at all (already warned about where it was found)."""


class Coach(SupervisedActor):
    """Answers questions, explains deaths and breaks idleness through the configured LLM."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        backend: str = "offline",
        settings: LlmSettings | None = None,
        budget_path: Path | None = None,
        idle_ticks: int = IDLE_TICKS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(supervision=supervision)
        self.settings = settings or LlmSettings()
        self.llm = make_backend(backend, self.settings)
        self.catalog = SkillCatalog.from_registry()
        self.budget_path = budget_path
        self.budget = load_budget(None)
        self.idle_ticks = idle_ticks
        self.clock = clock
        self.idle_streak = 0
        self.world: dict[str, Any] = {}
        self.running: Running | None = None
        self.busy = False

    @property
    def backend(self) -> str:
        """The back end's name."""
        return self.llm.name

    def setup(self) -> None:
        for event_type in (AskLlm, DeathAnalysisRequested, ReflexTicked, WorldObserved, PlanWanted):
            self.runtime.bus.subscribe(event_type, self.handle)
        self.budget = load_budget(self.budget_path)
        logger.debug("coach ready: back end %s", self.backend)

    def cleanup(self) -> None:
        if self.running is not None:
            self.running.cancel()
        # structured asks are not cancelled: their reply reaches the next instance

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
            case ReflexTicked(idle=idle):
                self._ticked(idle)
            case AskLlm(prompt=prompt):
                self._ask(prompt)
            case _Finished(code=code, duration_ms=duration_ms):
                self.running = None
                self.publish(LlmFinished(code=code, duration_ms=duration_ms))
            case PlanWanted(goal=goal):
                self._structured("plan", plan_prompt(goal, self.catalog), goal=goal)
            case DeathAnalysisRequested(death_id=death_id, reason=reason, bundle=bundle):
                prompt = postmortem_prompt(reason, bundle, self.catalog)
                self._structured("analysis", prompt, death_id=death_id)
            case _Replied():
                self._replied(message)
            case _:
                return super().on_message(message)
        return None

    # -- free questions ---------------------------------------------------------------

    def _ask(self, prompt: str) -> None:
        if self.running is not None:
            self.publish(ErrorRaised(source="coach", text="an LLM request is already running"))
            return
        me = self.handle  # a restarted coach still hears how the request ended
        bus = self.runtime.bus
        try:
            self.running = self.llm.stream(
                prompt,
                on_chunk=lambda stream, text: bus.publish(
                    LlmChunkReceived(stream=stream, text=text)
                ),
                on_done=lambda code, ms: _tell(me, _Finished(code=code, duration_ms=ms)),
                timeout=QUESTION_TIMEOUT,
                tools=True,  # the operator at the socket: the only caller with tools
            )
        except LlmError as exc:
            self.publish(LlmChunkReceived(stream="stderr", text=f"{exc}\n"))
            if self.backend == "offline":  # a choice, not a failure
                logger.info("a question, and no model to ask: %s", exc)
            else:
                logger.warning("cannot ask %s: %s", self.backend, exc)
                self.publish(ErrorRaised(source="coach", text=str(exc)))
            self.publish(LlmFinished(code=127 if self.backend == "pi" else 1, duration_ms=0))
            return
        logger.info("asked %s (%d chars)", self.backend, len(prompt))

    # -- structured asks --------------------------------------------------------------

    def _ticked(self, idle: bool) -> None:
        if not idle:
            self.idle_streak = 0
            return
        self.idle_streak += 1
        if self.idle_streak < self.idle_ticks:
            return
        self.idle_streak = 0  # one try per streak; the budget decides whether it runs
        if self.world.get("connected") is False:
            return
        self._structured("escalation", next_action_prompt(self.world, self.catalog))

    def _structured(self, kind: str, prompt: str, *, death_id: int = 0, goal: str = "") -> None:
        """Ask on a worker thread if the back end is a model, nothing runs and the budget allows."""
        what = {"analysis": f"death {death_id}", "plan": f"goal {goal!r}"}.get(
            kind, "a next action"
        )
        if self.backend == "offline":
            logger.debug("no LLM %s of %s: offline back end", kind, what)
            return
        if self.busy:
            logger.info("no LLM %s of %s: another ask is running", kind, what)
            return
        refusal = self.budget.try_spend(kind, self.clock())
        if refusal is not None:
            logger.info("no LLM %s of %s: %s", kind, what, refusal)
            return
        save_budget(self.budget_path, self.budget)
        self.busy = True
        logger.info("asking %s for %s of %s (%d chars)", self.backend, kind, what, len(prompt))
        threading.Thread(
            target=_complete,
            args=(self.llm, prompt, self.settings.timeout, self.handle, kind, death_id, goal),
            daemon=True,
            name=f"pepa-coach-{kind}",
        ).start()

    def _replied(self, done: _Replied) -> None:
        self.busy = False
        if done.error:
            self._fail(done, done.error, "")
            return
        if done.kind == "plan":
            self._planned(done)
            return
        try:
            if done.kind == "analysis":
                post = validate_postmortem(done.reply, self.catalog)
            else:
                action = validate_next_action(done.reply, self.catalog)
        except ReplyRejected as exc:
            self._fail(done, f"reply rejected: {exc.reason}", exc.excerpt)
            return
        if done.kind == "analysis":
            logger.info(
                "%s post-mortem of death %d: %s (%d lessons)",
                done.backend, done.death_id, post.cause, len(post.lessons),
            )  # fmt: skip
            self.publish(
                DeathAnalysed(
                    death_id=done.death_id,
                    backend=done.backend,
                    cause=post.cause,
                    analysis=post.analysis,
                    lessons=tuple(lesson.as_dict() for lesson in post.lessons),
                )
            )
        else:
            logger.info("%s suggests %s: %s", done.backend, action.skill, action.reason)
            self.publish(
                TaskSuggested(skill=action.skill, reason=action.reason, source=done.backend)
            )

    def _planned(self, done: _Replied) -> None:
        """A plan reply: only milestones with a registry skill survive; none at all: rejected."""
        known = set(skills.REGISTRY) | {f"{prefix}.*" for prefix in skills.FAMILIES}
        lines = [line.strip() for line in done.reply.splitlines() if line.strip()]
        try:
            plan = validate_plan(lines, known)
        except ValueError as exc:
            self._fail(done, f"reply rejected: {exc}", done.reply[:200])
            return
        logger.info("%s plans %d milestones for %r", done.backend, len(plan), done.goal)
        self.publish(
            PlanProposed(
                goal=done.goal, milestones=tuple(m.text for m in plan), source=done.backend
            )
        )

    def _fail(self, done: _Replied, why: str, excerpt: str) -> None:
        what = {
            "analysis": f"post-mortem of death {done.death_id}", "plan": f"plan for {done.goal!r}",
        }.get(done.kind, "next action")  # fmt: skip
        if excerpt:
            logger.warning("%s %s %s; reply began %r", done.backend, what, why, excerpt)
        elif done.unavailable:  # said once where it was found; not again for every ask
            logger.info("%s %s not asked: %s", done.backend, what, why)
        else:
            logger.warning("%s %s failed: %s", done.backend, what, why)
        self.publish(ErrorRaised(source="coach", text=f"{done.backend} {what}: {why}"))


def _complete(
    llm: Any, prompt: str, timeout: float, me: ActorHandle, kind: str, death_id: int, goal: str
) -> None:
    """Worker thread: one structured ask, its reply or error told back to the coach."""
    about = {"kind": kind, "backend": llm.name, "death_id": death_id, "goal": goal}
    try:
        reply = llm.complete(prompt, timeout=timeout)
    except LlmUnavailable as exc:
        done = _Replied(**about, error=str(exc), unavailable=True)
    except LlmError as exc:
        done = _Replied(**about, error=str(exc))
    except Exception as exc:  # a bug in a back end must still end the ask, not the thread silently
        logger.exception("%s %s call broke", llm.name, kind)
        done = _Replied(**about, error=repr(exc))
    else:
        done = _Replied(**about, reply=reply)
    _tell(me, done)


def _tell(handle: ActorHandle, message: Any) -> None:
    """Tell from a worker thread; a coach stopped for good just misses it."""
    try:
        handle.tell(message)
    except SupervisionError as exc:
        logger.debug("coach gone, dropped %s: %s", type(message).__name__, exc)
