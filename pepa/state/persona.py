"""``persona.json``: the persona's cooldowns, kept beside the other memory files so that a
crash loop cannot turn into chat spam (:class:`pepa.policy.persona.voice.Voice` decides with
them).

The file is checked against :data:`PERSONA_FILE`: times in the past or at most a day ahead
(clamped to now, so no cooldown outlasts its length from now), bounded lists; a time further
ahead, a wrong type or a huge file is moved aside and the persona starts with fresh cooldowns.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import orjson

from pepa.state.files import Int, JsonFile, ListOf, MapOf, Obj, Stamp, Str, load, write_atomic

__all__ = ["PERSONA_FILE", "load_cooldowns", "save_cooldowns"]

logger = logging.getLogger(__name__)

PERSONA_FILE = JsonFile(
    spec=Obj(
        required={
            "last": Stamp(),
            "recent": ListOf(item=Stamp(), max_len=64),
            "moments": MapOf(key=Str(max_len=200), value=Stamp(), max_len=512),
        },
        optional={"turns": Int(lo=0, hi=2**31)},
    ),
    build=dict,
    max_bytes=64 * 1024,
)
"""``persona.json``: ``{"last": t, "recent": [t, …], "moments": {"dawn": t, …}, "turns": n}``."""


def load_cooldowns(path: Path) -> dict[str, Any] | None:
    """The saved cooldowns, or None (a bad file is moved aside with one warning)."""
    then = "the cooldowns are unreadable: the persona starts with fresh ones"
    return load(path, PERSONA_FILE, None, log=logger, then=then)


def save_cooldowns(path: Path, saved: dict[str, Any]) -> None:
    """Write the cooldowns; a failure is logged, never raised (the persona speaks on)."""
    try:
        write_atomic(path, orjson.dumps(saved) + b"\n")
    except OSError as exc:
        logger.warning("cannot save the persona's cooldowns to %s: %s", path, exc)
