"""The chat outbox: every line the bot says waits its turn, so no server kicks it for spam. Pure.

A token bucket (:class:`ChatLimiter`: a burst of 3, then one line per 1.5 s)
paces the lines; :class:`Outbox` keeps the ones waiting, oldest first, up to
:data:`QUEUE_LIMIT` (beyond it the oldest are dropped), so no reply is lost
in a burst. Time is passed in (``now``, monotonic seconds); nothing here
reads a clock or talks to a server.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = ["QUEUE_LIMIT", "ChatLimiter", "Outbox"]

QUEUE_LIMIT = 20
"""Lines waiting to be said; beyond it the oldest are dropped."""
_EPSILON = 1e-9


@dataclass(slots=True, kw_only=True)
class ChatLimiter:
    """Token bucket: ``burst`` lines at once, then one per ``interval`` seconds."""

    burst: int = 3
    interval: float = 1.5
    _tokens: float | None = None
    _stamp: float = 0.0

    def allow(self, now: float) -> bool:
        """Spend a token at ``now`` if one is left."""
        tokens = float(self.burst) if self._tokens is None else self._tokens
        elapsed = 0.0 if self._tokens is None else now - self._stamp
        tokens = min(float(self.burst), tokens + elapsed / self.interval)
        self._stamp = now
        allowed = tokens >= 1.0 - _EPSILON  # refills added tick by tick may fall a hair short
        self._tokens = max(0.0, tokens - 1.0) if allowed else tokens
        return allowed


@dataclass(slots=True, kw_only=True)
class Outbox:
    """Lines waiting to be said, paced by a :class:`ChatLimiter`."""

    limit: int = QUEUE_LIMIT
    limiter: ChatLimiter = field(default_factory=ChatLimiter)
    lines: deque[str] = field(default_factory=deque)

    def __len__(self) -> int:
        return len(self.lines)

    def put(self, line: str) -> list[str]:
        """Queue ``line``; returns the oldest lines dropped to stay within :attr:`limit`."""
        self.lines.append(line)
        dropped: list[str] = []
        while len(self.lines) > self.limit:
            dropped.append(self.lines.popleft())
        return dropped

    def take(self, now: float) -> str | None:
        """The next line to say at ``now``, if one waits and the limiter allows it."""
        if not self.lines or not self.limiter.allow(now):
            return None
        return self.lines.popleft()
