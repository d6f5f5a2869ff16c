"""IPC: the protocol brain behind the Unix socket.

The socket server itself (``pepa.ipc.server``) belongs to the worker, so an
IPC actor restart never drops a dashboard: connections and commands wait in
the actor's stable mailbox while it restarts. This actor turns bus events into
protocol events (``status``, ``log``, ``actor``, ``error``, ``ask-pi-*``),
answers new connections with ``hello``, and routes commands to the actors
(the stateless translations both ways are :mod:`pepa.policy.relay.wire`).

Every command but ``cmd:snapshot`` (answered here, to the asker) makes another
actor work, so each client has a rate for them (:mod:`pepa.ipc.ratelimit`, 10
a second, bursts of 30): past it a command is dropped, and the client gets at
most one ``error`` a second saying how many were. The server bounds what a
client can make this actor hold; the rate bounds what it can make the actors
behind it hold.

The world fields of every ``status`` are the latest :class:`WorldView`'s
:meth:`~pepa.world.view.WorldView.to_wire` (built when a status goes out, not
per observation); the proposals come from the knowledge actor's
:class:`~pepa.runtime.events.queries.Proposals` answer at start, then from
:class:`ProposalsChanged`. Times come from the runtime's clock
(:meth:`~pepa.runtime.SupervisedActor.now`).
"""

from __future__ import annotations

import hmac
import logging
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pepa.base.errors import SupervisionError
from pepa.base.logs import RingBuffer
from pepa.ipc import protocol
from pepa.ipc.ratelimit import COMMAND_BURST, COMMAND_RATE, CommandRate
from pepa.policy.relay.snapshot import build_snapshot
from pepa.policy.relay.wire import RELAYED, command_event, log_event, to_clients
from pepa.runtime import InjectFault, SupervisedActor, SupervisionContext
from pepa.runtime.events import (
    ActivityChanged,
    ClientConnected,
    CommandReceived,
    Died,
    ErrorRaised,
    LearningChanged,
    PausedChanged,
    PlanChanged,
    ProposalsChanged,
    WorldObserved,
)
from pepa.runtime.events.queries import Learning, LearningSummary, Proposals
from pepa.world.view import WorldView

__all__ = ["Ipc", "SocketServer"]

logger = logging.getLogger(__name__)

STATUS_INTERVAL = 1.0
"""Seconds between heartbeat ``status`` events when nothing changes."""
STATUS_MIN_GAP = 0.1
"""World changes are broadcast at most this often (10 per second)."""


class SocketServer(Protocol):
    """What this actor needs of the socket server (:class:`pepa.ipc.server.IpcServer`)."""

    def send(self, client_id: int, event: Mapping[str, Any]) -> None:
        """Queue ``event`` for one client."""
        ...

    def broadcast(self, event: Mapping[str, Any]) -> None:
        """Queue ``event`` for every client."""
        ...

    def command_done(self, client_id: int) -> None:
        """One command of ``client_id`` has been taken."""
        ...

    def listening(self) -> bool:
        """Whether any client would get a broadcast now."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class _Heartbeat:
    """Timer: broadcast a status even if nothing changed."""


class Ipc(SupervisedActor):
    """Serves the socket protocol (docs/ipc.md)."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        server: SocketServer,
        ring: RingBuffer,
        started_at: float,
        server_label: str,
        username: str,
        request_stop: Callable[[], None],
        reload_token: str = "",
        command_rate: float = COMMAND_RATE,
        command_burst: int = COMMAND_BURST,
    ) -> None:
        super().__init__(supervision=supervision)
        # without a token (no --reload), every cmd:reload-failed is refused; the worker takes
        # it out of its environment at start, so no child of the worker inherits it
        self.reload_token = reload_token
        self.server = server
        self.ring = ring
        self.started_at = started_at
        self.server_label = server_label
        self.username = username
        self.request_stop = request_stop
        self.view: WorldView | None = None
        self.activity: tuple[str | None, str | None] = (None, None)
        self.paused = False
        self.proposals: tuple[str, ...] = ()
        self.approved: tuple[str, ...] = ()
        self.plan: dict[str, Any] = {}
        self.last_death: str | None = None
        """The last death's cause in a few words (the status snapshot's ``lastDeath``)."""
        self.sign_in: str | None = None
        """Microsoft's device-code prompt while a sign-in waits (the snapshot's ``signIn``)."""
        self.learning = LearningSummary()
        """What the bot has learned (the status snapshot's ``learning``)."""
        self.last_status = -math.inf
        self.rate = CommandRate(command_rate, command_burst)

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            *RELAYED, ActivityChanged, Died, WorldObserved, PausedChanged, ProposalsChanged,
            PlanChanged, LearningChanged,
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)
        self.every(STATUS_INTERVAL, _Heartbeat())
        try:  # knowledge started first: its first ProposalsChanged went out before we listened
            ids = self.peer("knowledge").request(Proposals(), timeout=2.0)
            self.proposals, self.approved = tuple(ids.pending), tuple(ids.approved)
            self.learning = self.peer("knowledge").request(Learning(), timeout=2.0)
        except SupervisionError as exc:
            logger.warning("cannot read the pending proposals and what was learned yet: %s", exc)

    # -- the snapshot -----------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The full status snapshot."""
        return build_snapshot(
            world=self.view.to_wire() if self.view is not None else None,
            paused=self.paused,
            active_reflex=self.activity[0],
            current_skill=self.activity[1],
            actors=self.runtime.actor_table.as_dicts(),
            pending_proposals=self.proposals,
            approved_proposals=self.approved,
            plan=self.plan,
            uptime=time.time() - self.started_at,
            server=self.server_label,
            username=self.username,
            last_death=self.last_death,
            learning=self.learning,
            sign_in=self.sign_in,
        )

    def _broadcast_status(self) -> None:
        self.last_status = self.now()
        # with no client a status is never sent, and building one (actor table, world) was
        # the bulk of an idle bot's Python time; a client that connects gets a fresh one in
        # its hello
        if self.server.listening():
            self.server.broadcast(protocol.status(self.snapshot()))

    # -- messages -----------------------------------------------------------------

    def on_message(self, message: Any) -> Any:
        match message:
            case ErrorRaised(source="auth", text=text):  # a sign-in waits: in every status
                self.sign_in = text
                self.server.broadcast(protocol.error("auth", text))
                self._broadcast_status()
            case _ if (relayed := to_clients(message, self.username)) is not None:
                self.server.broadcast(relayed)
            case WorldObserved(view=view):
                self.view = view
                if view.connected:
                    self.sign_in = None  # signed in (or never asked to)
                if self.now() - self.last_status >= STATUS_MIN_GAP:
                    self._broadcast_status()
            case ActivityChanged(reflex=reflex, skill=skill):
                self.activity = (reflex, skill)
                self._broadcast_status()
            case LearningChanged(summary=summary):
                self.learning = summary
                self._broadcast_status()
            case Died(reason=reason, position=position, cause=cause):
                self.last_death = reason
                self.server.broadcast(protocol.death(reason, position, cause.as_dict()))
                self._broadcast_status()
            case PausedChanged(paused=paused):
                self.paused = paused
                self._broadcast_status()
            case PlanChanged(goal=goal, done=done, total=total, next=upcoming):
                self.plan = {"goal": goal, "done": done, "total": total, "next": upcoming}
            case ProposalsChanged(pending=pending, approved=approved):
                self.proposals, self.approved = pending, approved
                self._broadcast_status()
            case _Heartbeat():
                for client_id, dropped in self.rate.sweep(self.now()):
                    self._dropped(client_id, dropped)
                if self.now() - self.last_status >= STATUS_INTERVAL * 0.9:
                    self._broadcast_status()
            case ClientConnected(client_id=client_id):
                recent = [log_event(entry) for entry in self.ring.recent()]
                self.server.send(client_id, protocol.hello(self.snapshot(), recent))
            case CommandReceived(client_id=client_id, command=command):
                try:
                    if self._admitted(client_id, command):
                        self._command(client_id, command)
                finally:  # taken: the server may read that client's next command
                    self.server.command_done(client_id)
            case _:
                return super().on_message(message)
        return None

    def _command(self, client_id: int, command: Any) -> None:
        event = command_event(client_id, command)
        if event is not None:
            self.publish(event)
            return
        match command:
            case protocol.Stop():
                logger.info("stop requested over the socket (client %d)", client_id)
                self.request_stop()
            case protocol.Snapshot():  # to the asker only: one client cannot flood the others
                self.server.send(client_id, protocol.status(self.snapshot()))
            case protocol.Fault(actor=name, kind=kind):
                self._fault(client_id, name, kind)
            case protocol.ReloadFailed(error=text, token=token):
                self._reload_failed(client_id, text, token)
            case _:  # decoded, so the protocol knows it; this actor does not (yet)
                logger.warning("unhandled command %r (client %d)", command, client_id)
                self.server.send(client_id, protocol.error("ipc", f"unhandled command {command!r}"))

    def _admitted(self, client_id: int, command: Any) -> bool:
        """Whether ``command`` is within its client's rate; a dropped one may be reported."""
        if isinstance(command, protocol.Snapshot):  # answered here: costs no other actor
            return True
        now = self.now()
        if self.rate.admit(client_id, now):
            return True
        dropped = self.rate.report(client_id, now)
        if dropped:
            self._dropped(client_id, dropped)
        return False

    def _dropped(self, client_id: int, count: int) -> None:
        """Tell the client (and the log) that ``count`` of its commands were dropped."""
        rate, burst = self.rate.rate, self.rate.burst
        logger.warning(
            "socket client %d sends commands faster than %g a second: %d dropped",
            client_id, rate, count,
        )  # fmt: skip
        text = (
            f"{count} command(s) dropped: more than {rate:g} a second (bursts of {burst}) "
            "from this connection; cmd:snapshot is not limited"
        )
        self.server.send(client_id, protocol.error("ipc", text))

    def _fault(self, client_id: int, name: str, kind: str) -> None:
        if not self.runtime.fault_injection:
            self.server.send(client_id, protocol.error("ipc", "fault injection is off"))
            return
        if self.runtime.registry.state(name) != "running":
            known = ", ".join(self.runtime.registry.names())
            self.server.send(
                client_id, protocol.error("ipc", f"no running actor {name!r} (known: {known})")
            )
            return
        logger.warning("fault injection: %s into %s (client %d)", kind, name, client_id)
        self.peer(name).tell(InjectFault(kind=kind))  # type: ignore[arg-type]

    def _reload_failed(self, client_id: int, text: str, token: str) -> None:
        expected = self.reload_token.encode()
        if not expected or not hmac.compare_digest(token.encode(), expected):
            logger.warning("cmd:reload-failed with a wrong token refused (client %d)", client_id)
            self.server.send(
                client_id,
                protocol.error(
                    "ipc", "cmd:reload-failed is accepted only from pepa start --reload"
                ),
            )
            return
        self.publish(ErrorRaised(source="reload", text=text))
