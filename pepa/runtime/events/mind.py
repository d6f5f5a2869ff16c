"""Events of the bot's mind: lessons, advice, the coach, goals and plans
(see :mod:`pepa.runtime.events`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "AdviceApplied",
    "DeathAnalysed",
    "DeathAnalysisRequested",
    "DraftPlan",
    "GoalSet",
    "LessonLearned",
    "MilestoneReached",
    "PlanAsked",
    "PlanChanged",
    "PlanDrafted",
    "ReflectionWanted",
    "ReflexTicked",
    "RevisePlan",
    "TaskSuggested",
    "TaskWithdrawn",
    "TopicAsked",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class LessonLearned:
    """A lesson the reflex chain should consult from now on."""

    skill: str
    """The skill it is about."""
    hostile: str
    """The hostile it is about (empty: any)."""
    verdict: str
    """``avoid``, ``prefer`` or ``note``."""
    alternative: str
    """What to do instead (whitelisted), for ``avoid``."""
    confidence: float
    """0..1; advice acts at 0.6 and above."""
    signature: str = ""
    """The situation it is about (:meth:`pepa.policy.reflex.situation.Situation.signature`); empty:
    any situation with this hostile."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeathAnalysisRequested:
    """A death is stored and analysed offline; an LLM back end may add its own analysis."""

    death_id: int
    """The ``deaths`` row."""
    reason: str
    """The death message."""
    bundle: dict[str, Any]
    """The context bundle (snapshots, last skill, last hostile, hp, food, inventory)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeathAnalysed:
    """A validated LLM post-mortem, for the knowledge actor to store."""

    death_id: int
    """The ``deaths`` row it explains."""
    backend: str
    """``pi`` or ``openai``."""
    cause: str
    """One line."""
    analysis: str
    """A short paragraph."""
    lessons: tuple[dict[str, Any], ...] = ()
    """Validated lesson drafts: skill, situation, hostile, verdict, alternative, text,
    confidence."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskSuggested:
    """A task for the chain's task slot: the curriculum's next milestone, or an LLM's pick."""

    skill: str
    """A skill id from the registry (an LLM may only pick ones advice may dispatch)."""
    reason: str
    """Why, in one line."""
    source: str
    """``curriculum`` or the LLM back end that suggested it."""
    args: dict[str, Any] = field(default_factory=dict)
    """The skill's arguments (``{"item": "oak_log", "count": 4}``)."""
    milestone: str = ""
    """The ``plan.md`` milestone it works toward (the curriculum's tasks); kept in
    ``current-task.json`` so a restart resumes it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskWithdrawn:
    """The curriculum takes its task back (the milestone is reached, or the plan changed)."""

    skill: str
    """The skill of the task handed out."""
    milestone: str = ""
    """Its milestone."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RevisePlan:
    """Change ``plan.md`` (reflection's adjustments): a command to its one writer, the
    curriculum."""

    changes: tuple[str, ...]
    """Lines in the vocabulary of :func:`pepa.policy.learning.reflection.adjust_plan`."""
    source: str
    """Who asks (``reflection``)."""
    at: datetime
    """When they were decided (the plan's note carries the date)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReflectionWanted:
    """The knowledge actor's reflection is written: the coach may ask a model to read it and
    add plan lines (the LLM's turn at reflection; its budget kind ``reflection``)."""

    report: str
    """The offline reflection's markdown (what happened, what it found)."""
    at: datetime
    """When it was made (a plan change's heading carries the date)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AdviceApplied:
    """A lesson changed what the reflex chain dispatched; its outcome will grade the lesson."""

    skill: str
    """The skill the lesson is about (the one not run)."""
    hostile: str
    """The hostile it is about."""
    verdict: str
    """``avoid`` or ``prefer``."""
    instead: str
    """The skill run instead."""
    signature: str = ""
    """The situation of the lesson that was followed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ReflexTicked:
    """The reflex loop's timer ran once (every 0.5 s); the coach counts idle ticks in a row."""

    idle: bool
    """True when connected, not paused, and the chain chose nothing to do."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GoalSet:
    """An operator set the long-term goal (chat ``<bot> goal <text>`` or ``cmd:goal``)."""

    text: str
    """The goal, in the operator's words."""
    by: str
    """Who set it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanChanged:
    """The goal or the plan's progress changed (for the snapshot and the dashboard)."""

    goal: str
    """The goal (``goal.md``), empty when none."""
    done: int
    """Milestones checked."""
    total: int
    """Milestones in the plan."""
    next: str
    """The next milestone the curriculum will work, empty when none."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DraftPlan:
    """Draft a plan for a new goal: a command to the coach (the goal has an offline plan; an
    LLM back end may draft a better one, answered as :class:`PlanDrafted`)."""

    goal: str
    """The goal, as in ``goal.md``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanDrafted:
    """An LLM drafted a plan for a goal, every milestone checked against the skill registry."""

    goal: str
    """The goal it answers."""
    milestones: tuple[str, ...]
    """Milestone lines (``4 oak_log (gather.wood)``), in order."""
    source: str
    """The back end."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicAsked:
    """An operator asked what something is (chat ``<bot> what <thing>``)."""

    topic: str
    """A mob, block or item, in words."""
    by: str
    """Who asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanAsked:
    """An operator asked for the plan (chat ``<bot> plan``); the answer goes to chat."""

    by: str
    """Who asked."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MilestoneReached:
    """A milestone of ``plan.md`` was ticked off."""

    text: str
    """The milestone line after its check box."""
    item: str
    """What the bot now holds (or placed)."""
    done: int
    """Milestones done in the plan now."""
    total: int
    """Milestones in the plan."""
