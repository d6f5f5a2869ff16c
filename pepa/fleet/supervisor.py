"""``pepa fleet``: many bots on one machine, a few worker processes for all of them.

The fleet supervisor is ``pepa start``'s process supervisor for several
workers (:mod:`pepa.daemon.parent`): it takes the server folder's
``daemon.lock`` (no ``pepa start``, ``pepa world`` or second fleet on that
server beside it) and every bot's own ``daemon.lock``, writes the goals
the fleet file names, starts the embedded world once, and starts one worker
process per group of bots (:mod:`pepa.fleet.worker`). Each group restarts on
its own, with its own backoff and restart budget: a group that dies takes
only its own bots down, and they reconnect in the new process; a group that
keeps dying is given up alone while the others play on.

It writes ``<host>_<port>/fleet.json`` (its pid, each group's worker pid and
bots) for ``pepa status`` and the dashboard, and removes it at the end. Exit
codes: 0 stopped (a signal, or every bot stopped on request), 2 a group
refused its configuration, 3 a group gave up.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import orjson

from pepa.base.dirs import secure_state
from pepa.base.errors import LockError
from pepa.base.signals import SignalInbox
from pepa.base.urls import redact_url
from pepa.daemon.config import Config
from pepa.daemon.lock import StateLock
from pepa.daemon.parent import keep_world_alive
from pepa.daemon.restarts import (
    EXIT_CONFIG,
    EXIT_GAVE_UP,
    EXIT_STOP,
    Restarts,
    exit_reason,
    overall,
    spawn_worker,
)
from pepa.fleet.postgres import LocalPostgres, find_bin_dir
from pepa.fleet.spec import FleetSpec
from pepa.ipc.paths import ROSTER
from pepa.state.files import write_atomic
from pepa.state.planbook import PlanBook
from pepa.worldserver.process import EmbeddedWorld

__all__ = ["FleetSupervisor", "bot_configs"]

logger = logging.getLogger(__name__)


def bot_configs(base: Config, spec: FleetSpec) -> list[list[Config]]:
    """Every bot's configuration, in its group: the base settings, its name, its operators,
    its fellows."""
    names = [bot.name for bot in spec.bots]
    return [
        [
            replace(
                base,
                username=bot.name,
                operators=tuple(dict.fromkeys((*base.operators, *spec.operators, *bot.operators))),
                fleet=True,
                fellows=tuple(name for name in names if name != bot.name),
            )
            for bot in group
        ]
        for group in spec.groups()
    ]


PATH_SHARE_MS = 20.0
"""Milliseconds of path search per 50 ms tick that the fleet's groups on this machine get
together, per core (40 % of each core). A worker's bridge gives each group's bots 20 ms
(bot_helper.js), and every group on the machine searching at once is what saturated it: at
32 working bots in 4 groups on 2 cores, the searches alone could take 160 % of 200 %, and the
reactions waited seconds for the CPU (docs/fleet.md)."""
PATH_FLOOR_MS = 2.0


def path_budget(groups: int, cores: int | None = None) -> float:
    """Each group's path search per tick: the machine's share divided among the groups, at most
    the bridge's own 20 ms, at least :data:`PATH_FLOOR_MS`."""
    share = PATH_SHARE_MS * (cores or len(os.sched_getaffinity(0)))
    return max(PATH_FLOOR_MS, min(20.0, share / max(1, groups)))


@dataclass(slots=True)
class _Group:
    """One worker process and its restart budget."""

    number: int
    configs: list[Config]
    budget: Restarts
    """Its restart budget and backoff, and the restarts it has had."""
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restart_at: float | None = 0.0
    """When to start its worker next (0: at once; None: not again)."""
    exit_code: int | None = None
    """How the group ended for good (None while it runs or waits to restart)."""
    bots: list[str] = field(default_factory=list)


class FleetSupervisor:
    """Starts a worker per group, restarts each when it dies, stops them all on a signal."""

    def __init__(
        self,
        base: Config,
        spec: FleetSpec,
        *,
        max_restarts: int = 5,
        period: float = 60.0,
        stop_timeout: float = 30.0,
        worker_argv: Sequence[str] | None = None,
        out: TextIO | None = None,
        world: EmbeddedWorld | None = None,
        console: str = "warning",
        knowledge: str = "shared",
    ) -> None:
        self.base = base
        self.console = console
        self.knowledge = knowledge
        """``shared``: one knowledge base for every bot (``PEPA_DB_URL``, else a PostgreSQL of
        the fleet's own); ``own``: each bot its ``knowledge.db``."""
        self.postgres: LocalPostgres | None = None
        """The lowest level of the workers' lines on this terminal (``info`` or ``warning``)."""
        self.spec = spec
        self.stop_timeout = stop_timeout
        self.worker_argv = list(worker_argv or [sys.executable, "-m", "pepa.fleet.worker"])
        self.out = out or sys.stdout
        self.world = world
        self._signals = SignalInbox((signal.SIGINT, signal.SIGTERM))
        self._stopping = False
        self.groups = [
            _Group(
                number=n,
                configs=configs,
                budget=Restarts.within(max_restarts, period),
                bots=[c.username for c in configs],
            )
            for n, configs in enumerate(bot_configs(base, spec))
        ]
        budget = self._path_budget()
        for group in self.groups:
            group.configs = [replace(c, path_budget_ms=budget) for c in group.configs]

    def _path_budget(self) -> float:
        """Each group's path search per tick: the groups all run on this machine."""
        return path_budget(len(self.groups))

    @property
    def worker_nice(self) -> int:
        """The workers' nice: the spec's, else its default beside the embedded world."""
        return self.spec.worker_nice(embedded=self.world is not None)

    @property
    def roster_path(self) -> Path:
        return self.base.server_root / ROSTER

    def say(self, text: str) -> None:
        """One line for the person at the terminal."""
        print(f"pepa: {text}", file=self.out, flush=True)

    def run(self) -> int:
        """Supervise until stopped, or until every group has ended; return the exit code."""
        base = self.base
        for note in secure_state(base.state_dir, base.server_root):
            self.say(note)
        # the server folder's own lock: no `pepa start`, `pepa world` or second fleet beside it
        locks = [StateLock(base.server_root / "daemon.lock").acquire()]
        try:
            for group in self.groups:
                for config in group.configs:
                    for note in secure_state(config.state_dir, config.server_dir):
                        self.say(note)
                    locks.append(_lock(config.server_dir))
            self._write_goals()
            self._share_knowledge()
            self._signals.install()
            if self.world is not None:
                self.world.start()
                self.say(
                    f"embedded world on {self.world.address} (Minecraft {self.world.version}, "
                    f"offline mode): join it with a client to watch or play with the bots"
                )
            total = sum(len(g.bots) for g in self.groups)
            nice = self.worker_nice
            below = f", at nice {nice}: the server first" if nice else ""
            self.say(
                f"fleet of {total} bots in {processes(len(self.groups))} "
                f"({self.spec.group} per process{below}); `pepa status` lists them"
            )
            return self._loop()
        finally:
            try:
                self._stop_all()
            finally:
                if self.postgres is not None:
                    self.postgres.stop()
                self.roster_path.unlink(missing_ok=True)
                if self.world is not None:
                    self.world.stop()
                self._signals.close()
                for lock in reversed(locks):
                    lock.release()

    def _share_knowledge(self) -> None:
        """Every bot on one knowledge base: ``PEPA_DB_URL``, else the fleet's own PostgreSQL,
        else (no server binaries) each its own file, said once."""
        if self.knowledge != "shared":
            self.say("knowledge: each bot keeps its own knowledge.db (--knowledge own)")
            return
        if self.base.db_url:
            self.say(f"knowledge: shared in {redact_url(self.base.db_url)}")
            return
        bin_dir = find_bin_dir()
        if bin_dir is None:
            self.say(
                "knowledge: no PostgreSQL server binaries (apt install postgresql), so each bot "
                "keeps its own knowledge.db and no lesson reaches the others"
            )
            return
        self.postgres = LocalPostgres(self.base.server_root / "postgres", bin_dir)
        bots = [config.username for group in self.groups for config in group.configs]
        urls = self.postgres.start(bots)  # PostgresError: one line, exit 1
        for group in self.groups:  # each bot logs in as its own role
            group.configs = [replace(c, db_url=urls[c.username]) for c in group.configs]
        self.say(f"knowledge: shared by every bot in the fleet's PostgreSQL ({self.postgres.home})")

    def _write_goals(self) -> None:
        """A goal the fleet file names replaces a bot's ``goal.md`` when it differs."""
        goals = {bot.name: bot.goal for bot in self.spec.bots if bot.goal}
        for group in self.groups:
            for config in group.configs:
                goal = goals.get(config.username)
                if goal and set_goal(config, goal):
                    self.say(f"{config.username}: goal set to {goal!r} (from the fleet file)")

    # -- the loop ----------------------------------------------------------------

    def _loop(self) -> int:
        while True:
            if self._check_signals():
                return 0
            now = time.monotonic()
            for group in self.groups:
                if group.proc is not None and (code := group.proc.poll()) is not None:
                    self._ended(group, code, now)
                if group.proc is None and group.restart_at is not None and group.restart_at <= now:
                    self._spawn(group)
            self._keep_world_alive()
            if all(g.exit_code is not None for g in self.groups):
                return overall(g.exit_code for g in self.groups)
            self._check_signals(0.2)

    def _check_signals(self, timeout: float = 0.0) -> bool:
        """Act on signals received (waiting up to ``timeout`` for one); True once stopping."""
        signums = self._signals.wait(timeout) if timeout > 0 else self._signals.take()
        for signum in signums:
            if not self._stopping:
                self._stopping = True
                logger.info("stopping: %s", signal.Signals(signum).name)
        return self._stopping

    def _ended(self, group: _Group, code: int, now: float) -> None:
        group.proc = None
        verdict = group.budget.after_exit(code, ran_for=now - group.started_at, now=now)
        reason = exit_reason(code, [c.server_dir for c in group.configs])
        names = ", ".join(group.bots)
        if verdict.action == "stopped":
            self.say(f"group {group.number} ({names}): every bot stopped on request")
            group.exit_code, group.restart_at = EXIT_STOP, None
        elif verdict.action == "refused":
            self.say(f"group {group.number} ({names}) refused its configuration: {reason}")
            group.exit_code, group.restart_at = EXIT_CONFIG, None
        elif verdict.action == "give_up":
            intensity = group.budget.intensity
            self.say(
                f"group {group.number} ({names}): giving up, its worker died more than "
                f"{intensity.max_restarts} times in {intensity.period:g}s (last: {reason})"
            )
            group.exit_code, group.restart_at = EXIT_GAVE_UP, None
        else:
            group.restart_at = now + verdict.delay
            self.say(
                f"group {group.number} ({names}) died ({reason}); restart {group.budget.count} "
                f"in {verdict.delay:.1f}s (the other groups play on)"
            )

    def _spawn(self, group: _Group) -> None:
        payload = {
            "group": group.number,
            "console": self.console,
            "nice": self.worker_nice,
            "bots": [c.to_json() for c in group.configs],
        }
        group.proc = spawn_worker(self.worker_argv, orjson.dumps(payload))
        group.started_at, group.restart_at = time.monotonic(), None
        self._write_roster()

    def _write_roster(self) -> None:
        roster = {
            "pid": os.getpid(),
            "server": f"{self.base.host or '127.0.0.1'}:{self.base.port}",
            **self._roster_extra(),
            "groups": [{"group": g.number, **self._where(g), "restarts": g.budget.count,
                        "bots": g.bots} for g in self.groups],
        }  # fmt: skip
        try:
            write_atomic(self.roster_path, orjson.dumps(roster, option=orjson.OPT_INDENT_2))
        except OSError as exc:
            logger.warning("cannot write %s: %s", self.roster_path, exc)

    def _roster_extra(self) -> dict[str, Any]:
        """What else the roster says about the whole fleet."""
        return {}

    def _where(self, group: _Group) -> dict[str, Any]:
        """Where a group runs, for the roster."""
        return {"pid": group.proc.pid if group.proc is not None else None}

    def _stop_all(self) -> None:
        """SIGTERM every worker, then SIGKILL those still there after :attr:`stop_timeout`."""
        running = [g.proc for g in self.groups if g.proc is not None and g.proc.poll() is None]
        for proc in running:
            try:
                proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + self.stop_timeout
        for proc in running:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(
                    f"worker {proc.pid} did not stop within {self.stop_timeout:g}s; killing it"
                )
                proc.kill()
                proc.wait()

    def _keep_world_alive(self) -> None:
        keep_world_alive(self.world, self.say, "the bots reconnect by themselves")


def set_goal(config: Config, goal: str) -> bool:
    """The bot's ``goal.md`` made ``goal``; whether it changed."""
    book = PlanBook(config.server_dir)
    if book.goal() == goal:
        return False
    book.write_goal(goal)
    return True


def processes(n: int) -> str:
    """``1 worker process``, ``2 worker processes``."""
    return f"{n} worker process" + ("" if n == 1 else "es")


def _lock(folder: Path) -> StateLock:
    try:
        return StateLock(folder / "daemon.lock").acquire()
    except LockError as exc:
        raise LockError(f"{exc} (a bot of this fleet runs elsewhere)") from exc
