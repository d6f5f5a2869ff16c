"""The ``pepa`` command: start, fleet, status, tui, world, propose (its arguments:
:mod:`pepa.cli.parser`; ``status`` and ``tui``: :mod:`pepa.cli.status`).

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
from typing import TYPE_CHECKING, Any

from pepa.base.dirs import StateDirError, secure_state
from pepa.base.errors import ConfigError, LockError, PepaError
from pepa.base.node import REPO_ROOT
from pepa.cli.parser import DEFAULT_SEED, build_parser, load
from pepa.cli.status import status, tui
from pepa.daemon.config import Config

if TYPE_CHECKING:
    from pepa.cli.propose import ApplyResult
    from pepa.fleet.spec import FleetSpec
    from pepa.worldserver.process import EmbeddedWorld

__all__ = ["main"]

logger = logging.getLogger(__name__)


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
            return status(config, args)
        if args.command == "world":
            return _world(config, args)
        if args.command == "tui":
            return tui(config, args)
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
    from pepa.daemon.parent import ProcessSupervisor

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

    from pepa.daemon.lock import StateLock

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


def _propose(config: Config, args: argparse.Namespace) -> int:
    """``pepa propose list`` and ``pepa propose apply`` (docs/proposals.md)."""
    import time

    from pepa.cli import propose

    repo = args.repo or REPO_ROOT
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
