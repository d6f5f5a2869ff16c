"""``pepa fleet --ray ADDRESS``: the fleet's groups as Ray actors spread over a cluster.

Everything but the hosting is ``pepa fleet``'s (:mod:`pepa.fleet.supervisor`):
the fleet file, the locks, the goals, the shared knowledge base, the world.
Each group of bots becomes one Ray actor, :class:`GroupHost`: a process of its
own on some node, running a :class:`~pepa.fleet.worker.FleetWorker` (the
group's actor trees and one JS bridge) in a thread. So a Ray actor costs one
process per *group*, never per bot.

- **Placement**: group ``n`` goes to the ``n mod nodes``-th node alive, so the
  groups are spread evenly; they ask for no CPU of Ray's accounting (a
  group's load is its bots', not a fixed core).
- **Restart**: a group's actor has ``max_restarts=-1``: when its process dies
  (killed, out of memory, a dead bridge: the worker then ends its process with
  exit code 1), Ray starts it again on its node, and its bots reconnect; a
  group whose node is gone (its actor dead, or not back within
  :data:`MOVE_AFTER`) is placed anew on a node alive. The supervisor counts
  the restarts (a new pid) and gives a group up alone, as for local workers,
  after ``--max-restarts`` in ``--restart-window`` seconds. The other groups
  never notice.
- **Status**: the supervisor serves ``fleet.sock`` (:mod:`pepa.fleet.fleetsock`):
  ``pepa status`` and the dashboard get every bot's line from it, each group
  answering for its own bots from its node.
- **What the nodes share**: the PostgreSQL knowledge base (``PEPA_DB_URL``,
  else the fleet's own, which listens on this machine's loopback only) and the
  Minecraft server. A bot's personal memory lives on the node its group runs
  on. On a cluster of several machines, give every node a server and a
  ``PEPA_DB_URL`` it can reach; the supervisor says so when it sees other
  machines in the cluster.
- **Security**: the supervisor joins only a cluster that enforces Ray's token
  authentication (:mod:`pepa.fleet.rayauth`); no secret travels as an actor's
  argument, each node reads them from a 0600 file or its own environment
  (:mod:`pepa.fleet.raysecrets`); the actors' names carry a random part of
  this run's, known only to token holders.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pepa.base.childenv import scrub_environ
from pepa.base.dirs import StateDirError, secure_state
from pepa.base.errors import ConfigError
from pepa.daemon.config import config_from_json
from pepa.daemon.restarts import EXIT_BRIDGE, EXIT_CONFIG, EXIT_GAVE_UP, EXIT_STOP, overall
from pepa.fleet.fleetsock import FleetSocket
from pepa.fleet.rayauth import check_token_auth
from pepa.fleet.raysecrets import SECRETS_FILE, fill_secrets, group_payload, write_secrets
from pepa.fleet.supervisor import FleetSupervisor, _Group, set_goal
from pepa.fleet.worker import FleetWorker
from pepa.ipc.fleet import BotLine, fleet_lines
from pepa.ipc.paths import FLEET_SOCKET

__all__ = ["GroupHost", "RayFleetSupervisor"]

logger = logging.getLogger(__name__)

POLL = 1.0
"""Seconds between two rounds of asking every group how it is."""
STATUS_TIMEOUT = 5.0
CONNECT_TIMEOUT = 5.0
MOVE_AFTER = 60.0
"""Seconds a lost group may take to come back before it is placed anew."""
INSTALL_HINT = "pip install 'pepa[fleet]'"


class GroupHost:
    """A Ray actor: one group's fleet worker in this process (its bots, one JS bridge)."""

    def __init__(self, payload: bytes) -> None:
        data = orjson.loads(payload)
        self.group = int(data["group"])
        bare = [config_from_json(c) for c in data["bots"]]  # without their secrets
        self.names = [c.username for c in bare]
        self.server_root = bare[0].server_root
        self.started = time.time()
        self.ended: int | None = None
        self.reason = ""
        self.worker: FleetWorker | None = None
        try:  # the secrets from this node's file or environment, before it is scrubbed
            configs = fill_secrets(data, os.environ)
        except ConfigError as exc:
            logger.error("group %d cannot run: %s", self.group, exc)
            self.ended, self.reason = EXIT_CONFIG, str(exc)
            return
        finally:
            scrub_environ()  # before the bridge starts: Node inherits no secret
        goals = data.get("goals") or {}
        for config in configs:  # the goals the fleet file names, on this node too
            goal = goals.get(config.username)
            if goal:  # the bot's folder first: on a node new to it, it is not there yet
                secure_state(config.state_dir, config.server_dir)
                set_goal(config, goal)
        self.worker = FleetWorker(
            configs,
            group=self.group,
            console=data.get("console", "warning"),
            nice=int(data.get("nice", 0)),
        )
        self._thread = threading.Thread(
            target=self._run, name=f"fleet-group-{self.group}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        assert self.worker is not None
        try:
            code = self.worker.run()
        except StateDirError as exc:
            logger.error("group %d cannot run: %s", self.group, exc)
            code, self.worker.exit_reason = EXIT_CONFIG, str(exc)
        except Exception:
            logger.exception("group %d failed", self.group)
            code = EXIT_BRIDGE
        self.reason = self.worker.exit_reason
        if code in (EXIT_STOP, EXIT_CONFIG):  # stopped on request, or a bad configuration: final
            self.ended = code
            return
        logging.shutdown()
        os._exit(code or 1)  # a dead bridge: Ray starts the group again in a new process

    def info(self) -> dict[str, Any]:
        """Where and since when the group runs; how it ended (``ended``: None while it runs)."""
        import ray

        return {
            "pid": os.getpid(),
            "node": ray.get_runtime_context().get_node_id(),
            "ip": ray.util.get_node_ip_address(),
            "hostname": socket.gethostname(),
            "started": self.started,
            "ended": self.ended,
            "reason": self.reason,
        }

    def status(self) -> list[dict[str, Any]]:
        """Each of the group's bots as ``pepa status`` shows it, asked on this node."""
        roster = {"groups": [{"group": self.group, "bots": self.names}]}
        return [line.to_json() for line in fleet_lines(self.server_root, roster)]

    def stop(self, timeout: float) -> int | None:
        """Stop every bot of the group; the worker's exit code (None: still stopping)."""
        if self.worker is None:  # it never started: its configuration was refused
            return self.ended
        self.worker.request_stop(0, "pepa fleet stops")
        self._thread.join(timeout)
        return None if self._thread.is_alive() else self.worker.exit_code


@dataclass(slots=True)
class _RayGroup:
    """A group's actor as the supervisor sees it."""

    actor: Any
    pid: int | None = None
    where: str = ""
    pending: Any = None
    """The ``info`` call not answered yet."""
    asked: float = 0.0
    """When it was made."""
    lost: float | None = None
    """Since when its process is lost and Ray is starting it again."""


class RayFleetSupervisor(FleetSupervisor):
    """:class:`FleetSupervisor` whose groups are Ray actors on the cluster at ``address``."""

    def __init__(self, *args: Any, address: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = address
        self._actors: dict[int, _RayGroup] = {}
        self._remote: Any = None
        self._run_id = secrets.token_hex(16)
        """This run's random id: in the actors' names (none can be guessed without the token
        that lists them) and in the secrets file (a node passes over another run's)."""
        self._secrets_written = False
        """Whether this run wrote the secrets file (under the server folder's lock): only then
        is the file its to remove."""

    def _path_budget(self) -> float:
        """0, each bridge's own: the groups are spread over the cluster's machines (this
        machine's cores divided among every group would starve them)."""
        return 0.0

    def run(self) -> int:
        try:
            import ray
        except ImportError as exc:
            raise ConfigError(f"pepa fleet --ray needs Ray ({INSTALL_HINT}): {exc}") from exc
        _check_address(self.address)
        check_token_auth(self.address)
        try:
            ray.init(
                address=self.address,
                namespace="pepa",
                logging_level=logging.WARNING,
                log_to_driver=True,
            )
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise ConfigError(f"cannot join the Ray cluster at {self.address}: {exc}") from exc
        self._remote = ray.remote(GroupHost)
        try:
            return super().run()
        finally:
            ray.shutdown()

    @property
    def secrets_path(self) -> Path:
        """The secrets file for the nodes on this machine (absolute: a node's cwd is Ray's)."""
        return (self.base.server_root / SECRETS_FILE).absolute()

    # -- the loop ----------------------------------------------------------------

    def _loop(self) -> int:
        self._check_cluster()
        self._secrets_written = True  # under the lock: the file is this run's from here
        write_secrets(self.secrets_path, self._run_id, (c for g in self.groups for c in g.configs))
        server = FleetSocket(self.base.server_root / FLEET_SOCKET, self._lines).start()
        try:
            while True:
                if self._check_signals():
                    return 0
                now = time.monotonic()
                for group in self.groups:
                    due = group.restart_at is not None and group.restart_at <= now
                    if group.number not in self._actors and due:
                        self._spawn(group)
                self._poll()
                self._keep_world_alive()
                if all(g.exit_code is not None for g in self.groups):
                    return overall(g.exit_code for g in self.groups)
                self._check_signals(POLL)
        finally:
            server.close()

    def _check_cluster(self) -> None:
        import ray

        alive = [n for n in ray.nodes() if n.get("Alive")]
        machines = {n["NodeManagerAddress"] for n in alive}
        self.say(
            f"Ray cluster at {self.address}: {len(alive)} node(s) on "
            f"{len(machines)} machine(s); the groups go round them"
        )
        if len(machines) > 1 and (self.world is not None or self.postgres is not None):
            self.say(
                "the cluster spans several machines, but the embedded world and the fleet's "
                "own PostgreSQL listen on this machine's loopback only: give every node a "
                "server (--host) and a PEPA_DB_URL it can reach"
            )

    def _spawn(self, group: _Group) -> None:
        goals = {bot.name: bot.goal for bot in self.spec.bots if bot.goal}
        payload = group_payload(
            group.configs,
            run=self._run_id,
            secrets_file=self.secrets_path,
            group=group.number,
            console=self.console,
            nice=self.worker_nice,
            goals={name: goals[name] for name in group.bots if name in goals},
        )
        actor = self._remote.options(
            name=f"pepa-group-{group.number}-{self._run_id}",
            max_restarts=-1,
            max_task_retries=0,
            max_concurrency=4,  # info and status while the group plays
            num_cpus=0,
            scheduling_strategy=self._placement(group.number),
        ).remote(orjson.dumps(payload))
        self._actors[group.number] = _RayGroup(actor=actor)
        group.started_at, group.restart_at = time.monotonic(), None
        self._write_roster()

    def _placement(self, number: int) -> Any:
        """Group ``n`` on the ``n mod nodes``-th node alive now.

        A hard affinity: Ray's soft one, and its SPREAD, put both groups of a two-node
        test cluster on one node about one time in three. The process of a group
        that dies is started again on the same node by Ray; a group whose node is
        gone is moved by :meth:`_move` to a node alive then.
        """
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = sorted(str(n["NodeID"]) for n in ray.nodes() if n.get("Alive"))
        if not nodes:
            return "SPREAD"
        return NodeAffinitySchedulingStrategy(nodes[number % len(nodes)], soft=False)

    def _poll(self) -> None:
        """Ask every group where it runs; act on new processes and ends."""
        import ray
        from ray.exceptions import (
            ActorDiedError,
            ActorUnavailableError,
            ActorUnschedulableError,
            RayError,
        )

        now = time.monotonic()
        for ray_group in list(self._actors.values()):
            if ray_group.pending is None:
                ray_group.pending, ray_group.asked = ray_group.actor.info.remote(), now
        pending = [g.pending for g in self._actors.values()]
        if not pending:
            return
        ray.wait(pending, num_returns=len(pending), timeout=POLL)
        now = time.monotonic()
        for number, ray_group in list(self._actors.items()):
            group = self.groups[number]
            ready, _ = ray.wait([ray_group.pending], timeout=0)
            if not ready:
                if now - ray_group.asked > MOVE_AFTER:  # queued behind a start that never comes
                    self._move(group, f"no answer for {MOVE_AFTER:g}s")
                continue
            ref, ray_group.pending = ray_group.pending, None
            try:
                info = ray.get(ref)
            except (ActorDiedError, ActorUnschedulableError) as exc:  # e.g. its node is gone
                self._move(group, _first_line(exc))
                continue
            except (ActorUnavailableError, RayError) as exc:  # Ray is starting it again
                if ray_group.lost is None:
                    ray_group.lost = now
                    self.say(
                        f"group {number} ({', '.join(group.bots)}) lost its process; Ray starts "
                        f"it again (the other groups play on): {_first_line(exc)}"
                    )
                elif now - ray_group.lost > MOVE_AFTER:
                    self._move(group, f"not back after {MOVE_AFTER:g}s")
                continue
            self._seen(group, ray_group, info)

    def _move(self, group: _Group, why: str) -> None:
        """A group Ray cannot start again where it was (its node is gone): a new actor,
        placed on a node alive now."""
        import ray

        if not self._restart_allowed(group):
            return
        ray_group = self._actors.pop(group.number)
        ray.kill(ray_group.actor, no_restart=True)
        group.restart_at = time.monotonic()
        self.say(
            f"group {group.number} ({', '.join(group.bots)}) cannot come back where it ran "
            f"({why}); starting it on another node (restart {group.budget.count})"
        )

    def _restart_allowed(self, group: _Group) -> bool:
        """A restart counted within the group's budget; else it is given up (and False)."""
        if group.budget.lost(time.monotonic()):
            return True
        intensity = group.budget.intensity
        self._give_up(group, f"its process was lost more than {intensity.max_restarts} "
                      f"times in {intensity.period:g}s")  # fmt: skip
        return False

    def _seen(self, group: _Group, ray_group: _RayGroup, info: dict[str, Any]) -> None:
        names = ", ".join(group.bots)
        where = f"{info['hostname']} ({info['ip']}, node {str(info['node'])[:8]})"
        pid = int(info["pid"])
        first, again = ray_group.pid is None, ray_group.pid not in (None, pid)
        if again and not self._restart_allowed(group):
            return
        ray_group.pid, ray_group.where, ray_group.lost = pid, where, None
        self._write_roster()  # before the line: who reads the line finds the roster new
        if again:
            self.say(
                f"group {group.number} ({names}) runs again in pid {pid} on {where} "
                f"(restart {group.budget.count}); its bots reconnect"
            )
        elif first:
            logger.info("group %d (%s) runs in pid %d on %s", group.number, names, pid, where)
        ended = info.get("ended")
        if ended is not None:
            reason = str(info.get("reason") or "")
            if ended == 0:
                self.say(f"group {group.number} ({names}): every bot stopped on request")
            else:
                self.say(f"group {group.number} ({names}) refused its configuration: {reason}")
            self._end(group, int(ended))

    def _give_up(self, group: _Group, why: str) -> None:
        self.say(f"group {group.number} ({', '.join(group.bots)}): giving up, {why}")
        self._end(group, EXIT_GAVE_UP)

    def _end(self, group: _Group, code: int) -> None:
        import ray

        ray_group = self._actors.pop(group.number, None)
        if ray_group is not None:
            ray.kill(ray_group.actor, no_restart=True)
        group.exit_code, group.restart_at = code, None
        self._write_roster()

    # -- status ------------------------------------------------------------------

    def _lines(self) -> list[dict[str, Any]]:
        """Every bot's line, each group asked on its node at once (for ``fleet.sock``)."""
        import ray

        asked = {n: g.actor.status.remote() for n, g in list(self._actors.items())}
        if asked:
            ray.wait(list(asked.values()), num_returns=len(asked), timeout=STATUS_TIMEOUT)
        lines: list[dict[str, Any]] = []
        for group in self.groups:
            ref = asked.get(group.number)
            answer = _answer(ref) if ref is not None else None
            if answer is not None:
                lines.extend(answer)
                continue
            why = ("ended" if group.exit_code is not None
                   else "its process is starting again" if ref is not None
                   else "not started yet")  # fmt: skip
            lines.extend(BotLine(n, group.number, None, down=f"group {why}").to_json()
                         for n in group.bots)  # fmt: skip
        return lines

    def _roster_extra(self) -> dict[str, Any]:
        return {"ray": self.address, "socket": FLEET_SOCKET}

    def _where(self, group: _Group) -> dict[str, Any]:
        ray_group = self._actors.get(group.number)
        if ray_group is None:
            return {"pid": None, "where": ""}
        return {"pid": ray_group.pid, "where": ray_group.where}

    def _stop_all(self) -> None:
        """Ask every group to stop its bots, then end the actors; remove the secrets file (the
        server folder's lock still held)."""
        import ray

        try:
            if not self._actors:
                return
            refs = [g.actor.stop.remote(self.stop_timeout) for g in self._actors.values()]
            ready, _ = ray.wait(refs, num_returns=len(refs), timeout=self.stop_timeout + 5)
            if len(ready) < len(refs):
                self.say(f"{len(refs) - len(ready)} group(s) did not stop in time; ending them")
            for ray_group in self._actors.values():
                ray.kill(ray_group.actor, no_restart=True)
            self._actors.clear()
        finally:
            if self._secrets_written:
                self.secrets_path.unlink(missing_ok=True)


def _check_address(address: str) -> None:
    """A cluster's ``host:port`` that answers, or one clear line (Ray itself would retry a
    wrong address for minutes)."""
    if address.startswith("ray://"):
        raise ConfigError(
            f"--ray {address}: Ray Client addresses are not supported; give the cluster's "
            f"address (host:port, as `ray start --head` prints it)"
        )
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--ray {address!r}: expected the cluster's address as host:port")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {exc}") from exc


def _answer(ref: Any) -> list[dict[str, Any]] | None:
    import ray

    ready, _ = ray.wait([ref], timeout=0)
    if not ready:
        return None
    try:
        answer = ray.get(ref)
    except ray.exceptions.RayError as exc:
        logger.info("a group's status did not come: %s", _first_line(exc))
        return None
    return answer if isinstance(answer, list) else None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
