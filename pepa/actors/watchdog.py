"""Watchdog: notices when the bot stops making progress toward a movement goal.

The escalation ladder (re-path → pillar-up → dig out → alert) arrives with the
survival layer; this actor already follows the world so it can judge progress.
"""

from __future__ import annotations

import logging
from typing import Any

from pepa.events import WorldObserved
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Watchdog"]

logger = logging.getLogger(__name__)


class Watchdog(SupervisedActor):
    """Follows positions from perception."""

    def __init__(self, *, supervision: SupervisionContext) -> None:
        super().__init__(supervision=supervision)
        self.last_position: Any = None

    def setup(self) -> None:
        self.runtime.bus.subscribe(WorldObserved, self.handle)

    def on_message(self, message: Any) -> Any:
        match message:
            case WorldObserved(snapshot=snapshot):
                self.last_position = snapshot.get("position")
            case _:
                return super().on_message(message)
        return None
