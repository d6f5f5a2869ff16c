"""``pepa status`` and ``pepa tui``: the commands that talk to a running daemon or fleet over
its socket. A missing daemon ends with one line and exit code 1."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from pepa.base.errors import PepaError
from pepa.base.logs import escape_controls
from pepa.daemon.config import Config

__all__ = ["find_socket", "format_snapshot", "status", "tui"]


def find_socket(config: Config, explicit: Path | None, bot: str | None = None) -> Path:
    """The socket to talk to: ``--socket``, a fleet's bot's (``--bot``), the configured
    server's, or the only live one."""
    from pepa.ipc.client import find_sockets

    if explicit is not None:
        return explicit
    if bot:
        from pepa.ipc.paths import BOT_SOCKET  # the IPC package only for the commands that talk

        return config.server_root / bot / BOT_SOCKET
    if config.socket_path.exists() or config.host is not None:
        return config.socket_path
    live = find_sockets(config.state_dir)
    if len(live) == 1:
        return live[0]
    if len(live) > 1:
        names = ", ".join(str(p) for p in live)
        raise PepaError(f"several daemons are running ({names}); choose one with --socket")
    return config.socket_path


def tui(config: Config, args: argparse.Namespace) -> int:
    from tui import DashboardError, run, run_fleet

    fleet = False
    if args.socket is None and not args.bot:
        from pepa.ipc.fleet import read_roster

        fleet = read_roster(config.server_root) is not None  # a fleet runs: its list of bots
    if not fleet:
        find_socket(config, args.socket, args.bot)  # several daemons, no --socket: one line, now
    try:
        if fleet:
            return run_fleet(config.server_root)
        return run(lambda: find_socket(config, args.socket, args.bot))
    except DashboardError as exc:
        print(f"pepa: {exc}", file=sys.stderr)
        return 1


def status(config: Config, args: argparse.Namespace) -> int:
    from pepa.ipc.client import IpcClient, IpcClientError

    if args.socket is None and not args.bot:
        from pepa.fleet.status import format_fleet
        from pepa.ipc.fleet import fleet_lines, read_roster

        roster = read_roster(config.server_root)
        if roster is not None:  # a fleet runs on this server: one line per bot
            lines = fleet_lines(config.server_root, roster)
            if args.json:
                data = {"fleet": roster, "bots": [line.to_json() for line in lines]}
                sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
            else:
                sys.stdout.write(format_fleet(roster, lines))
            return 0
    path = find_socket(config, args.socket, args.bot)
    try:
        with IpcClient.connect(path, timeout=5.0) as client:
            hello = client.wait_for(lambda e: e.get("type") in ("hello", "error"), timeout=5.0)
    except (IpcClientError, TimeoutError) as exc:
        print(f"pepa: no daemon is running ({exc})", file=sys.stderr)
        return 1
    if hello.get("type") == "error":  # e.g. too many clients: the daemon runs but said no
        print(f"pepa: the daemon refused this connection: {hello.get('text')}", file=sys.stderr)
        return 1
    snapshot = hello.get("snapshot", {})
    if args.json:
        sys.stdout.write(orjson.dumps(snapshot, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(format_snapshot(snapshot))
    return 0


def format_snapshot(snapshot: dict[str, Any]) -> str:
    """A snapshot as a few human lines."""
    pos = snapshot.get("position")
    where = (
        f"{pos['x']:.1f} {pos['y']:.1f} {pos['z']:.1f}" if isinstance(pos, dict) and pos else "-"
    )
    threats = ", ".join(
        f"{t.get('name')} {t.get('distance', 0):.1f}m" for t in snapshot.get("threats") or []
    )
    lines = [
        f"server     {snapshot.get('server')} as {snapshot.get('username')}"
        f" ({'connected' if snapshot.get('connected') else 'not connected'})",
        f"hp/food    {snapshot.get('hp', '-')} / {snapshot.get('food', '-')}",
        f"position   {where} ({snapshot.get('dimension') or '-'})",
        f"threats    {threats or 'none'}",
        f"deaths     {snapshot.get('deaths') or 0}"
        + (f" (last: {snapshot['lastDeath']})" if snapshot.get("lastDeath") else ""),
        _learning_line(snapshot.get("learning")),
        f"doing      {snapshot.get('activeReflex') or snapshot.get('currentSkill') or 'idle'}"
        f"{' (paused)' if snapshot.get('paused') else ''}",
        f"proposals  {snapshot.get('pendingProposals', 0)} pending, "
        f"{len(snapshot.get('approvedProposals') or [])} approved",
        f"uptime     {snapshot.get('uptime', 0):.0f}s",
        "actors     "
        + ", ".join(
            f"{a['name']}:{a['state']}" + (f"({a['restarts']})" if a.get("restarts") else "")
            for a in snapshot.get("actors", [])
        ),
    ]
    if snapshot.get("signIn"):  # Microsoft's device code: the one thing to do now
        lines.insert(1, f"sign-in    {snapshot['signIn']}")
    return "\n".join(lines) + "\n"


def _learning_line(learning: Any) -> str:
    """``learning   4 lessons in force (2 block, 2 action); deaths by cause: 2 mob, 1 fall;
    near-misses: 1``, and the block and mob types kept off on a line of their own."""
    if not isinstance(learning, dict):
        return "learning   -"
    causes = learning.get("deathsByCause")
    by_cause = (
        ", ".join(f"{n} {kind}" for kind, n in causes.items()) if isinstance(causes, dict) else ""
    )
    subjects = learning.get("lessonsBySubject")
    about = (
        " (" + ", ".join(f"{n} {what}" for what, n in subjects.items()) + ")"
        if isinstance(subjects, dict) and subjects else ""
    )  # fmt: skip
    line = (
        f"learning   {learning.get('lessonsInForce', 0)} lessons in force{about}; "
        f"deaths by cause: {by_cause or 'none'}; near-misses: {learning.get('nearMisses', 0)}"
    )
    hazards = learning.get("hazards")
    if isinstance(hazards, list) and hazards:
        line += "\nkept off   " + escape_controls("; ".join(str(h) for h in hazards))
    return line
