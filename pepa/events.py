"""Events and commands that travel on the bus between actors.

Events are named in the past tense, commands in the imperative. All are
frozen, slotted, keyword-only dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AskLlm",
    "ClientConnected",
    "CommandReceived",
    "DecideProposal",
    "ErrorRaised",
    "LlmChunkReceived",
    "LlmFinished",
    "LogRecorded",
    "Pause",
    "PausedChanged",
    "ProposalsChanged",
    "Resume",
    "SayInChat",
    "WorldObserved",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class LogRecorded:
    """A log record worth showing to dashboards."""

    ts: float
    """Unix time of the record."""
    level: str
    """``debug``, ``info``, ``warn`` or ``error``."""
    source: str
    """The logger name, shortened (``pepa.actors.reflex`` → ``reflex``)."""
    text: str
    """The formatted message."""
    details: dict[str, Any] | None = None
    """Structured extras (the exception, for errors)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WorldObserved:
    """Perception's view of the world, published at least 5 times a second while it changes."""

    snapshot: dict[str, Any]
    """Plain JSON-ready fields: hp, food, position, threats, …"""


@dataclass(frozen=True, slots=True, kw_only=True)
class PausedChanged:
    """The reflex loop was paused or resumed."""

    paused: bool
    """True while paused."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProposalsChanged:
    """The set of pending self-improvement proposals changed."""

    pending: tuple[str, ...]
    """Ids (file names) of the pending proposals, oldest first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorRaised:
    """Something failed that clients should see as an ``error`` event."""

    source: str
    """Which part failed."""
    text: str
    """One line saying what and why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmChunkReceived:
    """A piece of an LLM reply, streamed as it arrives."""

    stream: str
    """``stdout`` or ``stderr``."""
    text: str
    """The text of the chunk."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmFinished:
    """An LLM request finished."""

    code: int
    """Exit code of the back end (0 is success)."""
    duration_ms: int
    """Wall time of the request."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pause:
    """Stop the reflex loop (the Minecraft connection stays)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume:
    """Start the reflex loop again."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SayInChat:
    """Say ``text`` in Minecraft chat (rate-limited)."""

    text: str
    """What to say."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AskLlm:
    """Ask the configured LLM back end and stream its answer."""

    prompt: str
    """The question."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DecideProposal:
    """Approve or reject a pending proposal."""

    id: str
    """The proposal's file name."""
    decision: str
    """``approve`` or ``reject``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientConnected:
    """A dashboard or tool connected to the socket."""

    client_id: int
    """The server's id for the connection."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandReceived:
    """A valid command arrived on the socket."""

    client_id: int
    """Which connection sent it."""
    command: Any = field(default=None)
    """The decoded command (see ``pepa.ipc.protocol``)."""
