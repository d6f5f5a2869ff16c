"""The coach's decisions, pure: when to ask, whether an ask may start, what a reply becomes.

The coach actor (:mod:`pepa.actors.coach`) receives events, asks these objects
and sends what they return; nothing here reads a clock, starts a thread or
touches the bus:

- :class:`IdleStreak` counts idle reflex ticks in a row: every
  :data:`IDLE_TICKS`-th of a streak earns one next-action ask (not while the
  bot is known to be out of the world);
- :class:`AskGate` says whether a structured ask may start: a model to ask,
  no other ask running, and the shared :class:`~pepa.llm.budget.LlmBudget`
  allows it (``now`` is wall-clock seconds, as the budget keeps them). The
  budget's per-kind cooldown is the pacing window of idle suggestions;
- :func:`judge` turns a raw reply into the event to publish, or a
  :class:`Rejected` saying why not; :func:`failure` is the one log line and
  the one :class:`~pepa.runtime.events.ErrorRaised` text of a failed ask.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime

import skills
from pepa.llm.budget import LlmBudget
from pepa.policy.coach.validate import (
    ReplyRejected,
    SkillCatalog,
    validate_next_action,
    validate_postmortem,
)
from pepa.policy.curriculum.plan import validate_plan
from pepa.runtime.events import DeathAnalysed, PlanDrafted, RevisePlan, TaskSuggested
from pepa.state.plans import actionable_lines
from pepa.world.view import WorldView

__all__ = [
    "IDLE_TICKS",
    "Ask",
    "AskGate",
    "Failure",
    "IdleStreak",
    "Outcome",
    "Refusal",
    "Rejected",
    "failure",
    "judge",
    "plan_skills",
]

IDLE_TICKS = 20
"""Idle reflex ticks in a row before the coach asks for a next action."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Ask:
    """What one structured ask is for."""

    kind: str
    """``analysis``, ``escalation`` or ``plan`` (a kind of :data:`pepa.llm.budget.KINDS`)."""
    death_id: int = 0
    """The death explained (analysis only)."""
    goal: str = ""
    """The goal planned for (plan only)."""
    deaths: int = 1
    """Deaths of the same cause the post-mortem covers (analysis only; see
    :mod:`pepa.policy.coach.postmortems`)."""
    at: datetime | None = None
    """When the reflection read was made (reflection only)."""

    @property
    def subject(self) -> str:
        """What it is about, for "no LLM analysis of death 3" lines."""
        if self.kind == "analysis":
            alike = f" (and {self.deaths - 1} alike)" if self.deaths > 1 else ""
            return f"death {self.death_id}{alike}"
        if self.kind == "plan":
            return f"goal {self.goal!r}"
        if self.kind == "reflection":
            return f"the reflection of {self.at:%H:%M}" if self.at else "a reflection"
        return "a next action"

    @property
    def title(self) -> str:
        """What it asks for, for "pi post-mortem of death 3: …" lines."""
        if self.kind == "analysis":
            return f"post-mortem of death {self.death_id}"
        if self.kind == "plan":
            return f"plan for {self.goal!r}"
        if self.kind == "reflection":
            return f"reading of {self.subject}"
        return "next action"


class IdleStreak:
    """Idle reflex ticks in a row; the ``ticks``-th of a streak earns one ask, then it restarts."""

    def __init__(self, ticks: int = IDLE_TICKS) -> None:
        self.ticks = ticks
        self.streak = 0

    def tick(self, idle: bool, view: WorldView | None) -> bool:
        """Count one reflex tick; True when a next action should be asked now.

        ``view`` is the latest world view (None before the first): a bot known
        to be out of the world is not worth a suggestion; the streak still
        restarts, so the next try waits a whole streak.
        """
        if not idle:
            self.streak = 0
            return False
        self.streak += 1
        if self.streak < self.ticks:
            return False
        self.streak = 0  # one try per streak; the gate decides whether it runs
        return view is None or view.connected


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """Why a structured ask does not start."""

    why: str
    quiet: bool = False
    """A choice, not news (no model configured): logged at debug only."""


class AskGate:
    """One structured ask at a time, only with a model, only within the budget."""

    def __init__(self, budget: LlmBudget, *, offline: bool) -> None:
        self.budget = budget
        self.offline = offline
        self.busy = False
        """An ask is running (its reply not yet handled)."""

    def check(self, kind: str, now: float) -> Refusal | None:
        """Why a ``kind`` ask would not start at wall time ``now`` (None: it would). Spends none."""
        if self.offline:
            return Refusal(why="offline back end", quiet=True)
        if self.busy:
            return Refusal(why="another ask is running")
        refusal = self.budget.refusal(kind, now)
        return None if refusal is None else Refusal(why=refusal)

    def admit(self, ask: Ask, now: float) -> Refusal | None:
        """None when ``ask`` may start at wall time ``now`` (then it is counted and running)."""
        refusal = self.check(ask.kind, now)
        if refusal is not None:
            return refusal
        self.budget.spend(ask.kind, now)
        self.busy = True
        return None

    def finished(self) -> None:
        """The running ask's reply (or failure) was handled: the next may start."""
        self.busy = False


Outcome = DeathAnalysed | TaskSuggested | PlanDrafted | RevisePlan
"""What a good reply becomes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejected:
    """A reply that is not published: why, and how it began (empty when not shown)."""

    why: str
    excerpt: str = ""


def plan_skills() -> frozenset[str]:
    """Skill ids a plan's milestone may name: the registry's, and ``craft.*`` style families."""
    return frozenset(skills.REGISTRY) | {f"{prefix}.*" for prefix in skills.FAMILIES}


def judge(
    ask: Ask, reply: str, *, backend: str, catalog: SkillCatalog, known: Collection[str]
) -> Outcome | Rejected:
    """The event a raw ``reply`` to ``ask`` becomes, validated; or why it is rejected.

    ``known`` is what a plan may name (:func:`plan_skills`): only milestones with
    a known skill survive, and a plan with none is rejected.
    """
    try:
        if ask.kind == "analysis":
            post = validate_postmortem(reply, catalog)
            return DeathAnalysed(
                death_id=ask.death_id,
                backend=backend,
                cause=post.cause,
                analysis=post.analysis,
                lessons=tuple(lesson.as_dict() for lesson in post.lessons),
            )
        if ask.kind == "reflection":
            return _reflection(ask, reply, backend, known)
        if ask.kind == "plan":
            lines = [line.strip() for line in reply.splitlines() if line.strip()]
            try:
                plan = validate_plan(lines, known)
            except ValueError as exc:
                return Rejected(why=f"reply rejected: {exc}", excerpt=reply[:200])
            milestones = tuple(m.text for m in plan)
            return PlanDrafted(goal=ask.goal, milestones=milestones, source=backend)
        action = validate_next_action(reply, catalog)
    except ReplyRejected as exc:
        return Rejected(why=f"reply rejected: {exc.reason}", excerpt=exc.excerpt)
    return TaskSuggested(skill=action.skill, reason=action.reason, source=backend)


def _reflection(ask: Ask, reply: str, backend: str, known: Collection[str]) -> Outcome | Rejected:
    """A model's reading of a reflection: plan lines to add (``NONE``: nothing to add), each in
    the plan grammar with a known skill, at most :data:`REFLECTION_LINES`."""
    at = ask.at or datetime.now(UTC)
    lines = [line.strip() for line in reply.splitlines() if line.strip()]
    if lines and all(line.upper().startswith("NONE") for line in lines):  # "None needed."
        return RevisePlan(changes=(), source=backend, at=at)
    milestones = actionable_lines(lines)  # prose around them is left out, not counted
    if len(milestones) > REFLECTION_LINES:
        return Rejected(why=f"reply rejected: {len(milestones)} milestones, "
                            f"{REFLECTION_LINES} at most", excerpt=reply[:200])  # fmt: skip
    try:
        plan = validate_plan([m.text for m in milestones], known)
    except ValueError as exc:
        return Rejected(why=f"reply rejected: {exc}", excerpt=reply[:200])
    changes = tuple(f"- [ ] {m.text}" for m in plan)
    return RevisePlan(changes=changes, source=backend, at=at)


REFLECTION_LINES = 5
"""Plan lines a model's reading of a reflection may add at most."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """How a failed ask is told: one log line (at ``level``) and one error event's text."""

    level: int
    line: str
    error: str


def failure(
    ask: Ask, *, backend: str, why: str, excerpt: str = "", unavailable: bool = False
) -> Failure:
    """The log line and error text of an ask that gave nothing to publish."""
    what = ask.title
    if excerpt:
        level, line = logging.WARNING, f"{backend} {what} {why}; reply began {excerpt!r}"
    elif unavailable:  # said once where it was found; not again for every ask
        level, line = logging.INFO, f"{backend} {what} not asked: {why}"
    else:
        level, line = logging.WARNING, f"{backend} {what} failed: {why}"
    return Failure(level=level, line=line, error=f"{backend} {what}: {why}")
