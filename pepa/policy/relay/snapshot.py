"""The status snapshot every client sees: pure assembly from the parts' views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pepa.runtime.events.queries import LearningSummary

__all__ = ["EMPTY_WORLD", "build_snapshot"]

EMPTY_WORLD: Mapping[str, Any] = {
    "connected": False,
    "hp": None,
    "food": None,
    "position": None,
    "dimension": None,
    "timeOfDay": None,
    "threats": [],
    "inventory": {},
    "deaths": 0,
    "version": None,
}
"""What perception reports before the bot is in a world (the keys of ``WorldView.to_wire()``
that a client relies on; the view adds the others once it exists)."""


def build_snapshot(
    *,
    world: Mapping[str, Any] | None,
    paused: bool,
    active_reflex: str | None,
    current_skill: str | None,
    actors: Sequence[Mapping[str, Any]],
    pending_proposals: Sequence[str],
    uptime: float,
    server: str,
    username: str,
    approved_proposals: Sequence[str] = (),
    plan: Mapping[str, Any] | None = None,
    last_death: str | None = None,
    learning: LearningSummary | None = None,
    sign_in: str | None = None,
) -> dict[str, Any]:
    """Merge perception's world view with the runtime's own state (docs/ipc.md, the snapshot).

    ``world`` is the plain-JSON form of the latest view (``WorldView.to_wire()``), None before one.
    """
    snapshot = dict(EMPTY_WORLD)
    if world:
        snapshot.update(world)
    snapshot.update(
        {
            "server": server,
            "username": username,
            "paused": paused,
            "activeReflex": active_reflex,
            "currentSkill": current_skill,
            "actors": [dict(row) for row in actors],
            "pendingProposals": len(pending_proposals),
            "proposals": list(pending_proposals),
            "approvedProposals": list(approved_proposals),
            "goal": (plan or {}).get("goal") or None,
            "plan": dict(plan) if plan else None,
            "uptime": round(uptime, 1),
            "lastDeath": last_death,
            "learning": _learning(learning or LearningSummary()),
            "signIn": sign_in,
        }
    )
    return snapshot


def _learning(summary: LearningSummary) -> dict[str, Any]:
    """The snapshot's ``learning`` (docs/ipc.md)."""
    return {
        "deaths": summary.deaths,
        "deathsByCause": dict(summary.deaths_by_cause),
        "recentDeaths": list(summary.recent_deaths),
        "lessonsInForce": summary.lessons_in_force,
        "recentLessons": list(summary.recent_lessons),
        "lessonsBySubject": dict(summary.lessons_by_subject),
        "hazards": list(summary.hazards),
        "nearMisses": summary.near_misses,
        "recentNearMisses": list(summary.recent_near_misses),
    }
