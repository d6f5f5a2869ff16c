"""The Node compile cache: a private folder of the user's cache."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pepa.base.node import compile_cache_env

pytestmark = pytest.mark.timeout(60)


def test_the_cache_is_a_private_folder_of_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "pepa" / "node-compile-cache"
    assert compile_cache_env() == {"NODE_COMPILE_CACHE": str(folder)}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    folder.chmod(0o777)  # opened up since: closed again
    assert compile_cache_env() == {"NODE_COMPILE_CACHE": str(folder)}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_cache_folder_that_is_a_link_or_not_a_folder_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "pepa").mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "pepa" / "node-compile-cache").symlink_to(elsewhere)
    assert compile_cache_env() == {}  # Node then compiles as before
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("")
    assert compile_cache_env() == {}
