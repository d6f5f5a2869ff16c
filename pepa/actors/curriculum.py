"""Curriculum: the bot's long-term memory of one server and the work toward its goal.

It keeps the memory protocol of ``docs/memory.md``: on start it reads, in
order, ``joined-before.flag``, ``current-task.json``, ``plan.md``, ``goal.md``
and today's diary, and resumes an interrupted milestone without any operator
input. When nothing more urgent runs, it hands the next unchecked milestone
of ``plan.md`` to the reflex chain's task slot (``TaskSuggested``), writing
``current-task.json`` first; progress ticks milestones off, writes the diary
and announces ``MilestoneReached``. With no plan it derives one from
``goal.md`` (offline, over minecraft-data recipes); with no goal it writes
the default one, so a fresh bot has work to do. It also keeps
``locations.json`` and ``inventory-log.jsonl``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

import skills
from pepa.errors import PepaError
from pepa.events import (
    Connected,
    GoalSet,
    MilestoneReached,
    PlanChanged,
    PlanProposed,
    PlanRequested,
    PlanWanted,
    ReflexTicked,
    SayInChat,
    SkillFinished,
    TaskSuggested,
    WorldObserved,
)
from pepa.memory import (
    GOAL_FILE,
    PLAN_FILE,
    Locations,
    TaskFile,
    append_line,
    read_text,
    write_atomic,
)
from pepa.statefiles import load
from pepa.supervision import SupervisedActor, SupervisionContext
from pepa.survival.chain import FOOD_PRIORITY
from pepa.survival.crafting import Recipes
from pepa.survival.curriculum import (
    Milestone,
    actionable_lines,
    clean_goal,
    derive_plan,
    next_milestone,
    parse_plan,
    render_plan,
    tick,
)

__all__ = ["DEFAULT_GOAL", "Curriculum"]

logger = logging.getLogger(__name__)

DEFAULT_GOAL = "survive: wooden and stone tools, a furnace, food in the bag and a chest at base"
"""The goal a fresh bot works toward until an operator sets another."""
RETRY_AFTER = 300.0
"""Seconds a milestone rests after failing three times in a row."""
FOODS = frozenset(FOOD_PRIORITY)
"""What counts toward a ``food`` milestone."""
LOST_AFTER_TICKS = 6
"""Idle reflex ticks (0.5 s each) with a task handed out before it is handed out again."""
INVENTORY_LOG_EVERY = 300.0
"""Seconds between two inventory snapshots in ``inventory-log.jsonl`` (when it changed)."""


def known_skill(skill_id: str) -> bool:
    """Whether a skill by that id exists (``craft.<item>`` only for items a recipe makes)."""
    try:
        skills.get(skill_id)
    except (KeyError, ValueError, OSError, PepaError):  # unknown, or no recipes to tell
        return False
    return True


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
    ) -> None:
        super().__init__(supervision=supervision)
        self.enabled = enabled
        """False: the memory files are kept, goals and plans answered, no task handed out."""
        self.dir = server_dir
        self.data_root = data_root
        self.tick_every = tick
        self.tasks = TaskFile(server_dir / "current-task.json", known_skill=known_skill)
        self.locations = Locations(server_dir / "locations.json")
        self.recipes: Recipes | None = None
        self.world: dict[str, Any] = {}
        self.assigned: dict[str, Any] | None = None
        self.failures: dict[str, int] = {}
        self.resting: dict[str, float] = {}
        self.last_inventory: dict[str, int] | None = None
        self.idle_ticks = 0
        self.stale_until = 0.0
        """A skill just ended: wait (2 s at most) for a world view that shows its effect."""
        self.last_inventory_at = 0.0

    # -- start-up: the documented read order --------------------------------------------

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            WorldObserved, SkillFinished, Connected, GoalSet, PlanRequested, ReflexTicked,
            PlanProposed,
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)
        joined = (self.dir / "joined-before.flag").exists()
        task = self.tasks.read()
        plan = parse_plan(self._plan_text())
        goal = self._goal()
        diary = [line for line in read_text(self._diary_path()).splitlines() if line.strip()]
        done = sum(m.done for m in plan)
        logger.info(
            "memory: joined before %s; task %s; plan %d/%d done; goal %r; diary %d lines today",
            "yes" if joined else "no", task or "none", done, len(plan), goal[:80] or None,
            len(diary),
        )  # fmt: skip
        self._announce_plan()
        if not self.enabled:
            logger.info("curriculum off (PEPA_CURRICULUM=0): the bot works no plan by itself")
        elif task is not None and task.get("kind") == "milestone" and task.get("skill"):
            logger.info("resuming task from current-task.json: %s", task["skill"])
            self._hand_out(task)
        self.every(self.tick_every, _Assign())

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
                self.stale_until = 0.0
                self._observe(snapshot)
            case Connected(version=version):
                self._load_recipes(version)
                self._ensure_plan()
            case SkillFinished(skill=skill, ok=ok, detail=detail):
                self._finished(skill, ok, detail)
            case _Assign():
                self._assign()
            case ReflexTicked(idle=idle):
                self._watch(idle)
            case GoalSet(text=text, by=by):
                self.set_goal(text, by)
            case PlanRequested():
                self.publish(SayInChat(text=self.describe()))
            case PlanProposed(goal=goal, milestones=lines, source=source):
                self._adopt(goal, lines, source)
            case _:
                return super().on_message(message)
        return None

    # -- goal and plan -----------------------------------------------------------------

    def set_goal(self, text: str, by: str) -> str:
        """A new goal: ``goal.md``, a fresh plan (the old plan backed up); the reply.

        The text is cleaned first (:func:`clean_goal`: one line, no control
        characters, at most 300 characters), so the files written pass their reader.
        """
        text = clean_goal(text)
        if not text:
            reply = f"Goal: {self._goal() or 'none'}"
            self.publish(SayInChat(text=reply))
            return reply
        write_atomic(self.dir / "goal.md", f"{text}\n".encode())
        plan = self._derive(text)
        old = self._plan_text()
        if old:
            write_atomic(self.dir / "plan.md.bak", old.encode())
        write_atomic(self.dir / "plan.md", render_plan(text, plan).encode())
        self._diary(f"new goal from {by}: {text}")
        self._drop_assignment()
        self._announce_plan()
        self.publish(PlanWanted(goal=text))  # an LLM back end may plan better
        first = next_milestone(plan)
        reply = f"Goal set: {text}. Plan: {len(plan)} steps" + (
            f", first {first.text}." if first else "; no step uses a skill I have."
        )
        logger.info("goal from %s: %s (%d milestones)", by, text, len(plan))
        self.publish(SayInChat(text=reply))
        return reply

    def _adopt(self, goal: str, lines: tuple[str, ...], source: str) -> None:
        """An LLM's plan (already checked against the registry) replaces the offline one."""
        if goal != self._goal():
            logger.info("ignored %s's plan for %r: the goal has changed since", source, goal)
            return
        plan = actionable_lines(lines)  # within the plan grammar: plan.md stays readable
        if not plan:
            return
        old = self._plan_text()
        if old:
            write_atomic(self.dir / "plan.md.bak", old.encode())
        write_atomic(self.dir / "plan.md", render_plan(goal, plan).encode())
        self._diary(f"plan from {source}: {len(plan)} steps for: {goal}")
        logger.info("adopted %s's plan of %d milestones", source, len(plan))
        self._drop_assignment()
        self._tick()
        self._announce_plan()

    def _announce_plan(self) -> None:
        plan = parse_plan(self._plan_text())
        upcoming = next_milestone(plan)
        self.publish(
            PlanChanged(
                goal=self._goal(), done=sum(m.done for m in plan),
                total=len(plan), next=upcoming.text if upcoming else "",
            )
        )  # fmt: skip

    def describe(self) -> str:
        """The plan in one chat line (proxy-callable)."""
        plan = parse_plan(self._plan_text())
        if not plan:
            return "I have no plan yet."
        done = sum(m.done for m in plan)
        upcoming = [m.text for m in plan if not m.done][:3]
        rest = "; then ".join(upcoming) if upcoming else "all done"
        return f"Plan {done}/{len(plan)} done. Next: {rest}."

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
        if parse_plan(self._plan_text()):
            return
        goal = self._goal()
        if not goal:
            goal = DEFAULT_GOAL
            write_atomic(self.dir / "goal.md", f"{goal}\n".encode())
            logger.info("no goal.md: working toward the default goal")
        plan = self._derive(goal)
        if plan:
            write_atomic(self.dir / "plan.md", render_plan(goal, plan).encode())
            self._diary(f"made a plan of {len(plan)} steps for: {goal}")
            self._announce_plan()
            self.publish(PlanWanted(goal=goal))

    # -- working the plan ---------------------------------------------------------------

    def _assign(self) -> None:
        if not self.enabled or self.assigned is not None or time.monotonic() < self.stale_until:
            return
        if not self.world.get("connected"):
            return
        now = time.monotonic()
        for m in parse_plan(self._plan_text()):
            if m.done or not m.actionable or self.resting.get(m.text, 0.0) > now:
                continue
            if not known_skill(m.skill):
                continue  # hand-written with a skill that does not exist
            task = {
                "kind": "milestone", "skill": m.skill, "milestone": m.text,
                "args": {"item": m.item, "count": m.count},
            }  # fmt: skip
            self._hand_out(task)
            return

    def _watch(self, idle: bool) -> None:
        """A task handed out while the chain idles was lost (a restart, a dropped task)."""
        self.idle_ticks = self.idle_ticks + 1 if idle and self.assigned is not None else 0
        if self.idle_ticks >= LOST_AFTER_TICKS:
            logger.info("the chain idles with %s handed out: handing it out again", self.assigned)
            self.idle_ticks = 0
            task, self.assigned = self.assigned, None
            if task is not None:
                self._hand_out(task)

    def _hand_out(self, task: dict[str, Any]) -> None:
        self.tasks.write(task)  # before the action: a restart resumes it
        self.assigned = task
        self.publish(
            TaskSuggested(
                skill=str(task["skill"]), args=dict(task.get("args") or {}),
                reason=f"milestone {task.get('milestone') or task['skill']}", source="curriculum",
            )
        )  # fmt: skip

    def _finished(self, skill: str, ok: bool, detail: str) -> None:
        self._note_places(skill, ok)
        task = self.assigned
        if task is None or skill != task.get("skill"):
            if ok:
                self._tick(succeeded=(skill,))
            return
        self.assigned = None
        self.tasks.clear()
        key = str(task.get("milestone") or skill)
        self.stale_until = time.monotonic() + 2.0
        if ok:
            self.failures.pop(key, None)
            self._tick(succeeded=(skill,))
            return
        self.failures[key] = self.failures.get(key, 0) + 1
        if self.failures[key] >= 3:
            self.failures.pop(key)
            self.resting[key] = time.monotonic() + RETRY_AFTER
            self._diary(f"gave up on {key} for now: {detail}")
            logger.warning("milestone %s failed 3 times (%s); resting it", key, detail)

    def _drop_assignment(self) -> None:
        self.assigned = None
        self.tasks.clear()

    def _observe(self, snapshot: dict[str, Any]) -> None:
        items = dict((snapshot.get("inventory") or {}).get("items") or {})
        if items != self.last_inventory:
            self._tick(items=items)
            now = time.monotonic()
            if now - self.last_inventory_at >= INVENTORY_LOG_EVERY:
                self.last_inventory_at = now
                entry = {"at": datetime.now(UTC).isoformat(timespec="seconds"), "items": items}
                append_line(self.dir / "inventory-log.jsonl", orjson.dumps(entry).decode())
            self.last_inventory = items
        position = snapshot.get("position")
        if position and "spawn" not in self.locations.places:
            self.locations.remember("spawn", position, "where the bot first arrived")

    def _tick(
        self, *, items: dict[str, int] | None = None, succeeded: tuple[str, ...] = ()
    ) -> None:
        path = self.dir / "plan.md"
        text = self._plan_text()
        if not text:
            return
        if items is None:
            items = dict((self.world.get("inventory") or {}).get("items") or {})
        food = sum(n for name, n in items.items() if name in FOODS)
        new, newly = tick(text, items, food=food, succeeded=succeeded)
        if not newly:
            return
        write_atomic(path, new.encode())
        plan = parse_plan(new)
        done = sum(m.done for m in plan)
        for m in newly:
            self._diary(f"done: {m.text}")
            logger.info("milestone done: %s (%d/%d)", m.text, done, len(plan))
            self.publish(MilestoneReached(text=m.text, item=m.item, done=done, total=len(plan)))
            if self.assigned is not None and self.assigned.get("milestone") == m.text:
                self._drop_assignment()
        self._announce_plan()

    def _note_places(self, skill: str, ok: bool) -> None:
        position = self.world.get("position")
        if not ok or not position:
            return
        names = {"place-chest": "chest", "survive.sleep": "bed", "craft.crafting_table": "base"}
        if skill in names:
            self.locations.remember(names[skill], position)

    def _plan_text(self) -> str:
        """``plan.md`` checked against its schema; a bad one is moved aside (no plan)."""
        return load(self.dir / "plan.md", PLAN_FILE, "", log=logger, then="starting with no plan")

    def _goal(self) -> str:
        """``goal.md`` checked against its schema; a bad one is moved aside (no goal)."""
        text = load(self.dir / "goal.md", GOAL_FILE, "", log=logger, then="starting with no goal")
        return text.strip()

    def _diary_path(self) -> Path:
        return self.dir / "diary" / f"{datetime.now(UTC):%Y-%m-%d}.md"

    def _diary(self, text: str) -> None:
        append_line(self._diary_path(), f"- {datetime.now(UTC):%H:%M} {text}")
