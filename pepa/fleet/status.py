"""``pepa status`` for a fleet: one line per bot, read from every bot's own socket.

The roster (``<host>_<port>/fleet.json``, written by ``pepa fleet``) names
the groups and their bots; each bot's snapshot comes from its ``bot.sock``
as for one daemon, all sockets asked at once. A bot whose socket does not
answer is shown ``down`` with the reason its worker left (``worker-exit.json``).
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pepa.daemon.worker import EXIT_FILE
from pepa.fleet.supervisor import ROSTER, processes
from pepa.ipc.client import IpcClient, IpcClientError
from pepa.state.files import WORKER_EXIT, load

__all__ = ["BotLine", "fleet_lines", "format_fleet", "read_roster", "roster_bots"]

logger = logging.getLogger(__name__)

ASK_TIMEOUT = 5.0
MAX_ROSTER_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class BotLine:
    """One bot as ``pepa status`` shows it in a fleet."""

    name: str
    group: int
    snapshot: dict[str, Any] | None
    """Its socket's snapshot; None when it did not answer."""
    down: str = ""
    """Why it is down, when it is."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "snapshot": self.snapshot,
            "down": self.down,
        }


def read_roster(server_root: Path) -> dict[str, Any] | None:
    """The running fleet's roster, or None (no fleet, or its supervisor is gone)."""
    path = server_root / ROSTER
    try:
        raw = path.read_bytes()[: MAX_ROSTER_BYTES + 1]
        roster = orjson.loads(raw)
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as exc:
        logger.warning("cannot read %s: %s", path, exc)
        return None
    if not isinstance(roster, dict) or not isinstance(roster.get("groups"), list):
        return None
    pid = roster.get("pid")
    if not isinstance(pid, int) or not _alive(pid):
        return None  # left behind by a fleet killed with -9
    return roster


def fleet_lines(server_root: Path, roster: dict[str, Any]) -> list[BotLine]:
    """Every bot of the roster with its snapshot, asked in parallel (or, for a fleet on Ray,
    from the fleet's own socket, which asks each group on its node)."""
    if isinstance(roster.get("socket"), str):
        return _ask_fleet(server_root, roster)
    bots = roster_bots(roster)
    with ThreadPoolExecutor(max_workers=min(32, max(1, len(bots)))) as pool:
        return list(pool.map(lambda bot: _ask(server_root, *bot), bots))


def roster_bots(roster: dict[str, Any]) -> list[tuple[str, int]]:
    """Every bot the roster names, with its group."""
    return [
        (str(name), int(group.get("group", 0)))
        for group in roster["groups"]
        if isinstance(group, dict)
        for name in group.get("bots") or []
    ]


def _ask_fleet(server_root: Path, roster: dict[str, Any]) -> list[BotLine]:
    from pepa.fleet.fleetsock import FLEET_SOCKET, ask_fleet

    path = server_root / FLEET_SOCKET
    try:
        said = ask_fleet(path, ASK_TIMEOUT * 2)
    except (OSError, ValueError) as exc:
        return [
            BotLine(name, group, None, down=f"{path}: {exc}") for name, group in roster_bots(roster)
        ]
    lines = []
    for bot in said:
        snapshot = bot.get("snapshot")
        lines.append(
            BotLine(
                str(bot.get("name")),
                int(bot.get("group") or 0),
                snapshot if isinstance(snapshot, dict) else None,
                down=str(bot.get("down") or ""),
            )
        )
    return lines


def _ask(server_root: Path, name: str, group: int) -> BotLine:
    folder = server_root / name
    try:
        with IpcClient.connect(folder / "bot.sock", timeout=ASK_TIMEOUT) as client:
            hello = client.wait_for(lambda e: e.get("type") in ("hello", "error"), ASK_TIMEOUT)
    except (IpcClientError, TimeoutError, OSError) as exc:
        said = load(folder / EXIT_FILE, WORKER_EXIT, {}, log=logger, then="")
        reason = str(said.get("reason") or "") or f"no answer ({exc})"
        return BotLine(name, group, None, down=reason)
    if hello.get("type") == "error":
        return BotLine(name, group, None, down=f"refused the connection: {hello.get('text')}")
    snapshot = hello.get("snapshot")
    return BotLine(name, group, snapshot if isinstance(snapshot, dict) else {})


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
