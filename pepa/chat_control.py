"""In-game chat control: who may command the bot, and what they said. Pure.

An operator addresses the bot by name: ``pepa_bot come``, ``pepa_bot, status``,
``@pepa_bot help``. The sender is the one the server attributed the line to,
never a name quoted inside the text. Anyone not in the operator list is never
obeyed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["HELP", "VERBS", "ChatCommand", "parse"]

VERBS = (
    "status", "come", "follow", "stay", "pause", "resume", "stop", "goal", "plan", "what", "help",
)  # fmt: skip
"""Every verb the bot understands."""
HELP = "I understand: " + ", ".join(VERBS)


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
    """Whether ``sender`` is an operator."""

    @property
    def known(self) -> bool:
        """Whether the verb is one the bot understands."""
        return self.verb in VERBS


def parse(bot: str, operators: Iterable[str], sender: str | None, text: str) -> ChatCommand | None:
    """The command in ``text`` if it addresses ``bot``; None for any other line."""
    if not sender or sender.lower() == bot.lower():
        return None
    words = text.strip().split()
    if not words:
        return None
    first = words[0].lstrip("@").rstrip(",:!.")
    if first.lower() != bot.lower():
        return None
    verb = words[1].lower().rstrip("!.?,") if len(words) > 1 else "help"
    allowed = {name.lower() for name in operators}
    return ChatCommand(
        sender=sender, verb=verb, args=tuple(words[2:]), authorized=sender.lower() in allowed
    )
