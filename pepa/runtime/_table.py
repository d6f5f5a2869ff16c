"""The live table of every supervised actor's state, for snapshots and dashboards."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass

__all__ = ["ActorRow", "ActorTable"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ActorRow:
    """One actor as a snapshot shows it."""

    name: str
    """Stable name."""
    state: str
    """``starting``, ``running``, ``restarting``, ``hung``, ``stopped`` or ``failed``."""
    restarts: int
    """Restarts since the worker started."""
    reason: str
    """Last failure, one line; empty if it never failed."""
    supervisor: str
    """Name of the supervising actor."""


class ActorTable:
    """Written by supervisors (each row by its own supervisor), read by anyone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, ActorRow] = {}

    def update(self, row: ActorRow) -> None:
        """Replace the row of ``row.name``."""
        with self._lock:
            self._rows[row.name] = row

    def rows(self) -> list[ActorRow]:
        """Every row, in first-registration order."""
        with self._lock:
            return list(self._rows.values())

    def as_dicts(self) -> list[dict[str, object]]:
        """Rows as plain dicts, ready for JSON."""
        return [asdict(row) for row in self.rows()]
