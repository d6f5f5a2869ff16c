"""The dashboard's state and the inputs the reducer understands.

Everything here is a value: frozen, slotted, keyword-only dataclasses, plus a
few pure helpers that read the daemon's loosely typed JSON safely. No I/O, no
clock, no threads. :mod:`tui.reducer` turns inputs into new states;
:mod:`tui.render` turns a state into lines.

Inputs of the reducer:

- a daemon event: the ``dict`` decoded from one socket line (``hello``,
  ``status``, ``log``, ``chat``, ...; see ``docs/ipc.md``);
- :class:`Key`: one key press, already translated from blessed;
- :class:`Connected` / :class:`Disconnected`: pseudo-events posted by the
  connection thread;
- :class:`CommandFailed`: a command the reducer asked for could not be sent;
- :class:`LogLine`: a line the dashboard itself logs (its own warnings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

__all__ = [
    "LEVELS",
    "MAX_CHAT",
    "MAX_INPUT",
    "MAX_LLM_CHARS",
    "MAX_LOGS",
    "ActorRow",
    "ChatLine",
    "CommandFailed",
    "Connected",
    "Disconnected",
    "Input",
    "Key",
    "LlmChunk",
    "LogLine",
    "Mode",
    "State",
    "as_float",
    "as_int",
    "as_str",
    "as_text",
    "shows",
    "visible_logs",
]

LEVELS = ("debug", "info", "warn", "error")
"""Log levels from the least to the most severe (the daemon's names)."""

MAX_LOGS = 1000
"""Log lines kept; older ones are dropped."""
MAX_CHAT = 200
"""Chat lines kept."""
MAX_LLM_CHARS = 20_000
"""Characters of LLM output kept (the tail of the answer)."""
MAX_INPUT = 256
"""The longest line the input modes accept (Minecraft's chat limit)."""

Mode = Literal["normal", "chat", "ask", "filter", "confirm-stop", "proposal", "help", "learning"]
"""What keys mean right now: the hotkeys, a text input, a confirmation or a view."""

Link = Literal["connecting", "connected", "reconnecting"]
"""The socket connection as the user sees it."""


# --------------------------------------------------------------------------- inputs


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Key:
    """One key press, independent of blessed (so tests need no terminal)."""

    char: str = ""
    """The text the key produced (``"p"``, ``"\\x15"``), empty for a pure sequence."""
    name: str | None = None
    """blessed's name for a special key (``KEY_ENTER``, ``KEY_ESCAPE``, ``KEY_UP``, ...)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Connected:
    """The connection thread reached the daemon (posted right after its ``hello``)."""

    path: str
    """The socket path."""
    ts: float
    """Wall-clock time of the connection (seconds since the epoch)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Disconnected:
    """The connection was lost, or an attempt to (re)connect failed."""

    reason: str
    """Why, in a few words (the client's error message)."""
    ts: float
    """Wall-clock time of the event."""
    retry_in: float | None = None
    """Seconds until the next attempt, when known."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CommandFailed:
    """A command could not be written to the socket (the connection just dropped)."""

    command: str
    """The command's wire type (``cmd:pause``, ...)."""
    reason: str
    """Why."""


# --------------------------------------------------------------------------- pieces of state


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LogLine:
    """One line of the log panel."""

    ts: float
    """Seconds since the epoch (0 when the daemon sent none)."""
    level: str
    """One of :data:`LEVELS`."""
    source: str
    """The part that logged it (``perception``, ``daemon.worker``, ``tui``, ...)."""
    text: str
    """The message, on one line."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ChatLine:
    """One line of the chat panel."""

    sender: str
    """Who spoke (the bot's own name for ``self``)."""
    text: str
    """What was said."""
    kind: str
    """``player``, ``system`` or ``self`` (said by the bot)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ActorRow:
    """One supervised actor, as the daemon last reported it."""

    name: str
    """The actor's stable name."""
    state: str
    """``starting``, ``running``, ``restarting``, ``hung``, ``stopped`` or ``failed``."""
    restarts: int = 0
    """Restarts so far."""
    reason: str = ""
    """The last failure reason (empty if none)."""
    supervisor: str = ""
    """The supervisor it runs under (empty if unknown)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LlmChunk:
    """A piece of LLM output."""

    stream: str
    """``stdout``, ``stderr``, or ``prompt`` for the question the user asked."""
    text: str
    """The text, possibly a partial line."""


Input = Mapping[str, Any] | Key | Connected | Disconnected | CommandFailed | LogLine
"""Anything :func:`tui.reducer.reduce` accepts (a :class:`LogLine` is the dashboard's own)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class State:
    """Everything the dashboard shows. Replaced, never mutated."""

    link: Link = "connecting"
    """The connection as the header shows it."""
    socket: str = ""
    """The socket path of the current (or last) connection."""
    link_reason: str = ""
    """Why the last attempt failed, while not connected."""
    retry_in: float | None = None
    """Seconds to the next connection attempt, while not connected."""
    connections: int = 0
    """Successful connections so far (more than one: reconnected)."""
    snapshot: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """The last snapshot (``hello``'s or a ``status`` event's fields)."""
    actors: tuple[ActorRow, ...] = ()
    """The actors table, in the daemon's order."""
    logs: tuple[LogLine, ...] = ()
    """Log lines, oldest first, at most :data:`MAX_LOGS`."""
    last_daemon_log: float = 0.0
    """``ts`` of the newest daemon log line seen (to skip repeats in a new ``hello``)."""
    log_filter: str = ""
    """Only log lines containing this text (case-insensitive) are shown."""
    log_level: str = "debug"
    """Only log lines at this level or above are shown."""
    log_scroll: int = 0
    """How many visible lines the log view is scrolled up from the newest."""
    chat: tuple[ChatLine, ...] = ()
    """Chat lines, oldest first, at most :data:`MAX_CHAT`."""
    llm: tuple[LlmChunk, ...] = ()
    """The current LLM exchange: the prompt, then the streamed output."""
    llm_running: bool = False
    """Output is still streaming."""
    llm_status: str = ""
    """How the last call ended (``exit 0 in 1.2s``)."""
    mode: Mode = "normal"
    """What keys do now."""
    input: str = ""
    """The text typed in an input mode."""
    proposal: str | None = None
    """The proposal id open in the proposal view."""
    flash: str = ""
    """A one-line message for the user (the last thing that happened)."""
    quit: bool = False
    """The user asked to quit the dashboard."""
    fleet: bool = False
    """Opened from the fleet view (:mod:`tui.fleet`): Esc or ``f`` goes back to its list."""

    @property
    def connected(self) -> bool:
        """Whether commands can be sent now."""
        return self.link == "connected"

    @property
    def paused(self) -> bool:
        """Whether the bot's reflex loop is paused, per the last snapshot."""
        return self.snapshot.get("paused") is True

    @property
    def proposals(self) -> tuple[str, ...]:
        """Pending proposal ids, oldest first."""
        ids = self.snapshot.get("proposals")
        if not isinstance(ids, list | tuple):
            return ()
        return tuple(str(i) for i in ids if isinstance(i, str | int) and str(i))

    @property
    def approved_proposals(self) -> tuple[str, ...]:
        """Approved proposal ids waiting for ``pepa propose apply``."""
        ids = self.snapshot.get("approvedProposals")
        if not isinstance(ids, list | tuple):
            return ()
        return tuple(str(i) for i in ids if isinstance(i, str | int) and str(i))

    @property
    def pending_proposals(self) -> int:
        """How many proposals wait for a decision."""
        count = as_int(self.snapshot.get("pendingProposals"))
        return max(count or 0, len(self.proposals))


def visible_logs(state: State) -> tuple[LogLine, ...]:
    """The log lines that pass the level and text filters (the live input while typing one)."""
    return tuple(line for line in state.logs if shows(state, line))


def shows(state: State, line: LogLine) -> bool:
    """Whether ``line`` passes the log panel's level and text filters."""
    needle = (state.input if state.mode == "filter" else state.log_filter).casefold()
    floor = LEVELS.index(state.log_level) if state.log_level in LEVELS else 0
    if _level_rank(line.level) < floor:
        return False
    return not needle or needle in f"{line.source} {line.text}".casefold()


def _level_rank(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else 1


# --------------------------------------------------------------------------- loose JSON


def as_int(value: Any) -> int | None:
    """``value`` as an int if it is a JSON number (not a boolean), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return int(value)
    except (OverflowError, ValueError):  # inf, nan
        return None


def as_float(value: Any) -> float | None:
    """``value`` as a float if it is a finite JSON number (not a boolean), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if number == number and abs(number) != float("inf") else None


_CONTROLS = {code: " " for code in (*range(0x20), *range(0x7F, 0xA0))}


def as_str(value: Any, default: str = "") -> str:
    """``value`` as one line of plain text; ``default`` for ``None``.

    Control characters (newlines, tabs, escape sequences a player could type
    into chat) become spaces, so nothing the daemon relays can drive the
    terminal.
    """
    if value is None:
        return default
    text = value if isinstance(value, str) else str(value)
    return text.translate(_CONTROLS)


def as_text(value: Any) -> str:
    """Like :func:`as_str` but keeps newlines (for streamed LLM output)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    return "\n".join(part.translate(_CONTROLS) for part in text.replace("\r\n", "\n").split("\n"))
