"""Curriculum: works ``plan.md`` toward the goal, milestone by milestone.

On start it reads the memory files in the order of ``docs/memory.md``;
``current-task.json`` only to learn which milestone is out (the reflex chain's
task slot writes that file and resumes the task itself). It is the one writer
of ``plan.md``, ``goal.md`` and the diary (:class:`pepa.state.planbook.PlanBook`):
goals, LLM plans (``PlanDrafted``) and reflection's changes (``RevisePlan``)
all land here. It hands milestones to the task slot (``TaskSuggested``), takes
them back (``TaskWithdrawn``), ticks them off as the inventory shows them, and
keeps ``locations.json`` and ``inventory-log.jsonl``. Which milestone goes
out, and when, is :class:`pepa.policy.curriculum.assigner.Assigner`'s decision.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import skills
from pepa.base.errors import SupervisionError
from pepa.game.crafting import Recipes
from pepa.policy.curriculum.assigner import Assigner, Task, food_in
from pepa.policy.curriculum.plan import (
    DEFAULT_GOAL,
    derive_plan,
    describe_plan,
    goal_reply,
    is_gear,
    next_milestone,
    tick,
)
from pepa.policy.curriculum.storage import to_fetch, to_store
from pepa.policy.learning.reflection import adjust_plan
from pepa.policy.reflex.advice import Lessons
from pepa.runtime import SupervisedActor, SupervisionContext
from pepa.runtime.events import (
    ActionFinished,
    Connected,
    Died,
    DraftPlan,
    GoalSet,
    HomeKnown,
    LessonLearned,
    MilestoneReached,
    PlanAsked,
    PlanChanged,
    PlanDrafted,
    ReflexTicked,
    RevisePlan,
    SayInChat,
    SkillFinished,
    TaskSuggested,
    TaskWithdrawn,
    WorldObserved,
)
from pepa.runtime.events.queries import ActiveLessons
from pepa.state.memory import Locations, TaskFile
from pepa.state.planbook import PlanBook
from pepa.state.plans import (
    Milestone,
    actionable_lines,
    clean_goal,
    parse_plan,
    rename_skill,
    render_plan,
)
from pepa.state.storage import Storage, chest_key
from pepa.world.view import Vec3, WorldView

__all__ = ["DEFAULT_GOAL", "INVENTORY_LOG_EVERY", "PLACED", "Curriculum"]

PLACED = frozenset(("farm.tend",))
"""Skills that work by the home: their task carries its place (the field round water near it)."""

logger = logging.getLogger(__name__)

INVENTORY_LOG_EVERY = 300.0
"""Seconds between two inventory snapshots in ``inventory-log.jsonl`` (when it changed)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Assign:
    """Timer: hand out the next milestone if none is out."""


class Curriculum(SupervisedActor):
    """Works ``plan.md`` milestone by milestone and keeps the memory files."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        server_dir: Path,
        data_root: Path | None = None,
        tick: float = 1.0,
        enabled: bool = True,
        learning: bool = True,
    ) -> None:
        super().__init__(supervision=supervision)
        self.enabled = enabled
        """False: the memory files are kept, goals and plans answered, no task handed out."""
        self.learning = learning
        """False: lessons never change the order milestones go out in (the gauntlet's control)."""
        self.lessons = Lessons()
        """The lessons in force (only the knob ``gear_first`` is read here)."""
        self.dir = server_dir
        self.data_root = data_root
        self.tick_every = tick
        self.files = PlanBook(server_dir, canonical=skills.canonical)
        self.tasks = TaskFile(server_dir / "current-task.json")
        """Read once at setup; the reflex chain's task slot is its only writer."""
        self.locations = Locations(server_dir / "locations.json")
        self.storage = Storage(server_dir / "storage.json")
        self.recipes: Recipes | None = None
        self.world = WorldView()
        self.policy = Assigner(known=skills.known, canonical=skills.canonical)
        self.last_inventory: dict[str, int] | None = None
        self.last_inventory_at: float | None = None

    # -- start-up: the documented read order --------------------------------------------

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            WorldObserved, SkillFinished, Connected, GoalSet, PlanAsked, ReflexTicked,
            PlanDrafted, RevisePlan, Died, LessonLearned, ActionFinished,
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)
        self._recall()
        joined = (self.dir / "joined-before.flag").exists()
        record = self.tasks.read()
        plan = parse_plan(self.files.plan())
        goal = self.files.goal()
        diary = self.files.diary_today()
        logger.info(
            "memory: joined before %s; task %s; plan %d/%d done; goal %r; diary %d lines today",
            "yes" if joined else "no", record or "none", sum(m.done for m in plan), len(plan),
            goal[:80] or None, len(diary),
        )  # fmt: skip
        self._announce_plan()
        out = Task.from_record(record)
        if not self.enabled:
            logger.info("curriculum off (PEPA_CURRICULUM=0): the bot works no plan by itself")
        elif out is not None and not any(
            not m.done and m.text in (out.milestone, rename_skill(out.milestone, skills.canonical))
            for m in plan
        ):
            # done or gone (a crash between ticking plan.md and the reflex clearing the file)
            logger.info(
                "current-task.json holds %r, not an open milestone: withdrawn", out.milestone
            )
            self.publish(TaskWithdrawn(skill=out.skill, milestone=out.milestone))
        elif out is not None and skills.known(out.skill):
            logger.info(
                "resuming task from current-task.json: %s (milestone %r; the task slot runs it)",
                out.skill, out.milestone,
            )  # fmt: skip
            self.policy.resume(out)
        if self.enabled:  # off, it never hands a task out: no timer to wake it for nothing
            self.every(self.tick_every, _Assign())

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(view=view):
                self.world = view
                self.policy.observed()
                self._observe(view)
            case Connected(version=version):
                self._load_recipes(version)
                self._ensure_plan()
                self._tell_home()
            case ActionFinished(chests=chests):
                for chest in chests:
                    key = chest_key(chest.x, chest.y, chest.z)
                    if chest.gone:
                        self.storage.forget(key)
                    else:
                        self.storage.saw(key, chest.items, time.time())
            case SkillFinished(skill=skill, ok=ok, detail=detail, step=step):
                self._finished(skill, ok, detail, step)
            case _Assign():
                self._assign()
            case ReflexTicked(idle=idle):
                lost = self.policy.watch(idle)
                if lost is not None:
                    logger.info("the chain idles with %s handed out: handing it out again", lost)
                    self._suggest(lost)
            case GoalSet(text=text, by=by):
                self.set_goal(text, by)
            case PlanAsked():
                self.publish(SayInChat(text=self.describe()))
            case PlanDrafted(goal=goal, milestones=lines, source=source):
                self._adopt(goal, lines, source)
            case RevisePlan(changes=changes, source=source, at=at):
                self._revise(changes, source, at)
            case LessonLearned() if self.learning:
                self.lessons.take(message)
            case LessonLearned():
                pass  # learning is off
            case Died(reason=reason, position=position, cause=cause):
                where = " ".join(f"{position[k]:.0f}" for k in "xyz") if position else "?"
                told = f" (the server: {cause.text})" if cause.text else ""
                self.files.diary(f"died at {where}: {reason}{told}")
            case _:
                return super().on_message(message)
        return None

    # -- goal and plan -----------------------------------------------------------------

    def set_goal(self, text: str, by: str) -> str:
        """A new goal (cleaned by :func:`clean_goal`): ``goal.md``, a fresh plan (the old one
        backed up); the reply."""
        text = clean_goal(text)
        if not text:
            reply = f"Goal: {self.files.goal() or 'none'}"
            self.publish(SayInChat(text=reply))
            return reply
        self.files.write_goal(text)
        plan = self._derive(text)
        self.files.write_plan(render_plan(text, plan), backup=self.files.plan())
        self.files.diary(f"new goal from {by}: {text}")
        self._withdraw(self.policy.withdraw())
        self._announce_plan()
        self.publish(DraftPlan(goal=text))  # an LLM back end may plan better
        reply = goal_reply(text, plan)
        logger.info("goal from %s: %s (%d milestones)", by, text, len(plan))
        self.publish(SayInChat(text=reply))
        return reply

    def _adopt(self, goal: str, lines: tuple[str, ...], source: str) -> None:
        """An LLM's plan (already checked against the registry) replaces the offline one."""
        if goal != self.files.goal():
            logger.info("ignored %s's plan for %r: the goal has changed since", source, goal)
            return
        plan = actionable_lines(lines)  # within the plan grammar: plan.md stays readable
        if not plan or not self.files.write_plan(render_plan(goal, plan), backup=self.files.plan()):
            return
        self.files.diary(f"plan from {source}: {len(plan)} steps for: {goal}")
        logger.info("adopted %s's plan of %d milestones", source, len(plan))
        self._withdraw(self.policy.withdraw())
        self._tick()
        self._announce_plan()

    def _revise(self, changes: tuple[str, ...], source: str, at: datetime) -> None:
        """Reflection's adjustments, appended under a dated heading (the old plan backed up)."""
        old = self.files.plan()
        new = adjust_plan(old, changes, at)
        if new == old or not self.files.write_plan(new, backup=old):
            return
        self.files.diary(f"{source} changed the plan: {'; '.join(changes)}")
        logger.warning("%s adjusted plan.md (backup in plan.md.bak)", source)
        self._announce_plan()

    def _announce_plan(self) -> None:
        plan = parse_plan(self.files.plan())
        upcoming = next_milestone(plan)
        self.publish(
            PlanChanged(
                goal=self.files.goal(), done=sum(m.done for m in plan),
                total=len(plan), next=upcoming.text if upcoming else "",
            )
        )  # fmt: skip

    def describe(self) -> str:
        """The plan in one chat line (tests ask it by name)."""
        return describe_plan(parse_plan(self.files.plan()))

    def _load_recipes(self, version: str) -> None:
        if self.recipes is not None or self.data_root is None:
            return
        try:
            self.recipes = Recipes.load(version, self.data_root)
        except (OSError, KeyError, ValueError) as exc:
            logger.warning("no recipes for %s (%s): the plan cannot be derived", version, exc)

    def _derive(self, goal: str) -> list[Milestone]:
        if self.recipes is None:
            return []
        known = set(skills.REGISTRY) | ({"craft.*"} if skills.has_family("craft") else set())
        return derive_plan(goal, self.recipes, known)

    def _ensure_plan(self) -> None:
        """With no plan, derive one from the goal (the default goal when there is none)."""
        if parse_plan(self.files.plan()):
            return
        goal = self.files.goal()
        if not goal:
            goal = DEFAULT_GOAL
            self.files.write_goal(goal)
            logger.info("no goal.md: working toward the default goal")
        plan = self._derive(goal)
        if plan and self.files.write_plan(render_plan(goal, plan)):
            self.files.diary(f"made a plan of {len(plan)} steps for: {goal}")
            self._announce_plan()
            self.publish(DraftPlan(goal=goal))

    # -- working the plan ---------------------------------------------------------------

    def _assign(self) -> None:
        connected, now = self.world.connected, self.now()
        if not self.enabled or not self.policy.ready(connected=connected, now=now):
            return  # (the plan is read only when a milestone may go out)
        plan = parse_plan(self.files.plan())
        tuned = self.lessons.tuning(self.world, names=("gear_first",))
        first = is_gear if tuned.gear_first >= 1 else None
        task = self.policy.next(plan, connected=connected, now=now, first=first)
        if task is None:
            return
        before = self._store_first(task) or self._fetch_first(task) or self._placed(task)
        if before is not None:
            task = self.policy.replace(before)
        in_order = self.policy.workable(plan, now)[0]  # the plan's order: what went out before
        if in_order.text != task.milestone:
            logger.info("milestone %s before %s: armour first (a lesson)", task.milestone,
                        in_order.text)  # fmt: skip
        self._suggest(task)

    def _home_chests(self) -> tuple[Vec3 | None, list[tuple[int, int, int]]]:
        """The home (the cell inside its door) and the chests remembered within 8 blocks of it,
        in a fixed order (the first takes building blocks)."""
        place = self.locations.places.get("home")
        if place is None:
            return None, []
        home = Vec3(place["x"], place["y"], place["z"])
        chests = []
        for key in sorted(self.storage.chests):
            x, y, z = (int(v) for v in key.split(","))
            if Vec3(x + 0.5, y, z + 0.5).distance_to(home) <= 8.0:
                chests.append((x, y, z))
        return home, chests

    def _placed(self, task: Task) -> Task | None:
        """``task`` with the place it works at: a field's by the home (None: nothing to add)."""
        home = self.locations.places.get("home")
        if task.skill not in PLACED or home is None or task.at is not None:
            return None
        at = (math.floor(home["x"]), math.floor(home["y"]), math.floor(home["z"]))
        return dataclasses.replace(task, at=at)

    def _store_first(self, task: Task) -> Task | None:
        """A ``base.store`` of the bag's surplus before ``task``, when it is due, or None."""
        home, chests = self._home_chests()
        here = self.world.position
        if home is None or here is None or not skills.known("base.store"):
            return None
        inventory = self.world.inventory
        free = 36 if inventory.empty_slots is None else inventory.empty_slots
        due = to_store(inventory.items, free, here.distance_to(home), chests)
        if due is None:
            return None
        at, sort = due
        logger.info("storing %s in the chest at %s first (before %s)", sort, at, task.milestone)
        return Task(skill="base.store", milestone=task.milestone, item=sort, at=at)

    def _fetch_first(self, task: Task) -> Task | None:
        """A ``base.fetch`` of something stored that changes ``task``'s next step, or None."""
        if not task.item or not self.storage.chests or not skills.known("base.fetch"):
            return None
        stored: dict[str, list[tuple[tuple[int, int, int], int]]] = {}
        for key, chest in self.storage.chests.items():
            x, y, z = (int(v) for v in key.split(","))
            for name, n in chest["items"].items():
                stored.setdefault(name, []).append(((x, y, z), int(n)))
        for chests in stored.values():
            chests.sort(key=lambda c: -c[1])
        held = self.world.inventory.items
        found = to_fetch(task.item, task.count or 1, held, stored, self.world.version)
        if found is None:
            return None
        item, count, at = found
        logger.info("%s first: %d in the chest at %s (for %s)", item, count, at, task.milestone)
        return Task(skill="base.fetch", milestone=task.milestone, item=item, count=count, at=at)

    def _recall(self) -> None:
        """The lessons in force at start (the knowledge actor starts first)."""
        if not self.learning:
            return
        try:
            for lesson in self.peer("knowledge").request(ActiveLessons(), timeout=2.0):
                self.lessons.take(lesson)
        except SupervisionError as exc:
            logger.warning("no lessons this time: %s", exc)

    def _suggest(self, task: Task) -> None:
        self.publish(
            TaskSuggested(
                skill=task.skill, args=task.args(), source="curriculum",
                reason=f"milestone {task.milestone or task.skill}", milestone=task.milestone,
            )
        )  # fmt: skip

    def _withdraw(self, task: Task | None) -> None:
        if task is not None:
            logger.info("taking back the task %s (%s)", task.skill, task.milestone)
            self.publish(TaskWithdrawn(skill=task.skill, milestone=task.milestone))

    def _finished(self, skill: str, ok: bool, detail: str, step: bool = False) -> None:
        outcome = self.policy.finished(skill, ok=ok, now=self.now(), step=step, detail=detail)
        if outcome.place and self.world.position is not None:
            self.locations.remember(outcome.place, self.world.position.as_dict())
            if outcome.place == "home":
                self._tell_home()
        if outcome.rested:
            self.files.diary(f"gave up on {outcome.rested} for now: {detail}")
            logger.warning("milestone %s failed 3 times (%s); resting it", outcome.rested, detail)
        if outcome.succeeded:
            self._tick(outcome.succeeded)

    def _tell_home(self) -> None:
        """The reflex hears where the home is (it walks there at dusk, the bridge keeps it)."""
        home = self.locations.places.get("home")
        if home is not None:
            self.publish(HomeKnown(x=home["x"], y=home["y"], z=home["z"]))

    def _observe(self, view: WorldView) -> None:
        items = dict(view.inventory.items)
        if items != self.last_inventory:
            self._tick()
            now, last = self.now(), self.last_inventory_at
            if last is None or now - last >= INVENTORY_LOG_EVERY:
                self.last_inventory_at = now
                self.files.log_inventory(items)
            self.last_inventory = items
        if view.position is not None and "spawn" not in self.locations.places:
            self.locations.remember("spawn", view.position.as_dict(), "where the bot first arrived")

    def _tick(self, succeeded: tuple[str, ...] = ()) -> None:
        """Check off what the inventory (or a skill's success) shows done."""
        text, items = self.files.plan(), self.world.inventory.items
        if not text:
            return
        new, newly = tick(text, items, food=food_in(items), succeeded=succeeded)
        if not newly or not self.files.write_plan(new):
            return
        plan = parse_plan(new)
        done = sum(m.done for m in plan)
        for m in newly:
            self.files.diary(f"done: {m.text}")
            logger.info("milestone done: %s (%d/%d)", m.text, done, len(plan))
            self.publish(MilestoneReached(text=m.text, item=m.item, done=done, total=len(plan)))
        self._withdraw(self.policy.reached(newly))
        self._announce_plan()
