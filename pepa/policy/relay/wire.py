"""What the IPC actor relays, pure: bus events to protocol events, socket commands to bus events.

Only the stateless translations live here; what needs the actor's state (the
status snapshot, rates, fault injection, the reload token) stays in
:mod:`pepa.actors.ipc`.
"""

from __future__ import annotations

from typing import Any

from pepa.ipc import protocol
from pepa.runtime import ActorStateChanged
from pepa.runtime.events import (
    AskLlm,
    ChatReceived,
    ChatSent,
    DecideProposal,
    ErrorRaised,
    GoalSet,
    LlmChunkReceived,
    LlmFinished,
    LogRecorded,
    Pause,
    Resume,
    SayInChat,
)

__all__ = ["RELAYED", "command_event", "log_event", "to_clients"]

RELAYED: tuple[type, ...] = (
    LogRecorded,
    ChatReceived,
    ChatSent,
    ActorStateChanged,
    ErrorRaised,
    LlmChunkReceived,
    LlmFinished,
)
"""Bus events every client gets as one protocol event (:func:`to_clients`)."""


def log_event(record: Any) -> dict[str, Any]:
    """The ``log`` event of a :class:`LogRecorded` (or a ring buffer entry)."""
    return protocol.log(record.ts, record.level, record.source, record.text, record.details)


def to_clients(event: Any, username: str) -> dict[str, Any] | None:
    """The protocol event a bus event becomes for every client; None if it is not relayed."""
    match event:
        case LogRecorded():
            return log_event(event)
        case ChatReceived(sender=sender, text=text, kind=kind):
            return protocol.chat(sender or "", text, kind)
        case ChatSent(text=text):
            return protocol.chat(username, text, "self")
        case ActorStateChanged(name=name, state=state, restarts=restarts, reason=reason):
            return protocol.actor(name, state, restarts, reason)
        case ErrorRaised(source=source, text=text):
            return protocol.error(source, text)
        case LlmChunkReceived(stream=stream, text=text):
            return protocol.ask_chunk(stream, text)
        case LlmFinished(code=code, duration_ms=duration_ms):
            return protocol.ask_done(code, duration_ms)
    return None


def command_event(client_id: int, command: Any) -> Any | None:
    """The bus event a socket command becomes; None for those the actor answers itself."""
    match command:
        case protocol.Pause():
            return Pause()
        case protocol.Resume():
            return Resume()
        case protocol.Chat(text=text):
            return SayInChat(text=text, raw=True)  # the daemon user's own words
        case protocol.AskPi(prompt=prompt):
            return AskLlm(prompt=prompt)
        case protocol.ProposalDecision(id=proposal_id, decision=decision):
            return DecideProposal(id=proposal_id, decision=decision)
        case protocol.Goal(text=text):
            return GoalSet(text=text, by=f"socket client {client_id}")
    return None
