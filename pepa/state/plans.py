"""The grammar of ``plan.md``: check-box milestones that name what to hold and the skill that
gets it, and goals on one line. Pure.

::

    - [ ] 4 oak_log (gather.wood)
    - [x] 1 wooden_pickaxe (craft.wooden_pickaxe)

Lines without a skill in brackets are the operator's own notes: kept as they are, never worked
on. The memory files check every ``plan.md`` line against :func:`plan_line_problem` when they
read it; the curriculum's policy (:mod:`pepa.policy.curriculum.plan`) decides what to put in a
plan and when a milestone is met.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "ACTIONABLE",
    "BOX",
    "MAX_COUNT",
    "MAX_GOAL",
    "MAX_NAME",
    "Milestone",
    "actionable_lines",
    "clean_goal",
    "milestone",
    "parse_plan",
    "plan_line_problem",
    "rename_skill",
    "rename_skills",
    "render_plan",
]

BOX = re.compile(r"^(\s*[-*] \[)([ xX])(\]\s+)(.*?)\s*$")
"""A check-box line: its box up to the mark, the mark, the rest of the box, the text."""
ACTIONABLE = re.compile(r"^(?:(\d+)\s+)?([a-z0-9_]+)\s*\(([a-z0-9_.\-]+)\)")
"""A milestone's text: an optional count, the item, the skill in brackets."""
MAX_COUNT = 2304
"""Items a milestone may ask for: a full inventory (36 slots of 64)."""

MAX_NAME = 64
"""Characters of an item or skill name in a milestone."""

MAX_GOAL = 300
"""Characters of a goal (``goal.md``, the ``Goal:`` line of ``plan.md``)."""

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
"""Control characters, line and paragraph separators, lone surrogates: never in a goal."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Milestone:
    """One check-box line of the plan."""

    done: bool
    text: str
    """The line after the check box."""
    item: str = ""
    count: int = 0
    skill: str = ""
    """Empty: an operator's note, not something the curriculum can work on."""

    @property
    def actionable(self) -> bool:
        """Whether the curriculum can work on it."""
        return bool(self.skill)

    def line(self) -> str:
        """The markdown line."""
        return f"- [{'x' if self.done else ' '}] {self.text}"


def milestone(item: str, count: int, skill: str) -> Milestone:
    """An actionable milestone in the canonical form."""
    return Milestone(
        done=False, text=f"{count} {item} ({skill})", item=item, count=count, skill=skill
    )


def parse_plan(text: str) -> list[Milestone]:
    """Every check-box line of ``plan.md``, in order."""
    found = []
    for raw in text.splitlines():
        box = BOX.match(raw)
        if box is None:
            continue
        body = box.group(4)
        action = ACTIONABLE.match(body)
        if action is None:
            found.append(Milestone(done=box.group(2) != " ", text=body))
            continue
        found.append(
            Milestone(
                done=box.group(2) != " ", text=body, item=action.group(2),
                count=int(action.group(1) or 1), skill=action.group(3),
            )
        )  # fmt: skip
    return found


def plan_line_problem(line: str) -> str | None:
    """Why one ``plan.md`` line breaks the plan grammar, or None (notes are free text).

    A milestone asks for 1 to :data:`MAX_COUNT` items and names an item and a
    skill of at most :data:`MAX_NAME` characters each.
    """
    box = BOX.match(line)
    action = ACTIONABLE.match(box.group(4)) if box is not None else None
    if action is None:
        return None
    count, item, skill = action.groups()
    if count is not None and not (len(count) <= 6 and 1 <= int(count) <= MAX_COUNT):
        return f"milestone count must be between 1 and {MAX_COUNT}, got {count[:12]}"
    if len(item) > MAX_NAME or len(skill) > MAX_NAME:
        return f"milestone item and skill names must be at most {MAX_NAME} characters"
    return None


def clean_goal(text: str) -> str:
    """A goal as one line that ``goal.md`` and ``plan.md`` accept: at most :data:`MAX_GOAL`
    characters, no control characters (they become spaces), runs of white space as one."""
    return " ".join(_UNSAFE.sub(" ", text).split())[:MAX_GOAL].rstrip()


def render_plan(goal: str, milestones: Sequence[Milestone]) -> str:
    """A fresh ``plan.md`` for a goal (its ``Goal:`` line cleaned by :func:`clean_goal`)."""
    lines = ["# Plan", "", f"Goal: {clean_goal(goal) or 'survive'}", ""]
    lines += [m.line() for m in milestones]
    return "\n".join(lines) + "\n"


def rename_skills(text: str, canonical: Callable[[str], str]) -> str:
    """``plan.md`` with each milestone's skill under its current id.

    ``canonical`` maps an old id to its new one (``place-chest`` →
    ``base.place-chest``, see ``skills.canonical``). Only the skill in brackets
    of a check-box milestone changes; every other byte is kept, so an
    operator's notes and edits survive and a plan with nothing to rename comes
    back unchanged.
    """
    out = []
    for raw in text.splitlines(keepends=True):
        box = BOX.match(raw.rstrip("\r\n"))
        if box is not None:
            raw = raw[: box.start(4)] + rename_skill(raw[box.start(4) :], canonical)
        out.append(raw)
    return "".join(out)


def rename_skill(text: str, canonical: Callable[[str], str]) -> str:
    """One milestone's text (the line after its check box) with its skill's current id."""
    action = ACTIONABLE.match(text)
    if action is None:
        return text
    new = canonical(action.group(3))
    if new == action.group(3):
        return text
    return text[: action.start(3)] + new + text[action.end(3) :]


def actionable_lines(lines: Iterable[str]) -> list[Milestone]:
    """The actionable milestones of plain or check-box lines, in the canonical form.

    Only lines within the plan grammar count: each result renders to a line
    :func:`plan_line_problem` accepts.
    """
    found: list[Milestone] = []
    for line in (part for text in lines for part in text.splitlines()):
        boxed = line if line.lstrip().startswith(("-", "*")) else f"- [ ] {line}"
        if plan_line_problem(boxed) is None:
            found += [
                milestone(m.item, m.count, m.skill) for m in parse_plan(boxed) if m.actionable
            ]
    return found
