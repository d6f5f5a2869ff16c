"""In-game chat control: who may command the bot, and what they said. Pure.

An operator addresses the bot by name: ``pepa_bot come``, ``pepa_bot, status``,
``@pepa_bot help``. The sender is the one the server attributed the line to,
never a name quoted inside the text. Names compare as :mod:`pepa.identity`
says (a Minecraft name, NFKC and case folded); a sender whose name is not an
operator's is never obeyed, and one whose name is must still be the bound
account (:class:`pepa.identity.OperatorAccounts`, checked by the persona).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pepa.identity import fold, same_name

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
    """Whether ``sender``'s name is an operator's (the account is checked apart)."""

    @property
    def known(self) -> bool:
        """Whether the verb is one the bot understands."""
        return self.verb in VERBS


def parse(bot: str, operators: Iterable[str], sender: str | None, text: str) -> ChatCommand | None:
    """The command in ``text`` if it addresses ``bot``; None for any other line."""
    if not sender or fold(sender) == fold(bot):
        return None
    words = text.strip().split()
    if not words:
        return None
    first = words[0].lstrip("@").rstrip(",:!.")
    if fold(first) != fold(bot):
        return None
    verb = words[1].lower().rstrip("!.?,") if len(words) > 1 else "help"
    authorized = any(same_name(sender, name) for name in operators)
    return ChatCommand(sender=sender, verb=verb, args=tuple(words[2:]), authorized=authorized)
