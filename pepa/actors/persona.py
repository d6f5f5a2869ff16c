"""Persona: the bot's voice, and the ear for operators' chat commands.

Everything the bot says goes through one rate-limited queue (a burst of 3,
then one line per 1.5 s), so a server never kicks it for spam and no reply
is lost in a burst. Unprompted, it remarks on its life in short Russian
lines (:mod:`pepa.voice`: death, respawn, a major skill, a threat, dusk and
dawn, a player nearby), at most one a minute and eight an hour. Chat lines
addressed to the bot by name are parsed by :mod:`pepa.chat_control`:
operators — the bound accounts of :mod:`pepa.identity`, on the player list —
are obeyed, anyone else gets one polite refusal (at most once a minute each).
Every line but the daemon user's ``cmd:chat`` is made safe to say first
(:func:`pepa.saysafe.safe_chat`: no ``§`` codes, no control characters, one
line, never a ``/`` command).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pepa.chat_control import HELP, ChatCommand, parse
from pepa.events import (
    ActivityChanged,
    ChatReceived,
    ChatSent,
    DawnBroke,
    Died,
    DuskFell,
    ErrorRaised,
    GoalSet,
    HostileSpotted,
    OperatorOrder,
    Pause,
    PausedChanged,
    PlanRequested,
    PlayersListed,
    PlayerSpotted,
    Respawned,
    Resume,
    SayInChat,
    TopicAsked,
    WorldObserved,
)
from pepa.identity import OperatorAccounts, valid_name
from pepa.saysafe import chat_limit, chat_line
from pepa.supervision import SupervisedActor, SupervisionContext
from pepa.voice import Voice

__all__ = ["ChatLimiter", "Persona", "describe_status"]

logger = logging.getLogger(__name__)

QUEUE_LIMIT = 20
"""Lines waiting to be said; beyond it the oldest are dropped."""
REFUSAL_COOLDOWN = 60.0
"""Seconds between two refusals to the same non-operator."""
THREAT_REMARK_RADIUS = 16.0
"""Hostiles farther than this are not worth a word."""
MAJOR_SKILLS = (
    "gather.", "craft.", "survive.sleep", "survive.eat", "survive.flee", "survive.escape",
    "combat.attack-nearest", "place-chest", "acquire-food",
)  # fmt: skip
"""Skills whose start the persona remarks on (not every step and glance)."""


@dataclass(slots=True, kw_only=True)
class ChatLimiter:
    """Token bucket: ``burst`` lines at once, then one per ``interval`` seconds."""

    burst: int = 3
    interval: float = 1.5
    _tokens: float = field(default=-1.0)
    _stamp: float = 0.0

    def allow(self, now: float) -> bool:
        """Spend a token at ``now`` if one is left."""
        if self._tokens < 0:
            self._tokens, self._stamp = float(self.burst), now
        self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) / self.interval)
        self._stamp = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


def describe_status(world: dict[str, Any], activity: str | None, paused: bool) -> str:
    """One chat line: HP, food, position, threats, what the bot is doing."""
    pos = world.get("position") or {}
    where = f"{pos.get('x', 0):.0f} {pos.get('y', 0):.0f} {pos.get('z', 0):.0f}" if pos else "?"
    threats = ", ".join(f"{t['name']} {t['distance']:.0f}m" for t in world.get("threats") or [])
    doing = activity or "idle"
    return (
        f"HP {world.get('hp', '?')}/20, food {world.get('food', '?')}/20 at {where}; "
        f"threats: {threats or 'none'}; doing: {doing}{' (paused)' if paused else ''}"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Drain:
    """Timer: say the next queued line if the limiter allows."""


class Persona(SupervisedActor):
    """Speaks for the bot and listens to its operators."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        link: Any = None,
        username: str = "pepa_bot",
        operators: tuple[str, ...] = (),
        request_stop: Callable[[], None] | None = None,
        voice_path: Path | None = None,
        operators_path: Path | None = None,
    ) -> None:
        super().__init__(supervision=supervision)
        self.voice = Voice.load(voice_path) if voice_path is not None else Voice()
        self.link = link
        self.username = username
        self.operators = operators
        self.accounts = OperatorAccounts(operators, operators_path)
        self.request_stop = request_stop
        self.limiter = ChatLimiter()
        self.outbox: deque[str] = deque()
        self.world: dict[str, Any] = {}
        self.activity: str | None = None
        self.paused = False
        self.refused: dict[str, float] = {}

    def setup(self) -> None:
        bus = self.runtime.bus
        for event_type in (
            SayInChat, ChatReceived, WorldObserved, ActivityChanged, PausedChanged, Died,
            Respawned, HostileSpotted, DuskFell, DawnBroke, PlayerSpotted, PlayersListed,
        ):  # fmt: skip
            bus.subscribe(event_type, self.handle)
        self.every(0.25, _Drain())

    def on_message(self, message: Any) -> Any:
        match message:
            case SayInChat(text=text, raw=raw):
                self.say(text, raw=raw)
            case ChatReceived(sender=sender, text=text) if sender:
                command = parse(self.username, self.operators, sender, text)
                if command is not None:
                    self._command(self._judged(command, message))
            case ChatReceived():
                pass
            case PlayersListed(players=players):
                for name, account in players:
                    self.accounts.seen(name, account)
            case WorldObserved(snapshot=snapshot):
                self.world = snapshot
            case ActivityChanged(reflex=reflex, skill=skill):
                self.activity = skill or reflex
                if skill and skill.startswith(MAJOR_SKILLS):
                    skill_id, _, detail = skill.partition(" ")
                    self.remark(f"skill:{skill_id}", detail or skill_id.partition(".")[2])
            case Died():
                self.remark("death")
            case Respawned():
                self.remark("respawn")
            case HostileSpotted(name=name, distance=distance):
                if distance <= THREAT_REMARK_RADIUS:
                    self.remark("threat:creeper" if name == "creeper" else "threat", name)
            case DuskFell():
                self.remark("dusk")
            case DawnBroke():
                self.remark("dawn")
            case PlayerSpotted(name=name) if name != self.username:
                self.remark("player", name)
            case PausedChanged(paused=paused):
                self.paused = paused
            case _Drain():
                self._flush_outbox()
            case _:
                return super().on_message(message)
        return None

    # -- speaking ---------------------------------------------------------------------

    def say(self, text: str, *, raw: bool = False) -> None:
        """Queue one line, made safe to say unless ``raw`` (the daemon user's own words)."""
        if self.link is None:
            self.publish(ErrorRaised(source="persona", text="not connected to a Minecraft server"))
            return
        line = chat_line(text, raw=raw, limit=chat_limit(getattr(self.link, "version", None)))
        if not line:
            return
        self.outbox.append(line)
        while len(self.outbox) > QUEUE_LIMIT:
            dropped = self.outbox.popleft()
            logger.warning("chat queue full; dropped: %s", dropped)
        self._flush_outbox()

    def _flush_outbox(self) -> None:
        while self.outbox and self.link is not None and self.link.connected:
            if not self.limiter.allow(time.monotonic()):
                return
            line = self.outbox.popleft()
            if self.link.chat(line):
                self.publish(ChatSent(text=line))
            else:
                logger.warning("could not say: %s", line)

    def remark(self, moment: str, detail: str = "") -> None:
        """Say the persona's line for a moment of the bot's life, if its cooldowns allow."""
        if self.link is None or self.paused:
            return
        line = self.voice.speak(moment, detail, time.time())
        if line is not None:
            logger.info("persona (%s): %s", moment, line)
            self.say(line)

    # -- listening ----------------------------------------------------------------------

    def _judged(self, command: ChatCommand, line: ChatReceived) -> ChatCommand:
        """``command`` authorized only if its sender is an operator's bound account."""
        verdict = self.accounts.judge(line.sender, line.sender_uuid, line.on_list)
        if command.authorized and not verdict.allowed:
            logger.info("operator name without the operator's account: %s", verdict.reason)
        return replace(command, authorized=command.authorized and verdict.allowed)

    def _command(self, command: ChatCommand) -> None:
        if not command.authorized:
            who = command.sender if valid_name(command.sender) else repr(command.sender)
            logger.warning("ignored %r from %s: not an operator", command.verb, who)
            now = time.monotonic()
            if len(self.refused) > 256:  # many names in a minute: forget the expired ones
                self.refused = {k: t for k, t in self.refused.items() if now - t < REFUSAL_COOLDOWN}
            if now - self.refused.get(command.sender, -REFUSAL_COOLDOWN) >= REFUSAL_COOLDOWN:
                self.refused[command.sender] = now
                self.say(f"Sorry {command.sender}, I only take orders from my operators.")
            return
        logger.info("operator %s: %s", command.sender, command.verb)
        verb, sender = command.verb, command.sender
        if verb == "status":
            self.say(describe_status(self.world, self.activity, self.paused))
        elif verb in ("come", "follow", "stay"):
            self.publish(OperatorOrder(verb=verb, operator=sender))
            reply = {
                "come": f"On my way, {sender}.",
                "follow": f"Following you, {sender}.",
                "stay": "Staying here.",
            }
            self.say(reply[verb])
        elif verb == "pause":
            self.publish(Pause())
            self.say("Paused. My connection stays; say resume to go on.")
        elif verb == "resume":
            self.publish(Resume())
            self.say("Resumed.")
        elif verb == "stop":
            self.say(f"Stopping, as {sender} asked. Bye!")
            self._flush_outbox()
            if self.request_stop is not None:
                self.request_stop()
        elif verb == "goal":
            self.publish(GoalSet(text=" ".join(command.args), by=sender))
        elif verb == "plan":
            self.publish(PlanRequested(by=sender))
        elif verb == "what":
            words = [w for w in command.args if w.lower() not in ("is", "are", "a", "an", "the")]
            if words:
                self.publish(TopicAsked(topic=" ".join(words).rstrip("?"), by=sender))
            else:
                self.say(f"What about, {sender}? Say: {self.username} what creeper")
        elif verb == "help":
            self.say(HELP)
        else:
            self.say(f"Sorry {sender}, I don't know '{verb}'. {HELP}.")
