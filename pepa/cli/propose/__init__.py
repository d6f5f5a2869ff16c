"""``pepa propose``: list the self-improvement proposals, apply an approved one on a branch of
its own (:mod:`.apply`) with git (:mod:`.git`) under the rules of :mod:`.rules`."""

from __future__ import annotations

from pepa.cli.propose.apply import apply_proposal, run_command
from pepa.cli.propose.git import Git
from pepa.cli.propose.rules import (
    NEW_FILE_DIRS,
    SECRET_NAMES,
    ApplyResult,
    CommitPlan,
    ProposalInfo,
    ProposeError,
    age_text,
    branch_name,
    build_prompt,
    command_env,
    command_words,
    conventions,
    find_approved,
    format_list,
    list_proposals,
    outcome_of,
    plan_commit,
    proposal_slug,
    proposal_title,
    secret_reason,
    stash_name,
)

__all__ = [
    "NEW_FILE_DIRS",
    "SECRET_NAMES",
    "ApplyResult",
    "CommitPlan",
    "Git",
    "ProposalInfo",
    "ProposeError",
    "age_text",
    "apply_proposal",
    "branch_name",
    "build_prompt",
    "command_env",
    "command_words",
    "conventions",
    "find_approved",
    "format_list",
    "list_proposals",
    "outcome_of",
    "plan_commit",
    "proposal_slug",
    "proposal_title",
    "run_command",
    "secret_reason",
    "stash_name",
]
