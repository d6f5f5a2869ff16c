"""What to take out of the chests before a milestone, and what to put in them. Pure.

The bot keeps what it does not carry in its home's chests (``storage.json``,
:class:`pepa.state.storage.Storage`). Before a milestone goes out, :func:`to_fetch` asks whether
something stored would change the milestone's next step (planned from the bag as the skill
will plan it): iron ingots in a chest make an iron pickaxe's next step a craft, not a mine.
Then a ``base.fetch`` task takes it out first. :func:`to_store` says when the bot takes what
it need not carry (:func:`pepa.game.carry.surplus`) home, and into which chest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pepa.game.carry import sort_of, surplus
from pepa.game.crafting import CraftingError
from pepa.game.steps import next_step_for

__all__ = ["STORE_FROM", "Fetch", "to_fetch", "to_store"]

Fetch = tuple[str, int, tuple[int, int, int]]
"""(item, count, the chest's x, y, z)."""


def to_fetch(
    item: str,
    count: int,
    held: Mapping[str, int],
    stored: Mapping[str, Sequence[tuple[tuple[int, int, int], int]]],
    version: str | None = None,
) -> Fetch | None:
    """Something stored that changes the next step toward holding ``count`` of ``item``
    (the fullest chest's, at most what it holds), or None."""
    try:
        now = next_step_for(item, count, held, version)
        if now is None:
            return None
        for name, chests in sorted(stored.items()):
            if not chests:
                continue
            more = {**held, name: held.get(name, 0) + sum(n for _, n in chests)}
            if next_step_for(item, count, more, version) != now:
                at, n = chests[0]
                return name, n, at
    except (CraftingError, KeyError, ValueError):
        return None
    return None


STORE_FROM = 8
"""Stacks of surplus that send the bot home to store them (or a bag with 2 free slots)."""
NEAR_HOME = 64.0
"""Blocks from home within which the bot goes to store (a full bag: from anywhere)."""


def to_store(
    items: Mapping[str, int],
    empty_slots: int,
    distance: float | None,
    chests: Sequence[tuple[int, int, int]],
) -> tuple[tuple[int, int, int], str] | None:
    """(the chest, ``blocks`` or ``other``) to store the surplus of that sort in now, or None:
    a home chest known (``chests``, in a fixed order: the first takes building blocks, the
    second the rest), the bag full or :data:`STORE_FROM` stacks of surplus within
    :data:`NEAR_HOME` (``distance``: to home)."""
    extra = surplus(items)
    if not chests or not extra or distance is None:
        return None
    stacks = sum(-(-n // 64) for n in extra.values())
    full = empty_slots <= 2
    if not full and (stacks < STORE_FROM or distance > NEAR_HOME):
        return None
    sorts = {sort_of(name) for name in extra}
    sort = "blocks" if "blocks" in sorts else "other"
    chest = chests[0] if sort == "blocks" or len(chests) == 1 else chests[1]
    return chest, sort
