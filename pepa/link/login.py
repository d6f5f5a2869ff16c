"""Who and where a bot joins as: the link's settings, what ``createBot`` gets for them, the
kicks that refuse the account itself, and the Microsoft token cache kept private.

Pure but for the token cache's folder; :mod:`pepa.link.minecraft` joins with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["REFUSALS", "LinkSettings", "auth_dir", "bot_options", "keep_private", "refused"]

REFUSALS = 3
"""Logins in a row the server refuses the account at (online mode and an offline account, an
expired Microsoft sign-in) after which the link gives up: a refusal is no network blip."""
_REFUSED = (
    "failed to verify username",
    "unverified_username",
    "invalid session",
    "not authenticated",
    "not logged into minecraft",
    "failed to authenticate",
)
"""Words of the kick reasons servers refuse an account with (vanilla, Paper, BungeeCord); not
"authentication servers are down" (Spigot's word for an outage of Mojang's, which passes)."""


class LinkSettings:
    """Where and as whom to connect."""

    def __init__(
        self,
        *,
        host: str,
        port: int,
        username: str,
        version: str | None = None,
        password: str | None = None,
        server_dir: Path,
        chat_pattern: str = "",
        auth: str = "offline",
        path_budget_ms: float = 0.0,
    ) -> None:
        self.host = host
        self.path_budget_ms = path_budget_ms
        """Path search per tick for the bots of this process together; 0: the bridge's own."""
        self.auth = auth
        """``offline`` or ``microsoft`` (pepa.daemon.config.AUTH_CHOICES)."""
        self.chat_pattern = chat_pattern
        """A chat plugin's format (pepa.daemon.config.chat_pattern_of); "" for none."""
        self.port = port
        self.username = username
        self.version = version
        self.password = password
        self.server_dir = server_dir


def refused(reason: str) -> bool:
    """Whether a kick before the spawn refused the account, not the moment."""
    text = reason.lower()
    return any(words in text for words in _REFUSED)


def auth_dir(server_dir: Path) -> Path:
    """The Microsoft token cache of one server's memory: private (0700; its files 0600)."""
    return server_dir / "auth"


def bot_options(s: LinkSettings) -> dict[str, Any]:
    """What ``createBot`` gets for these settings (no password: AuthMe is Python's)."""
    options: dict[str, Any] = {
        "host": s.host, "port": s.port, "username": s.username, "respawn": True, "auth": s.auth,
    }  # fmt: skip
    if s.version:
        options["version"] = s.version
    if s.chat_pattern:
        options["chatPattern"] = s.chat_pattern
    if s.path_budget_ms > 0:
        options["pathBudgetMs"] = s.path_budget_ms
    if s.auth == "microsoft":
        folder = auth_dir(s.server_dir)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.chmod(0o700)
        keep_private(folder)  # what the last attempt wrote, joined or not
        options["profilesFolder"] = str(folder)
    return options


def keep_private(folder: Path) -> None:
    """The token cache's files to 0600 (prismarine-auth writes them with the umask's mode)."""
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.is_file() and path.stat().st_mode & 0o077:
            path.chmod(0o600)
