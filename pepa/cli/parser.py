"""The ``pepa`` command's arguments: every subcommand and its flags, and the configuration they
make with the environment, ``.env`` and the defaults (:func:`load`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, NoReturn

from pepa import __version__
from pepa.daemon.config import LLM_CHOICES, Config, read_dotenv, resolve
from pepa.worldserver.profiles import PROFILES

__all__ = ["DEFAULT_SEED", "build_parser", "load"]

DEFAULT_SEED = 12345
"""The embedded world's seed when none is given."""
"""The seed of a new embedded world without ``--seed``."""


class _Parser(argparse.ArgumentParser):
    """argparse that fails with one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"pepa: error: {message} (see pepa --help)\n")


def _add_settings(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("settings (flags > environment > .env > defaults)")
    group.add_argument("--host", help="Minecraft server host (MC_HOST); none: the embedded world")
    group.add_argument("--port", help="Minecraft server port (MC_PORT, default 25565)")
    group.add_argument("--username", help="bot name (MC_USERNAME, default pepa_bot)")
    group.add_argument(
        "--version",
        help="Minecraft version such as 1.20.4 (MC_VERSION); with --host the bot's (none: the "
        "server's), else the embedded world's: 1.16.5 (the sandbox) or, with --no-sandbox, "
        "1.12.2 to 1.21.4",
    )
    group.add_argument("--operators", help="comma-separated operator names (OPERATOR_USERNAMES)")
    group.add_argument(
        "--auth",
        help="offline (a name on an offline-mode server) or microsoft (MC_AUTH, default offline)",
    )
    group.add_argument(
        "--chat-pattern",
        help="regular expression with the groups name and text for a chat plugin's player "
        "lines (PEPA_CHAT_PATTERN), e.g. '\\[\\w+\\] (?<name>\\w+) » (?<text>.*)'",
    )
    group.add_argument("--state-dir", help="state root (PEPA_STATE_DIR, default ./state)")
    group.add_argument("--llm", help=f"LLM back end: {', '.join(LLM_CHOICES)} (PEPA_LLM)")
    group.add_argument(
        "--sandbox",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="embedded world: the survival sandbox, or --no-sandbox for a flat one (PEPA_SANDBOX)",
    )
    group.add_argument(
        "--fault-injection",
        action="store_const",
        const=True,
        default=None,
        help="allow cmd:fault on the socket (PEPA_FAULT_INJECTION=1)",
    )


def _add_running(parser: argparse.ArgumentParser, worker: str) -> None:
    """The flags of a command that supervises workers and may start the embedded world."""
    parser.add_argument("--max-restarts", type=int, default=5, help=f"{worker} restarts allowed …")
    parser.add_argument(
        "--restart-window", type=float, default=60.0, help="… within this many seconds"
    )
    parser.add_argument("--seed", type=int, default=None, help="embedded world seed (a new world)")
    parser.add_argument(
        "--sandbox-profile",
        dest="sandbox_profile",
        metavar="NAME",
        help=f"the sandbox's profile: {' or '.join(PROFILES)} (PEPA_SANDBOX_PROFILE)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(prog="pepa", description="Autonomous Minecraft survival bot runtime.")
    parser.add_argument("-V", "--pepa-version", action="version", version=f"pepa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    start = sub.add_parser("start", help="run the supervised daemon (foreground)")
    _add_settings(start)
    _add_running(start, "worker")
    start.add_argument(
        "--reload",
        action="store_true",
        help="restart the worker when Python files under pepa/ or skills/ change (development)",
    )

    fleet = sub.add_parser("fleet", help="run many bots on one machine (foreground)")
    _add_settings(fleet)
    fleet.add_argument("file", nargs="?", type=Path, help="a fleet file (TOML, docs/fleet.md)")
    fleet.add_argument(
        "--bots", type=int, help="N bots named <username>_1 … <username>_N (without a file)"
    )
    fleet.add_argument("--group", type=int, help="bots per worker process (default 8)")
    fleet.add_argument(
        "--nice",
        type=int,
        help="run the workers this far below normal CPU priority (0-19; default 10 beside the "
        "embedded world, else 0): the server on the same machine gets the CPU first",
    )
    fleet.add_argument(
        "--knowledge",
        choices=("shared", "own"),
        default="shared",
        help="one knowledge base for every bot (PEPA_DB_URL, else a PostgreSQL of the fleet's "
        "own), or each bot its own knowledge.db",
    )
    fleet.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="spread the groups over the Ray cluster at ADDRESS (host:port; needs the "
        "pepa[fleet] extra; docs/fleet.md)",
    )
    fleet.add_argument(
        "--console",
        choices=("info", "warning"),
        default="warning",
        help="the lowest level of the workers' lines here (every line is in the logs)",
    )
    _add_running(fleet, "a group's worker")

    status = sub.add_parser("status", help="print the running daemon's snapshot and exit")
    _add_settings(status)
    status.add_argument(
        "--socket", type=Path, help="the daemon's socket (found by itself if one runs)"
    )
    status.add_argument("--bot", help="in a fleet: this bot's full status")
    status.add_argument("--json", action="store_true", help="print the snapshot as JSON")

    tui = sub.add_parser("tui", help="the dashboard")
    _add_settings(tui)
    tui.add_argument(
        "--socket", type=Path, help="the daemon's socket (found by itself if one runs)"
    )
    tui.add_argument("--bot", help="in a fleet: this bot's dashboard")

    world = sub.add_parser("world", help="run only the embedded world server")
    _add_settings(world)
    world.add_argument("--seed", type=int, default=None, help="world seed")
    world.add_argument(
        "--profile",
        "--sandbox-profile",
        dest="sandbox_profile",
        metavar="NAME",
        help=f"the sandbox's profile: {' or '.join(PROFILES)} (PEPA_SANDBOX_PROFILE)",
    )

    propose = sub.add_parser("propose", help="list proposals; apply an approved one on a branch")
    actions = propose.add_subparsers(
        dest="action", metavar="list|apply", required=True, parser_class=_Parser
    )
    listing = actions.add_parser("list", help="pending and approved proposals of this server")
    apply = actions.add_parser("apply", help="run the LLM command on feat/proposal-<slug>")
    apply.add_argument("proposal", help="an approved proposal's file name (or its path)")
    apply.add_argument(
        "--timeout", type=float, help="seconds for the command (PEPA_PROPOSE_TIMEOUT, 1800)"
    )
    for action in (listing, apply):
        _add_settings(action)
        action.add_argument(
            "--repo", type=Path, help="the git checkout to change (default: pepa's own)"
        )
    return parser


def load(args: argparse.Namespace, file_settings: dict[str, Any] | None = None) -> Config:
    """Resolve the configuration of a parsed command line (``file_settings``: a fleet file's
    ``[server]``, below the flags and above the environment)."""
    flags: dict[str, Any] = {
        key: getattr(args, key, None)
        for key in (
            "host",
            "port",
            "username",
            "version",
            "operators",
            "chat_pattern",
            "auth",
            "state_dir",
            "llm",
            "fault_injection",
            "sandbox",
            "sandbox_profile",
        )
    }
    for key, value in (file_settings or {}).items():
        if flags.get(key) is None:
            flags[key] = str(value)
    return resolve(flags, os.environ, read_dotenv(Path(".env")))
