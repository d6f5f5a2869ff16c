"""AuthMe on offline-mode servers: ``/register`` the first time, ``/login`` after.

A small state machine driven by the link thread: it sends the command when
the bot spawns, reads the server's replies, writes ``joined-before.flag``
only once the server confirms the registration, resends an unanswered
command (a server still finishing the login may drop it) and gives up on a
wrong password. It never logs the password.

It reads only server messages (:func:`server_line`): a line a player typed —
``<mallory> Successfully registered!`` — or one a player shaped — ``/me``'s
``* mallory wrong password``, a join message of a player named
``registered`` — never changes its state.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pepa.state.files import write_atomic

__all__ = ["SERVER_KINDS", "AuthMe", "server_line"]

logger = logging.getLogger(__name__)

RETRY_AFTER = 3.0
"""Seconds without an answer before the command is sent again."""
MAX_TRIES = 3
SERVER_KINDS = frozenset({"system", "game_info"})
"""``kind`` of a chat event with no player behind it (``bot_helper.js`` sets it)."""
_WORD = re.compile(r"[A-Za-z0-9_]+")


def server_line(event: Mapping[str, Any], players: Iterable[str] = (), me: str = "") -> str | None:
    """The text of ``event`` if it is a server message AuthMe may read, else None.

    A server message is a ``chat`` event with no sender, of a system kind, that
    names no player on the list but the bot itself (``players``: the names on the
    server's player list; ``me``: the bot's name).
    """
    if event.get("type") != "chat" or event.get("from") is not None:
        return None
    if event.get("kind") not in SERVER_KINDS:
        return None
    text = event.get("text")
    if not isinstance(text, str):
        return None
    others = {name.casefold() for name in players if isinstance(name, str)} - {me.casefold()}
    if others and any(word.casefold() in others for word in _WORD.findall(text)):
        return None
    return text


class AuthMe:
    """One connection's login dance; ``start`` again on every new connection."""

    def __init__(self, password: str | None, flag: Path) -> None:
        self.password = password
        self.flag = flag
        self.state = "idle"
        self.tries = 0
        self.deadline = 0.0

    def start(self, now: float) -> str | None:
        """The command to send right after spawning (None without a password)."""
        if not self.password:
            return None
        self.state = "logging-in" if self.flag.exists() else "registering"
        self.tries = 0
        return self._send(now)

    def _send(self, now: float) -> str:
        self.tries += 1
        self.deadline = now + RETRY_AFTER
        assert self.password is not None
        if self.state == "registering":
            logger.info("AuthMe: sent /register (attempt %d)", self.tries)
            return f"/register {self.password} {self.password}"
        logger.info("AuthMe: sent /login (attempt %d)", self.tries)
        return f"/login {self.password}"

    def on_chat(self, text: str, now: float) -> str | None:
        """A chat line from the server; maybe a command to send in answer."""
        if self.state not in ("registering", "logging-in"):
            return None
        line = text.lower()
        if self.state == "registering" and "registered" in line:
            self._remember()
            if "already" in line:
                self.state = "logging-in"
                self.tries = 0
                return self._send(now)
            self.state = "done"
            logger.info("AuthMe: registered")
            return None
        if self.state == "logging-in":
            if "wrong password" in line or "incorrect password" in line:
                self.state = "failed"
                logger.error("AuthMe: the server refused the password (MC_PASSWORD)")
            elif "successful login" in line or "logged in" in line or "successfully logged" in line:
                self.state = "done"
                logger.info("AuthMe: logged in")
            elif "register" in line and "/register" in line:
                self.state = "registering"  # the flag lied: this server does not know us
                self.tries = 0
                return self._send(now)
        return None

    def on_tick(self, now: float) -> str | None:
        """Resend an unanswered command, a few times."""
        if self.state not in ("registering", "logging-in") or now < self.deadline:
            return None
        if self.tries >= MAX_TRIES:
            logger.warning("AuthMe: no answer after %d tries; going on without", self.tries)
            self.state = "failed"
            return None
        return self._send(now)

    def _remember(self) -> None:
        """Write the flag atomically: a link planted at its name is replaced, never followed."""
        try:
            write_atomic(self.flag, time.strftime("%Y-%m-%dT%H:%M:%S\n").encode())
        except OSError as exc:
            logger.warning("cannot write %s: %s", self.flag, exc)
