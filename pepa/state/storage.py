"""``storage.json``: what the bot's chests hold, as it last saw them (one of its personal
memory files, docs/memory.md; the curriculum writes it).

Each time the bot stores into, takes from or looks into a chest, the chest's whole contents
come back with the action's end and replace what was remembered of it; a chest found gone
(the action failed: no chest there) is forgotten. :meth:`Storage.where` answers "which chest
holds this, and how many", so a plan's step can fetch instead of gather. The file is read back
through its schema: a broken one is moved aside with one warning and the bot starts with no
chests remembered.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from pepa.state.files import Int, JsonFile, MapOf, Num, Obj, SchemaError, Str, load, write_atomic

__all__ = ["STORAGE_FILE", "Storage", "chest_key"]

logger = logging.getLogger(__name__)

_KEY = Str(max_len=40, pattern=r"-?\d{1,8},-?\d{1,4},-?\d{1,8}", what="a chest's x,y,z")
STORAGE_FILE = JsonFile(
    spec=MapOf(
        key=_KEY,
        value=Obj(
            required={
                "items": MapOf(
                    key=Str(max_len=64, pattern=r"[a-z0-9_]+"), value=Int(lo=1, hi=27 * 64),
                    max_len=27,
                ),
                "at": Num(lo=0.0, hi=1e12),
            }
        ),
        max_len=64,
    ),
    build=dict,
    max_bytes=256 * 1024,
    empty_ok=True,
)  # fmt: skip
"""``storage.json``: ``{"12,64,-3": {"items": {"cobblestone": 120}, "at": 1796600000.0}, …}``
(a chest by its block position; ``at``: when it was last seen)."""


def chest_key(x: float, y: float, z: float) -> str:
    """A chest's key: its block position as ``x,y,z``."""
    return f"{int(x // 1)},{int(y // 1)},{int(z // 1)}"


class Storage:
    """The chests the bot has seen into and what they held."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.chests: dict[str, dict[str, Any]] = load(
            path, STORAGE_FILE, {}, log=logger, then="starting with no chests remembered"
        )

    def saw(self, key: str, items: Mapping[str, int], at: float) -> bool:
        """A chest's contents as just seen (written at once); False when they would not read
        back (a bad name or count: nothing is changed)."""
        chest = {"items": {k: int(v) for k, v in items.items() if int(v) > 0}, "at": at}
        try:
            STORAGE_FILE.spec.check({**self.chests, key: chest}, "")
        except SchemaError as exc:
            logger.warning("not remembering the chest at %s: %s", key, exc)
            return False
        self.chests[key] = chest
        self._write()
        return True

    def forget(self, key: str) -> None:
        """A chest that is not there any more."""
        if self.chests.pop(key, None) is not None:
            self._write()

    def where(self, item: str) -> list[tuple[str, int]]:
        """The chests holding ``item`` and how many, most first."""
        found = [(k, int(c["items"].get(item, 0))) for k, c in self.chests.items()]
        return sorted(((k, n) for k, n in found if n > 0), key=lambda kn: -kn[1])

    def totals(self) -> dict[str, int]:
        """Every item stored, summed over the chests."""
        out: dict[str, int] = {}
        for chest in self.chests.values():
            for name, n in chest["items"].items():
                out[name] = out.get(name, 0) + int(n)
        return out

    def _write(self) -> None:
        write_atomic(self.path, orjson.dumps(self.chests, option=orjson.OPT_INDENT_2) + b"\n")
