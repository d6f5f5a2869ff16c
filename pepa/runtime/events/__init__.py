"""Events and commands that travel on the bus between actors.

Events are named in the past tense, commands in the imperative. All are
frozen, slotted, keyword-only dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pepa.base.logs import LogRecorded
from pepa.runtime.events.queries import LearningSummary
from pepa.world.death import DamageSource, DeathCause
from pepa.world.view import WorldView

__all__ = [
    "ActionFinished",
    "ActivityChanged",
    "AdviceApplied",
    "AskLlm",
    "ChatReceived",
    "ChatSent",
    "ChestSeen",
    "ClientConnected",
    "CommandReceived",
    "Connected",
    "DamageTaken",
    "DawnBroke",
    "DeathAnalysed",
    "DeathAnalysisRequested",
    "DecideProposal",
    "Died",
    "Disconnected",
    "DraftPlan",
    "DuskFell",
    "ErrorRaised",
    "FirstBlow",
    "GoalSet",
    "HealthChanged",
    "HomeKnown",
    "HostileGone",
    "HostileSpotted",
    "Kicked",
    "LearningChanged",
    "LessonLearned",
    "LlmChunkReceived",
    "LlmFinished",
    "LogRecorded",
    "MilestoneReached",
    "OperatorOrder",
    "Pause",
    "PausedChanged",
    "PlanAsked",
    "PlanChanged",
    "PlanDrafted",
    "PlayerSpotted",
    "PlayersListed",
    "ProposalDrafted",
    "ProposalsChanged",
    "ReflectionWanted",
    "ReflexTicked",
    "Respawned",
    "Resume",
    "RevisePlan",
    "SayInChat",
    "SkillFinished",
    "StuckDetected",
    "TaskSuggested",
    "TaskWithdrawn",
    "TopicAsked",
    "WorldObserved",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class WorldObserved:
    """Perception's view of the world, published at least 5 times a second while it changes."""

    view: WorldView
    """The typed view (:mod:`pepa.world.view`); ``view.to_wire()`` is the JSON form."""


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
    approved: tuple[str, ...] = ()
    """Ids of approved proposals waiting for ``pepa propose apply``, oldest first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LearningChanged:
    """A death was stored or a lesson learned or graded: the summary for people changed."""

    summary: LearningSummary


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
    """Say ``text`` in Minecraft chat (rate-limited; made safe by
    :mod:`pepa.policy.persona.saysafe`)."""

    text: str
    """What to say."""
    raw: bool = False
    """Only for the daemon user's ``cmd:chat``: kept as typed (one line), may be a command."""


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


# -- the world, as perception reports it -----------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Connected:
    """The bot joined the server and spawned."""

    server: str
    """``host:port``."""
    version: str
    """Protocol version in use."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Disconnected:
    """The connection ended (the link reconnects by itself)."""

    reason: str
    """Why, as the server or the socket said."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Kicked:
    """The server kicked the bot."""

    reason: str
    """The kick message."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HostileGone:
    """A hostile the bot was told of is gone from its world (killed, despawned, removed, out
    of range), before any snapshot: what :class:`HostileSpotted` added goes with it."""

    entity_id: int
    """The server's entity id."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HostileSpotted:
    """A hostile mob came within sight range."""

    name: str
    """Mob name (``zombie``)."""
    distance: float
    """Blocks from the bot."""
    entity_id: int
    """The server's entity id."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstBlow:
    """The bridge struck a hostile the moment it came in reach, as the reflex had armed it to
    (:mod:`pepa.policy.reflex.firstblow`): what ran was stopped, the swing is out."""

    name: str
    """Mob name (``zombie``)."""
    distance: float
    """Blocks from the bot when struck."""
    entity_id: int
    """The server's entity id."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSpotted:
    """Another player came within sight range."""

    name: str
    """The player's name."""
    distance: float
    """Blocks from the bot."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HealthChanged:
    """Health or food changed."""

    hp: float
    """Health points, 0-20."""
    food: int
    """Food points, 0-20."""
    previous_hp: float | None
    """Health before the change (None at the first reading)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Died:
    """The bot died."""

    reason: str
    """The cause in a few words (:meth:`DeathCause.summary`)."""
    position: dict[str, float] | None
    """Where."""
    cause: DeathCause = field(default_factory=DeathCause)
    """The server's death message and the blows before it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DamageTaken:
    """The bot lost health: the blow as perception put it down (a near-miss is made of these)."""

    hp: float
    """Health left after it."""
    source: DamageSource
    """What hurt, how much, the blocks touched then."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Respawned:
    """The bot is alive again after a death."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatReceived:
    """A chat line from the server, attributed to its real sender."""

    sender: str | None
    """The player who typed it; None for system messages."""
    text: str
    """What they said (without the ``<name>`` prefix)."""
    kind: str
    """``player``, ``whisper`` (to the bot: ``/msg``, ``/tell``, ``/w``) or ``system``."""
    sender_uuid: str | None = None
    """The sender's account (from the player list or the packet); None when the server
    gives none."""
    on_list: bool = False
    """Whether the sender was on the server's player list when the line arrived."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayersListed:
    """The server's player list changed (names and accounts, as the server sent them)."""

    players: tuple[tuple[str, str | None], ...]
    """(name, UUID or None) of everyone on the list."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DuskFell:
    """Night began (time of day passed 13000)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HomeKnown:
    """Where the home is: the cell inside its door (``locations.json`` ``home``), told by the
    curriculum when the bot connects and when it builds one."""

    x: float
    y: float
    z: float


@dataclass(frozen=True, slots=True, kw_only=True)
class DawnBroke:
    """Day began (time of day passed 23000 or wrapped)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionFinished:
    """A long action (walk, follow, …) ended on the JS side."""

    action_id: str
    """The id it was started with."""
    ok: bool
    """Whether it reached its goal."""
    action: str
    """``goto``, ``follow``, ``stop`` …"""
    error: str = ""
    """Why it failed."""
    chests: tuple[ChestSeen, ...] = ()
    """Chests the action left as they are now: the one a store, fetch or look_in opened, the
    new ones a build placed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChestSeen:
    """A chest's contents as an action left them (``store``, ``fetch``, ``look_in``)."""

    x: int
    y: int
    z: int
    items: Mapping[str, int] = field(default_factory=dict)
    gone: bool = False
    """No chest was there (any more)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorOrder:
    """An operator told the bot to do something in chat."""

    verb: str
    """``come``, ``follow`` or ``stay``."""
    operator: str
    """Who said it (the bot goes to them)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActivityChanged:
    """What the reflex chain is doing changed."""

    reflex: str | None
    """The active reflex (``operator``, ``defend``, ``eat`` …), None when idle."""
    skill: str | None
    """The skill it runs (``nav.follow alice``), None when none."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatSent:
    """The bot said something in chat."""

    text: str
    """The line as sent."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StuckDetected:
    """The watchdog judged the bot stuck and names the next rung of the ladder."""

    step: str
    """``repath``, ``pillar-up``, ``dig-out`` or ``alert``."""
    reason: str
    """Why it is stuck."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProposalDrafted:
    """The same action failed too often: a proposal for the operators to review."""

    file_name: str
    """Name for the file in ``proposals/``."""
    markdown: str
    """Its content."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillFinished:
    """A skill run ended (instant swings are not reported)."""

    skill: str
    """The skill id."""
    ok: bool
    """Whether it reached its goal."""
    seconds: float
    """How long it ran."""
    detail: str = ""
    """Why it failed."""
    step: bool = False
    """The run was a step on the skill's way (wood for a house): a success reaches no
    milestone (skills/_base.py ``Started.step``)."""


# The mind's events live in pepa.runtime.events.mind; every event is importable from here.
from pepa.runtime.events.mind import (  # noqa: E402 - after this module's own definitions
    AdviceApplied,
    DeathAnalysed,
    DeathAnalysisRequested,
    DraftPlan,
    GoalSet,
    LessonLearned,
    MilestoneReached,
    PlanAsked,
    PlanChanged,
    PlanDrafted,
    ReflectionWanted,
    ReflexTicked,
    RevisePlan,
    TaskSuggested,
    TaskWithdrawn,
    TopicAsked,
)
