"""The embedded world: a flying-squid server on 127.0.0.1 in a Node process of its own, with
pepa's survival sandbox (a seeded terrain, crafting, furnaces, hunger, day and night, mob life,
hazards) and the scenario plugin the tests drive over a control port.

Its JS lives in ``js/`` (:data:`SERVER_JS`) and never requires the bot's (``pepa/link/js``);
both sides may require the shared ``pepa/base/js`` and ``pepa/game/js``. The world's
process is :class:`~pepa.worldserver.process.EmbeddedWorld`; importing this package loads
only the profiles' names (:mod:`.profiles`), so the configuration stays light.
"""

from __future__ import annotations

from pepa.worldserver.profiles import PROFILES

__all__ = ["PROFILES"]
