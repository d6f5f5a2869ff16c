"""Reflex: runs the reflex chain and the skills it picks; owns the pause switch.

The chain itself is the pure :func:`pepa.survival.decide`. This actor feeds it
the latest world view the moment perception publishes one — and, for speed,
a hostile the moment it is spotted, before any snapshot — and turns each
decision into a skill run:

- a decision of higher priority than the running skill pre-empts it (the JS
  action is cancelled);
- the same decision leaves the running skill alone (attacks repeat at most
  every 0.6 s, vanilla's sword cooldown);
- a finished skill updates the metrics and the failure tracker, which drafts
  a proposal after three identical failures in a row.

Operator orders (come, follow, stay) are written to ``current-task.json``
before they start and cleared when they end, so a restart resumes them.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import skills
from pepa.errors import SupervisionError
from pepa.events import (
    ActionFinished,
    ActivityChanged,
    AdviceApplied,
    Connected,
    Died,
    HealthChanged,
    HostileSpotted,
    LessonLearned,
    OperatorOrder,
    Pause,
    PausedChanged,
    PlayerSpotted,
    ProposalDrafted,
    ReflexTicked,
    Respawned,
    Resume,
    SayInChat,
    SkillFinished,
    StuckDetected,
    TaskSuggested,
    WorldObserved,
)
from pepa.memory import TaskFile
from pepa.supervision import SupervisedActor, SupervisionContext
from pepa.survival import Decision, FailureTracker, Memory, SkillMetrics, decide
from skills.survive_escape import choose_mode

__all__ = ["Reflex"]

logger = logging.getLogger(__name__)

ATTACK_COOLDOWN = 0.6
"""Seconds between swings."""
IDLE_LOOK_EVERY = 8.0
"""Seconds between idle glances around."""
HEARTBEAT_EVERY = 60.0
"""Seconds between idle heartbeat log lines."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tick:
    """Timer: run the chain even if nothing changed."""


@dataclass(slots=True)
class _Running:
    decision: Decision
    action_id: str | None
    started: float
    label: str


class Reflex(SupervisedActor):
    """The survival loop: decide, pre-empt, run skills, learn from failures."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        link: Any = None,
        server_dir: Path | None = None,
        tick: float = 0.5,
        paused: bool = False,
        poll: float | None = None,
        learning: bool = True,
    ) -> None:
        super().__init__(supervision=supervision)
        self.link = link
        self.learning = learning
        """False: lessons are never consulted (the gauntlet's control run)."""
        self.poll = poll
        self.tick = poll or tick
        self.paused = paused
        self.tasks = TaskFile(server_dir / "current-task.json") if server_dir else None
        self.memory = Memory()
        self.world: dict[str, Any] = {}
        self.running: _Running | None = None
        self.waiting_for: str | None = None
        self.last_attack = 0.0
        self.last_instant = ""
        self.last_look = 0.0
        self.last_heartbeat = 0.0
        self.activity: tuple[str | None, str | None] = ("", "")
        self.failures = FailureTracker()
        self.metrics = SkillMetrics()

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            WorldObserved, HostileSpotted, HealthChanged, Pause, Resume, OperatorOrder,
            ActionFinished, Connected, PlayerSpotted, Died, StuckDetected, LessonLearned,
            Respawned, TaskSuggested,
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)
        self.publish(PausedChanged(paused=self.paused))
        task = self.tasks.read() if self.tasks else None
        if task is not None and task.get("kind") in ("come", "follow"):  # milestones: curriculum
            logger.info("resuming task from current-task.json: %s", task)
            self.memory.operator_task = task
        self._announce(None)
        try:  # knowledge started before the brain: its lessons are there to read
            lessons = self.peer("knowledge").call("active_lessons", timeout=2.0)
            for lesson in lessons if self.learning else []:
                self.memory.learn(
                    lesson["skill"], lesson["hostile"], lesson["verdict"],
                    lesson["alternative"], lesson["confidence"],
                )  # fmt: skip
        except SupervisionError as exc:
            logger.warning("no lessons this time: %s", exc)
        self.every(self.tick, _Tick())

    def cleanup(self) -> None:
        if self.running is not None and self.link is not None:
            self.link.stop()

    def skill_stats(self) -> dict[str, dict[str, float]]:
        """Per-skill successes, failures and mean duration (proxy-callable)."""
        return self.metrics.as_dict()

    # -- messages -----------------------------------------------------------------

    def on_message(self, message: Any) -> Any:
        now = time.monotonic()
        match message:
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
                self.memory.observe(snapshot, now)
                self.memory.sleeping = bool(snapshot.get("sleeping"))
                self._react(now)
            case HostileSpotted():
                self._spotted(message)
                self._react(now)
            case HealthChanged(hp=hp, food=food):
                self.world = {**self.world, "hp": hp, "food": food}
                self._react(now)
            case _Tick():
                self._step(now)
                idle = self.activity == (None, None) and not self.paused
                self.publish(ReflexTicked(idle=idle and bool(self.world.get("connected"))))
            case TaskSuggested(skill=skill, reason=reason, source=source, args=args):
                logger.info("task suggested by %s: %s (%s)", source, skill, reason)
                self.memory.task = {"skill": skill, "args": args, "reason": f"{source}: {reason}"}
                running = self.running
                if running is not None and running.decision.reflex == "task":
                    self._preempt(running, decide(self.world, now, self.memory))  # a new task
                self._step(now)
            case OperatorOrder(verb=verb, operator=operator):
                self._order(verb, operator, now)
            case ActionFinished():
                self._finished(message, now)
            case LessonLearned() if self.learning:
                self.memory.learn(
                    message.skill,
                    message.hostile,
                    message.verdict,
                    message.alternative,
                    message.confidence,
                )
            case LessonLearned():
                pass  # learning is off
            case StuckDetected(step=step, reason=reason):
                self._stuck(step, reason, now)
            case PlayerSpotted(name=name):
                if self.waiting_for == name:
                    self.waiting_for = None
                    self._step(now)
            case Connected() | Died() | Respawned():
                self.running = None
                self.waiting_for = None
                self._step(now)
            case Pause():
                self._set_paused(True)
            case Resume():
                self._set_paused(False)
                self._step(now)
            case _:
                return super().on_message(message)
        return None

    # -- the loop -------------------------------------------------------------------

    def _spotted(self, event: HostileSpotted) -> None:
        """Put a just-spotted hostile into the world view before the next snapshot."""
        threats = [t for t in self.world.get("threats") or [] if t.get("id") != event.entity_id]
        threats.append({"name": event.name, "distance": event.distance, "id": event.entity_id})
        self.world = {**self.world, "threats": threats}

    def _react(self, now: float) -> None:
        """Decide at once on a change, unless running as a polling loop (benchmarks only)."""
        if self.poll is None:
            self._step(now)

    def _step(self, now: float) -> None:
        if self.paused or self.link is None or self.waiting_for is not None:
            return
        decision = decide(self.world, now, self.memory)
        running = self.running
        if running is not None:
            if running.decision.skill == decision.skill and running.action_id is not None:
                return  # already doing it
            if decision.priority <= running.decision.priority and running.action_id is not None:
                return  # a lower reflex waits for the running one
            self._preempt(running, decision)
        self._start(decision, now)

    def _preempt(self, running: _Running, by: Decision) -> None:
        logger.info("%s pre-empts %s (%s)", by.reflex, running.label, by.reason)
        self.link.stop()
        self.running = None

    def _start(self, decision: Decision, now: float) -> None:
        skill_id = decision.skill
        self._announce(decision)
        if skill_id is None:
            self._idle(now)
            return
        skill = skills.get(skill_id)
        args = dict(decision.args)
        if skill.wants_world:
            args["world"] = self.world
        if skill_id == "survive.escape":
            args["mode"] = choose_mode(self.world)
        label = _label(skill_id, args)
        if skill_id == "combat.attack-nearest":
            if now - self.last_attack < ATTACK_COOLDOWN:
                return
            self.last_attack = now
        why_not = skill.check(self.world, args)
        if why_not is not None:
            logger.debug("%s cannot run: %s", label, why_not)
            if decision.reflex == "task":
                logger.info("dropped task %s: %s", label, why_not)
                self.memory.task = None  # the curriculum counts it and rests the milestone
                self.publish(SkillFinished(skill=skill_id, ok=False, seconds=0.0, detail=why_not))
            return
        if skill_id == "survive.eat":
            self.memory.last_eat = now
        started = skill.run(self.link, args)
        if not started.ok:
            self._outcome(label, skill_id, False, started.detail, 0.0, now)
            return
        if started.action_id is None:
            self.metrics.record(skill_id, True, 0.0)  # instant skills (a swing)
            if label != self.last_instant:
                self.last_instant = label
                logger.info("%s: %s (%s)", decision.reflex, label, decision.reason)
            return
        self.last_instant = ""
        logger.info("%s: %s (%s)", decision.reflex, label, decision.reason)
        self.running = _Running(decision, started.action_id, now, label)
        if decision.advice is not None:
            skill_about, hostile, verdict = decision.advice
            self.publish(
                AdviceApplied(skill=skill_about, hostile=hostile, verdict=verdict, instead=skill_id)
            )

    def _finished(self, done: ActionFinished, now: float) -> None:
        running = self.running
        if running is None or done.action_id != running.action_id:
            return
        self.running = None
        skill_id = running.decision.skill or ""
        task_now = self.memory.task
        if running.decision.reflex == "task" and task_now and task_now.get("skill") == skill_id:
            self.memory.task = None  # done or failed: the next task comes from the curriculum
        task = self.memory.operator_task
        if not done.ok and done.error.startswith("cannot see") and task is not None:
            self.waiting_for = str(task.get("operator"))  # go on when they come into sight
            logger.info("waiting to see %s before going on with %s", self.waiting_for, skill_id)
            return
        self._outcome(running.label, skill_id, done.ok, done.error, now - running.started, now)
        if skill_id == "nav.goto" and task is not None:
            operator = task.get("operator")
            reply = f"Here I am, {operator}." if done.ok else f"I can't reach you: {done.error}"
            self.publish(SayInChat(text=reply))
            self._end_task()
        elif skill_id == "nav.follow" and task is not None and not done.ok:
            self.publish(SayInChat(text=f"I lost you, {task.get('operator')}: {done.error}"))
            self._end_task()
        elif skill_id == "survive.sleep" and not done.ok:
            self.memory.sleep_retry_at = now + 30.0
            self.publish(SayInChat(text=f"I can't sleep: {done.error}"))
        self._step(now)

    def _outcome(
        self, label: str, skill_id: str, ok: bool, detail: str, seconds: float, now: float
    ) -> None:
        self.metrics.record(skill_id, ok, seconds)
        self.publish(SkillFinished(skill=skill_id, ok=ok, seconds=seconds, detail=detail))
        if not ok:
            logger.warning("%s failed: %s", label, detail)
        draft = self.failures.record(label, ok, detail, time.time())
        if draft is not None:
            logger.warning("%s failed %d times in a row: proposal %s", label, 3, draft.file_name)
            self.publish(ProposalDrafted(file_name=draft.file_name, markdown=draft.markdown()))

    def _idle(self, now: float) -> None:
        if now - self.last_look >= IDLE_LOOK_EVERY and self.world.get("connected"):
            self.last_look = now
            self.link.look_around()
        if now - self.last_heartbeat >= HEARTBEAT_EVERY and self.world.get("connected"):
            self.last_heartbeat = now
            pos = self.world.get("position") or {}
            logger.info(
                "idle: hp %s food %s at %s %s %s", self.world.get("hp"), self.world.get("food"),
                pos.get("x"), pos.get("y"), pos.get("z"),
            )  # fmt: skip

    def _stuck(self, step: str, reason: str, now: float) -> None:
        running = self.running
        logger.warning("stuck (%s): %s", reason, step)
        if step == "repath" and running is not None:
            self.link.stop()
            self.running = None
            self._start(running.decision, now)
        elif step in ("pillar-up", "dig-out"):
            self.link.stop()
            self.running = None
            skill = skills.get(f"survive.{step}")
            started = skill.run(self.link, {})
            if started.ok and started.action_id is not None:
                escape = Decision(reflex="escape", skill=skill.id, reason=reason)
                self.running = _Running(escape, started.action_id, now, skill.id)
        elif step == "alert":
            self.publish(SayInChat(text=f"I'm stuck and could not get free: {reason}"))

    # -- operator orders ---------------------------------------------------------------

    def _order(self, verb: str, operator: str, now: float) -> None:
        if verb == "stay":
            self._end_task()
            if self.running is not None:
                self.link.stop()
                self.running = None
            return
        task = {"kind": verb, "operator": operator}
        self.memory.operator_task = task
        self.waiting_for = None
        if self.tasks is not None:
            self.tasks.write(task)
        if self.running is not None:
            self.link.stop()
            self.running = None
        self._step(now)

    def _end_task(self) -> None:
        self.memory.operator_task = None
        self.waiting_for = None
        if self.tasks is not None:
            self.tasks.clear()

    def _announce(self, decision: Decision | None) -> None:
        if decision is None or decision.skill is None:
            activity: tuple[str | None, str | None] = (None, None)
        else:
            label = _label(decision.skill, decision.args)
            activity = (decision.reflex, label)
        if activity != self.activity:
            self.activity = activity
            self.publish(ActivityChanged(reflex=activity[0], skill=activity[1]))

    def _set_paused(self, paused: bool) -> None:
        if paused == self.paused:
            return
        self.paused = paused
        logger.info("reflex loop %s", "paused" if paused else "resumed")
        self.publish(PausedChanged(paused=paused))
        if paused and self.link is not None:
            self.link.stop()
            self.running = None


def _label(skill_id: str, args: dict[str, Any] | Any) -> str:
    """``nav.follow alice``, ``survive.eat bread``, ``combat.attack-nearest zombie`` …"""
    target = str(args.get("operator") or args.get("item") or args.get("name") or "")
    if target and target in skill_id:
        target = ""  # craft.wooden_pickaxe, not craft.wooden_pickaxe wooden_pickaxe
    return f"{skill_id} {target}".strip()
