"""Which milestone of ``plan.md`` is out to the reflex chain, and what to do next. Pure.

The curriculum hands one milestone at a time to the chain's task slot.
:class:`Assigner` decides which: the first unchecked actionable milestone
whose skill exists and that is not resting. A milestone whose skill fails
:data:`FAILURES_TO_REST` times in a row rests for :data:`RETRY_AFTER`
seconds. It notices a task lost while the chain idles (:data:`LOST_AFTER_TICKS`
idle ticks with a task out: hand it out again), says what a finished skill
means (milestones to tick, a milestone to rest, a place to remember) and when
a task out must be taken back (its milestone reached, the plan replaced).

It takes the plan, the world's state and ``now``; it reads no file, keeps no
clock and publishes nothing: the curriculum actor does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pepa.policy.reflex.food import FOOD_PRIORITY
from pepa.state.plans import Milestone, rename_skill

__all__ = [
    "FAILURES_TO_REST",
    "FOODS",
    "LOST_AFTER_TICKS",
    "PLACES",
    "RETRY_AFTER",
    "SETTLE",
    "WAITING",
    "WAIT_REST",
    "Assigner",
    "Outcome",
    "Task",
    "food_in",
]

RETRY_AFTER = 300.0
"""Seconds a milestone rests after failing :data:`FAILURES_TO_REST` times in a row."""
WAITING = "waiting"
"""How a skill's failure begins that is no failure but time to pass (a field not ripe yet):
its milestone rests :data:`WAIT_REST` at once, and no failure is counted."""
WAIT_REST = 60.0
"""Seconds a waiting milestone rests (the others go out meanwhile)."""
FAILURES_TO_REST = 3
"""Failures in a row that put a milestone to rest."""
LOST_AFTER_TICKS = 6
"""Idle reflex ticks (0.5 s each) with a task handed out before it is handed out again."""
SETTLE = 2.0
"""Seconds to wait after a task ends for a world view that shows its effect."""
FOODS = frozenset(FOOD_PRIORITY)
"""What counts toward a ``food`` milestone."""
PLACES: Mapping[str, str] = {
    "base.place-chest": "chest",
    "survive.sleep": "bed",
    "craft.crafting_table": "base",
    "base.build-home": "home",
}
"""Skills whose success names the place where the bot stands (``locations.json``)."""


def food_in(items: Mapping[str, int]) -> int:
    """Food items held, for a ``food`` milestone."""
    return sum(n for name, n in items.items() if name in FOODS)


def _same(name: str) -> str:
    return name


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """A milestone handed out: what ``TaskSuggested`` carries and ``current-task.json`` keeps."""

    skill: str
    milestone: str = ""
    """The milestone's text (empty in a record from before milestones were named)."""
    item: str = ""
    count: int = 0
    at: tuple[int, int, int] | None = None
    """Where the task works: the chest a ``base.fetch`` or ``base.store`` opens, the home a
    ``farm.tend``'s field lies by; None for the others."""

    @classmethod
    def of(cls, m: Milestone) -> Task:
        """The task working toward milestone ``m``."""
        return cls(skill=m.skill, milestone=m.text, item=m.item, count=m.count)

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> Task | None:
        """The milestone a ``current-task.json`` record holds; None for none (or an order)."""
        if record is None or record.get("kind") != "milestone" or not record.get("skill"):
            return None
        args = record.get("args")
        args = args if isinstance(args, Mapping) else {}
        count = args.get("count")
        return cls(
            skill=str(record["skill"]), milestone=str(record.get("milestone") or ""),
            item=str(args.get("item") or ""), count=count if isinstance(count, int) else 0,
        )  # fmt: skip

    def args(self) -> dict[str, Any]:
        """The skill's arguments (``{"item": "oak_log", "count": 4}``)."""
        args: dict[str, Any] = {}
        if self.item:
            args["item"] = self.item
        if self.count:
            args["count"] = self.count
        if self.at is not None:
            args.update(zip("xyz", self.at, strict=True))
        return args


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What a finished skill means for the plan."""

    succeeded: tuple[str, ...] = ()
    """Skill ids to tick the plan with (the finished one, when it succeeded)."""
    ended: Task | None = None
    """The task handed out that this run ended (it is out no more)."""
    rested: str = ""
    """The milestone put to rest: it failed :data:`FAILURES_TO_REST` times in a row."""
    place: str = ""
    """A place to name where the bot stands (``chest`` after a chest is placed)."""


class Assigner:
    """The milestone out, the failures in a row, the resting ones and the idle watch.

    ``known`` says whether a skill exists (a hand-written milestone may name
    one that does not); ``canonical`` maps an old skill id to its current one,
    so a task recorded under an old id still matches the skill that finishes.
    """

    def __init__(
        self, *, known: Callable[[str], bool], canonical: Callable[[str], str] = _same
    ) -> None:
        self.known = known
        self.canonical = canonical
        self.assigned: Task | None = None
        """The task out to the chain's task slot, or None."""
        self.failures: dict[str, int] = {}
        """Failures in a row, by milestone."""
        self.resting: dict[str, float] = {}
        """Milestones resting, with the time they may be handed out again."""
        self.idle_ticks = 0
        self.settle_until = 0.0

    def resume(self, task: Task) -> None:
        """``task`` is out already (read back after a restart): nothing to hand out."""
        self.assigned = task
        self.idle_ticks = 0

    def observed(self) -> None:
        """A fresh world view came: a task just ended shows its effect in it."""
        self.settle_until = 0.0

    def ready(self, *, connected: bool, now: float) -> bool:
        """Whether a milestone may be handed out now (none out, in the world, settled)."""
        return self.assigned is None and connected and now >= self.settle_until

    def next(
        self, plan: Sequence[Milestone], *, connected: bool, now: float,
        first: Callable[[Milestone], bool] | None = None,
    ) -> Task | None:  # fmt: skip
        """The task to hand out now (recorded as out), or None. ``first``: milestones it
        accepts go before the others (a lesson: armour first), each lot in the plan's order."""
        if not self.ready(connected=connected, now=now):
            return None
        open_ = self.workable(plan, now)
        if first is not None:
            open_.sort(key=lambda m: not first(m))  # stable: the plan's order within each lot
        if not open_:
            return None
        self.assigned = Task.of(open_[0])
        self.idle_ticks = 0
        return self.assigned

    def replace(self, task: Task) -> Task:
        """Hand ``task`` out in place of the one :meth:`next` chose (a fetch for it first)."""
        self.assigned = task
        return task

    def workable(self, plan: Sequence[Milestone], now: float) -> list[Milestone]:
        """The milestones that may go out now, in the plan's order: open, actionable, not
        resting, and with a skill that exists (a hand-written one may name one that does not)."""
        self.resting = {key: until for key, until in self.resting.items() if until > now}
        return [
            m for m in plan
            if not m.done and m.actionable and m.text not in self.resting and self.known(m.skill)
        ]  # fmt: skip

    def watch(self, idle: bool) -> Task | None:
        """One reflex tick: the task to hand out again when the chain idles with it out.

        A restart or a dropped task leaves the chain idle while the curriculum
        thinks a task is out; :data:`LOST_AFTER_TICKS` idle ticks in a row say so.
        """
        self.idle_ticks = self.idle_ticks + 1 if idle and self.assigned is not None else 0
        if self.idle_ticks < LOST_AFTER_TICKS:
            return None
        self.idle_ticks = 0
        return self.assigned

    def finished(
        self, skill: str, *, ok: bool, now: float, step: bool = False, detail: str = ""
    ) -> Outcome:
        """A skill ended; what it means (any skill: a success may tick a milestone, unless it
        was only a ``step`` on the skill's way: it ends the task out, which comes again; a
        failure whose ``detail`` begins with :data:`WAITING` rests its milestone at once)."""
        current = self.canonical(skill)
        succeeded = (current,) if ok and not step else ()
        place = PLACES.get(current, "") if ok and not step else ""
        task = self.assigned
        if task is None or current != self.canonical(task.skill):
            return Outcome(succeeded=succeeded, place=place)
        self.assigned = None
        self.idle_ticks = 0
        self.settle_until = now + SETTLE
        key = self.key(task)
        if ok:
            self.failures.pop(key, None)
            return Outcome(succeeded=succeeded, ended=task, place=place)
        if detail.startswith(WAITING):
            self.resting[key] = now + WAIT_REST
            return Outcome(ended=task)
        self.failures[key] = self.failures.get(key, 0) + 1
        if self.failures[key] < FAILURES_TO_REST:
            return Outcome(ended=task)
        del self.failures[key]
        self.resting[key] = now + RETRY_AFTER
        return Outcome(ended=task, rested=key)

    def reached(self, milestones: Iterable[Milestone]) -> Task | None:
        """Milestones just ticked: the task out for one of them, taken back (else None)."""
        task = self.assigned
        if task is None or self.key(task) not in {m.text for m in milestones}:
            return None
        return self.withdraw()

    def withdraw(self) -> Task | None:
        """Take the task out back (a new goal or plan); the one it was, or None."""
        task, self.assigned = self.assigned, None
        self.idle_ticks = 0
        return task

    def key(self, task: Task) -> str:
        """The milestone a task works toward, as the current plan spells it."""
        return rename_skill(task.milestone, self.canonical) or task.skill
