"""Why the bot died: the server's death message and the damage before it, as one value. Pure.

``bot_helper.js`` (``death_cause.js``) sends, with every ``death`` event, the
server's death message for the bot (its translation key, English text and
arguments) and the last damage it took, each blow classified where it
happened (a mob in reach, an arrow, a fall and its height, lava, fire,
drowning, starvation, an explosion, a wall, the void). :func:`death_cause`
turns that untrusted JSON into a :class:`DeathCause`: the key decides the
``kind`` (vanilla's keys are the same on every server, whatever the
language), the damage decides it when no message came (a server with death
messages off, a message lost in a reconnect), and an unknown death stays
``unknown`` rather than being guessed. Every string is clipped and every
kind is one of :data:`KINDS`, so a hostile server cannot push text of its
own choosing into the knowledge base, the dashboard or an LLM prompt
unmarked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pepa.world.contact import Contact

__all__ = [
    "KINDS", "MAX_SOURCES", "DamageSource", "DeathCause", "damage_source", "death_cause",
    "kind_of_key",
]  # fmt: skip

KINDS = (
    "mob", "player", "arrow", "fall", "lava", "fire", "drowning", "starvation", "explosion",
    "suffocation", "void", "contact", "magic", "generic", "unknown",
)  # fmt: skip
"""What can kill the bot, coarse enough to learn from: a lesson is about one of these."""
MAX_SOURCES = 8
"""Damage events kept before a death (``death_cause.js`` keeps as many)."""
MAX_TEXT = 300
"""Characters of a death message kept."""
MAX_NAME = 40
"""Characters of a killer's name kept (a player name is 16, an entity type under 30)."""

_KEYS: tuple[tuple[str, str], ...] = (
    # vanilla's death.* translation keys by prefix, longest first where one prefixes another
    ("death.attack.mob", "mob"),
    ("death.attack.player", "player"),
    ("death.attack.arrow", "arrow"),
    ("death.attack.trident", "arrow"),
    ("death.attack.thrown", "arrow"),
    ("death.attack.fireball", "arrow"),
    ("death.attack.witherSkull", "arrow"),
    ("death.fell", "fall"),
    ("death.attack.fall", "fall"),
    ("death.attack.flyIntoWall", "fall"),
    ("death.attack.lava", "lava"),
    ("death.attack.inFire", "fire"),
    ("death.attack.onFire", "fire"),
    ("death.attack.hotFloor", "fire"),
    ("death.attack.lightningBolt", "fire"),
    ("death.attack.drown", "drowning"),
    ("death.attack.dryout", "drowning"),
    ("death.attack.starve", "starvation"),
    ("death.attack.explosion", "explosion"),
    ("death.attack.badRespawnPoint", "explosion"),
    ("death.attack.fireworks", "explosion"),
    ("death.attack.inWall", "suffocation"),
    ("death.attack.cramming", "suffocation"),
    ("death.attack.outOfWorld", "void"),
    ("death.attack.cactus", "contact"),
    ("death.attack.sweetBerryBush", "contact"),
    ("death.attack.sting", "mob"),
    ("death.attack.thorns", "contact"),
    ("death.attack.magic", "magic"),
    ("death.attack.indirectMagic", "magic"),
    ("death.attack.wither", "magic"),
    ("death.attack.freeze", "magic"),
    ("death.attack.anvil", "generic"),
    ("death.attack.fallingBlock", "generic"),
    ("death.attack.generic", "generic"),
)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_NAME = re.compile(r"^[A-Za-z0-9_. -]+$")


def kind_of_key(key: str | None) -> str | None:
    """The kind of death a vanilla translation key names, None for a key it does not know."""
    if not key:
        return None
    for prefix, kind in _KEYS:
        if key == prefix or key.startswith(prefix + "."):
            return kind
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class DamageSource:
    """One blow before the death."""

    kind: str
    """One of :data:`KINDS`."""
    by: str | None = None
    """The mob's type name or player's name blamed, if any."""
    amount: float = 0.0
    """Health lost."""
    ago: float = 0.0
    """Seconds before the death."""
    fall: float | None = None
    """Blocks fallen (kind ``fall`` only)."""
    contact: Contact | None = None
    """The blocks the bot touched as it was hurt (None: not known)."""
    start: Contact | None = None
    """Where the bot came from: for a fall, the blocks where it last stood (where the fall
    began); for any other blow, those as it stepped into the cell it was hurt in."""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON (the ``deaths`` row, the IPC ``death`` event)."""
        out: dict[str, Any] = {"kind": self.kind, "by": self.by, "amount": self.amount}
        out["ago"] = self.ago
        if self.fall is not None:
            out["fall"] = self.fall
        if self.contact is not None:
            out["contact"] = self.contact.as_dict()
        if self.start is not None:
            out["from"] = self.start.as_dict()
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class DeathCause:
    """Why the bot died, from the server's word and the damage it took."""

    kind: str = "unknown"
    """One of :data:`KINDS`."""
    key: str | None = None
    """The death message's translation key (``death.attack.mob``), None without a message."""
    text: str | None = None
    """The death message as English text."""
    killer: str | None = None
    """The mob type (``zombie``) or player that killed it, when one did."""
    sources: tuple[DamageSource, ...] = ()
    """The last blows, oldest first."""

    @property
    def fall(self) -> float | None:
        """Blocks of the last fall among the blows, if one was a fall."""
        falls = [s.fall for s in self.sources if s.kind == "fall" and s.fall is not None]
        return falls[-1] if falls else None

    def summary(self) -> str:
        """A short line: ``slain by zombie``, ``fell 23 blocks``, ``drowned``."""
        by = f" by {self.killer}" if self.killer else ""
        match self.kind:
            case "mob" | "player":
                return f"slain{by}"
            case "arrow":
                return f"shot{by}"
            case "fall":
                return f"fell {self.fall:.0f} blocks" if self.fall is not None else "fell"
            case "lava":
                return "burned in lava"
            case "fire":
                return "burned"
            case "drowning":
                return "drowned"
            case "starvation":
                return "starved"
            case "explosion":
                return f"blown up{by}"
            case "suffocation":
                return "suffocated in a wall"
            case "void":
                return "fell out of the world"
            case "contact":
                return "pricked to death"
            case "magic":
                return "killed by magic"
            case "generic":
                return "died"
        return "died (cause unknown)"

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON (the ``deaths`` row, the IPC ``death`` event, the LLM prompt)."""
        return {
            "kind": self.kind, "key": self.key, "text": self.text, "killer": self.killer,
            "sources": [s.as_dict() for s in self.sources],
        }  # fmt: skip


def death_cause(raw: Any) -> DeathCause:
    """The ``cause`` of a JS ``death`` event (or of a stored row) as a :class:`DeathCause`.

    Wrongly typed or unknown fields count as absent; a message whose key is
    not a death key is kept as text but decides nothing. The kind comes from
    the key, else from the last blow, so a stored row reads back the same.
    """
    if not isinstance(raw, Mapping):
        return DeathCause()
    key = _clip(raw.get("key"), 80)
    if key is not None and not key.startswith("death."):
        key = None
    sources = tuple(
        s for s in (damage_source(item) for item in _list(raw.get("sources"))[-MAX_SOURCES:]) if s
    )
    killer = _name(raw.get("killer"))
    last = sources[-1] if sources else None
    kind = kind_of_key(key)  # a stored row's own ``kind`` is ignored: it came from the same
    if kind is None:
        kind = last.kind if last is not None else ("generic" if key else "unknown")
    if killer is None and kind in ("mob", "player", "arrow", "explosion") and last is not None:
        killer = next((s.by for s in reversed(sources) if s.by and s.kind == kind), None)
    return DeathCause(
        kind=kind, key=key, text=_clip(raw.get("text"), MAX_TEXT), killer=killer, sources=sources
    )


def damage_source(raw: Any) -> DamageSource | None:
    """One blow of a JS ``damage`` event or a death's sources, None when it is malformed."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        return None
    fall = _number(raw.get("fall"))
    return DamageSource(
        kind=kind, by=_name(raw.get("by")), amount=_number(raw.get("amount")) or 0.0,
        ago=_number(raw.get("ago")) or 0.0, fall=fall if kind == "fall" else None,
        contact=Contact.parse(raw.get("contact")),
        start=Contact.parse(raw.get("from")),
    )  # fmt: skip


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value), 2) if math.isfinite(value) and abs(value) < 1e6 else None


def _clip(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    text = _CONTROL.sub(" ", value).strip()
    return text[:limit] or None


def _name(value: Any) -> str | None:
    """A mob type or player name: letters, digits, ``_``, ``.``, ``-`` and spaces only."""
    text = _clip(value, MAX_NAME)
    return text if text is not None and _NAME.match(text) else None
