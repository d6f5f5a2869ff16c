"""``pepa status`` for a fleet: one line per bot, as :mod:`pepa.ipc.fleet` reads them."""

from __future__ import annotations

from typing import Any

from pepa.fleet.supervisor import processes
from pepa.ipc.fleet import BotLine

__all__ = ["format_fleet"]


def format_fleet(roster: dict[str, Any], lines: list[BotLine]) -> str:
    """The fleet as a table: one line per bot (health, doing, deaths, lessons)."""
    groups = roster.get("groups") or []
    restarts = sum(int(g.get("restarts") or 0) for g in groups if isinstance(g, dict))
    up = sum(1 for line in lines if line.snapshot is not None)
    out = [
        f"fleet      {roster.get('server')}: {len(lines)} bots, {up} answering, "
        f"{processes(len(groups))} ({restarts} restarts); "
        f"`pepa status --bot NAME` for one bot",
        f"{'bot':<17}{'grp':>3}  {'state':<13}{'hp/food':>8}  {'deaths':>6}  {'lessons':>7}  doing",
    ]
    for line in lines:
        s = line.snapshot
        if s is None:
            out.append(f"{line.name:<17}{line.group:>3}  {'down':<13}{'-':>8}  {'-':>6}  {'-':>7}  "
                       f"{line.down[:60]}")  # fmt: skip
            continue
        said = s.get("learning")
        learning: dict[str, Any] = said if isinstance(said, dict) else {}
        state = "connected" if s.get("connected") else "connecting"
        hp = f"{_num(s.get('hp'))}/{_num(s.get('food'))}"
        doing = s.get("activeReflex") or s.get("currentSkill") or "idle"
        if s.get("paused"):
            doing += " (paused)"
        out.append(
            f"{line.name:<17}{line.group:>3}  {state:<13}{hp:>8}  {s.get('deaths') or 0:>6}  "
            f"{learning.get('lessonsInForce', 0):>7}  {doing}"
        )
    if roster.get("ray"):  # where each group runs in the cluster
        out.append(f"on the Ray cluster at {roster['ray']}:")
        out.extend(
            f"  group {g.get('group')}: pid {g.get('pid') or '-'} on {g.get('where') or '-'}"
            for g in groups
            if isinstance(g, dict)
        )
    return "\n".join(out) + "\n"


def _num(value: Any) -> str:
    return f"{value:.0f}" if isinstance(value, int | float) else "-"
