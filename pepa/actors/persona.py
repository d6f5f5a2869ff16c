"""Persona: the bot's voice, and the ear for operators' chat commands.

Everything the bot says goes through one rate-limited queue
(:class:`pepa.policy.persona.outbox.Outbox`: a burst of 3, then one line per 1.5 s), so
a server never kicks it for spam and no reply is lost in a burst. Unprompted,
it remarks on its life in short Russian lines (:mod:`pepa.policy.persona.voice`: death,
respawn, a major skill, a threat, dusk and dawn, a player nearby), at most one
a minute and eight an hour. Chat lines addressed to the bot by name are parsed
and answered by :mod:`pepa.policy.persona.commands`: operators — the bound accounts of
:mod:`pepa.state.identity`, on the player list — are obeyed, anyone else gets one
polite refusal (at most once a minute each). Every line but the daemon user's
``cmd:chat`` is made safe to say first (:func:`pepa.policy.persona.saysafe.safe_chat`: no
``§`` codes, no control characters, one line, never a ``/`` command).

The actor only routes: events in, policy called with the time, lines and
events out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pepa.link.api import Link
from pepa.policy.persona.commands import (
    REFUSAL_COOLDOWN,
    Refusals,
    answer,
    describe_status,
    heard,
)
from pepa.policy.persona.outbox import QUEUE_LIMIT, ChatLimiter, Outbox
from pepa.policy.persona.saysafe import chat_limit, chat_line
from pepa.policy.persona.voice import Voice, moment_of
from pepa.runtime import SupervisedActor, SupervisionContext
from pepa.runtime.events import (
    ActivityChanged,
    ChatReceived,
    ChatSent,
    DawnBroke,
    Died,
    DuskFell,
    ErrorRaised,
    HostileSpotted,
    PausedChanged,
    PlayersListed,
    PlayerSpotted,
    Respawned,
    SayInChat,
    WorldObserved,
)
from pepa.state.identity import OperatorAccounts, valid_name
from pepa.state.persona import load_cooldowns, save_cooldowns
from pepa.world.view import WorldView

__all__ = [
    "QUEUE_LIMIT",
    "REFUSAL_COOLDOWN",
    "ChatLimiter",
    "Persona",
    "describe_status",
]

logger = logging.getLogger(__name__)

DRAIN_INTERVAL = 0.25
"""Seconds between two looks at the outbox while lines wait in it (none is taken when it is
empty: a timer ticking four times a second for nothing woke an idle bot's threads eight times a
second, the scheduler's and the persona's)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Drain:
    """Timer: say the next queued line if the limiter allows."""


class Persona(SupervisedActor):
    """Speaks for the bot and listens to its operators."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        link: Link | None = None,
        username: str = "pepa_bot",
        fellows: tuple[str, ...] = (),
        operators: tuple[str, ...] = (),
        request_stop: Callable[[], None] | None = None,
        voice_path: Path | None = None,
        operators_path: Path | None = None,
    ) -> None:
        super().__init__(supervision=supervision)
        self.voice_path = voice_path
        """``persona.json``: the voice's cooldowns, saved after each line it says."""
        self.voice = Voice.restore(load_cooldowns(voice_path) if voice_path else None)
        self.link = link
        self.username = username
        self.fellows = frozenset(name.lower() for name in fellows)
        """The other bots of its fleet: not greeted (a colony would fill the chat)."""
        self.accounts = OperatorAccounts(operators, operators_path)
        self.request_stop = request_stop
        self.outbox = Outbox()
        self.refusals = Refusals()
        self.view = WorldView()
        self.activity: str | None = None
        self.paused = False
        self.drain_due = False
        """A look at the outbox is scheduled (lines wait in it)."""
        # the voice's cooldowns are wall-clock seconds (persona.json outlives the process):
        # the wall time at start plus the runtime clock's seconds since
        self._epoch = time.time() - self.now()

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            SayInChat, ChatReceived, WorldObserved, ActivityChanged, PausedChanged, Died,
            Respawned, HostileSpotted, DuskFell, DawnBroke, PlayerSpotted, PlayersListed,
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)

    def on_message(self, message: Any) -> Any:
        match message:
            case SayInChat(text=text, raw=raw):
                self.say(text, raw=raw)
            case ChatReceived():
                self._heard(message)
            case PlayersListed(players=players):
                for name, account in players:
                    self.accounts.seen(name, account)
            case WorldObserved(view=view):
                self.view = view
            case ActivityChanged(reflex=reflex, skill=skill):
                self.activity = skill or reflex
                self._remark(message)
            case PausedChanged(paused=paused):
                self.paused = paused
            case Died() | Respawned() | HostileSpotted() | DuskFell() | DawnBroke():
                self._remark(message)
            case PlayerSpotted():
                self._remark(message)
            case _Drain():
                self.drain_due = False
                self._flush()
            case _:
                return super().on_message(message)
        return None

    # -- speaking ---------------------------------------------------------------------

    def say(self, text: str, *, raw: bool = False) -> None:
        """Queue one line, made safe to say unless ``raw`` (the daemon user's own words)."""
        if self.link is None:
            self.publish(ErrorRaised(source="persona", text="not connected to a Minecraft server"))
            return
        line = chat_line(text, raw=raw, limit=chat_limit(self.link.version))
        if not line:
            return
        for dropped in self.outbox.put(line):
            logger.warning("chat queue full; dropped: %s", dropped)
        self._flush()

    def _flush(self) -> None:
        while self.link is not None and self.link.connected:
            line = self.outbox.take(self.now())
            if line is None:
                break
            if self.link.call("chat", text=line):
                self.publish(ChatSent(text=line))
            else:
                logger.warning("could not say: %s", line)
        if len(self.outbox) and not self.drain_due:  # paced, or the link is down
            self.drain_due = True
            self.later(DRAIN_INTERVAL, _Drain())

    def remark(self, moment: str, detail: str = "") -> None:
        """Say the persona's line for a moment of the bot's life, if its cooldowns allow."""
        if self.link is None or self.paused:
            return
        line = self.voice.speak(moment, detail, self._epoch + self.now())
        if line is not None:
            if self.voice_path is not None:
                save_cooldowns(self.voice_path, self.voice.saved())
            logger.info("persona (%s): %s", moment, line)
            self.say(line)

    def _remark(self, event: object) -> None:
        found = moment_of(event, self.username, self.fellows)
        if found is not None:
            self.remark(*found)

    # -- listening ----------------------------------------------------------------------

    def _heard(self, line: ChatReceived) -> None:
        command = heard(self.username, self.accounts, line)
        if command is None:
            return
        if not command.authorized:
            who = command.sender if valid_name(command.sender) else repr(command.sender)
            logger.warning("ignored %r from %s: not an operator", command.verb, who)
            refusal = self.refusals.line(command.sender, self.now())
            if refusal is not None:
                self.say(refusal)
            return
        logger.info("operator %s: %s", command.sender, command.verb)
        status = describe_status(self.view, self.activity, self.paused)
        reply = answer(command, bot=self.username, status=status)
        for order in reply.orders:
            self.publish(order)
        for text in reply.lines:
            self.say(text)
        if reply.stop:
            self._flush()
            if self.request_stop is not None:
                self.request_stop()
