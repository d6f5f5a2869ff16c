"""Reflection: "am I in a loop?" over recent deaths, skill failures and the diary. Pure.

The knowledge actor runs :func:`reflect` every 30 minutes (``PEPA_REFLECT_EVERY``)
over what happened since the last reflection (a :class:`Window`). It looks for
the loops that killed the original bot ~300 times in one night — the same
cause again and again, deaths piling up on one spot, a skill that keeps
failing — and answers with a markdown report (``reflections/<ts>.md``),
lessons to store, adjustments for ``plan.md`` and hints for proposals
(:func:`proposal` writes one). Nothing here touches a file, the database or
the bus: the actor writes the report and proposals, and sends the plan
adjustments to ``plan.md``'s one writer, the curriculum, which applies
:func:`adjust_plan` (it only returns the new text).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pepa.state.knowledge.records import LessonDraft

if TYPE_CHECKING:
    from pepa.state.knowledge.store import DeathRecord

__all__ = [
    "DeathFact",
    "Reflection",
    "Window",
    "adjust_plan",
    "death_facts",
    "proposal",
    "reflect",
]

SAME_CAUSE = 3
"""Deaths with one cause in a window that make a loop."""
SAME_PLACE = 3
"""Deaths within :data:`PLACE_RADIUS` of each other that make a death trap."""
PLACE_RADIUS = 16.0
FAILING_RUNS = 5
"""Runs of a skill before its failure rate means anything."""
FAILING_RATE = 0.5
"""A skill failing at least this often is worth a proposal."""

ARMED = (
    "- [ ] 1 stone_sword (craft.stone_sword)",
    "- [ ] 1 iron_chestplate (craft.iron_chestplate)",
)
"""Milestones a run of deaths to one mob adds to the plan, in the grammar the curriculum
works (``N item (skill)``): a weapon and armour before the next fight."""
FED = "- [ ] 5 food (food.hunt)"
"""The milestone a run of deaths by starvation adds: food in the bag."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeathFact:
    """One death as reflection sees it."""

    cause: str
    x: float | None = None
    z: float | None = None
    hostile: str = ""
    skill: str = ""


def death_facts(deaths: Iterable[tuple[DeathRecord, str]]) -> list[DeathFact]:
    """Stored deaths with their first post-mortem's cause, as reflection sees them."""
    return [
        DeathFact(
            cause=cause, x=d.position["x"] if d.position else None,
            z=d.position["z"] if d.position else None, hostile=d.last_hostile, skill=d.last_skill,
        )
        for d, cause in deaths
    ]  # fmt: skip


class Window:
    """What happened since the last reflection: its start (UTC) and the skill runs."""

    def __init__(self, start: datetime) -> None:
        self.start = start
        self.runs: dict[str, dict[str, float]] = {}
        """``{skill: {ok, failed}}``."""

    def ran(self, skill: str, ok: bool) -> None:
        """One skill run ended."""
        runs = self.runs.setdefault(skill, {"ok": 0, "failed": 0})
        runs["ok" if ok else "failed"] += 1

    def close(self, now: datetime) -> dict[str, dict[str, float]]:
        """The window's skill runs; the next window starts ``now``."""
        runs, self.runs, self.start = self.runs, {}, now
        return runs


@dataclass(frozen=True, slots=True, kw_only=True)
class Reflection:
    """What one reflection concluded."""

    in_loop: bool
    """True when the same thing keeps happening."""
    findings: tuple[str, ...]
    """One line per pattern found."""
    lessons: tuple[LessonDraft, ...] = ()
    """Lessons to store."""
    plan_changes: tuple[str, ...] = ()
    """Lines to add to ``plan.md`` (after a backup)."""
    proposal_hints: tuple[str, ...] = ()
    """Code changes worth proposing."""
    markdown: str = field(default="")
    """The report for ``reflections/<ts>.md``."""


def reflect(
    *,
    at: datetime,
    deaths: Sequence[DeathFact],
    skills: Mapping[str, Mapping[str, float]],
    diary: Sequence[str] = (),
) -> Reflection:
    """The reflection over one window: deaths, per-skill runs (``{ok, failed}``), diary lines."""
    findings: list[str] = []
    lessons: list[LessonDraft] = []
    plan: list[str] = []
    hints: list[str] = []
    for cause, count in Counter(d.cause for d in deaths).most_common():
        if count < SAME_CAUSE:
            break
        findings.append(f"died {count} times of the same cause: {cause}")
        hostiles = Counter(d.hostile for d in deaths if d.cause == cause and d.hostile)
        if hostiles:
            hostile = hostiles.most_common(1)[0][0]
            lessons.append(
                LessonDraft(
                    skill="combat.attack-nearest", situation="reflection: repeated deaths",
                    hostile=hostile, verdict="avoid", alternative="survive.flee",
                    text=f"{count} deaths to {hostile} in a row: stop fighting it, get away",
                    confidence=0.75,
                )
            )  # fmt: skip
            plan.extend(ARMED)  # a weapon and armour before the next fight with it
        elif "starv" in cause:
            plan.append(FED)
    trap = _death_trap(deaths)
    if trap is not None:
        x, z, count = trap
        findings.append(f"died {count} times within {PLACE_RADIUS:g} blocks of {x:.0f} {z:.0f}")
        plan.append(f"- [ ] keep away from {x:.0f} {z:.0f} (a death trap); move the base")
    for skill, runs in sorted(skills.items()):
        ok, failed = float(runs.get("ok", 0)), float(runs.get("failed", 0))
        total = ok + failed
        if total >= FAILING_RUNS and failed / total >= FAILING_RATE:
            findings.append(f"{skill} failed {failed:.0f} of {total:.0f} runs")
            rate = f"{failed / total:.0%}"
            hints.append(f"{skill}: fails {rate} of the time; look at its preconditions")
    repeated = [line for line, n in Counter(diary).items() if n >= SAME_CAUSE]
    for line in repeated:
        findings.append(f"the diary says the same thing again and again: {line}")
    in_loop = bool(findings)
    result = Reflection(
        in_loop=in_loop, findings=tuple(findings), lessons=tuple(lessons),
        plan_changes=tuple(plan), proposal_hints=tuple(hints),
    )  # fmt: skip
    return _with_markdown(result, at, len(deaths), skills)


def _death_trap(deaths: Sequence[DeathFact]) -> tuple[float, float, int] | None:
    placed = [(d.x, d.z) for d in deaths if d.x is not None and d.z is not None]
    best: tuple[float, float, int] | None = None
    for x, z in placed:
        near = [(a, b) for a, b in placed if math.hypot(a - x, b - z) <= PLACE_RADIUS]
        if len(near) >= SAME_PLACE and (best is None or len(near) > best[2]):
            best = (
                sum(a for a, _ in near) / len(near),
                sum(b for _, b in near) / len(near),
                len(near),
            )
    return best


def _with_markdown(
    result: Reflection, at: datetime, death_count: int, skills: Mapping[str, Mapping[str, float]]
) -> Reflection:
    lines = [f"# Reflection {at:%Y-%m-%d %H:%M} UTC", ""]
    verdict = "yes" if result.in_loop else "no"
    lines += [f"Am I in a loop? **{verdict}**", "", f"- deaths in this window: {death_count}"]
    runs = sum(int(r.get("ok", 0) + r.get("failed", 0)) for r in skills.values())
    lines += [f"- skill runs in this window: {runs}", ""]
    learned = tuple(f"{x.verdict} {x.skill} vs {x.hostile}: {x.text}" for x in result.lessons)
    sections = (
        ("Findings", result.findings),
        ("New lessons", learned),
        ("Plan adjustments", result.plan_changes),
        ("Proposal hints", result.proposal_hints),
    )  # fmt: skip
    for title, items in sections:
        if items:
            bullets = (i if i.startswith("- ") else f"- {i}" for i in items)
            lines += [f"## {title}", "", *bullets, ""]
    return Reflection(
        in_loop=result.in_loop, findings=result.findings, lessons=result.lessons,
        plan_changes=result.plan_changes, proposal_hints=result.proposal_hints,
        markdown="\n".join(lines),
    )  # fmt: skip


def proposal(hint: str, at: datetime, pending: Iterable[str]) -> tuple[str, str] | None:
    """The proposal for a hint (``skill: why``): its file name and markdown; None while one for
    the same skill is still pending."""
    skill = hint.split(":", 1)[0]
    slug = "reflection-" + re.sub(r"[^a-z0-9]+", "-", skill.lower()).strip("-")
    if any(existing.endswith(f"{slug}.md") for existing in pending):
        return None  # the same hint is already waiting for an operator
    markdown = (
        f"# Proposal: `{skill}` keeps failing (reflection)\n\n"
        f"Created {at:%Y-%m-%d %H:%M:%S} UTC by the reflection loop.\n\n"
        f"## Finding\n\n{hint}\n\n## Suggested work\n\n"
        f"Find why `{skill}` fails so often, change the skill or its preconditions, "
        "with a test on the test server that reproduces it.\n"
    )
    return f"{at:%Y%m%d-%H%M%S}-{slug}.md", markdown


def adjust_plan(plan: str, changes: Sequence[str], at: datetime) -> str:
    """``plan.md`` with the adjustments appended under a dated heading (lines already there are
    not repeated)."""
    new = [line for line in changes if line not in plan]
    if not new:
        return plan
    head = plan.rstrip("\n") + "\n\n" if plan.strip() else "# Plan\n\n"
    return head + f"## Adjusted by reflection {at:%Y-%m-%d %H:%M} UTC\n\n" + "\n".join(new) + "\n"
