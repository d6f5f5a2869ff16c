"""Perception: keeps the world model and publishes what the bot sees.

Until the world connection exists (the Minecraft layer), perception reports a
disconnected world so that every client still gets a complete snapshot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pepa.events import WorldObserved
from pepa.snapshot import EMPTY_WORLD
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Perception"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Observe:
    """Timer: look at the world again."""


class Perception(SupervisedActor):
    """Publishes :class:`WorldObserved` on start and whenever the world changes."""

    def __init__(self, *, supervision: SupervisionContext, interval: float = 1.0) -> None:
        super().__init__(supervision=supervision)
        self.interval = interval
        self.world: dict[str, Any] = dict(EMPTY_WORLD)

    def setup(self) -> None:
        self.publish(WorldObserved(snapshot=dict(self.world)))
        self.every(self.interval, _Observe())

    def on_message(self, message: Any) -> Any:
        match message:
            case _Observe():
                return None
            case _:
                return super().on_message(message)

    def world_view(self) -> dict[str, Any]:
        """The current world model (proxy-callable)."""
        return dict(self.world)
