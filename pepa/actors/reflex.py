"""Reflex: the priority chain that keeps the bot alive, and the pause switch.

The chain (operator goal > defend > eat > sleep > task > idle) grows with the
survival layer; today it serves the operator slot: ``come`` walks to the
operator, ``follow`` keeps near them, ``stay`` stops. The operator's order is
written to ``current-task.json`` before it starts and cleared when it ends,
so a restarted worker (or a reconnect) resumes it without anyone asking.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pepa.events import (
    ActionFinished,
    ActivityChanged,
    Connected,
    OperatorOrder,
    Pause,
    PausedChanged,
    PlayerSpotted,
    Resume,
    SayInChat,
    WorldObserved,
)
from pepa.memory import TaskFile
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Reflex"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tick:
    """Timer: run the chain."""


class Reflex(SupervisedActor):
    """Runs the chain on world changes and on its tick, unless paused."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        link: Any = None,
        server_dir: Path | None = None,
        tick: float = 1.0,
        paused: bool = False,
    ) -> None:
        super().__init__(supervision=supervision)
        self.link = link
        self.tick = tick
        self.paused = paused
        self.tasks = TaskFile(server_dir / "current-task.json") if server_dir else None
        self.task: dict[str, Any] | None = None
        self.action_id: str | None = None
        self.waiting_for: str | None = None
        self.world: dict[str, Any] = {}
        self.ticks = 0

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            WorldObserved, Pause, Resume, OperatorOrder, ActionFinished, Connected, PlayerSpotted
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)
        self.publish(PausedChanged(paused=self.paused))
        self.task = self.tasks.read() if self.tasks else None
        if self.task is not None:
            logger.info("resuming task from current-task.json: %s", self.task)
            self._start_task()
        else:
            self._announce()
        self.every(self.tick, _Tick())

    def on_message(self, message: Any) -> Any:
        match message:
            case Pause():
                self._set_paused(True)
            case Resume():
                self._set_paused(False)
            case OperatorOrder(verb=verb, operator=operator):
                self._order(verb, operator)
            case ActionFinished():
                self._finished(message)
            case Connected():
                if self.task is not None:
                    self._start_task()
            case PlayerSpotted(name=name):
                if self.waiting_for == name:
                    self._start_task()
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
            case _Tick():
                if not self.paused:
                    self.ticks += 1
            case _:
                return super().on_message(message)
        return None

    # -- operator goals ---------------------------------------------------------------

    def _order(self, verb: str, operator: str) -> None:
        if verb == "stay":
            self._end_task()
            if self.link is not None:
                self.link.stop()
            return
        self.task = {"kind": verb, "operator": operator}
        if self.tasks is not None:
            self.tasks.write(self.task)
        self._start_task()

    def _start_task(self) -> None:
        task = self.task
        self._announce()
        if task is None or self.paused or self.link is None or not self.link.connected:
            return  # resumed on Resume / Connected
        operator = str(task.get("operator", ""))
        self.waiting_for = None
        if task["kind"] == "come":
            self.action_id = self.link.goto_player(operator, 2.0)
        elif task["kind"] == "follow":
            self.action_id = self.link.follow(operator, 2.0)
        else:
            logger.warning("unknown task %r in current-task.json; dropped", task)
            self._end_task()

    def _finished(self, done: ActionFinished) -> None:
        if self.task is None or done.action_id != self.action_id:
            return
        operator = self.task.get("operator")
        if not done.ok and done.error.startswith("cannot see"):
            # not in sight yet (just reconnected, or far away): go on when they appear
            self.waiting_for = str(operator)
            logger.info("waiting to see %s before going on with %s", operator, self.task["kind"])
            return
        if self.task["kind"] == "come":
            text = f"Here I am, {operator}." if done.ok else f"I can't reach you: {done.error}"
            self.publish(SayInChat(text=text))
            self._end_task()
        elif not done.ok:
            self.publish(SayInChat(text=f"I lost you, {operator}: {done.error}"))
            self._end_task()

    def _end_task(self) -> None:
        self.task = None
        self.action_id = None
        self.waiting_for = None
        if self.tasks is not None:
            self.tasks.clear()
        self._announce()

    def _announce(self) -> None:
        task = self.task
        if task is None:
            self.publish(ActivityChanged(reflex=None, skill=None))
        else:
            skill = "nav.goto" if task["kind"] == "come" else "nav.follow"
            self.publish(
                ActivityChanged(reflex="operator", skill=f"{skill} {task.get('operator')}")
            )

    def _set_paused(self, paused: bool) -> None:
        if paused == self.paused:
            return
        self.paused = paused
        logger.info("reflex loop %s", "paused" if paused else "resumed")
        self.publish(PausedChanged(paused=paused))
        if paused and self.link is not None:
            self.link.stop()
        elif not paused and self.task is not None:
            self._start_task()
