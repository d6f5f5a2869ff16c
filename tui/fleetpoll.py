"""The fleet view's poller: a thread that asks every bot about every second.

:class:`FleetPoller` calls ``poll`` on its own thread (``tui-fleet``) and posts
what it returns (a :class:`~tui.fleet.FleetPolled` or a
:class:`~tui.fleet.FleetGone`) to the app's inbox, so the UI loop never waits
on a socket. :func:`poll_fleet` is the real ``poll``: the roster
(``fleet.json``) and every bot's snapshot, through :mod:`pepa.fleet.status`
(the same answers ``pepa status`` prints). While a bot's dashboard is open
the poller is paused (that bot has its own connection); :meth:`FleetPoller.resume`
polls at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from tui.fleet import BotRow, FleetGone, FleetPolled

__all__ = ["INTERVAL", "FleetPoller", "poll_fleet"]

logger = logging.getLogger(__name__)

INTERVAL = 1.0
"""Seconds between the starts of two rounds (a round that takes longer is followed at once)."""

_MIN_PAUSE = 0.05  # between rounds, however long the last one took


class FleetPoller:
    """Calls ``poll`` about every ``interval`` seconds on a thread; posts each result."""

    def __init__(
        self,
        poll: Callable[[], FleetPolled | FleetGone],
        post: Callable[[Any], None],
        *,
        interval: float = INTERVAL,
    ) -> None:
        self._poll = poll
        self._post = post
        self._interval = interval
        self._closing = threading.Event()
        self._active = threading.Event()
        self._active.set()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tui-fleet", daemon=True)

    def start(self) -> FleetPoller:
        """Start the thread; returns ``self``."""
        self._thread.start()
        return self

    def pause(self) -> None:
        """Stop polling (a round under way still posts its result)."""
        self._active.clear()

    def resume(self) -> None:
        """Poll again, at once."""
        self._active.set()
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread and wait for it (a round under way ends first; idempotent)."""
        self._closing.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def __enter__(self) -> FleetPoller:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop(timeout=1.0)  # a round stuck on a slow socket is left to end by itself

    def _run(self) -> None:
        while not self._closing.is_set():
            pause: float | None = None
            if self._active.is_set():
                started = time.monotonic()
                try:
                    result = self._poll()
                except Exception:  # a bug or an odd roster: say so, and keep polling
                    logger.exception("asking the fleet failed")
                else:
                    if not self._closing.is_set():
                        self._post(result)
                pause = max(_MIN_PAUSE, self._interval - (time.monotonic() - started))
            self._wake.wait(pause)
            self._wake.clear()


def poll_fleet(
    server_root: Path, clock: Callable[[], float] = time.time
) -> FleetPolled | FleetGone:
    """One round: the roster of the fleet on ``server_root`` and every bot's answer."""
    from pepa.ipc.fleet import fleet_lines, read_roster

    roster = read_roster(server_root)
    if roster is None:
        return FleetGone(reason="no fleet runs on this server now", ts=clock())
    lines = fleet_lines(server_root, roster)
    groups = [g for g in roster.get("groups") or [] if isinstance(g, dict)]
    restarts = sum(_int(g.get("restarts")) for g in groups)
    bots = tuple(
        BotRow(name=line.name, group=line.group, snapshot=line.snapshot, down=line.down)
        for line in lines
    )
    server = str(roster.get("server") or server_root.name)
    return FleetPolled(server=server, groups=len(groups), restarts=restarts, bots=bots, ts=clock())


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
