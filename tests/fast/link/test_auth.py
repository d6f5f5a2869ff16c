"""Signing in: offline names and Microsoft accounts (mineflayer's own, through prismarine-auth).

No Microsoft service is reachable here, so what can be proved is proved: the settings reach
``createBot``, the token cache is private, the device-code prompt is one clear line. The
online-mode server that refuses an offline bot: tests/integration/link/test_auth.py.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pepa.base.errors import ConfigError
from pepa.daemon.config import resolve
from pepa.link.login import LinkSettings, auth_dir, bot_options, keep_private, refused

pytestmark = pytest.mark.timeout(60)


def settings(tmp_path: Path, **more: str) -> LinkSettings:
    return LinkSettings(host="play.example", port=25565, username="pepa_bot",
                        server_dir=tmp_path / "play.example_25565", **more)  # type: ignore[arg-type]  # fmt: skip


def test_the_auth_setting_is_offline_or_microsoft() -> None:
    assert resolve({}, {}, {}).auth == "offline"
    assert resolve({"auth": "Microsoft"}, {}, {}).auth == "microsoft"
    assert resolve({}, {"MC_AUTH": "microsoft"}, {}).auth == "microsoft"
    with pytest.raises(ConfigError, match="MC_AUTH 'mojang' is not one of offline, microsoft"):
        resolve({"auth": "mojang"}, {}, {})


def test_the_settings_reach_create_bot_and_the_token_cache_is_private(tmp_path: Path) -> None:
    offline = bot_options(settings(tmp_path))
    assert offline["auth"] == "offline" and "profilesFolder" not in offline
    assert not auth_dir(tmp_path / "play.example_25565").exists()
    online = bot_options(settings(tmp_path, auth="microsoft", chat_pattern="(?<name>x)(?<text>y)"))
    folder = Path(online["profilesFolder"])
    assert online["auth"] == "microsoft" and online["chatPattern"] == "(?<name>x)(?<text>y)"
    assert folder == tmp_path / "play.example_25565" / "auth"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    token = folder / "abc123_mca-cache.json"  # as prismarine-auth names its files
    token.write_text("{}")
    token.chmod(0o644)
    keep_private(folder)
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    token.chmod(0o644)  # written by an attempt that never joined: the next attempt's options
    bot_options(settings(tmp_path, auth="microsoft"))
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    assert "password" not in online  # AuthMe's password is typed by Python, never sent to JS


@pytest.mark.parametrize(
    ("reason", "account"),
    [
        ('{"text":"Failed to verify username!"}', True),  # vanilla, flying-squid
        ('{"translate":"multiplayer.disconnect.unverified_username"}', True),
        ("You are not logged into Minecraft account. Invalid session.", True),
        ('{"text":"Server closed"}', False),
        ("You logged in from another location", False),
        ('{"text":"Failed to verify username! Try again"}', True),
        ("Authentication servers are down. Please try again later, sorry!", False),  # an outage
    ],
)
def test_a_kick_that_refuses_the_account_is_told_from_one_of_the_moment(
    reason: str, account: bool
) -> None:
    assert refused(reason) is account
