"""The fleet view's state and reducer: a list of bots, and one bot's dashboard opened from it.

``pepa tui`` on a server where ``pepa fleet`` runs opens this view. Like
:mod:`tui.reducer` everything here is pure: :func:`reduce_fleet` takes a
:class:`FleetState` and one input and returns the new state and the commands
for the app (no socket, no clock, no terminal). Inputs:

- :class:`FleetPolled` / :class:`FleetGone`: what the poller thread
  (:mod:`tui.fleetpoll`) found, about every second;
- :class:`BotEvent`: whatever the open bot's connection posted (a daemon
  event, ``Connected``, ``Disconnected``, ``CommandFailed``), tagged with the
  session it belongs to, so events of a dashboard already closed are dropped;
- :class:`~tui.state.Key` and :class:`~tui.state.LogLine` (the dashboard's own warnings).

Commands: :class:`OpenBot` (connect to that bot's socket and pause the
poller), :class:`CloseBot` (drop the connection, poll again), and the
:mod:`pepa.ipc.protocol` commands of the open bot's dashboard, to send on its
connection.

Keys of the list: ↑ ↓ (k j) select, Home End (g G) jump, Enter opens the
selected bot's full dashboard (:func:`tui.reducer.reduce` then gets the keys),
``q`` quits. In the bot's dashboard Esc or ``f`` (in its normal mode) goes
back to the list; ``q`` quits from both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pepa.ipc.protocol import Command
from tui.reducer import reduce
from tui.state import Input, Key, LogLine, State, as_str

__all__ = [
    "BotEvent",
    "BotRow",
    "CloseBot",
    "FleetCommand",
    "FleetGone",
    "FleetInput",
    "FleetPolled",
    "FleetReduction",
    "FleetState",
    "OpenBot",
    "reduce_fleet",
]


# --------------------------------------------------------------------------- inputs


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BotRow:
    """One bot of the fleet as its socket last answered (``pepa status``'s line)."""

    name: str
    """The bot's name (its folder under the server's)."""
    group: int
    """The group (worker process) it runs in."""
    snapshot: Mapping[str, Any] | None
    """Its snapshot; None when its socket did not answer."""
    down: str = ""
    """Why it is down, when it is."""

    @property
    def up(self) -> bool:
        """Whether its socket answered."""
        return self.snapshot is not None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FleetPolled:
    """One round of the poller: the roster and every bot's answer."""

    server: str
    """The Minecraft server the fleet plays on (``host:port``)."""
    groups: int
    """Worker processes (groups) in the roster."""
    restarts: int
    """Restarts of the groups' workers so far."""
    bots: tuple[BotRow, ...]
    """Every bot, in the roster's order."""
    ts: float
    """Wall-clock time of the round."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FleetGone:
    """No fleet runs on the server now (no live ``fleet.json``)."""

    reason: str
    """Why, in a few words."""
    ts: float
    """Wall-clock time of the round."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class BotEvent:
    """An input for the open bot's dashboard, from its connection (or about it)."""

    session: int
    """The :attr:`FleetState.session` it belongs to."""
    event: Input
    """What :func:`tui.reducer.reduce` gets."""


FleetInput = FleetPolled | FleetGone | BotEvent | Key | LogLine
"""Anything :func:`reduce_fleet` accepts."""


# --------------------------------------------------------------------------- commands


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class OpenBot:
    """Connect to ``socket`` for the bot ``name``; tag its events with ``session``."""

    name: str
    socket: str
    session: int


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class CloseBot:
    """Close the open bot's connection (the list is shown again)."""


FleetCommand = Command | OpenBot | CloseBot
"""What the app does for the reducer: open or close a bot, or send a command on its socket."""


# --------------------------------------------------------------------------- state


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FleetState:
    """Everything the fleet view shows. Replaced, never mutated."""

    root: str
    """The server's folder: a bot's socket is ``<root>/<bot>/bot.sock``."""
    server: str = ""
    """The server, from the roster."""
    groups: int = 0
    """Worker processes, from the roster."""
    restarts: int = 0
    """Worker restarts, from the roster."""
    bots: tuple[BotRow, ...] = ()
    """The bots of the last round, in the roster's order."""
    polls: int = 0
    """Rounds received so far (0: still asking)."""
    gone: str = ""
    """Why no fleet answers now (it ended); empty while one runs."""
    selected: int = 0
    """The index of the selected bot."""
    flash: str = ""
    """A one-line message (the last thing that happened)."""
    bot: State | None = None
    """The open bot's dashboard, or None while the list shows."""
    bot_name: str = ""
    """The open (or last opened) bot's name."""
    session: int = 0
    """Bot dashboards opened so far: tags the open one's events."""
    quit: bool = False
    """The user asked to quit."""

    @property
    def answering(self) -> int:
        """Bots whose socket answered in the last round."""
        return sum(1 for row in self.bots if row.up)

    @property
    def current(self) -> BotRow | None:
        """The selected bot, if there is one."""
        return self.bots[self.selected] if 0 <= self.selected < len(self.bots) else None


FleetReduction = tuple[FleetState, tuple[FleetCommand, ...]]
"""A new state and the commands to carry out, in order."""


# --------------------------------------------------------------------------- the reducer

_NOTHING: tuple[FleetCommand, ...] = ()
BACK_KEYS = ("KEY_ESCAPE",)
"""Key names that go back from a bot's dashboard to the list (besides ``f``)."""


def reduce_fleet(state: FleetState, event: FleetInput) -> FleetReduction:
    """Apply one input to ``state``."""
    if isinstance(event, FleetPolled):
        return _on_polled(state, event), _NOTHING
    if isinstance(event, FleetGone):
        return _on_gone(state, event), _NOTHING
    if isinstance(event, BotEvent):
        if state.bot is None or event.session != state.session:
            return state, _NOTHING  # from a dashboard already closed
        bot, commands = reduce(state.bot, event.event)
        return dataclasses.replace(state, bot=bot), commands
    if isinstance(event, LogLine):
        if state.bot is not None:
            bot, _ = reduce(state.bot, event)
            return dataclasses.replace(state, bot=bot), _NOTHING
        return dataclasses.replace(state, flash=as_str(f"{event.source}: {event.text}")), _NOTHING
    if state.bot is not None:
        return _on_bot_key(state, state.bot, event)
    return _on_list_key(state, event)


def _on_polled(state: FleetState, event: FleetPolled) -> FleetState:
    flash = "the fleet is back" if state.gone else state.flash
    return dataclasses.replace(
        state,
        server=as_str(event.server),
        groups=max(0, event.groups),
        restarts=max(0, event.restarts),
        bots=event.bots,
        polls=state.polls + 1,
        gone="",
        selected=_clamp(state.selected, len(event.bots)),
        flash=flash,
    )


def _on_gone(state: FleetState, event: FleetGone) -> FleetState:
    if state.gone:
        return dataclasses.replace(state, gone=as_str(event.reason) or state.gone)
    down = "the fleet ended"
    bots = tuple(dataclasses.replace(row, snapshot=None, down=down) for row in state.bots)
    return dataclasses.replace(
        state, bots=bots, gone=as_str(event.reason) or down, polls=state.polls + 1
    )


def _on_bot_key(state: FleetState, bot: State, key: Key) -> FleetReduction:
    if bot.mode == "normal" and (key.name in BACK_KEYS or (key.char == "f" and not key.name)):
        flash = f"back from {state.bot_name}; Enter opens the selected bot"
        return dataclasses.replace(state, bot=None, flash=flash), (CloseBot(),)
    new, commands = reduce(bot, key)
    return dataclasses.replace(state, bot=new, quit=new.quit), commands


_MOVES: dict[str, int | str] = {
    "KEY_UP": -1,
    "KEY_DOWN": 1,
    "KEY_PGUP": -10,
    "KEY_PGDOWN": 10,
    "KEY_HOME": "top",
    "KEY_END": "bottom",
}
_MOVE_CHARS: dict[str, int | str] = {"k": -1, "j": 1, "g": "top", "G": "bottom"}


def _on_list_key(state: FleetState, key: Key) -> FleetReduction:
    if key.char == "q" and not key.name:
        return dataclasses.replace(state, quit=True), _NOTHING
    if key.name == "KEY_ENTER" or key.char in ("\r", "\n"):
        return _open(state)
    move = _MOVES.get(key.name or "") or (_MOVE_CHARS.get(key.char) if not key.name else None)
    if move is None:
        return state, _NOTHING
    count = len(state.bots)
    target = 0 if move == "top" else count - 1 if move == "bottom" else state.selected + int(move)
    return dataclasses.replace(state, selected=_clamp(target, count)), _NOTHING


def _open(state: FleetState) -> FleetReduction:
    row = state.current
    if row is None:
        why = state.gone or "no answer from the fleet yet"
        return dataclasses.replace(state, flash=f"no bot to open: {why}"), _NOTHING
    name = as_str(row.name)
    if not row.up:
        why = as_str(row.down) or "its socket does not answer"
        text = f"{name} is down ({why}): no dashboard to open until it answers"
        return dataclasses.replace(state, flash=text), _NOTHING
    session = state.session + 1
    socket = f"{state.root.rstrip('/')}/{row.name}/bot.sock"
    bot = State(fleet=True)
    new = dataclasses.replace(state, bot=bot, bot_name=name, session=session, flash="")
    return new, (OpenBot(name=row.name, socket=socket, session=session),)


def _clamp(index: int, count: int) -> int:
    return max(0, min(index, count - 1))
