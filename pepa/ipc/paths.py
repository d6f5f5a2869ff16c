"""The names of the files a client of pepa reads in a server's folder (``state/<host>_<port>/``):
a bot's socket, a fleet's socket and roster, and the reason a worker left.

They are part of pepa's outside contract (``docs/ipc.md``, ``docs/fleet.md``): the daemon and
the fleet write them, :mod:`pepa.ipc.client`, :mod:`pepa.ipc.fleet` and the dashboard read them.
"""

from __future__ import annotations

__all__ = ["BOT_SOCKET", "EXIT_FILE", "FLEET_SOCKET", "ROSTER"]

BOT_SOCKET = "bot.sock"
"""A bot's socket (mode 0600), in its folder: the server's, or ``<name>/`` in a fleet."""
FLEET_SOCKET = "fleet.sock"
"""A fleet's own socket, in the server's folder: every bot's line, wherever it runs."""
ROSTER = "fleet.json"
"""The running fleet, in the server's folder: its groups and their bots."""
EXIT_FILE = "worker-exit.json"
"""Why a worker process left (exit code and reason), in the bot's folder."""
