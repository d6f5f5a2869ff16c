"""Post-mortems waiting for the LLM: a bounded queue, oldest cause first, alike deaths merged. Pure.

The coach asks the model about a death only when the shared budget allows
(:class:`pepa.policy.coach.coaching.AskGate`): one ask at a time, three an hour, twelve
minutes between two post-mortems. A death spiral brings deaths faster than
that, and those are the deaths worth explaining, so a request the gate turns
away waits here instead of being dropped, and the coach drains the queue as
the budget frees up. Nothing here reads a clock or starts a thread: ``now`` is
passed in and only orders the entries.

- **Merged**: a death whose cause signature (:func:`signature`: the kind of
  death and the killer, from the bundle's ``cause``) is already queued joins
  that entry (its death ids and count grow, its newest bundle is kept for the
  prompt) instead of costing another call.
- **Oldest cause first**: :meth:`PostMortemQueue.pop` gives the entry whose
  first death is the oldest.
- **Bounded** at :data:`MAX_PENDING` entries (distinct signatures). When full,
  a death of a signature not yet queued is turned away if its *kind* is
  already queued (another killer of the same kind: the queued entry teaches
  the same kind of lesson); if its kind is not queued at all, the newest
  entry of the kind with the most entries is dropped to make room. The bound
  is larger than the number of kinds, so there always is one: a kind of
  death not yet queued is never lost. Deaths turned away keep their offline
  post-mortem (the knowledge actor ran it already); :attr:`dropped` counts
  them, and :attr:`Offered.full_news` is true once per spell of fullness, for
  one log line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pepa.world.death import KINDS, death_cause

__all__ = ["MAX_PENDING", "Offered", "Pending", "PostMortemQueue", "Signature", "signature"]

MAX_PENDING = 16
"""Entries (distinct cause signatures) the queue holds; more than there are kinds of death."""

Signature = tuple[str, str | None]
"""What makes two deaths alike: the kind of death and the killer (None when nobody killed it)."""


def signature(bundle: Mapping[str, Any]) -> Signature:
    """The cause signature of a death's context bundle (``bundle["cause"]``; unknown without)."""
    cause = death_cause(bundle.get("cause"))
    return cause.kind, cause.killer


@dataclass(slots=True, kw_only=True)
class Pending:
    """Deaths of one cause signature waiting for one post-mortem."""

    signature: Signature
    first: float
    """When its first death was queued (orders the queue)."""
    death_ids: list[int]
    """Every death it covers, oldest first; the post-mortem is stored for the first."""
    reason: str
    """The newest death's message."""
    bundle: Mapping[str, Any]
    """The newest death's context bundle: the facts the prompt shows."""

    @property
    def death_id(self) -> int:
        """The death the post-mortem is stored for: the first one."""
        return self.death_ids[0]

    @property
    def deaths(self) -> int:
        """How many deaths it covers."""
        return len(self.death_ids)

    def describe(self) -> str:
        """``mob by zombie``, ``fall``: for log lines."""
        kind, killer = self.signature
        return f"{kind} by {killer}" if killer else kind


@dataclass(frozen=True, slots=True, kw_only=True)
class Offered:
    """What became of one death offered to the queue."""

    outcome: Literal["queued", "merged", "dropped", "known"]
    """``queued``: a new entry; ``merged``: joined the entry of its signature; ``dropped``:
    turned away (the queue is full and its kind is queued); ``known``: this death id already is."""
    entry: Pending | None = None
    """The entry it is in (None when dropped)."""
    evicted: Pending | None = None
    """The entry dropped to make room for a kind not yet queued."""
    full_news: bool = False
    """The queue just started turning deaths away: worth one log line."""


@dataclass(slots=True)
class PostMortemQueue:
    """The post-mortems the budget did not allow yet, by cause signature, oldest first."""

    bound: int = MAX_PENDING
    entries: list[Pending] = field(default_factory=list)
    """Oldest first (the order they were queued in)."""
    dropped: int = 0
    """Deaths turned away or evicted since the start, for the logs."""
    _full: bool = field(default=False, init=False, repr=False)
    """Full, and already said so."""

    def __post_init__(self) -> None:
        if self.bound <= len(KINDS):
            raise ValueError(f"the bound must exceed the {len(KINDS)} kinds of death")

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, death_id: object) -> bool:
        return any(death_id in entry.death_ids for entry in self.entries)

    def offer(self, death_id: int, reason: str, bundle: Mapping[str, Any], now: float) -> Offered:
        """Queue one death (see the module's rules); what became of it."""
        if death_id in self:
            return Offered(outcome="known", entry=self._entry_of(death_id))
        sign = signature(bundle)
        for entry in self.entries:
            if entry.signature == sign:
                entry.death_ids.append(death_id)
                entry.reason, entry.bundle = reason, bundle
                return Offered(outcome="merged", entry=entry)
        evicted = None
        if len(self.entries) >= self.bound:
            news = not self._full
            self._full = True
            if any(entry.signature[0] == sign[0] for entry in self.entries):
                self.dropped += 1
                return Offered(outcome="dropped", full_news=news)
            evicted = self._evict()
        else:
            news = False
        entry = Pending(
            signature=sign, first=now, death_ids=[death_id], reason=reason, bundle=bundle
        )
        self.entries.append(entry)
        return Offered(outcome="queued", entry=entry, evicted=evicted, full_news=news)

    def pop(self) -> Pending | None:
        """The entry whose first death is the oldest, taken out; None when empty."""
        if not self.entries:
            return None
        entry = min(self.entries, key=lambda e: e.first)  # the earliest queued on a tie
        self.entries.remove(entry)
        if len(self.entries) < self.bound:
            self._full = False
        return entry

    def _evict(self) -> Pending:
        """Drop the newest entry of the kind with the most entries (it has at least two)."""
        counts = Counter(entry.signature[0] for entry in self.entries)
        crowded = max(counts.values())
        crowd = [
            (e.first, i, e) for i, e in enumerate(self.entries) if counts[e.signature[0]] == crowded
        ]
        victim = max(crowd, key=lambda item: item[:2])[2]
        self.entries.remove(victim)
        self.dropped += victim.deaths
        return victim

    def _entry_of(self, death_id: int) -> Pending | None:
        return next((e for e in self.entries if death_id in e.death_ids), None)
