"""The embedded world: a flying-squid server on 127.0.0.1 in a Node process of its own, with
pepa's survival sandbox (a seeded terrain, crafting, furnaces, hunger, day and night, mob life,
hazards) and the scenario plugin the tests drive over a control port.

Its JS lives in ``js/`` (:data:`SERVER_JS`) and never requires the bot's (``pepa/link/js``);
both sides may require the shared ``pepa/base/js`` and ``pepa/game/js``.
"""

from __future__ import annotations

from pepa.worldserver.process import (
    DEFAULT_VERSION,
    PROFILES,
    SERVER_JS,
    WORLD_LOG_CAP,
    EmbeddedWorld,
    free_port,
    open_world_log,
)

__all__ = [
    "DEFAULT_VERSION",
    "PROFILES",
    "SERVER_JS",
    "WORLD_LOG_CAP",
    "EmbeddedWorld",
    "free_port",
    "open_world_log",
]
