"""IPC: the protocol brain behind the Unix socket.

The socket server itself (``pepa.ipc.server``) belongs to the worker, so an
IPC actor restart never drops a dashboard: connections and commands wait in
the actor's stable mailbox while it restarts. This actor turns bus events into
protocol events (``status``, ``log``, ``actor``, ``error``, ``ask-pi-*``),
answers new connections with ``hello``, and routes commands to the actors.

Every command but ``cmd:snapshot`` (answered here, to the asker) makes another
actor work, so each client has a rate for them (:mod:`pepa.ipc.ratelimit`, 10
a second, bursts of 30): past it a command is dropped, and the client gets at
most one ``error`` a second saying how many were. The server bounds what a
client can make this actor hold; the rate bounds what it can make the actors
behind it hold.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pepa.errors import SupervisionError
from pepa.events import (
    ActivityChanged,
    AskLlm,
    ChatReceived,
    ChatSent,
    ClientConnected,
    CommandReceived,
    DecideProposal,
    Died,
    ErrorRaised,
    GoalSet,
    LlmChunkReceived,
    LlmFinished,
    LogRecorded,
    Pause,
    PausedChanged,
    PlanChanged,
    ProposalsChanged,
    Resume,
    SayInChat,
    WorldObserved,
)
from pepa.ipc import protocol
from pepa.ipc.ratelimit import COMMAND_BURST, COMMAND_RATE, CommandRate
from pepa.logs import RingBuffer
from pepa.snapshot import build_snapshot
from pepa.supervision import ActorStateChanged, InjectFault, SupervisedActor, SupervisionContext

__all__ = ["ENV_RELOAD_TOKEN", "Ipc"]

logger = logging.getLogger(__name__)

STATUS_INTERVAL = 1.0
"""Seconds between heartbeat ``status`` events when nothing changes."""
STATUS_MIN_GAP = 0.1
"""World changes are broadcast at most this often (10 per second)."""
ENV_RELOAD_TOKEN = "PEPA_RELOAD_TOKEN"
"""Set by ``pepa start --reload``: the token that ``cmd:reload-failed`` must carry."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Heartbeat:
    """Timer: broadcast a status even if nothing changed."""


class Ipc(SupervisedActor):
    """Serves the socket protocol (DESIGN section 5)."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        server: Any,
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
        self.world: dict[str, Any] | None = None
        self.activity: tuple[str | None, str | None] = (None, None)
        self.paused = False
        self.proposals: tuple[str, ...] = ()
        self.approved: tuple[str, ...] = ()
        self.plan: dict[str, Any] = {}
        self.last_status = 0.0
        self.rate = CommandRate(command_rate, command_burst)

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            ActivityChanged,
            ChatReceived,
            ChatSent,
            Died,
            WorldObserved,
            PausedChanged,
            ProposalsChanged,
            PlanChanged,
            ActorStateChanged,
            LogRecorded,
            ErrorRaised,
            LlmChunkReceived,
            LlmFinished,
        ):
            bus.subscribe(event_type, self.handle)
        self.every(STATUS_INTERVAL, _Heartbeat())
        try:  # knowledge started first: its first ProposalsChanged went out before we listened
            knowledge = self.peer("knowledge")
            self.proposals = tuple(knowledge.call("pending_proposals", timeout=2.0))
            self.approved = tuple(knowledge.call("approved_proposals", timeout=2.0))
        except SupervisionError as exc:
            logger.warning("cannot read the pending proposals yet: %s", exc)

    # -- the snapshot -----------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The full status snapshot (proxy-callable)."""
        world = self.world or {}
        return build_snapshot(
            world=world,
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
        )

    def _broadcast_status(self) -> None:
        self.last_status = time.monotonic()
        self.server.broadcast(protocol.status(self.snapshot()))

    # -- messages -----------------------------------------------------------------

    def on_message(self, message: Any) -> Any:
        match message:
            case LogRecorded():
                self.server.broadcast(
                    protocol.log(
                        message.ts, message.level, message.source, message.text, message.details
                    )
                )
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
                if time.monotonic() - self.last_status >= STATUS_MIN_GAP:
                    self._broadcast_status()
            case ActivityChanged(reflex=reflex, skill=skill):
                self.activity = (reflex, skill)
                self._broadcast_status()
            case ChatReceived(sender=sender, text=text, kind=kind):
                self.server.broadcast(protocol.chat(sender or "", text, kind))
            case ChatSent(text=text):
                self.server.broadcast(protocol.chat(self.username, text, "self"))
            case Died(reason=reason, position=position):
                self.server.broadcast(protocol.death(reason, position))
                self._broadcast_status()
            case PausedChanged(paused=paused):
                self.paused = paused
                self._broadcast_status()
            case PlanChanged(goal=goal, done=done, total=total, next=upcoming):
                self.plan = {"goal": goal, "done": done, "total": total, "next": upcoming}
            case ProposalsChanged(pending=pending, approved=approved):
                self.proposals, self.approved = pending, approved
                self._broadcast_status()
            case ActorStateChanged():
                self.server.broadcast(
                    protocol.actor(message.name, message.state, message.restarts, message.reason)
                )
            case ErrorRaised(source=source, text=text):
                self.server.broadcast(protocol.error(source, text))
            case LlmChunkReceived(stream=stream, text=text):
                self.server.broadcast(protocol.ask_chunk(stream, text))
            case LlmFinished(code=code, duration_ms=duration_ms):
                self.server.broadcast(protocol.ask_done(code, duration_ms))
            case _Heartbeat():
                for client_id, dropped in self.rate.sweep(time.monotonic()):
                    self._dropped(client_id, dropped)
                if time.monotonic() - self.last_status >= STATUS_INTERVAL * 0.9:
                    self._broadcast_status()
            case ClientConnected(client_id=client_id):
                recent = [
                    protocol.log(e.ts, e.level, e.source, e.text, e.details)
                    for e in self.ring.recent()
                ]
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
        match command:
            case protocol.Pause():
                self.publish(Pause())
            case protocol.Resume():
                self.publish(Resume())
            case protocol.Stop():
                logger.info("stop requested over the socket (client %d)", client_id)
                self.request_stop()
            case protocol.Chat(text=text):
                self.publish(SayInChat(text=text, raw=True))  # the daemon user's own words
            case protocol.AskPi(prompt=prompt):
                self.publish(AskLlm(prompt=prompt))
            case protocol.Snapshot():  # to the asker only: one client cannot flood the others
                self.server.send(client_id, protocol.status(self.snapshot()))
            case protocol.ProposalDecision(id=proposal_id, decision=decision):
                self.publish(DecideProposal(id=proposal_id, decision=decision))
            case protocol.Fault(actor=name, kind=kind):
                self._fault(client_id, name, kind)
            case protocol.Goal(text=text):
                self.publish(GoalSet(text=text, by=f"socket client {client_id}"))
            case protocol.ReloadFailed(error=text, token=token):
                self._reload_failed(client_id, text, token)
            case _:
                self.server.send(client_id, protocol.error("ipc", f"unhandled command {command!r}"))

    def _admitted(self, client_id: int, command: Any) -> bool:
        """Whether ``command`` is within its client's rate; a dropped one may be reported."""
        if isinstance(command, protocol.Snapshot):  # answered here: costs no other actor
            return True
        now = time.monotonic()
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
