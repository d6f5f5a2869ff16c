"""The game versions pepa plays, and the ones its embedded world can run. Pure.

A real server may run any version mineflayer plays; the embedded world is
flying-squid, and the survival sandbox's plugins (terrain, crafting windows,
furnaces, mob life) speak 1.16.5's packets and registries only. docs/world.md
("Game versions") has the matrix measured at each of :data:`PLAYED`.
"""

from __future__ import annotations

__all__ = ["PLAYED", "SANDBOX_VERSION", "embedded_refusal", "world_folder"]

PLAYED = (
    "1.12.2", "1.13.2", "1.14.4", "1.15.2", "1.16.5", "1.17.1", "1.18.2", "1.19", "1.19.2",
    "1.19.3", "1.19.4", "1.20.2", "1.20.4", "1.21.1", "1.21.3", "1.21.4",
)  # fmt: skip
"""Versions both mineflayer 4.39 and flying-squid 1.12 support, from 1.12.2 (oldest first):
the matrix of ``bench/versions.py``, and what the flat embedded world runs."""
SANDBOX_VERSION = "1.16.5"
"""The one version the survival sandbox runs."""


def embedded_refusal(version: str, sandbox: bool) -> str | None:
    """Why the embedded world cannot run ``version`` (one line), or None when it can."""
    if sandbox and version != SANDBOX_VERSION:
        return (
            f"the survival sandbox runs Minecraft {SANDBOX_VERSION} only, not {version}: "
            f"--no-sandbox for a flat world at {version}, or a server of your own (--host)"
        )
    if not sandbox and version not in PLAYED:
        return f"the embedded world does not run Minecraft {version}: one of {', '.join(PLAYED)}"
    return None


def world_folder(sandbox: bool, version: str) -> str:
    """The embedded world's folder name under the server's state: a world made at one version
    is never opened at another (its chunks' format differs)."""
    base = "sandbox" if sandbox else "world"
    return base if version == SANDBOX_VERSION else f"{base}-{version}"
