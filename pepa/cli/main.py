"""The ``pepa`` command: start, fleet, status, tui, world, propose.

Bad configuration, and a state directory that is not safely this user's
(:mod:`pepa.base.dirs`), end with one line on stderr and exit code 2,
never a traceback; a missing daemon for ``status`` with one line and exit
code 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import orjson

from pepa import __version__
from pepa.base.dirs import StateDirError, secure_state
from pepa.base.errors import ConfigError, LockError, PepaError
from pepa.daemon.config import LLM_CHOICES, SANDBOX_PROFILES, Config, read_dotenv, resolve

if TYPE_CHECKING:
    from pepa.cli.propose import ApplyResult
    from pepa.fleet.spec import FleetSpec
    from pepa.worldserver.process import EmbeddedWorld

__all__ = ["main"]

logger = logging.getLogger(__name__)

DEFAULT_SEED = 12345
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
        help=f"the sandbox's profile: {' or '.join(SANDBOX_PROFILES)} (PEPA_SANDBOX_PROFILE)",
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
        help=f"the sandbox's profile: {' or '.join(SANDBOX_PROFILES)} (PEPA_SANDBOX_PROFILE)",
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pepa`` console script."""
    args = build_parser().parse_args(argv)
    spec = None
    try:
        if args.command == "fleet":
            spec = _fleet_spec(args)
        config = load(args, spec.server if spec is not None else None)
    except ConfigError as exc:
        print(f"pepa: error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "start":
            return _start(config, args)
        if args.command == "fleet" and spec is not None:
            return _fleet(config, spec, args)
        if args.command == "status":
            return _status(config, args)
        if args.command == "world":
            return _world(config, args)
        if args.command == "tui":
            return _tui(config, args)
        if args.command == "propose":
            return _propose(config, args)
        print(f"pepa: `pepa {args.command}` is not available in this version yet", file=sys.stderr)
        return 1
    except StateDirError as exc:
        print(f"pepa: error: {exc}", file=sys.stderr)
        return 2
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

    world = None
    if config.embedded:
        world = _embedded_world(config, args.seed)
    supervisor = ProcessSupervisor(
        config,
        max_restarts=args.max_restarts,
        period=args.restart_window,
        world=world,
        reload=args.reload,
    )
    if not config.embedded:
        supervisor.say(f"server {config.host}:{config.port} as {config.username}")
    return supervisor.run()


def _fleet_spec(args: argparse.Namespace) -> FleetSpec:
    """The fleet a ``pepa fleet`` command line names: a file, or ``--bots N``."""
    from pepa.fleet.spec import DEFAULT_GROUP, fleet_of_count, read_fleet_file

    if (args.file is None) == (args.bots is None):
        raise ConfigError("pepa fleet needs a fleet file or --bots N (one of the two)")
    if args.file is not None:
        return read_fleet_file(args.file, group=args.group, nice=args.nice)
    prefix = f"{args.username or os.environ.get('MC_USERNAME') or 'pepa_bot'}_"
    return fleet_of_count(args.bots, prefix, group=args.group or DEFAULT_GROUP, nice=args.nice)


def _fleet(config: Config, spec: FleetSpec, args: argparse.Namespace) -> int:
    from pepa.fleet.supervisor import FleetSupervisor

    world = _embedded_world(config, args.seed) if config.embedded else None
    settings: dict[str, Any] = {
        "max_restarts": args.max_restarts,
        "period": args.restart_window,
        "world": world,
        "console": args.console,
        "knowledge": args.knowledge,
    }
    supervisor: FleetSupervisor
    if args.ray:
        from pepa.fleet.onray import RayFleetSupervisor

        supervisor = RayFleetSupervisor(config, spec, address=args.ray, **settings)
    else:
        supervisor = FleetSupervisor(config, spec, **settings)
    if not config.embedded:
        supervisor.say(f"server {config.host}:{config.port}")
    return supervisor.run()


def _embedded_world(config: Config, seed: int | None) -> EmbeddedWorld:
    """The embedded world of ``config``: the sandbox in ``sandbox/``, a flat one in ``world/``
    (``world-1.20.4/`` at another version than 1.16.5: a world is never opened at another).

    Apart, so that a flat world made before the sandbox existed never gets
    hills generated next to its flat chunks. An existing world keeps its seed
    and its terrain's profile (hazards); the rest of the profile applies at once.
    """
    from pepa.game.versions import world_folder
    from pepa.worldserver.process import DEFAULT_VERSION, EmbeddedWorld

    version = config.version or DEFAULT_VERSION
    return EmbeddedWorld(
        config.server_root / world_folder(config.sandbox, version),
        port=config.port,
        version=version,
        seed=seed if seed is not None else DEFAULT_SEED,
        log_path=config.server_root / "world.log",
        sandbox=config.sandbox,
        profile=config.sandbox_profile,
    )


def _world(config: Config, args: argparse.Namespace) -> int:
    import signal
    import threading

    from pepa.daemon import StateLock

    if not config.embedded:
        print(
            "pepa: error: `pepa world` runs the embedded world; drop --host / MC_HOST",
            file=sys.stderr,
        )
        return 2
    for note in secure_state(config.state_dir, config.server_dir):
        print(f"pepa: {note}", flush=True)
    with StateLock(config.server_dir / "daemon.lock"):
        world = _embedded_world(config, args.seed)
        # The handler only flips a flag: Event.set() inside a signal handler can
        # deadlock on the lock the main thread holds in Event.wait().
        stopping: list[int] = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda signum, _frame: stopping.append(signum))
        pause = threading.Event()  # never set: wait() is only a sleep that signals cut short
        with world:
            print(
                f"pepa: embedded world on {world.address} (Minecraft {world.version}, offline "
                f"mode, profile {world.profile}); log {world.log_path}; Ctrl-C stops it",
                flush=True,
            )
            while not stopping:
                pause.wait(0.5)
                if not world.alive():
                    print("pepa: the world server exited; see its log", file=sys.stderr)
                    return 1
    return 0


def find_socket(config: Config, explicit: Path | None, bot: str | None = None) -> Path:
    """The socket to talk to: ``--socket``, a fleet's bot's (``--bot``), the configured
    server's, or the only live one."""
    from pepa.ipc.client import find_sockets

    if explicit is not None:
        return explicit
    if bot:
        return config.server_root / bot / "bot.sock"
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


def _status(config: Config, args: argparse.Namespace) -> int:
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
    """``learning   4 lessons in force; deaths by cause: 2 mob, 1 fall``."""
    if not isinstance(learning, dict):
        return "learning   -"
    causes = learning.get("deathsByCause")
    by_cause = (
        ", ".join(f"{n} {kind}" for kind, n in causes.items()) if isinstance(causes, dict) else ""
    )
    return (
        f"learning   {learning.get('lessonsInForce', 0)} lessons in force; "
        f"deaths by cause: {by_cause or 'none'}"
    )


def _propose(config: Config, args: argparse.Namespace) -> int:
    """``pepa propose list`` and ``pepa propose apply`` (docs/proposals.md)."""
    import time

    from pepa.cli import propose

    repo = args.repo or Path(propose.__file__).resolve().parent.parent
    folder = config.server_dir / "proposals"
    if args.action == "list":
        try:
            branches = propose.Git.at(repo).branches("feat/proposal-*")
        except propose.ProposeError:
            branches = set()  # no repository: no branch marks
        infos = propose.list_proposals(folder)
        sys.stdout.write(propose.format_list(infos, now=time.time(), branches=branches))
        return 0
    if args.timeout is not None and args.timeout <= 0:
        print("pepa: error: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    result = propose.apply_proposal(
        proposal=propose.find_approved(folder, args.proposal),
        repo=repo,
        command=propose.command_words(config.propose_command, config.pi_command),
        timeout=args.timeout or config.propose_timeout,
        say=lambda line: print(f"pepa: {line}", flush=True),
    )
    branch, outcome = result.branch, result.outcome
    if outcome == "applied":
        print(
            f"pepa: applied: {result.commits} commit(s) on {branch} (diff sha256 "
            f"{result.diff_hash[:12]}); review with `git log -p {result.base}..{branch}`, "
            "then push or merge it yourself"
        )
    elif outcome == "no-change":
        print(f"pepa: no change: the command changed nothing; {branch} is removed again")
    else:
        print(f"pepa: failed ({result.detail}); {branch} is kept for inspection", file=sys.stderr)
    if not result.returned:
        print(f"pepa: warning: the work tree is still not on {result.base}", file=sys.stderr)
    problem = _record_code_change(config, result)
    if problem:
        print(f"pepa: warning: the outcome is not in code_changes: {problem}", file=sys.stderr)
    if "interrupted" in result.detail:
        return 130
    return 0 if outcome == "applied" else 1


def _record_code_change(config: Config, result: ApplyResult) -> str:
    """Add an apply's outcome to ``code_changes``; an error text, or empty.

    The one write to the knowledge base from outside the daemon's knowledge
    actor: short, and a second writer is what SQLite's WAL mode allows.
    """
    from pepa.state.knowledge import KnowledgeError, KnowledgeStore

    if config.db_url:
        store = KnowledgeStore(url=config.db_url)
    else:
        # absolute: Pony resolves a relative SQLite path against its caller's module
        store = KnowledgeStore(config.server_dir.resolve() / "knowledge.db")
    try:
        store.open()
        store.record_code_change(
            proposal=result.proposal,
            branch=result.branch,
            outcome=result.outcome,
            diff_hash=result.diff_hash,
        )
    except KnowledgeError as exc:
        return str(exc)
    except Exception as exc:  # Pony/sqlite errors of every kind: the apply itself is done
        return f"cannot write {store.where}: {exc}"
    finally:
        store.close()
    return ""


if __name__ == "__main__":
    sys.exit(main())
