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
  :func:`pepa.policy.coach.validate.validate_postmortem` becomes :class:`DeathAnalysed`.
  Every request waits in a :class:`pepa.policy.coach.postmortems.PostMortemQueue`
  (bounded, alike deaths merged, oldest cause first) until the gate admits
  it: the queue drains when a request arrives, when a reply is handled and
  every :data:`DRAIN_EVERY` seconds, so the deaths of a spiral are explained
  as the budget frees up instead of being dropped. Not with ``offline``.
- :data:`IDLE_TICKS` idle :class:`ReflexTicked` in a row ask the model for a
  next action among the skills the coach may dispatch; a valid reply becomes
  :class:`TaskSuggested`. ``DraftPlan`` asks for a plan; milestones checked
  against the skill registry become :class:`PlanDrafted`.

The decisions are plain objects of :mod:`pepa.policy.coach.coaching` (the idle streak,
the gate over the shared :class:`pepa.llm.budget.LlmBudget` kept in
``llm-budget.json``, what a reply becomes); this actor receives, asks them and
sends. Structured asks run on a worker thread (the ``worker`` seam), never in
the actor's thread. The reply comes back as a message to the coach's stable
handle, carrying all it needs, so a coach restarted meanwhile finishes it.
Garbage, error text, failures and timeouts are logged once, published as
:class:`ErrorRaised`, and never published as lessons or tasks.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pepa.base.errors import SupervisionError
from pepa.base.threads import thread_name
from pepa.llm import Backend, LlmError, LlmSettings, LlmUnavailable, Running, make_backend
from pepa.llm.budget import load_budget, save_budget
from pepa.policy.coach.coaching import (
    IDLE_TICKS,
    REFLECTION_LINES,
    Ask,
    AskGate,
    IdleStreak,
    Outcome,
    Rejected,
    failure,
    judge,
    plan_skills,
)
from pepa.policy.coach.postmortems import PostMortemQueue
from pepa.policy.coach.prompts import (
    next_action_prompt,
    plan_prompt,
    postmortem_prompt,
    reflection_prompt,
)
from pepa.policy.coach.validate import SkillCatalog
from pepa.runtime import ActorHandle, SupervisedActor, SupervisionContext
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
from pepa.world.view import WorldView

__all__ = ["DRAIN_EVERY", "IDLE_TICKS", "QUESTION_TIMEOUT", "Coach", "Worker"]

logger = logging.getLogger(__name__)

QUESTION_TIMEOUT = 600.0
"""Seconds an operator's free question may stream."""
DRAIN_EVERY = 30.0
"""Seconds between two looks at the post-mortem queue (the budget frees up by the clock)."""

Worker = Callable[[Callable[[], None], str], None]
"""Runs one structured ask's job (blocking on the model) away from the actor: ``(job, name)``."""


def on_thread(job: Callable[[], None], name: str) -> None:
    """The default :data:`Worker`: a daemon thread per ask."""
    threading.Thread(target=job, daemon=True, name=thread_name(name)).start()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Finished:
    """The running free question ended."""

    code: int
    """Exit code (0: the answer is complete)."""
    duration_ms: int
    """Wall time."""


@dataclass(frozen=True, slots=True)
class _Drain:
    """Timer: ask the next queued post-mortem if the gate allows it now."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Replied:
    """A structured ask ended on its worker thread; any coach instance can finish it."""

    ask: Ask
    """What was asked."""
    backend: str
    """The back end that answered."""
    reply: str = ""
    """The raw reply, not yet validated."""
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
        backend: str | Backend = "offline",
        settings: LlmSettings | None = None,
        budget_path: Path | None = None,
        idle_ticks: int = IDLE_TICKS,
        worker: Worker = on_thread,
        drain_every: float = DRAIN_EVERY,
    ) -> None:
        """``backend``: a back end's name (``pi``, ``openai``, ``offline``) or a built one."""
        super().__init__(supervision=supervision)
        self.settings = settings or LlmSettings()
        self.llm = make_backend(backend, self.settings) if isinstance(backend, str) else backend
        self.catalog = SkillCatalog.from_registry()
        self.known = plan_skills()
        self.budget_path = budget_path
        self.gate = AskGate(load_budget(None), offline=self.llm.name == "offline")
        self.idle = IdleStreak(idle_ticks)
        self.worker = worker
        self.postmortems = PostMortemQueue()
        """Post-mortems the gate did not admit yet (lost with this instance; see docs/llm.md)."""
        self.drain_every = drain_every
        self.view: WorldView | None = None
        self.running: Running | None = None
        self._wall_offset = 0.0

    @property
    def backend(self) -> str:
        """The back end's name."""
        return self.llm.name

    def setup(self) -> None:
        for event_type in (
            AskLlm, DeathAnalysisRequested, ReflexTicked, WorldObserved, DraftPlan,
            ReflectionWanted,
        ):  # fmt: skip
            self.runtime.bus.subscribe(event_type, self.handle)
        self.gate.budget = load_budget(self.budget_path)
        # the budget keeps wall times (it outlives the process); between them, the runtime's clock
        self._wall_offset = time.time() - self.now()
        if not self.gate.offline:
            self.every(self.drain_every, _Drain())
        logger.debug("coach ready: back end %s", self.backend)

    def cleanup(self) -> None:
        if self.running is not None:
            self.running.cancel()
        # structured asks are not cancelled: their reply reaches the next instance

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(view=view):
                self.view = view
            case ReflexTicked(idle=idle):
                if self.idle.tick(idle, self.view):
                    prompt = next_action_prompt(self.view or WorldView(), self.catalog)
                    self._structured(Ask(kind="escalation"), prompt)
            case AskLlm(prompt=prompt):
                self._ask(prompt)
            case _Finished(code=code, duration_ms=duration_ms):
                self.running = None
                self.publish(LlmFinished(code=code, duration_ms=duration_ms))
            case DraftPlan(goal=goal):
                self._structured(Ask(kind="plan", goal=goal), plan_prompt(goal, self.catalog))
            case ReflectionWanted(report=report, at=at):
                prompt = reflection_prompt(report, self.catalog, REFLECTION_LINES)
                self._structured(Ask(kind="reflection", at=at), prompt)
            case DeathAnalysisRequested(death_id=death_id, reason=reason, bundle=bundle):
                self._postmortem_wanted(death_id, reason, bundle)
            case _Drain():
                self._drain()
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

    def _wall(self) -> float:
        """Wall-clock seconds, as the budget keeps them."""
        return self.now() + self._wall_offset

    def _structured(self, ask: Ask, prompt: str, now: float | None = None) -> None:
        """Ask on a worker if the back end is a model, nothing runs and the budget allows."""
        refusal = self.gate.admit(ask, self._wall() if now is None else now)
        if refusal is not None:
            level = logging.DEBUG if refusal.quiet else logging.INFO
            logger.log(level, "no LLM %s of %s: %s", ask.kind, ask.subject, refusal.why)
            return
        save_budget(self.budget_path, self.gate.budget)
        logger.info(
            "asking %s for %s of %s (%d chars)", self.backend, ask.kind, ask.subject, len(prompt)
        )
        llm, timeout, me = self.llm, self.settings.timeout, self.handle
        self.worker(lambda: _complete(llm, prompt, timeout, me, ask), f"pepa-coach-{ask.kind}")

    # -- post-mortems: queued, drained as the budget allows ------------------------------

    def _postmortem_wanted(self, death_id: int, reason: str, bundle: Any) -> None:
        """Queue the death, ask the oldest queued cause if the gate allows, say why one waits."""
        if self.gate.offline:  # the offline post-mortem already ran in the knowledge actor
            logger.debug("no LLM post-mortem of death %d: offline back end", death_id)
            return
        queue = self.postmortems
        offered = queue.offer(death_id, reason, bundle, self.now())
        if offered.full_news:
            logger.info(
                "post-mortem queue full (%d causes waiting): deaths of a queued kind wait no more,"
                " a new kind takes the place of a crowded one's newest",
                len(queue),
            )
        if offered.evicted is not None:
            gone = offered.evicted
            logger.debug(
                "post-mortem of death %d (%s, %d deaths) dropped for a new kind",
                gone.death_id, gone.describe(), gone.deaths,
            )  # fmt: skip
        self._drain()
        entry = offered.entry
        if offered.outcome == "known":
            logger.debug("post-mortem of death %d already queued", death_id)
        elif offered.outcome == "dropped" or entry is None:
            logger.debug("post-mortem of death %d not queued: the queue is full", death_id)
        elif death_id in queue:  # still waiting: say so, once per death
            refusal = self.gate.check("analysis", self._wall())
            why = refusal.why if refusal is not None else "another cause first"
            if offered.outcome == "merged":
                logger.info(
                    "post-mortem of death %d merged into death %d's (%s, %d deaths): %s",
                    death_id, entry.death_id, entry.describe(), entry.deaths, why,
                )  # fmt: skip
            else:
                logger.info(
                    "post-mortem of death %d (%s) queued, %d waiting: %s",
                    death_id, entry.describe(), len(queue), why,
                )  # fmt: skip

    def _drain(self) -> None:
        """Ask the oldest queued post-mortem if the gate would admit it now."""
        if not self.postmortems:
            return
        now = self._wall()
        refusal = self.gate.check("analysis", now)
        if refusal is not None:
            logger.debug("%d post-mortems wait: %s", len(self.postmortems), refusal.why)
            return
        entry = self.postmortems.pop()
        if entry is None:
            return
        prompt = postmortem_prompt(entry.reason, entry.bundle, self.catalog, deaths=entry.deaths)
        ask = Ask(kind="analysis", death_id=entry.death_id, deaths=entry.deaths)
        self._structured(ask, prompt, now)  # admitted: the same gate, the same time

    # -- replies ----------------------------------------------------------------------

    def _replied(self, done: _Replied) -> None:
        self.gate.finished()
        self._publish_reply(done)
        self._drain()  # the gate is free: the next post-mortem, if the budget allows

    def _publish_reply(self, done: _Replied) -> None:
        outcome: Outcome | Rejected
        if done.error:
            outcome = Rejected(why=done.error)
        else:
            outcome = judge(
                done.ask, done.reply, backend=done.backend, catalog=self.catalog, known=self.known
            )
        if isinstance(outcome, Rejected):
            told = failure(
                done.ask,
                backend=done.backend,
                why=outcome.why,
                excerpt=outcome.excerpt,
                unavailable=done.unavailable,
            )
            logger.log(told.level, "%s", told.line)
            self.publish(ErrorRaised(source="coach", text=told.error))
            return
        _log_outcome(done.backend, outcome)
        self.publish(outcome)


def _log_outcome(backend: str, outcome: Outcome) -> None:
    """One info line about a reply that passed."""
    match outcome:
        case DeathAnalysed(death_id=death_id, cause=cause, lessons=lessons):
            count = len(lessons)
            logger.info(
                "%s post-mortem of death %d: %s (%d lessons)", backend, death_id, cause, count
            )
        case PlanDrafted(goal=goal, milestones=milestones):
            logger.info("%s plans %d milestones for %r", backend, len(milestones), goal)
        case TaskSuggested(skill=skill, reason=reason):
            logger.info("%s suggests %s: %s", backend, skill, reason)
        case RevisePlan(changes=changes):
            added = "; ".join(line.removeprefix("- [ ] ") for line in changes) or "nothing"
            logger.info("%s read the reflection: adds %s", backend, added)


def _complete(llm: Backend, prompt: str, timeout: float, me: ActorHandle, ask: Ask) -> None:
    """Worker: one structured ask, its reply or error told back to the coach."""
    try:
        reply = llm.complete(prompt, timeout=timeout)
    except LlmUnavailable as exc:
        done = _Replied(ask=ask, backend=llm.name, error=str(exc), unavailable=True)
    except LlmError as exc:
        done = _Replied(ask=ask, backend=llm.name, error=str(exc))
    except Exception as exc:  # a bug in a back end must still end the ask, not the thread silently
        logger.exception("%s %s call broke", llm.name, ask.kind)
        done = _Replied(ask=ask, backend=llm.name, error=repr(exc))
    else:
        done = _Replied(ask=ask, backend=llm.name, reply=reply)
    _tell(me, done)


def _tell(handle: ActorHandle, message: Any) -> None:
    """Tell from a worker thread; a coach stopped for good just misses it."""
    try:
        handle.tell(message)
    except SupervisionError as exc:
        logger.debug("coach gone, dropped %s: %s", type(message).__name__, exc)
