"""Failure tracking and skill metrics. Pure: callers pass ``now``.

The same labelled action failing ``threshold`` times in a row yields one
:class:`ProposalDraft` (then nothing for that label for ``cooldown`` seconds);
the knowledge actor writes it to ``proposals/`` for an operator to review.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime

__all__ = ["FailureTracker", "ProposalDraft", "SkillMetrics"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ProposalDraft:
    """A self-improvement proposal, ready to be written as markdown."""

    label: str
    """The failing action (``nav.goto alice``)."""
    failures: tuple[str, ...]
    """The last failure details, oldest first."""
    created: float
    """Unix time of the draft."""

    @property
    def slug(self) -> str:
        """File-name-safe form of the label."""
        return re.sub(r"[^a-z0-9]+", "-", self.label.lower()).strip("-")[:60] or "action"

    @property
    def file_name(self) -> str:
        """``YYYYmmdd-HHMMSS-<slug>.md``: sorts by time."""
        return f"{self._at:%Y%m%d-%H%M%S}-{self.slug}.md"

    @property
    def _at(self) -> datetime:
        return datetime.fromtimestamp(self.created, UTC)

    def markdown(self) -> str:
        """The proposal as an operator reads it."""
        details = "\n".join(f"{n}. {d}" for n, d in enumerate(self.failures, 1))
        return (
            f"# Proposal: `{self.label}` keeps failing\n\n"
            f"Created {self._at:%Y-%m-%d %H:%M:%S UTC} "
            f"after {len(self.failures)} failures in a row.\n\n"
            f"## Failures\n\n{details}\n\n"
            "## Suggested work\n\n"
            f"Find why `{self.label}` fails this way and change the skill or the reflex that "
            "dispatches it, with a test that reproduces the failure on the test server.\n\n"
            "Approve with `y` in the dashboard or `cmd:proposal`; then "
            "`pepa propose apply <file>`.\n"
        )


@dataclass(slots=True, kw_only=True)
class FailureTracker:
    """Counts consecutive failures per label."""

    threshold: int = 3
    """Failures in a row that make a proposal."""
    cooldown: float = 1800.0
    """Seconds before the same label may make another proposal."""
    _runs: dict[str, deque[str]] = field(default_factory=dict)
    _last_proposal: dict[str, float] = field(default_factory=dict)

    def record(self, label: str, ok: bool, detail: str, now: float) -> ProposalDraft | None:
        """Record one outcome; a draft when ``label`` just failed ``threshold`` times in a row."""
        if ok:
            self._runs.pop(label, None)
            return None
        run = self._runs.setdefault(label, deque(maxlen=self.threshold))
        run.append(detail or "no detail")
        if len(run) < self.threshold:
            return None
        if now - self._last_proposal.get(label, -self.cooldown) < self.cooldown:
            return None
        self._last_proposal[label] = now
        draft = ProposalDraft(label=label, failures=tuple(run), created=now)
        run.clear()
        return draft


@dataclass(slots=True)
class _Stat:
    ok: int = 0
    failed: int = 0
    total_seconds: float = 0.0


@dataclass(slots=True)
class SkillMetrics:
    """Successes, failures and time spent per skill."""

    _stats: dict[str, _Stat] = field(default_factory=dict)

    def record(self, skill: str, ok: bool, seconds: float) -> None:
        """One finished run of ``skill``."""
        stat = self._stats.setdefault(skill, _Stat())
        if ok:
            stat.ok += 1
        else:
            stat.failed += 1
        stat.total_seconds += max(0.0, seconds)

    def as_dict(self) -> dict[str, dict[str, float]]:
        """``{skill: {ok, failed, mean_seconds}}`` for snapshots and the knowledge base."""
        return {
            name: {
                "ok": s.ok,
                "failed": s.failed,
                "mean_seconds": round(s.total_seconds / max(1, s.ok + s.failed), 2),
            }
            for name, s in sorted(self._stats.items())
        }
