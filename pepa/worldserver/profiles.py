"""The embedded world's profiles: the names of ``js/life/profiles.js``'s table. Nothing to import:
the configuration checks a setting against them without loading the world server's code."""

from __future__ import annotations

__all__ = ["PROFILES"]

PROFILES = ("default", "hard", "vanilla")
"""The sandbox's profiles: ``default`` (friendly, for a person trying pepa), ``hard`` (dusk at
once, hard difficulty, denser spawns, hazards near spawn) and ``vanilla`` (vanilla's terrain:
biomes, cliffs, caves, ravines, lava and water underground, dungeons; normal difficulty)."""
