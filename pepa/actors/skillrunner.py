"""The skill runner: starts the chain's decisions through the link and keeps what is running.

Not pure — it calls the :class:`~pepa.link.api.Link` — but it owns no
thread and takes ``now`` from the reflex actor with each decision (only a
failure streak's proposal is stamped with the wall clock). It hands back
what happened (:data:`Start`) and the events to publish (through
``publish``). Tested with :class:`pepa.testing.FakeLink`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Literal

import skills
from pepa.link.api import Link
from pepa.policy.curriculum.assigner import WAITING
from pepa.policy.reflex.decision import Decision
from pepa.policy.reflex.dispatch import SWING, Running, label, prepare
from pepa.policy.reflex.failures import FailureTracker, SkillMetrics
from pepa.runtime.events import AdviceApplied, ProposalDrafted, SkillFinished
from pepa.world.view import WorldView
from skills.survive_escape import choose_mode

__all__ = ["SkillRunner", "Start"]

logger = logging.getLogger("pepa.actors.reflex")


Start = Literal["idle", "wait", "refused", "failed", "instant", "running"]
"""How a start went: nothing to run; not yet (a cooldown); the precondition said no;
the link refused; an instant skill ran (a swing); an action runs until ``actionDone``."""


class SkillRunner:
    """Runs one skill at a time through ``link``; records outcomes and failure streaks."""

    def __init__(self, link: Link | None, publish: Callable[[object], None]) -> None:
        self.link = link
        self.publish = publish
        self.running: Running | None = None
        self.metrics = SkillMetrics()
        self.failures = FailureTracker()
        self.last_attack = -1e9
        self.last_instant = ""
        self.refusal = ""
        """Why the last ``refused`` start could not run."""
        self.stop_owed = False
        """A pre-emption not carried out yet: :meth:`start` does it (see :meth:`preempt`)."""

    def stop(self) -> None:
        """Cancel the running action (the JS side stops walking and digging)."""
        self.stop_owed = False
        if self.link is not None:
            self.link.call("stop")
        self.running = None

    def preempt(self, by: Decision) -> None:
        """A higher decision replaces the running skill; the :meth:`start` that follows stops
        it: a swing in its own call (one bridge round trip before the hit, not two), anything
        else first, as a call of its own."""
        if self.running is not None:
            logger.info("%s pre-empts %s (%s)", by.reflex, self.running.label, by.reason)
        self.running, self.stop_owed = None, True

    def struck_first(self, decision: Decision, now: float) -> None:
        """The bridge swung ``decision``'s first blow itself (:mod:`pepa.policy.reflex.firstblow`):
        what ran is stopped there, so it is no longer running (its failure, when it comes, is
        a pre-empted skill's, not the task's), and the swing counts as this runner's own."""
        if self.running is not None:
            logger.info("%s pre-empts %s (first blow in the bridge)",
                        decision.reflex, self.running.label)  # fmt: skip
        self.running, self.stop_owed = None, False
        self.last_attack = now
        self.metrics.record(decision.skill or "", True, 0.0)
        what = label(decision.skill or "", decision.args)
        self.last_instant = what
        logger.info("%s: %s (%s)", decision.reflex, what, decision.reason)

    def start(self, decision: Decision, world: WorldView, now: float) -> Start:
        """Start ``decision``'s skill (its arguments completed from ``world``)."""
        try:
            return self._start(decision, world, now)
        finally:
            if self.stop_owed:  # a pre-empting swing that did not swing (a cooldown, no target)
                self.stop()

    def _start(self, decision: Decision, world: WorldView, now: float) -> Start:
        swing = decision.skill == SWING
        if self.stop_owed and not swing:
            self.stop()
        if decision.skill is None or self.link is None:
            return "idle"
        skill_id, skill = decision.skill, skills.get(decision.skill)
        ready = prepare(decision, world, now, last_attack=self.last_attack, escape_mode=choose_mode)
        if ready.wait:
            return "wait"
        swung_before = self.last_attack
        if swing:
            self.last_attack = now
        why_not = skill.check(world, ready.args)
        if why_not is not None:
            logger.debug("%s cannot run: %s", ready.label, why_not)
            self.refusal = why_not
            return "refused"
        args = {**ready.args, "stop_first": True} if swing and self.stop_owed else ready.args
        self.stop_owed = False  # the swing's own call stops what ran
        started = skill.run(self.link, args, world)
        if not started.ok and started.stale:  # the view was out of date: refused, no failure
            self.last_attack = swung_before  # no swing happened: no cooldown to wait out
            logger.debug("%s did not start: %s", ready.label, started.detail)
            self.refusal = started.detail
            return "refused"
        if not started.ok:
            self.outcome(ready.label, skill_id, False, started.detail, 0.0)
            return "failed"
        if started.action_id is None:
            self.metrics.record(skill_id, True, 0.0)  # instant skills (a swing)
            if ready.label != self.last_instant:
                self.last_instant = ready.label
                logger.info("%s: %s (%s)", decision.reflex, ready.label, decision.reason)
            return "instant"
        self.last_instant = ""
        logger.info("%s: %s (%s)", decision.reflex, ready.label, decision.reason)
        self.running = Running(decision, started.action_id, now, ready.label, started.step)
        if decision.advice is not None:
            about, hostile, verdict, signature = decision.advice
            self.publish(
                AdviceApplied(
                    skill=about, hostile=hostile, verdict=verdict, instead=skill_id,
                    signature=signature,
                )
            )  # fmt: skip
        return "running"

    def finished(self, action_id: str) -> Running | None:
        """The running skill if ``action_id`` ends it (it is no longer running), else None."""
        running = self.running
        if running is None or action_id != running.action_id:
            return None
        self.running = None
        return running

    def outcome(
        self, what: str, skill_id: str, ok: bool, detail: str, seconds: float, step: bool = False
    ) -> None:
        """Record how a skill ended (``step``: a step on its way, :attr:`Running.step`); three
        identical failures in a row draft a proposal."""
        self.metrics.record(skill_id, ok, seconds)
        self.publish(
            SkillFinished(skill=skill_id, ok=ok, seconds=seconds, detail=detail, step=step)
        )
        if not ok and detail.startswith(WAITING):  # time to pass, not a failure to learn from
            logger.info("%s: %s", what, detail)
            return
        if not ok:
            logger.warning("%s failed: %s", what, detail)
        draft = self.failures.record(what, ok, detail, time.time())
        if draft is not None:
            logger.warning("%s failed %d times in a row: proposal %s", what, 3, draft.file_name)
            self.publish(ProposalDrafted(file_name=draft.file_name, markdown=draft.markdown()))

    def escape(self, step: str, reason: str, world: WorldView, now: float) -> None:
        """The watchdog's rung: stop, then ``pillar-up`` or ``dig-out`` as an escape."""
        self.stop()
        if self.link is None:
            return
        skill = skills.get(f"survive.{step}")
        started = skill.run(self.link, {}, world)
        if started.ok and started.action_id is not None:
            escape = Decision(reflex="escape", skill=skill.id, reason=reason)
            self.running = Running(escape, started.action_id, now, skill.id)
