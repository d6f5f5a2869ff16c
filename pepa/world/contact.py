"""The blocks the bot is in contact with, by how: under it, inside its body, at its sides. Pure.

``contact.js`` reads them for every snapshot and at every health drop; this
is their checked form. A hurt is put down to block types through them
(:mod:`pepa.policy.learning.attribution`), so what a block did at one place is
known at the next. Names come from the server's world and are untrusted:
anything but a plain block name is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_NAMES", "RELATIONS", "Contact", "block_name"]

RELATIONS = ("below", "inside", "touching")
"""How the bot is in contact with a block: stands on it, is inside it (its cell overlaps the
body: water, a pressure plate, a bush), or touches it with a side (a cactus)."""
MAX_NAMES = 8
"""Block names kept per relation (``contact.js`` sends as many)."""
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def block_name(value: Any) -> str | None:
    """``value`` when it is a plain block name (``magma_block``), else None."""
    return value if isinstance(value, str) and _NAME.match(value) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class Contact:
    """Block names by relation, each without repeats, air left out."""

    below: tuple[str, ...] = ()
    inside: tuple[str, ...] = ()
    touching: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Any) -> Contact | None:
        """The contact of ``contact.js`` (or of :meth:`as_dict`); None when it is not a mapping."""
        if not isinstance(raw, Mapping):
            return None

        def names(key: str) -> tuple[str, ...]:
            value = raw.get(key)
            found = (block_name(v) for v in (value if isinstance(value, list) else []))
            return tuple(dict.fromkeys(n for n in found if n))[:MAX_NAMES]

        return cls(below=names("below"), inside=names("inside"), touching=names("touching"))

    def pairs(self) -> Iterator[tuple[str, str]]:
        """``(relation, block)`` for every block in contact."""
        for relation in RELATIONS:
            for name in getattr(self, relation):
                yield relation, name

    def has(self, relation: str, name: str) -> bool:
        """Whether ``name`` is in contact by ``relation``."""
        return relation in RELATIONS and name in getattr(self, relation)

    def as_dict(self) -> dict[str, list[str]]:
        """Plain JSON (the snapshot's wire form, a death's bundle)."""
        return {"below": list(self.below), "inside": list(self.inside),
                "touching": list(self.touching)}  # fmt: skip
