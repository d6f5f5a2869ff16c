"""Per-client command rates for the socket: a token bucket each, and drop reports.

The IPC server keeps what one client can make the *ipc actor* hold bounded
(commands in flight). But the ipc actor takes a command in microseconds and
hands the work on — a goal to the curriculum (three fsync'd writes and the
planner), a chat line to the persona — so without a rate the mailboxes behind
it would grow as fast as a client can write. :class:`CommandRate` gives each
client a token bucket (default 10 a second, bursts of 30); a command without
a token is dropped, and :meth:`CommandRate.report` / :meth:`CommandRate.sweep`
say how many were dropped at most once per ``report_every`` seconds per
client. Pure: the caller passes the time; one thread (the ipc actor) owns it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["COMMAND_BURST", "COMMAND_RATE", "REPORT_EVERY", "CommandRate"]

COMMAND_RATE = 10.0
"""Commands a second one client may have handed on, sustained."""
COMMAND_BURST = 30
"""Commands one client may send at once after a quiet spell (the bucket's size)."""
REPORT_EVERY = 1.0
"""Seconds between two drop reports to the same client, at least."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float
    dropped: int = 0
    """Dropped since the last report."""
    reported: float = -math.inf
    """When the last report was given."""


class CommandRate:
    """A token bucket per client id, and how many of its commands were dropped."""

    def __init__(
        self,
        rate: float = COMMAND_RATE,
        burst: int = COMMAND_BURST,
        report_every: float = REPORT_EVERY,
    ) -> None:
        if rate <= 0 or burst < 1 or report_every < 0:
            raise ValueError(f"bad command rate {rate}/s, burst {burst}, report {report_every}s")
        self.rate = rate
        self.burst = burst
        self.report_every = report_every
        self._buckets: dict[int, _Bucket] = {}

    def admit(self, client: int, now: float) -> bool:
        """Take a token for one command of ``client``; False (counted as dropped) if none."""
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = _Bucket(tokens=float(self.burst), stamp=now)
        self._refill(bucket, now)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return True
        bucket.dropped += 1
        return False

    def report(self, client: int, now: float) -> int:
        """How many of ``client``'s commands were dropped since the last report, if a report
        is due now (0: nothing dropped, or the last report is under ``report_every`` old)."""
        bucket = self._buckets.get(client)
        if bucket is None or not bucket.dropped or now - bucket.reported < self.report_every:
            return 0
        dropped, bucket.dropped, bucket.reported = bucket.dropped, 0, now
        return dropped

    def sweep(self, now: float) -> list[tuple[int, int]]:
        """The reports due now, as ``(client, dropped)``; forgets clients that are idle again.

        A client whose bucket is full again and has nothing to report is the
        same as a new one, so it is forgotten: the table holds only clients
        that sent something in the last ``burst / rate`` seconds.
        """
        due = [(client, n) for client in list(self._buckets) if (n := self.report(client, now))]
        for client, bucket in list(self._buckets.items()):
            self._refill(bucket, now)
            quiet = now - bucket.reported >= self.report_every
            if bucket.tokens >= self.burst and not bucket.dropped and quiet:
                del self._buckets[client]
        return due

    def clients(self) -> int:
        """Clients with a bucket now."""
        return len(self._buckets)

    def _refill(self, bucket: _Bucket, now: float) -> None:
        elapsed = max(0.0, now - bucket.stamp)
        bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate)
        bucket.stamp = max(bucket.stamp, now)
