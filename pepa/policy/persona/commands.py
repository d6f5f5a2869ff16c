"""In-game chat control: who may command the bot, what they asked, and the answer. Pure.

An operator addresses the bot by name: ``pepa_bot come``, ``pepa_bot, status``,
``@pepa_bot help``, or whispers to it (``/msg pepa_bot come``: the name may go).
The sender is the one the server attributed the line to (pepa/link/js/chat_line.js:
player chat, whispers, system lines ``<name> text``, the operator's ``--chat-pattern``),
never a name quoted inside the text. Names compare as :mod:`pepa.state.identity`
says (a Minecraft name, NFKC and case folded); a sender whose name is not an
operator's is never obeyed, and one whose name is must still be the bound
account (:func:`heard` asks :class:`pepa.state.identity.OperatorAccounts`).

:func:`answer` turns an operator's command into the events to publish and
the lines to say; :class:`Refusals` gives anyone else one polite refusal per
:data:`REFUSAL_COOLDOWN`. Time is passed in (``now``); nothing here reads a
clock (only :class:`~pepa.state.identity.OperatorAccounts` keeps ``operators.json``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from pepa.runtime.events import (
    ChatReceived,
    GoalSet,
    OperatorOrder,
    Pause,
    PlanAsked,
    Resume,
    TopicAsked,
)
from pepa.state.identity import OperatorAccounts, fold, same_name
from pepa.world.view import WorldView

__all__ = [
    "HELP",
    "REFUSAL_COOLDOWN",
    "VERBS",
    "Answer",
    "ChatCommand",
    "Refusals",
    "answer",
    "describe_status",
    "heard",
    "parse",
]

logger = logging.getLogger(__name__)

VERBS = (
    "status", "come", "follow", "stay", "pause", "resume", "stop", "goal", "plan", "what", "help",
)  # fmt: skip
"""Every verb the bot understands."""
HELP = "I understand: " + ", ".join(VERBS)
REFUSAL_COOLDOWN = 60.0
"""Seconds between two refusals to the same non-operator."""
MAX_REFUSED = 256
"""Senders remembered for the cooldown; past that, the expired ones are forgotten."""
_FILLER = frozenset({"is", "are", "a", "an", "the"})

Order = OperatorOrder | Pause | Resume | GoalSet | PlanAsked | TopicAsked


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatCommand:
    """A chat line addressed to the bot."""

    sender: str
    """Who typed it (as the server attributed it)."""
    verb: str
    """The first word after the bot's name, lower-cased (``help`` when none)."""
    args: tuple[str, ...]
    """The words after the verb."""
    authorized: bool
    """Whether ``sender``'s name is an operator's (the account is checked apart)."""

    @property
    def known(self) -> bool:
        """Whether the verb is one the bot understands."""
        return self.verb in VERBS


def parse(
    bot: str, operators: Iterable[str], sender: str | None, text: str, *, whispered: bool = False
) -> ChatCommand | None:
    """The command in ``text`` if it addresses ``bot``; None for any other line. A line
    ``whispered`` to the bot (``/msg``) is addressed to it whether it names it or not."""
    if not sender or fold(sender) == fold(bot):
        return None
    words = text.strip().split()
    if not words:
        return None
    named = fold(words[0].lstrip("@").rstrip(",:!.")) == fold(bot)
    if named:
        words = words[1:]
    elif not whispered:
        return None
    verb = words[0].lower().rstrip("!.?,") if words else "help"
    if whispered and not named and verb not in VERBS:
        return None  # a whisper of small talk is no command (and earns no refusal)
    authorized = any(same_name(sender, name) for name in operators)
    return ChatCommand(sender=sender, verb=verb, args=tuple(words[1:]), authorized=authorized)


def heard(bot: str, accounts: OperatorAccounts, line: ChatReceived) -> ChatCommand | None:
    """The command in a chat line, authorized only if its sender is an operator's bound account."""
    whispered = line.kind == "whisper"
    command = parse(bot, accounts.names.values(), line.sender, line.text, whispered=whispered)
    if command is None:
        return None
    verdict = accounts.judge(line.sender, line.sender_uuid, line.on_list)
    if command.authorized and not verdict.allowed:
        logger.info("operator name without the operator's account: %s", verdict.reason)
    return replace(command, authorized=command.authorized and verdict.allowed)


def describe_status(world: WorldView, activity: str | None, paused: bool) -> str:
    """One chat line: HP, food, position, threats, what the bot is doing."""
    pos = world.position
    where = f"{pos.x:.0f} {pos.y:.0f} {pos.z:.0f}" if pos else "?"
    threats = ", ".join(f"{t.name} {t.distance:.0f}m" for t in world.threats)
    hp = "?" if world.hp is None else f"{world.hp:g}"
    food = "?" if world.food is None else str(world.food)
    return (
        f"HP {hp}/20, food {food}/20 at {where}; "
        f"threats: {threats or 'none'}; doing: {activity or 'idle'}{' (paused)' if paused else ''}"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer:
    """What the bot does about an operator's command."""

    orders: tuple[Order, ...] = ()
    """Events to publish, in order."""
    lines: tuple[str, ...] = ()
    """Lines to say, after the events."""
    stop: bool = False
    """Say the lines now, then stop the worker."""


def answer(command: ChatCommand, *, bot: str, status: str) -> Answer:
    """The answer to an authorized ``command``; ``status`` is the :func:`describe_status` line."""
    verb, sender = command.verb, command.sender
    if verb == "status":
        return Answer(lines=(status,))
    if verb in ("come", "follow", "stay"):
        reply = {
            "come": f"On my way, {sender}.",
            "follow": f"Following you, {sender}.",
            "stay": "Staying here.",
        }[verb]
        return Answer(orders=(OperatorOrder(verb=verb, operator=sender),), lines=(reply,))
    if verb == "pause":
        return Answer(
            orders=(Pause(),), lines=("Paused. My connection stays; say resume to go on.",)
        )
    if verb == "resume":
        return Answer(orders=(Resume(),), lines=("Resumed.",))
    if verb == "stop":
        return Answer(lines=(f"Stopping, as {sender} asked. Bye!",), stop=True)
    if verb == "goal":
        return Answer(orders=(GoalSet(text=" ".join(command.args), by=sender),))
    if verb == "plan":
        return Answer(orders=(PlanAsked(by=sender),))
    if verb == "what":
        words = [w for w in command.args if w.lower() not in _FILLER]
        if words:
            return Answer(orders=(TopicAsked(topic=" ".join(words).rstrip("?"), by=sender),))
        return Answer(lines=(f"What about, {sender}? Say: {bot} what creeper",))
    if verb == "help":
        return Answer(lines=(HELP,))
    return Answer(lines=(f"Sorry {sender}, I don't know '{verb}'. {HELP}.",))


@dataclass(slots=True, kw_only=True)
class Refusals:
    """One polite refusal per sender per ``cooldown`` seconds."""

    cooldown: float = REFUSAL_COOLDOWN
    _last: dict[str, float] = field(default_factory=dict)

    def line(self, sender: str, now: float) -> str | None:
        """The refusal to say to ``sender`` at ``now``, or None while its cooldown runs."""
        if len(self._last) > MAX_REFUSED:  # many names in a minute: forget the expired ones
            self._last = {k: t for k, t in self._last.items() if now - t < self.cooldown}
        if now - self._last.get(sender, float("-inf")) < self.cooldown:
            return None
        self._last[sender] = now
        return f"Sorry {sender}, I only take orders from my operators."
