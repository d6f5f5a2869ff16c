"""The blessed dashboard (``pepa tui``): a pure reducer, a pure renderer, a reader thread.

- :mod:`tui.state`: the state and the inputs (frozen dataclasses);
- :mod:`tui.reducer`: ``reduce(state, input) -> (state, commands)``;
- :mod:`tui.panels` and :mod:`tui.render`: ``render(state, width, height, term) -> lines``;
- :mod:`tui.connection`: the socket reader thread that reconnects, and a locked send;
- :mod:`tui.app`: the main loop and terminal modes;
- :mod:`tui.fleet`, :mod:`tui.fleetview`, :mod:`tui.fleetpoll`, :mod:`tui.fleetapp`: the
  fleet view (a list of bots, one bot's dashboard opened from it), built the same way.

Only :mod:`pepa.ipc` (the client, the protocol, a fleet's roster and sockets) and
:mod:`pepa.base` are imported from pepa, never the actors: an import-linter contract holds it
(``pyproject.toml``). See ``docs/dashboard.md``.
"""

from __future__ import annotations

from tui.app import DashboardError, Screen, key_of, run
from tui.connection import Connection
from tui.fleet import BotEvent, BotRow, FleetGone, FleetPolled, FleetState, reduce_fleet
from tui.fleetapp import run_fleet
from tui.fleetview import render_fleet
from tui.reducer import Reduction, reduce
from tui.render import fit, frame, render
from tui.state import (
    ActorRow,
    ChatLine,
    CommandFailed,
    Connected,
    Disconnected,
    Input,
    Key,
    LlmChunk,
    LogLine,
    State,
    visible_logs,
)

__all__ = [
    "ActorRow",
    "BotEvent",
    "BotRow",
    "ChatLine",
    "CommandFailed",
    "Connected",
    "Connection",
    "DashboardError",
    "Disconnected",
    "FleetGone",
    "FleetPolled",
    "FleetState",
    "Input",
    "Key",
    "LlmChunk",
    "LogLine",
    "Reduction",
    "Screen",
    "State",
    "fit",
    "frame",
    "key_of",
    "reduce",
    "reduce_fleet",
    "render",
    "render_fleet",
    "run",
    "run_fleet",
    "visible_logs",
]
