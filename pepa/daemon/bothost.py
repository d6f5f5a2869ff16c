"""One bot inside a worker process: its runtime, Minecraft link, socket server and actor tree.

``pepa start``'s worker hosts one (:mod:`pepa.daemon.worker`); a fleet worker
hosts several side by side (:mod:`pepa.fleet.worker`), all on the process's one
JS bridge and one timer thread. Nothing else is shared: each bot has its own
registry, bus, actor table, socket and memory folder, so no bot's actor ever
waits on another's.

A host never ends the process. What would have (a stop asked for, the tree
giving up, the account refused, the bridge dead) goes to ``on_exit(code,
reason)`` with the worker's exit codes (:data:`~pepa.daemon.restarts.EXIT_STOP`, …), and the
worker decides: the one-bot worker exits; a fleet worker restarts that bot,
or leaves it stopped, or, for a dead bridge, exits so that every bot on it
comes back in a new process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pykka

from pepa.actors.perception import WorldEvent
from pepa.actors.tree import build_tree
from pepa.base import logs
from pepa.base.errors import SupervisionError
from pepa.base.node import WorldError, node_modules
from pepa.daemon.config import EMBEDDED_HOST, Config
from pepa.daemon.restarts import EXIT_BRIDGE, EXIT_CONFIG, EXIT_GAVE_UP, EXIT_STOP
from pepa.ipc.server import IpcServer
from pepa.link.minecraft import LinkSettings, MinecraftLink
from pepa.llm import settings_from_config
from pepa.runtime import Bus, Ping, Registry, Runtime, Scheduler, start_tree, stop_tree
from pepa.runtime.events import ClientConnected, CommandReceived
from pepa.state.retention import MIB, RetentionPolicy
from pepa.worldserver.process import DEFAULT_VERSION

__all__ = [
    "START_TIMEOUT",
    "BotHost",
    "minecraft_data",
]

logger = logging.getLogger(__name__)

START_TIMEOUT = 60.0
"""Seconds the whole actor tree may take to start."""

OnExit = Callable[[int, str], None]


class BotHost:
    """Builds one bot's parts; :meth:`start` runs them, :meth:`stop` tears them down in reverse."""

    def __init__(
        self,
        config: Config,
        *,
        scheduler: Scheduler,
        ring: logs.RingBuffer,
        on_exit: OnExit,
        fail_start: frozenset[str] = frozenset(),
        label: str = "",
        heartbeat_interval: float = 1.0,
        heartbeat_timeout: float = 5.0,
        reload_token: str = "",
        reflex_poll: float | None = None,
    ) -> None:
        self.config = config
        self.label = label
        """The bot's name on its threads (:mod:`pepa.base.threads`) when it shares the process;
        "" alone."""
        self._on_exit = on_exit
        self._exited = threading.Event()
        self.stopping = threading.Event()
        self.runtime = Runtime(
            registry=Registry(),
            scheduler=scheduler,
            bus=Bus(),
            fault_injection=config.fault_injection,
            fail_start=fail_start,
            label=label,
        )
        self._bus_handler = logs.BusHandler(self.runtime.bus.publish)
        if label:
            self._bus_handler.addFilter(logs.BotFilter(label))
        ipc = self.runtime.registry.handle("ipc")
        perception = self.runtime.registry.handle("perception")
        self.link = MinecraftLink(
            LinkSettings(
                host=config.host or EMBEDDED_HOST,
                port=config.port,
                username=config.username,
                version=config.version or (DEFAULT_VERSION if config.embedded else None),
                password=config.password,
                server_dir=config.server_dir,
                chat_pattern=config.chat_pattern,
                auth=config.auth,
                path_budget_ms=config.path_budget_ms,
            ),
            on_event=lambda raw: perception.tell(WorldEvent(raw)),
            on_bridge_dead=lambda reason: self.exit(EXIT_BRIDGE, reason),
            # a refused account is a setting to change: no restart
            on_refused=lambda reason: self.exit(EXIT_CONFIG, reason),
            label=label,
        )
        self.server = IpcServer(
            config.socket_path,
            on_command=lambda client, command: ipc.tell(
                CommandReceived(client_id=client, command=command)
            ),
            on_connect=lambda client: ipc.tell(ClientConnected(client_id=client)),
            fault_injection=config.fault_injection,
            ack_commands=True,  # the ipc actor calls command_done: a flood waits in its socket
            label=label,
        )
        self.spec = build_tree(
            server_dir=config.server_dir,
            ipc_server=self.server,
            ring=ring,
            started_at=time.time(),
            server_label=f"{config.host or EMBEDDED_HOST}:{config.port}",
            username=config.username,
            llm_backend=config.llm_backend,
            request_stop=lambda: self.exit(EXIT_STOP, "stop requested"),
            link=self.link,
            operators=config.operators,
            reflex_poll=reflex_poll,
            data_root=minecraft_data(),
            heartbeat_interval=heartbeat_interval,
            heartbeat_timeout=heartbeat_timeout,
            llm=settings_from_config(config),
            db_url=config.db_url,
            reflect_every=config.reflect_every,
            curriculum=config.curriculum,
            wiki_url=config.wiki_url or "",
            learning=config.learning,
            first_blow=config.first_blow,
            reload_token=reload_token,
            fellows=config.fellows,
            retention=RetentionPolicy(
                days=config.retention_days, log_max_bytes=config.log_max_mb * MIB
            ),
        )
        self._root: pykka.ActorRef[Any] | None = None

    def exit(self, code: int, reason: str) -> None:
        """Report that this bot must end (any thread; only the first report counts)."""
        if self._exited.is_set():
            return
        self._exited.set()
        self._on_exit(code, reason)

    def start(self) -> bool:
        """Start the tree, then (once every actor has set up) the socket and the link.

        Returns False when the start was cut short (a stop, the tree not
        starting: reported through ``on_exit``). Raises
        :class:`~pepa.base.errors.PepaError` (a socket that cannot be bound) and
        :class:`~pepa.base.node.WorldError` (no Node).
        """
        logging.getLogger().addHandler(self._bus_handler)
        self._root = start_tree(
            self.spec, self.runtime, lambda reason: self.exit(EXIT_GAVE_UP, reason)
        )
        try:
            self.runtime.registry.handle(self.spec.id).ask(Ping(), timeout=START_TIMEOUT)
        except SupervisionError as exc:
            self.exit(EXIT_BRIDGE, f"the actor tree did not start: {exc}")
            return False
        if self.stopping.is_set():
            return False  # a SIGTERM during the start: no connecting
        self.server.start()
        logger.info("listening on %s", self.config.socket_path)
        self.link.start()
        return True

    def stop(self, timeout: float = 20.0) -> None:
        """Leave the server, close the socket, stop the tree (the bridge is the worker's)."""
        self.stopping.set()
        self.link.close()
        self.server.stop()
        if self._root is not None:
            stop_tree(self._root, self.runtime, timeout=timeout)
            self._root = None
        self.runtime.hang_release.set()
        logging.getLogger().removeHandler(self._bus_handler)


def minecraft_data() -> Path | None:
    """minecraft-data's data folder (from npm ci), for seeding the knowledge base."""
    try:
        root = node_modules() / "minecraft-data" / "minecraft-data" / "data"
    except WorldError as exc:
        logger.warning("no minecraft-data to seed the knowledge base: %s", exc)
        return None
    return root if root.is_dir() else None
