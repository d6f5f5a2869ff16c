"""Persona: everything the bot says in chat goes through here, rate-limited.

Bot chat is limited to a burst of 3 and one line per 1.5 s after that, so a
server never kicks it for spam (DESIGN section 6).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from pepa.events import ErrorRaised, SayInChat
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["ChatLimiter", "Persona"]

logger = logging.getLogger(__name__)


@dataclass(slots=True, kw_only=True)
class ChatLimiter:
    """Token bucket: ``burst`` lines at once, then one per ``interval`` seconds."""

    burst: int = 3
    interval: float = 1.5
    _tokens: float = field(default=-1.0)
    _stamp: float = 0.0

    def allow(self, now: float) -> bool:
        """Spend a token at ``now`` if one is left."""
        if self._tokens < 0:
            self._tokens, self._stamp = float(self.burst), now
        self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) / self.interval)
        self._stamp = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class Persona(SupervisedActor):
    """Speaks for the bot."""

    def __init__(self, *, supervision: SupervisionContext) -> None:
        super().__init__(supervision=supervision)
        self.limiter = ChatLimiter()

    def setup(self) -> None:
        self.runtime.bus.subscribe(SayInChat, self.handle)

    def on_message(self, message: Any) -> Any:
        match message:
            case SayInChat(text=text):
                if not self.limiter.allow(time.monotonic()):
                    self.publish(
                        ErrorRaised(source="persona", text="chat rate limit: message dropped")
                    )
                    return None
                self.publish(
                    ErrorRaised(source="persona", text="not connected to a Minecraft server")
                )
                logger.info("would say: %s", text)
            case _:
                return super().on_message(message)
        return None
