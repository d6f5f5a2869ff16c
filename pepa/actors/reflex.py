"""Reflex: the priority chain that keeps the bot alive, and the pause switch.

The chain itself (defend > eat > sleep > task > idle) is a pure function added
with the survival layer; this actor owns the pause state and the tick.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pepa.events import Pause, PausedChanged, Resume, WorldObserved
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Reflex"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tick:
    """Timer: run the chain."""


class Reflex(SupervisedActor):
    """Runs the reflex chain on every world change and on its tick, unless paused."""

    def __init__(
        self, *, supervision: SupervisionContext, tick: float = 1.0, paused: bool = False
    ) -> None:
        super().__init__(supervision=supervision)
        self.tick = tick
        self.paused = paused
        self.active: str | None = None
        self.world: dict[str, Any] = {}
        self.ticks = 0

    def setup(self) -> None:
        self.runtime.bus.subscribe(WorldObserved, self.handle)
        self.runtime.bus.subscribe(Pause, self.handle)
        self.runtime.bus.subscribe(Resume, self.handle)
        self.publish(PausedChanged(paused=self.paused))
        self.every(self.tick, _Tick())

    def on_message(self, message: Any) -> Any:
        match message:
            case Pause():
                self._set_paused(True)
            case Resume():
                self._set_paused(False)
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
            case _Tick():
                if not self.paused:
                    self.ticks += 1
            case _:
                return super().on_message(message)
        return None

    def _set_paused(self, paused: bool) -> None:
        if paused == self.paused:
            return
        self.paused = paused
        logger.info("reflex loop %s", "paused" if paused else "resumed")
        self.publish(PausedChanged(paused=paused))
