"""A fleet as its clients see it (``pepa status``, the dashboard): the roster, and every bot's
line read from its own socket, or from the fleet's socket when the fleet runs on Ray.

The roster (``<host>_<port>/fleet.json``, written by ``pepa fleet``) names the groups and their
bots; each bot's snapshot comes from its ``bot.sock`` as for one daemon, all sockets asked at
once. A bot whose socket does not answer is shown ``down`` with the reason its worker left
(``worker-exit.json``). This module needs only the standard library and the IPC client: the
dashboard imports it without the bot's runtime.
"""

from __future__ import annotations

import logging
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pepa.ipc.client import IpcClient, IpcClientError
from pepa.ipc.paths import BOT_SOCKET, EXIT_FILE, FLEET_SOCKET, ROSTER

__all__ = ["BotLine", "ask_fleet", "fleet_lines", "read_roster", "roster_bots"]

logger = logging.getLogger(__name__)

ASK_TIMEOUT = 5.0
"""Seconds a bot's socket may take to say hello."""
MAX_ROSTER_BYTES = 1024 * 1024
"""Bytes of ``fleet.json`` read at most."""
MAX_ANSWER = 64 * 1024 * 1024
"""Bytes a fleet socket's answer may have."""
MAX_EXIT_BYTES = 64 * 1024
"""Bytes of ``worker-exit.json`` read at most."""
MAX_REASON = 500
"""Characters of a worker's exit reason shown."""


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
        with IpcClient.connect(folder / BOT_SOCKET, timeout=ASK_TIMEOUT) as client:
            hello = client.wait_for(lambda e: e.get("type") in ("hello", "error"), ASK_TIMEOUT)
    except (IpcClientError, TimeoutError, OSError) as exc:
        reason = _exit_reason(folder) or f"no answer ({exc})"
        return BotLine(name, group, None, down=reason)
    if hello.get("type") == "error":
        return BotLine(name, group, None, down=f"refused the connection: {hello.get('text')}")
    snapshot = hello.get("snapshot")
    return BotLine(name, group, snapshot if isinstance(snapshot, dict) else {})


def ask_fleet(path: Path, timeout: float) -> list[dict[str, Any]]:
    """Every bot's line from a fleet socket (OSError, ValueError when it does not answer)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        data = b""
        while chunk := sock.recv(1 << 16):
            data += chunk
            if len(data) > MAX_ANSWER:
                raise ValueError(f"{path} answered more than {MAX_ANSWER} bytes")
    answer = orjson.loads(data)
    if not isinstance(answer, dict) or not isinstance(answer.get("bots"), list):
        raise ValueError(f"{path} answered something else than a fleet status")
    return [bot for bot in answer["bots"] if isinstance(bot, dict)]


def _exit_reason(folder: Path) -> str:
    """The reason the bot's worker left, from ``worker-exit.json`` ("" when none is readable).

    Only its ``reason`` is read, clipped, and nothing is moved aside: the file is the
    worker's and its supervisor's, which reads it through its schema
    (:func:`pepa.daemon.restarts.exit_reason`); a client only shows it."""
    try:
        with open(folder / EXIT_FILE, "rb") as fh:
            said = orjson.loads(fh.read(MAX_EXIT_BYTES + 1))
    except (OSError, orjson.JSONDecodeError):
        return ""
    reason = said.get("reason") if isinstance(said, dict) else None
    return " ".join(str(reason).split())[:MAX_REASON] if isinstance(reason, str) else ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
