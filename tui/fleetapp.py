"""The fleet view's main loop: the list of bots, and one bot's dashboard opened from it.

The same loop as :mod:`tui.app`, over a :class:`~tui.fleet.FleetState`::

    key = term.inkey(timeout=tick)                       # the clock
    for item in inbox: state = reduce_fleet(state, item) # poller rounds, the bot's events
    state, commands = reduce_fleet(state, key)           # then carry out the commands
    paint(render_fleet(state, width, height))

Two threads feed the inbox: the poller (:class:`~tui.fleetpoll.FleetPoller`,
every bot's answer about every second) and, while a bot's dashboard is open,
that bot's :class:`~tui.connection.Connection` (its events wrapped in a
:class:`~tui.fleet.BotEvent` of the session, so the reducer drops those of a
dashboard already closed). The loop only starts and stops them; it never
waits on a socket. Terminal modes and signals are :mod:`tui.app`'s.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from blessed import Terminal

from pepa.base.signals import SignalInbox
from pepa.ipc.protocol import Command
from tui.app import (
    _QUERY_TIMEOUT,
    TICK,
    DashboardError,
    Screen,
    _log_to_panel,
    _ResizeFlag,
    _stop_signals,
    drained,
    key_of,
)
from tui.connection import Connection
from tui.fleet import (
    BotEvent,
    CloseBot,
    FleetCommand,
    FleetGone,
    FleetPolled,
    FleetState,
    OpenBot,
    reduce_fleet,
)
from tui.fleetpoll import INTERVAL, FleetPoller, poll_fleet
from tui.fleetview import render_fleet
from tui.state import CommandFailed

__all__ = ["run_fleet"]

logger = logging.getLogger(__name__)


def run_fleet(
    server_root: Path,
    *,
    poll: Callable[[], FleetPolled | FleetGone] | None = None,
    term: Terminal | None = None,
    tick: float = TICK,
    interval: float = INTERVAL,
) -> int:
    """Run the fleet view of the fleet on ``server_root`` until ``q`` or Ctrl-C; return 0.

    ``poll`` gives one round (default: :func:`~tui.fleetpoll.poll_fleet` of
    ``server_root``). Raises :class:`~tui.app.DashboardError` without a terminal.
    """
    term = term or Terminal()
    if not term.is_a_tty or not sys.stdin.isatty():
        raise DashboardError("the dashboard needs a terminal (stdin and stdout must be a tty)")
    ask = poll or (lambda: poll_fleet(server_root))
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    with (
        _log_to_panel(inbox.put),
        FleetPoller(ask, inbox.put, interval=interval) as poller,
        _BotLink(inbox.put) as link,
    ):
        try:
            with (
                _stop_signals() as stop,  # first in, last out: a signal in a restore is recorded
                term.fullscreen(),
                term.cbreak(),
                term.hidden_cursor(),
                _ResizeFlag() as resized,
                term.notify_on_resize(timeout=_QUERY_TIMEOUT),
            ):
                state = FleetState(root=str(server_root))
                _loop(term, inbox, state, poller, link, resized, tick, stop)
        except KeyboardInterrupt:
            pass  # a Ctrl-C before the handlers were installed
    return 0


def _loop(
    term: Terminal,
    inbox: queue.SimpleQueue[Any],
    state: FleetState,
    poller: FleetPoller,
    link: _BotLink,
    resized: _ResizeFlag,
    tick: float,
    stop: SignalInbox | None,
) -> None:
    screen = Screen(term)
    while not state.quit:
        if stop is not None and stop.take():
            return  # SIGINT or SIGTERM: unwind the terminal modes in order
        key = term.inkey(timeout=tick)
        changed = False
        for item in drained(inbox):
            state, commands = reduce_fleet(state, item)
            state = _carry_out(state, commands, poller, link)
            changed = True
        if key:
            if key.name == "RESIZE_EVENT":
                resized.set()
            state, commands = reduce_fleet(state, key_of(key))
            state = _carry_out(state, commands, poller, link)
            changed = True
        if state.quit:
            break
        size = (term.width, term.height)
        full = resized.consume() or size != screen.size
        if changed or full:
            screen.paint(render_fleet(state, size[0], size[1], term), size, full=full)


def _carry_out(
    state: FleetState,
    commands: tuple[FleetCommand, ...],
    poller: FleetPoller,
    link: _BotLink,
) -> FleetState:
    for command in commands:
        if isinstance(command, OpenBot):
            poller.pause()  # the bot has its own connection now
            link.open(Path(command.socket), command.session)
            logger.info("opened %s's dashboard (%s)", command.name, command.socket)
        elif isinstance(command, CloseBot):
            link.close()
            poller.resume()
        else:
            why = link.send(command)
            if why is not None:
                failed = CommandFailed(command=command.TYPE, reason=why)
                state, _ = reduce_fleet(state, BotEvent(session=state.session, event=failed))
    return state


class _BotLink:
    """The open bot's connection (at most one), its events tagged with their session."""

    def __init__(self, post: Callable[[Any], None]) -> None:
        self._post = post
        self._connection: Connection | None = None

    def open(self, socket: Path, session: int) -> None:
        """Close any open connection and connect to ``socket`` (its reader thread retries)."""
        self.close()

        def post(event: Any) -> None:
            self._post(BotEvent(session=session, event=event))

        self._connection = Connection(lambda: socket, post).start()

    def close(self) -> None:
        """Close the open connection, on a thread of its own (the loop goes on at once)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            threading.Thread(target=connection.stop, name="tui-close", daemon=True).start()

    def send(self, command: Command) -> str | None:
        """Send on the open connection; ``None`` on success, else why not."""
        if self._connection is None:
            return "no bot open"
        return self._connection.send(command)

    def __enter__(self) -> _BotLink:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.stop()
