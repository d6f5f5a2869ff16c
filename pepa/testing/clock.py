"""A monotonic clock that moves only when the test says so."""

from __future__ import annotations

__all__ = ["FakeClock"]


class FakeClock:
    """Monotonic seconds that move only by :meth:`advance`."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        """Move the clock forward; returns the new time."""
        if seconds < 0:
            raise ValueError("a monotonic clock never goes back")
        self.now += seconds
        return self.now
