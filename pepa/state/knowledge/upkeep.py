"""Retention for one server's knowledge: the knowledge base, reflections and logs pruned part
by part, so that a bot running for months never fills the disk.

:func:`prune_server` applies a :class:`~pepa.state.retention.RetentionPolicy` (the
choosers and file removal are in :mod:`pepa.state.retention`). Each part is pruned on
its own: one that fails (a symlinked ``logs/``, a database error) costs one
warning, never the other parts, the next day's prune or the actor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

from pepa.state.knowledge.writer import StoreWriter
from pepa.state.retention import RetentionPolicy, prune_logs, prune_reflections

__all__ = ["prune_server"]

logger = logging.getLogger(__name__)


def prune_server(
    db: StoreWriter, server_dir: Path, *, policy: RetentionPolicy, now: datetime, today: date
) -> dict[str, int]:
    """Forget what ``policy`` no longer keeps at ``now`` (UTC; ``today`` local, the logs'
    days); what went, by part."""
    pruned: dict[str, int] = {}
    parts: tuple[tuple[str, Callable[[], dict[str, int]]], ...] = (
        ("the knowledge base", lambda: db.prune(policy.cutoff(now))),
        ("reflections", lambda: {"reflections": len(prune_reflections(
            server_dir / "reflections", now=now, policy=policy))}),
        ("logs", lambda: {"log_files": len(prune_logs(
            server_dir / "logs", today=today, policy=policy))}),
    )  # fmt: skip
    for what, action in parts:
        try:
            pruned.update(action())
        except Exception as exc:  # any failure: the next part and the next day still run
            logger.warning("pruning %s failed: %s", what, exc)
    if any(pruned.values()):
        done = ", ".join(f"{n} {part.replace('_', ' ')}" for part, n in pruned.items() if n)
        logger.info("retention (%s): pruned %s", policy.describe(), done)
    return pruned
