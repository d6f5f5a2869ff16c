"""What hostile mobs do that a fight turns on (vanilla 1.16.5): which attack from afar and with
what, and which explode. Which mobs are hostile at all comes from minecraft-data (each entity's
category, read into :attr:`pepa.world.view.Entity.hostile`).

The bot's JS has the same table once (``pepa/game/js/mobs.js``).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["EXPLODING", "RANGED", "attacks_from_afar"]

RANGED: Mapping[str, str] = {
    "skeleton": "bow",
    "stray": "bow",
    "pillager": "crossbow",
    "witch": "potion",
}
"""Hostiles that attack from afar, and with what: a skeleton or stray draws a bow, a pillager
loads a crossbow (both shoot arrows), a witch throws potions."""
EXPLODING = frozenset({"creeper"})
"""Hostiles that explode next to their target (a creeper's 1.5 s fuse)."""


def attacks_from_afar(name: str) -> bool:
    """Whether a hostile of that name attacks from afar (:data:`RANGED`)."""
    return name in RANGED
