"""What the bot says is safe to say: one chat line that is never a command. Pure.

Text from outside the bot's own fixed lines — wiki summaries, LLM text, an
operator's goal or topic echoed back, player names — may carry ``§``
formatting codes (a vanilla server kicks a client that sends ``§``), control
and format characters (bidi overrides, zero-width joiners, NUL), newlines
(mineflayer's ``bot.chat`` sends every line as its own message, so
``"hi\\n/op mallory"`` would be a command) and a leading ``/`` (the server
runs it as a command as the bot). :func:`safe_chat` removes all of that.

The one exception is the daemon user's own ``cmd:chat`` from the socket: it
speaks on purpose and may run a command; :func:`one_line` only keeps it to a
single message.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["CHAT_LIMIT", "LEGACY_CHAT_LIMIT", "chat_limit", "chat_line", "one_line", "safe_chat"]

CHAT_LIMIT = 256
"""Characters a 1.11+ server accepts in one chat message (UTF-16 code units)."""
LEGACY_CHAT_LIMIT = 100
"""Characters a server before 1.11 accepts."""

_SECTION = re.compile("§.?", re.DOTALL)
_DROP = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
"""Unicode categories never sent: controls, format (bidi, zero-width), surrogates,
private use, unassigned."""
_VERSION = re.compile(r"1\.(\d+)(?:\.\d+)?")


def chat_limit(version: str | None) -> int:
    """The chat length limit of a server speaking ``version`` (256 when unknown)."""
    match = _VERSION.fullmatch(version or "")
    if match and int(match.group(1)) < 11:
        return LEGACY_CHAT_LIMIT
    return CHAT_LIMIT


def _units(char: str) -> int:
    """UTF-16 code units of one code point: the server counts those."""
    return 2 if ord(char) > 0xFFFF else 1


def _cap(text: str, limit: int) -> str:
    used = 0
    for index, char in enumerate(text):
        used += _units(char)
        if used > limit:
            return text[:index]
    return text


def _slash(char: str) -> bool:
    """Whether ``char`` is ``/`` or a look-alike that normalises to it (``\\uff0f``)."""
    return char == "/" or unicodedata.normalize("NFKC", char).startswith("/")


def one_line(text: str, limit: int = CHAT_LIMIT) -> str:
    """``text`` as one chat message: line breaks become spaces, capped at ``limit``.

    Only for the daemon user's own words (``cmd:chat``): it keeps ``§``, a
    leading ``/`` and everything else.
    """
    flat = " ".join(text.splitlines())  # every break mineflayer or a server splits on
    return _cap(flat.strip(), limit).rstrip()


def safe_chat(text: str, limit: int = CHAT_LIMIT) -> str:
    """``text`` made safe to say: no ``§`` codes, no control or format characters,
    one line with single spaces, at most ``limit`` UTF-16 units, never starting
    with ``/``. Idempotent; may return ``""`` (then say nothing)."""
    text = _SECTION.sub("", text)
    kept: list[str] = []
    for char in text:
        if char.isspace():  # newlines, tabs, U+2028/2029, NBSP …: one space
            kept.append(" ")
        elif unicodedata.category(char) not in _DROP:
            kept.append(char)
    words = "".join(kept).split()
    line = " ".join(words)
    start = 0
    while start < len(line) and (line[start] == " " or _slash(line[start])):
        start += 1
    return _cap(line[start:], limit).rstrip()


def chat_line(text: str, *, raw: bool = False, limit: int = CHAT_LIMIT) -> str:
    """The line to send for ``text``: :func:`one_line` when ``raw`` (the daemon
    user's ``cmd:chat``), :func:`safe_chat` for everything else."""
    return one_line(text, limit) if raw else safe_chat(text, limit)
