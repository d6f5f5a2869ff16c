"""Survival decisions: the reflex chain, failure tracking, progress watching. All pure."""

from __future__ import annotations

from pepa.survival.chain import FOOD_PRIORITY, PRIORITY, Decision, Memory, decide
from pepa.survival.failures import FailureTracker, ProposalDraft, SkillMetrics
from pepa.survival.progress import ProgressWatch, StuckVerdict
from pepa.survival.taskslot import TaskSlot

__all__ = [
    "FOOD_PRIORITY",
    "PRIORITY",
    "Decision",
    "FailureTracker",
    "Memory",
    "ProgressWatch",
    "ProposalDraft",
    "SkillMetrics",
    "StuckVerdict",
    "TaskSlot",
    "decide",
]
