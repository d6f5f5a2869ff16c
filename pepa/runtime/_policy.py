"""Pure restart policy: backoff with jitter and restart intensity.

Neither class reads the clock: callers pass ``now`` (seconds, monotonic), so
both are unit-tested without threads or sleeps.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

__all__ = ["Backoff", "RestartIntensity"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Backoff:
    """Delay before restarting a child that failed ``attempt`` times in a row.

    The first restart after a stable period is immediate (a crash is served
    again within milliseconds); later ones wait ``base * factor**(attempt-2)``
    seconds, capped at ``cap``, scaled by a jitter factor drawn uniformly from
    ``[1 - jitter, 1 + jitter]`` so that siblings do not restart in lockstep.
    """

    base: float = 0.01
    """Delay of the second restart in a row, in seconds."""
    factor: float = 2.0
    """Growth of the delay per further failure."""
    cap: float = 2.0
    """Largest delay, in seconds, before jitter."""
    jitter: float = 0.5
    """Relative spread of the random jitter (0 disables it)."""
    stable_after: float = 30.0
    """A child that ran this many seconds counts as stable: its failure run resets."""

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """Seconds to wait before restart number ``attempt`` (1-based) of a failure run."""
        if attempt <= 1:
            return 0.0
        raw = min(self.cap, self.base * self.factor ** (attempt - 2))
        if self.jitter <= 0:
            return raw
        spread = (rng or random).uniform(1.0 - self.jitter, 1.0 + self.jitter)
        return raw * spread


@dataclass(slots=True, kw_only=True)
class RestartIntensity:
    """At most ``max_restarts`` restarts within any ``period`` seconds (Erlang's R in T).

    ``allow(now)`` records a restart and answers whether it is within the
    limit; the first refusal means the supervisor must give up and escalate.
    """

    max_restarts: int = 5
    """R: restarts allowed inside one window."""
    period: float = 30.0
    """T: the window, in seconds."""
    _stamps: deque[float] = field(default_factory=deque)

    def allow(self, now: float) -> bool:
        """Record a restart at ``now``; False when it would exceed R in T."""
        while self._stamps and now - self._stamps[0] > self.period:
            self._stamps.popleft()
        if len(self._stamps) >= self.max_restarts:
            return False
        self._stamps.append(now)
        return True

    def recent(self, now: float) -> int:
        """Restarts counted inside the window ending at ``now``."""
        return sum(1 for stamp in self._stamps if now - stamp <= self.period)
