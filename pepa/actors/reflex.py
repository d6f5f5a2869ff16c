"""Reflex: runs the reflex chain and the skills it picks; owns the pause switch and the task slot.

The chain is the pure :func:`pepa.policy.reflex.decide`; what a decision does to
the running skill, its arguments and cooldowns are the pure rules of
:mod:`pepa.policy.reflex.dispatch`. This actor feeds the chain the latest world
view the moment perception publishes one — and, for speed, a hostile the
moment it is spotted, before any snapshot — and turns each decision into a
skill run: a higher reflex pre-empts the running skill (the JS action is
cancelled), the same decision leaves it alone, and a finished skill updates
the metrics and the failure tracker (a proposal after three identical
failures in a row).

It is the one writer of ``current-task.json``: the task slot
(:class:`pepa.policy.reflex.TaskSlot`) holds an operator's order and the
curriculum's milestone, and the file holds what a restart should resume —
the order while there is one, else the milestone.
"""

from __future__ import annotations

import logging
import math
import queue
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import skills
from pepa.actors.skillrunner import SkillRunner
from pepa.base.errors import SupervisionError
from pepa.link.api import Link
from pepa.policy.curriculum.assigner import WAITING
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import PRIORITY, ChainState, Decision
from pepa.policy.reflex.dispatch import SWING, IdleChores, Running, admit, label, order_reply
from pepa.policy.reflex.firstblow import armed, struck
from pepa.policy.reflex.outcomes import ORDERS, ended, on_stuck
from pepa.policy.reflex.taskslot import TaskSlot
from pepa.runtime import SupervisedActor, SupervisionContext
from pepa.runtime.events import (
    ActionFinished,
    ActivityChanged,
    Connected,
    Died,
    FirstBlow,
    HealthChanged,
    HomeKnown,
    HostileGone,
    HostileSpotted,
    LessonLearned,
    OperatorOrder,
    Pause,
    PausedChanged,
    PlayerSpotted,
    ReflexTicked,
    Respawned,
    Resume,
    SayInChat,
    SkillFinished,
    StuckDetected,
    TaskSuggested,
    TaskWithdrawn,
    WorldObserved,
)
from pepa.runtime.events.queries import ActiveLessons
from pepa.state.memory import TaskFile
from pepa.world.view import Vec3, WorldView

__all__ = ["Reflex"]

logger = logging.getLogger(__name__)

ARM_EVERY = 0.5
"""Seconds between two armings of the bridge's first blow (:mod:`pepa.policy.reflex.firstblow`)
while only the view changes (a working bot's changes 5 times a second; each arming asks the
chain once for each kind of hostile: 0.4 ms in all with 40 entities in view). What may disarm
it goes at once: the health, a hostile spotted (a third one near makes the bot flee a
newcomer), a lesson, the pause, a new life or connection, another skill running. Those that
come together (a spawn in a crowd brings the hostile, the bridge's first blow and the fight's
start within a few ms) are armed for once, after the last of them (:class:`_Arm`)."""
_ARM_AT_ONCE = (
    HealthChanged, HostileSpotted, LessonLearned, Pause, Resume, Connected, Died, Respawned,
    FirstBlow,
)  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class _Arm:
    """Self-tell: arm the bridge now for what the messages queued before this one changed.

    An arming that is due at once waits for it while more messages are in the mailbox: at a
    spawn among 32 bots each bot's reflex had a hostile spotted, a first blow and the end of
    the fight queued, and armed once for each (13 decisions each time) while the world and
    the bridges waited for a core. Queued behind them, this arms once for all, later by the
    time the reflex takes for the messages ahead of it (a few ms on a quiet machine)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tick:
    """Timer: run the chain even if nothing changed."""


class Reflex(SupervisedActor):
    """The survival loop: decide, pre-empt, run skills, learn from failures."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        link: Link | None = None,
        server_dir: Path | None = None,
        tick: float = 0.5,
        paused: bool = False,
        poll: float | None = None,
        learning: bool = True,
        milestones: bool = True,
        first_blow: bool = True,
    ) -> None:
        super().__init__(supervision=supervision)
        self.link = link
        self.learning = learning
        """False: lessons are never consulted (the gauntlet's control run)."""
        self.milestones = milestones
        """False: the curriculum is off, so a milestone in current-task.json is not resumed."""
        self.poll = poll
        self.first_blow = first_blow and poll is None
        """False: the bridge is never armed (:mod:`pepa.policy.reflex.firstblow`), every swing
        is this actor's; a polling loop (benchmarks) has none either, as polling bots have none."""
        self.tick = poll or tick
        self.paused = paused
        self.tasks = (
            TaskFile(server_dir / "current-task.json", known_skill=skills.known)
            if server_dir
            else None
        )
        self.written: dict[str, Any] | None = None
        self.memory = ChainState()
        self.world = WorldView()
        self.runner = SkillRunner(link, self.publish)
        self.waiting_for: str | None = None
        self.chores = IdleChores()
        self.activity: tuple[str | None, str | None] = ("", "")
        self.arming: tuple[dict[str, float], float, int] | None = None
        """What the bridge strikes first, and at what health and food, as last sent (None: not
        known, after a new life or connection)."""
        self.armed_at = -1e9
        self.armed_running: Running | None = None
        self.arm_due = True
        self.arm_owed = False
        """An arming due at once waits for the :class:`_Arm` queued behind the mailbox."""
        self.arm_queued = False
        """An :class:`_Arm` is in the mailbox (one at a time)."""

    def setup(self) -> None:
        for event_type in (
            WorldObserved, HostileSpotted, HostileGone, HealthChanged, Pause, Resume,
            OperatorOrder, ActionFinished, Connected, PlayerSpotted, Died, StuckDetected,
            LessonLearned, Respawned, TaskSuggested, TaskWithdrawn, FirstBlow, HomeKnown,
        ):  # fmt: skip
            self.runtime.bus.subscribe(event_type, self.handle)
        self.publish(PausedChanged(paused=self.paused))
        self.written = self.tasks.read() if self.tasks else None
        if self.written is not None:
            logger.info("resuming task from current-task.json: %s", self.written)
            self.memory.slot = TaskSlot.resumed(self.written)
            if not self.milestones:
                self.memory.slot.drop_task()  # with the curriculum off, the bot works no plan
            elif self.memory.slot.task is not None:  # an old id from before the renames
                self.memory.slot.task["skill"] = skills.canonical(self.memory.slot.task["skill"])
        self._announce(None)
        try:  # knowledge started before the brain: its lessons are there to read
            for lesson in self.peer("knowledge").request(ActiveLessons(), timeout=2.0):
                if self.learning:
                    self.memory.lessons.take(lesson)
        except SupervisionError as exc:
            logger.warning("no lessons this time: %s", exc)
        self.every(self.tick, _Tick())

    def cleanup(self) -> None:
        if self.runner.running is not None:
            self.runner.stop()

    # -- messages -----------------------------------------------------------------

    def on_message(self, message: Any) -> Any:
        now = self.now()
        if not isinstance(message, (_Tick, _Arm)):
            self.arm_due = True  # whatever it changes, the arming may change with it
        match message:
            case WorldObserved(view=view):
                self.world = view
                self.memory.observe(view, now)
                self._react(now)
            case HostileSpotted(name=name, distance=distance, entity_id=entity_id):
                self.world = self.world.with_threat(
                    entity_id=entity_id, name=name, distance=distance
                )
                self._react(now)
            case HostileGone(entity_id=entity_id):
                self.world = self.world.without(entity_id)
                self._react(now)
            case FirstBlow(name=name, distance=distance, entity_id=entity_id):
                self.world = self.world.with_threat(
                    entity_id=entity_id, name=name, distance=distance
                )
                self._struck_first(name, distance, entity_id, now)
            case HealthChanged(hp=hp, food=food):
                self.world = self.world.with_health(hp=hp, food=food)
                self._react(now)
            case _Arm():
                self.arm_queued = False
                self._arm(now, at_once=self.arm_owed, now_or_never=True)
                return None
            case _Tick():
                self._step(now)
                idle = self.activity == (None, None) and not self.paused
                self.publish(ReflexTicked(idle=idle and self.world.connected))
            case TaskSuggested():
                self._suggested(message, now)
            case TaskWithdrawn(skill=skill, milestone=milestone):
                if self.memory.slot.drop_task(skills.canonical(skill), milestone or None):
                    logger.info("task %s withdrawn by the curriculum", skill)
                    self._persist()
            case OperatorOrder(verb=verb, operator=operator):
                self._order(verb, operator, now)
            case ActionFinished():
                self._finished(message, now)
            case LessonLearned() if self.learning:
                self.memory.lessons.take(message)
            case LessonLearned():
                pass  # learning is off
            case StuckDetected(step=step, reason=reason):
                self._stuck(step, reason, now)
            case PlayerSpotted(name=name):
                if self.waiting_for == name:
                    self.waiting_for = None
                    self._step(now)
            case HomeKnown(x=x, y=y, z=z):
                self.memory.home = Vec3(x, y, z)
                self._tell_home()
            case Connected() | Died() | Respawned():
                if isinstance(message, Connected):
                    self._tell_home()
                self.runner.running = None
                self.waiting_for = None
                self.arming = None  # a new bot in the bridge, or a life it disarmed
                self._step(now)
            case Pause():
                self._set_paused(True)
            case Resume():
                self._set_paused(False)
                self._step(now)
            case _:
                return super().on_message(message)
        self._arm(now, at_once=isinstance(message, _ARM_AT_ONCE))
        return None

    def _tell_home(self) -> None:
        """The bridge keeps the home (set_home): never broken for a path, its door walked."""
        home = self.memory.home
        if home is not None and self.link is not None:
            at = {axis: math.floor(getattr(home, axis)) for axis in "xyz"}
            self.link.call("set_home", **at)

    # -- the loop -------------------------------------------------------------------

    def _react(self, now: float) -> None:
        """Decide at once on a change, unless running as a polling loop (benchmarks only)."""
        if self.poll is None:
            self._step(now)

    def _step(self, now: float) -> None:
        if self.paused or self.link is None:
            return
        decision = decide(self.world, now, self.memory)
        if self.waiting_for is not None and decision.reflex == "operator":
            self._announce(decision)
            return  # only the order's walk waits to see the operator; the chain never does
        match admit(self.runner.running, decision):
            case "keep":
                return
            case "preempt":
                self.runner.preempt(decision)
        self._start(decision, now)

    def _start(self, decision: Decision, now: float) -> None:
        self._announce(decision)
        started = self.runner.start(decision, self.world, now)
        if started != "wait":  # a swing inside the cooldown did not happen
            self.memory.started(decision, now)
        if started == "idle":
            self._idle(now)
        elif started == "instant" and decision.reflex == "task" and decision.skill != SWING:
            # nothing to do: what it gets is held. Its milestone waits for those above it (the
            # plan ticks it once they are); the ones after it go out meanwhile
            self.memory.slot.drop_task()
            self._persist()
            skill_id = decision.skill or ""
            why = f"{WAITING}: its item is held; the milestones above it come first"
            self.publish(SkillFinished(skill=skill_id, ok=False, seconds=0.0, detail=why))
        elif started in ("refused", "failed") and decision.reflex == "task":
            # the curriculum counts the failure and rests the milestone; no retry loop here
            self.memory.slot.drop_task()
            self._persist()
            if started == "refused":  # a failed start already reported its SkillFinished
                why_not = self.runner.refusal
                logger.info("dropped task %s: %s", decision.skill, why_not)
                skill_id = decision.skill or ""
                self.publish(SkillFinished(skill=skill_id, ok=False, seconds=0.0, detail=why_not))

    def _struck_first(self, name: str, distance: float, entity_id: int, now: float) -> None:
        """The bridge struck the first blow as armed: the fight goes on from here as if this
        actor had swung (the next swing after the cooldown, what ran already stopped)."""
        decision = struck(name, entity_id, distance)
        self.runner.struck_first(decision, now)
        self.memory.started(decision, now)
        self._announce(decision)
        self._react(now)

    def _arm(self, now: float, *, at_once: bool, now_or_never: bool = False) -> None:
        """Tell the bridge what to strike first (:mod:`pepa.policy.reflex.firstblow`) when that
        changed: at once after what may disarm it (after the rest of the mailbox, see
        :class:`_Arm`; ``now_or_never``: not later), else at most every :data:`ARM_EVERY`."""
        if self.link is None or not self.first_blow:
            return
        running = self.runner.running
        at_once = at_once or self.arm_owed or running is not self.armed_running
        if not self.arm_due or (not at_once and now - self.armed_at < ARM_EVERY):
            return
        if at_once and not now_or_never and cast("queue.Queue[Any]", self.actor_inbox).qsize():
            self.arm_owed = True  # more on the way: armed once, after them
            if not self.arm_queued:
                self.arm_queued = True
                self.actor_ref.tell(_Arm())
            return
        self.arm_due, self.arm_owed = False, False
        self.armed_at, self.armed_running = now, running
        world = self.world
        off = self.paused or not world.connected or world.hp is None or world.food is None
        arming = {} if off else armed(world, now, self.memory, running)
        hp, food = world.hp or 0.0, world.food or 0
        sent = (arming, hp, food)
        if sent != self.arming and self.link.call("arm", reach=arming, hp=hp, food=food):
            if arming.keys() != (self.arming[0] if self.arming else {}).keys():
                kinds = f"armed for {len(arming)} kinds of hostile" if arming else "disarmed"
                logger.info("first blow: the bridge %s", kinds)
            self.arming = sent

    def _finished(self, done: ActionFinished, now: float) -> None:
        running = self.runner.finished(done.action_id)
        if running is None:
            return
        skill_id = running.decision.skill or ""
        if running.decision.reflex == "task" and self.memory.slot.drop_task(skill_id):
            self._persist()  # done or failed: the next task comes from the curriculum
        order = self.memory.slot.order
        unseen = not done.ok and done.error.startswith("cannot see")
        if order is not None and running.decision.reflex == "operator" and unseen:
            self.waiting_for = str(order.get("operator"))  # go on when they come into sight
            logger.info("waiting to see %s before going on with %s", self.waiting_for, skill_id)
            return
        seconds = now - running.started
        self.runner.outcome(running.label, skill_id, done.ok, done.error, seconds, running.step)
        if running.decision.reflex == "operator" and order is not None:
            reply = order_reply(skill_id, order, done.ok, done.error)
            if reply is not None:
                self.publish(SayInChat(text=reply))
                self._end_order()
        else:
            line = ended(
                self.memory,
                skill=skill_id,
                reflex=running.decision.reflex,
                ok=done.ok,
                error=done.error,
                now=now,
                position=self.world.position,
            )
            if line is not None:
                self.publish(SayInChat(text=line))
        self._step(now)

    def _idle(self, now: float) -> None:
        if not self.world.connected or self.link is None:
            return
        look, heartbeat = self.chores.due(now)
        if look:
            self.link.call("look_around")
        if heartbeat:
            pos = self.world.position
            where = f"{pos.x:g} {pos.y:g} {pos.z:g}" if pos else "?"
            logger.info("idle: hp %s food %s at %s", self.world.hp, self.world.food, where)

    def _stuck(self, step: str, reason: str, now: float) -> None:
        running = self.runner.running
        busy = running.decision.reflex if running is not None else self.activity[0]
        action = on_stuck(step, busy, running is not None)
        if action == "suspended":
            logger.info("stuck (%s): no %s while %s runs", reason, step, busy)
            return
        logger.warning("stuck (%s): %s", reason, step)
        if action == "alert":
            self.publish(SayInChat(text=f"I'm stuck and could not get free: {reason}"))
        elif action == "repath" and running is not None:
            self.runner.stop()
            self._start(running.decision, now)
        elif action == "escape":
            self.runner.escape(step, reason, self.world, now)

    # -- the task slot ----------------------------------------------------------------

    def _suggested(self, task: TaskSuggested, now: float) -> None:
        logger.info("task suggested by %s: %s (%s)", task.source, task.skill, task.reason)
        reason = f"{task.source}: {task.reason}"
        skill = skills.canonical(task.skill)
        self.memory.slot.suggest(skill, task.args, reason, milestone=task.milestone)
        self._persist()
        running = self.runner.running
        if running is not None and running.decision.reflex == "task":
            new = decide(self.world, now, self.memory)
            same = new.skill is not None and label(new.skill, new.args) == running.label
            if same:  # the same work for another milestone: stopping it to start it again
                # only raced the JS side (a dig stopped and begun again at once hung)
                logger.info("task: %s goes on (%s)", running.label, reason)
            else:
                self.runner.preempt(new)  # a new task
        self._step(now)

    def _order(self, verb: str, operator: str, now: float) -> None:
        if verb not in ORDERS:
            logger.warning("ignored an order the reflex does not know: %r from %s", verb, operator)
            return
        if verb == "stay":
            self._end_order()
        else:
            self.memory.slot.give_order(verb, operator)
            self.waiting_for = None
            self._persist()
        running = self.runner.running
        if running is not None and running.decision.priority <= PRIORITY["operator"]:
            self.runner.stop()  # an order never stops defend, escape or eat
        if verb != "stay":
            self._step(now)

    def _end_order(self) -> None:
        self.memory.slot.end_order()
        self.waiting_for = None
        self._persist()

    def _persist(self) -> None:
        """Make ``current-task.json`` hold what a restart resumes (only this actor writes it)."""
        if self.tasks is not None:
            content = self.memory.slot.persisted()
            self.tasks.sync(content, self.written)
            self.written = content

    def _announce(self, decision: Decision | None) -> None:
        if decision is None or decision.skill is None:
            activity: tuple[str | None, str | None] = (None, None)
        else:
            activity = (decision.reflex, label(decision.skill, decision.args))
        if activity != self.activity:
            self.activity = activity
            self.publish(ActivityChanged(reflex=activity[0], skill=activity[1]))

    def _set_paused(self, paused: bool) -> None:
        if paused == self.paused:
            return
        self.paused = paused
        logger.info("reflex loop %s", "paused" if paused else "resumed")
        if paused:
            self.runner.stop()
        # the bridge disarmed (or armed) before anyone hears of the pause: a paused bot
        # strikes no first blow either
        self._arm(self.now(), at_once=True, now_or_never=True)
        self.publish(PausedChanged(paused=paused))
