"""A fleet worker: one process, one JS bridge, several bots (``python -m pepa.fleet.worker``).

``pepa fleet`` starts one per group of bots (docs/fleet.md). Each bot is a
:class:`~pepa.daemon.bothost.BotHost` of its own: its registry, bus, actor
tree, socket, link and memory folder; what the bots share is the process,
its timer thread and the bridge's Node process with its mineflayer bots.

Isolation inside the process:

- an actor that crashes or hangs is restarted by its own bot's supervisors;
  the other bots' trees never hear of it;
- a bot's tree that gives up is restarted alone, after a backoff, at most
  :data:`BOT_RESTARTS` times in :data:`BOT_PERIOD` seconds, then left stopped
  with the reason in its ``worker-exit.json``; the others play on;
- an account the server refuses, or a ``stop`` for one bot, ends that bot only;
- a dead bridge ends the process (exit 1): JSPyBridge cannot be started again
  in it, so ``pepa fleet`` starts the group anew and its bots reconnect.

The configurations arrive through a pipe, as for ``pepa start``'s worker.
Exit codes: 0 every bot stopped on request, 1 the bridge died (or anything
unexpected), 2 a bad configuration or state directory.
"""

from __future__ import annotations

import gc
import logging
import os
import queue
import sys
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import orjson

from pepa.base import logs
from pepa.base.childenv import scrub_environ
from pepa.base.dirs import StateDirError, secure_state
from pepa.base.errors import PepaError
from pepa.base.node import WorldError
from pepa.base.signals import SignalInbox
from pepa.daemon import handover
from pepa.daemon.bothost import BotHost
from pepa.daemon.config import Config, config_from_json
from pepa.daemon.restarts import EXIT_BRIDGE, EXIT_CONFIG, EXIT_GAVE_UP, EXIT_STOP
from pepa.daemon.worker import (
    EXIT_FILE,
    GC_THRESHOLDS,
    SWITCH_INTERVAL,
    Worker,
    _die_with_parent,
    _fail_start,
    _write_exit,
)
from pepa.link.bridge import shutdown_bridge
from pepa.runtime import Backoff, RestartIntensity, Scheduler
from pepa.state.retention import MIB, PRUNE_EVERY, RetentionPolicy, prune_logs

__all__ = ["BOT_PERIOD", "BOT_RESTARTS", "FleetWorker", "group_dir", "lower_priority", "main"]

logger = logging.getLogger(__name__)

BOT_RESTARTS = 5
"""Restarts of one bot's tree allowed in :data:`BOT_PERIOD` seconds before it is left stopped."""
BOT_PERIOD = 60.0


def group_dir(config: Config, group: int) -> Path:
    """``<host>_<port>/fleet/group-<n>/``: a worker's own log (the bots' lines all together)."""
    return config.server_root / "fleet" / f"group-{group}"


@dataclass(slots=True)
class _Bot:
    """One hosted bot: its configuration, its running host, its restart budget."""

    config: Config
    host: BotHost | None = None
    handlers: list[logging.Handler] = field(default_factory=list)
    intensity: RestartIntensity = field(
        default_factory=lambda: RestartIntensity(max_restarts=BOT_RESTARTS, period=BOT_PERIOD)
    )
    backoff: Backoff = field(
        default_factory=lambda: Backoff(base=0.5, factor=2.0, cap=15.0, stable_after=60.0)
    )
    failures: int = 0
    started_at: float = 0.0
    restart_at: float | None = None
    done: str = ""
    """Why this bot is stopped for good ("" while it runs or waits to restart)."""


class FleetWorker(Worker):
    """Hosts a group of bots until every one has stopped or the worker is stopped."""

    def __init__(
        self,
        configs: list[Config],
        *,
        group: int = 0,
        signals: SignalInbox | None = None,
        heartbeat_interval: float = 1.0,
        heartbeat_timeout: float = 5.0,
        console: str = "warning",
        nice: int = 0,
    ) -> None:
        if not configs:
            raise ValueError("a fleet worker needs at least one bot")
        super().__init__(
            configs[0],
            signals=signals,
            heartbeat_interval=heartbeat_interval,
            heartbeat_timeout=heartbeat_timeout,
        )
        self.group = group
        self.console = logging.INFO if console == "info" else logging.WARNING
        self.nice = nice
        """How far below normal its CPU priority is (set as it starts: :func:`lower_priority`)."""
        self.bots = {c.username: _Bot(config=c) for c in configs}
        self._exits: queue.Queue[tuple[str, int, str]] = queue.Queue()

    def request_stop(self, code: int = 0, reason: str = "") -> None:
        super().request_stop(code, reason)
        self._exits.put(("", code, reason))  # wakes the loop

    def wait_for_stop(self) -> None:  # the loop below waits instead
        raise NotImplementedError

    def _run(self) -> int:
        first = self.config
        folder = group_dir(first, self.group)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.parent.chmod(0o700)
        notes = secure_state(first.state_dir, first.server_root)
        for bot in self.bots.values():
            notes += secure_state(bot.config.state_dir, bot.config.server_dir)
            (bot.config.server_dir / EXIT_FILE).unlink(missing_ok=True)
        logs.configure(
            logs_dir=folder / "logs",
            level=self.console,  # the fleet's terminal: warnings by default; all is in the files
            max_file_bytes=first.log_max_mb * MIB,
            tag_bots=True,
        )
        for note in dict.fromkeys(n for n in notes if n):
            logger.warning("state directory: %s", note)
        if self.nice:  # before the bots' threads and the bridge: they inherit it
            lower_priority(self.nice)
        sys.setswitchinterval(SWITCH_INTERVAL)
        gc.set_threshold(*GC_THRESHOLDS)
        scheduler = Scheduler().start()
        # the group's own log folder, by the bots' retention (each bot prunes its own folder)
        policy = RetentionPolicy(days=first.retention_days, log_max_bytes=first.log_max_mb * MIB)
        prune = lambda: _prune_group_logs(folder / "logs", policy)  # noqa: E731
        prune()
        scheduler.call_every(PRUNE_EVERY, prune)
        names = ", ".join(self.bots)
        logger.info("fleet worker %d (group %d) starting: %s", os.getpid(), self.group, names)
        try:
            for name in self.bots:
                if self.stop_event.is_set():
                    break
                self._start_bot(name, scheduler)
            self._loop(scheduler)
        except WorldError as exc:
            logger.error("fleet worker cannot run: %s", exc)
            super().request_stop(EXIT_CONFIG, str(exc))
        finally:
            logger.info("fleet worker stopping (%s)", self.exit_reason or "signal")
            for bot in self.bots.values():
                if bot.host is not None:
                    bot.host.link.close()
            shutdown_bridge()
            for name in self.bots:
                self._stop_bot(name)
            scheduler.stop()
        if self.exit_code:
            for bot in self.bots.values():
                if not bot.done:
                    _write_exit(bot.config.server_dir, self.exit_code, self.exit_reason)
        logger.info("fleet worker exits with code %d", self.exit_code)
        return self.exit_code

    def _loop(self, scheduler: Scheduler) -> None:
        """Act on the bots' exits and due restarts until stopped or no bot is left."""
        while not self.stop_event.is_set():
            if all(bot.done for bot in self.bots.values()):
                codes = {
                    EXIT_CONFIG if "refused" in b.done else EXIT_STOP for b in self.bots.values()
                }
                super().request_stop(max(codes), "every bot of the group has stopped")
                return
            due = [b.restart_at for b in self.bots.values() if b.restart_at is not None]
            wait = max(0.0, min(due) - time.monotonic()) if due else None
            try:
                name, code, reason = self._exits.get(timeout=wait)
            except queue.Empty:
                name = ""
            else:
                if name:
                    self._bot_exited(name, code, reason)
            now = time.monotonic()
            for key, bot in self.bots.items():
                if (
                    bot.restart_at is not None
                    and bot.restart_at <= now
                    and not self.stop_event.is_set()
                ):
                    bot.restart_at = None
                    self._start_bot(key, scheduler)

    def _bot_exited(self, name: str, code: int, reason: str) -> None:
        bot = self.bots[name]
        if code == EXIT_BRIDGE:  # the bridge is the process's: every bot must come back
            super().request_stop(EXIT_BRIDGE, f"{name}: {reason}")
            return
        self._stop_bot(name)
        if code == EXIT_STOP:
            bot.done = "stopped on request"
            logger.warning("%s stopped: %s", name, reason)
            _write_exit(bot.config.server_dir, code, f"stopped on request ({reason})")
            return
        if code == EXIT_CONFIG:
            bot.done = f"refused: {reason}"
            logger.error("%s cannot play: %s", name, reason)
            _write_exit(bot.config.server_dir, code, reason)
            return
        now = time.monotonic()
        if not bot.intensity.allow(now):
            bot.done = f"gave up: {reason}"
            logger.error(
                "%s: its actor tree gave up more than %d times in %gs; left stopped (last: %s)",
                name, BOT_RESTARTS, BOT_PERIOD, reason,
            )  # fmt: skip
            _write_exit(bot.config.server_dir, EXIT_GAVE_UP, reason)
            return
        bot.failures = 1 if now - bot.started_at >= bot.backoff.stable_after else bot.failures + 1
        delay = bot.backoff.delay(bot.failures)
        bot.restart_at = now + delay
        logger.warning("%s: its actor tree gave up (%s); restart in %.1fs", name, reason, delay)

    def _start_bot(self, name: str, scheduler: Scheduler) -> None:
        bot = self.bots[name]
        config = bot.config
        handlers = logs.bot_handlers(
            name, config.server_dir / "logs", max_file_bytes=config.log_max_mb * MIB
        )
        root = logging.getLogger()
        for handler in handlers:
            root.addHandler(handler)
        bot.handlers = handlers
        host = BotHost(
            config,
            scheduler=scheduler,
            ring=handlers[0],  # type: ignore[arg-type]
            on_exit=lambda code, reason: self._exits.put((name, code, reason)),
            fail_start=_fail_start(config),
            label=name,
            heartbeat_interval=self.heartbeat_interval,
            heartbeat_timeout=self.heartbeat_timeout,
        )
        bot.host, bot.started_at = host, time.monotonic()
        try:
            host.start()
        except PepaError as exc:  # its socket: this bot cannot run, the others can
            logger.error("%s cannot start: %s", name, exc)
            host.exit(EXIT_CONFIG, str(exc))

    def _stop_bot(self, name: str) -> None:
        bot = self.bots[name]
        host, bot.host = bot.host, None
        if host is not None:
            host.stop()
        root = logging.getLogger()
        for handler in bot.handlers:
            root.removeHandler(handler)
            handler.close()
        bot.handlers = []


def _prune_group_logs(folder: Path, policy: RetentionPolicy) -> None:
    try:
        gone = prune_logs(folder, today=date.today(), policy=policy)
    except OSError as exc:  # a bad folder costs a warning, never the group
        logger.warning("cannot prune %s: %s", folder, exc)
        return
    if gone:
        logger.info("pruned %d old log file(s) of the group: %s", len(gone), ", ".join(gone))


def lower_priority(nice: int) -> None:
    """Run this thread, and the threads and child processes it starts from now on, ``nice``
    steps below normal CPU priority; a worker leading a session of its own (as ``pepa fleet``
    starts them) lowers its session's too.

    Both, because on Linux a thread's nice orders it only among the threads of its session
    when the kernel groups the CPU by session (autogroup, the default of most distributions):
    against a server in another session it counts for nothing. Measured with 32 working bots
    beside the embedded world (docs/fleet.md): a nice on the threads alone changed nothing.
    A Ray actor shares its session with Ray's own processes, so it lowers its threads only.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, 0, nice)  # on Linux: this thread
    except OSError as exc:
        logger.warning("cannot lower the CPU priority to nice %d: %s", nice, exc.strerror or exc)
        return
    group = Path("/proc/self/autogroup")
    if os.getsid(0) != os.getpid() or not group.exists():
        return
    try:
        group.write_text(str(nice))
    except OSError as exc:
        logger.warning("cannot lower the session's CPU priority: %s", exc.strerror or exc)


def _read_configs() -> tuple[int, str, int, list[Config]]:
    """The group number, the console's level, the nice and the bots' configurations the
    fleet wrote into the pipe."""
    fd = int(os.environ.pop(handover.ENV_CONFIG_FD))
    data = orjson.loads(handover.receive(fd))
    console = "info" if data.get("console") == "info" else "warning"
    nice = int(data.get("nice", 0))
    return int(data["group"]), console, nice, [config_from_json(c) for c in data["bots"]]


def main() -> int:
    """Entry point of a fleet worker process."""
    import signal

    signals = SignalInbox((signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)).install()
    scrub_environ()  # before any child: the JS bridge inherits no secret
    try:
        group, console, nice, configs = _read_configs()
    except (PepaError, KeyError, ValueError, TypeError) as exc:
        print(f"pepa fleet worker: no usable configuration from pepa fleet: {exc}", file=sys.stderr)
        return 2
    _die_with_parent()
    worker = FleetWorker(configs, group=group, signals=signals, console=console, nice=nice)
    try:
        return worker.run()
    except StateDirError as exc:
        print(f"pepa fleet worker: error: {exc}", file=sys.stderr)
        return 2
    except Exception:
        logger.exception("fleet worker failed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
