"""The embedded world's profiles: the names of ``js/life/profiles.js``'s table. Nothing to import:
the configuration checks a setting against them without loading the world server's code."""

from __future__ import annotations

__all__ = ["PROFILES"]

PROFILES = ("vanilla", "gentle", "hard")
"""The sandbox's profiles: ``vanilla``, the default (vanilla's terrain and rules: biomes, cliffs,
caves, ravines, flowing lava and water, dungeons, mineshafts, vanilla's monsters; normal
difficulty), ``gentle`` (a friendly plain, for demos and fast tests) and ``hard`` (the plain at
dusk, hard difficulty, denser spawns, hazards near spawn)."""
