"""The ``pepa`` command: start, status, tui, world.

Bad configuration ends with one line on stderr and exit code 2, never a
traceback; a missing daemon for ``status`` with one line and exit code 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import orjson

from pepa import __version__
from pepa.config import LLM_CHOICES, Config, read_dotenv, resolve
from pepa.errors import ConfigError, LockError, PepaError

__all__ = ["main"]

logger = logging.getLogger(__name__)


class _Parser(argparse.ArgumentParser):
    """argparse that fails with one line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"pepa: error: {message} (see pepa --help)\n")


def _add_settings(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("settings (flags > environment > .env > defaults)")
    group.add_argument("--host", help="Minecraft server host (MC_HOST); none: the embedded world")
    group.add_argument("--port", help="Minecraft server port (MC_PORT, default 25565)")
    group.add_argument("--username", help="bot name (MC_USERNAME, default pepa_bot)")
    group.add_argument("--version", help="protocol version such as 1.16.5 (MC_VERSION)")
    group.add_argument("--operators", help="comma-separated operator names (OPERATOR_USERNAMES)")
    group.add_argument("--state-dir", help="state root (PEPA_STATE_DIR, default ./state)")
    group.add_argument("--llm", help=f"LLM back end: {', '.join(LLM_CHOICES)} (PEPA_LLM)")
    group.add_argument(
        "--fault-injection",
        action="store_const",
        const=True,
        default=None,
        help="allow cmd:fault on the socket (PEPA_FAULT_INJECTION=1)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(prog="pepa", description="Autonomous Minecraft survival bot runtime.")
    parser.add_argument("-V", "--pepa-version", action="version", version=f"pepa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    start = sub.add_parser("start", help="run the supervised daemon (foreground)")
    _add_settings(start)
    start.add_argument("--max-restarts", type=int, default=5, help="worker restarts allowed …")
    start.add_argument(
        "--restart-window", type=float, default=60.0, help="… within this many seconds"
    )

    status = sub.add_parser("status", help="print the running daemon's snapshot and exit")
    _add_settings(status)
    status.add_argument(
        "--socket", type=Path, help="the daemon's socket (found by itself if one runs)"
    )
    status.add_argument("--json", action="store_true", help="print the snapshot as JSON")

    tui = sub.add_parser("tui", help="the dashboard")
    _add_settings(tui)
    tui.add_argument(
        "--socket", type=Path, help="the daemon's socket (found by itself if one runs)"
    )

    world = sub.add_parser("world", help="run only the embedded world server")
    _add_settings(world)
    world.add_argument("--seed", type=int, default=None, help="world seed")
    return parser


def load(args: argparse.Namespace) -> Config:
    """Resolve the configuration of a parsed command line."""
    flags: dict[str, Any] = {
        key: getattr(args, key, None)
        for key in (
            "host",
            "port",
            "username",
            "version",
            "operators",
            "state_dir",
            "llm",
            "fault_injection",
        )
    }
    return resolve(flags, os.environ, read_dotenv(Path(".env")))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pepa`` console script."""
    args = build_parser().parse_args(argv)
    try:
        config = load(args)
    except ConfigError as exc:
        print(f"pepa: error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "start":
            return _start(config, args)
        if args.command == "status":
            return _status(config, args)
        if args.command == "world":
            return _world(config, args)
        if args.command == "tui":
            return _tui(config, args)
        print(f"pepa: `pepa {args.command}` is not available in this version yet", file=sys.stderr)
        return 1
    except LockError as exc:
        print(f"pepa: {exc}", file=sys.stderr)
        return 1
    except PepaError as exc:
        print(f"pepa: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _start(config: Config, args: argparse.Namespace) -> int:
    from pepa.daemon import ProcessSupervisor
    from pepa.world.embedded import DEFAULT_VERSION, EmbeddedWorld

    world = None
    if config.embedded:
        world = EmbeddedWorld(
            config.server_dir / "world",
            port=config.port,
            version=config.version or DEFAULT_VERSION,
            log_path=config.server_dir / "world.log",
        )
    supervisor = ProcessSupervisor(
        config, max_restarts=args.max_restarts, period=args.restart_window, world=world
    )
    if not config.embedded:
        supervisor.say(f"server {config.host}:{config.port} as {config.username}")
    return supervisor.run()


def _world(config: Config, args: argparse.Namespace) -> int:
    import signal
    import threading

    from pepa.daemon import StateLock
    from pepa.world.embedded import DEFAULT_VERSION, EmbeddedWorld

    if not config.embedded:
        print(
            "pepa: error: `pepa world` runs the embedded world; drop --host / MC_HOST",
            file=sys.stderr,
        )
        return 2
    with StateLock(config.server_dir / "daemon.lock"):
        world = EmbeddedWorld(
            config.server_dir / "world",
            port=config.port,
            version=config.version or DEFAULT_VERSION,
            seed=args.seed if args.seed is not None else 12345,
            log_path=config.server_dir / "world.log",
        )
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        with world:
            print(
                f"pepa: embedded world on {world.address} (Minecraft {world.version}, offline "
                f"mode); log {world.log_path}; Ctrl-C stops it",
                flush=True,
            )
            while not stop.wait(1.0):
                if not world.alive():
                    print("pepa: the world server exited; see its log", file=sys.stderr)
                    return 1
    return 0


def find_socket(config: Config, explicit: Path | None) -> Path:
    """The socket to talk to: ``--socket``, the configured server's, or the only live one."""
    from pepa.ipc.client import find_sockets

    if explicit is not None:
        return explicit
    if config.socket_path.exists() or config.host is not None:
        return config.socket_path
    live = find_sockets(config.state_dir)
    if len(live) == 1:
        return live[0]
    if len(live) > 1:
        names = ", ".join(str(p) for p in live)
        raise PepaError(f"several daemons are running ({names}); choose one with --socket")
    return config.socket_path


def _tui(config: Config, args: argparse.Namespace) -> int:
    from tui import DashboardError, run

    find_socket(config, args.socket)  # several daemons and no --socket: one line, now
    try:
        return run(lambda: find_socket(config, args.socket))
    except DashboardError as exc:
        print(f"pepa: {exc}", file=sys.stderr)
        return 1


def _status(config: Config, args: argparse.Namespace) -> int:
    from pepa.ipc.client import IpcClient, IpcClientError

    path = find_socket(config, args.socket)
    try:
        with IpcClient.connect(path, timeout=5.0) as client:
            hello = client.wait_for("hello", timeout=5.0)
    except (IpcClientError, TimeoutError) as exc:
        print(f"pepa: no daemon is running ({exc})", file=sys.stderr)
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
        f"doing      {snapshot.get('activeReflex') or snapshot.get('currentSkill') or 'idle'}"
        f"{' (paused)' if snapshot.get('paused') else ''}",
        f"proposals  {snapshot.get('pendingProposals', 0)} pending",
        f"uptime     {snapshot.get('uptime', 0):.0f}s",
        "actors     "
        + ", ".join(
            f"{a['name']}:{a['state']}" + (f"({a['restarts']})" if a.get("restarts") else "")
            for a in snapshot.get("actors", [])
        ),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
