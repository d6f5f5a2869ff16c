"""The Node compile cache: the embedded world fills it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pepa.worldserver.process import EmbeddedWorld, free_port

pytestmark = pytest.mark.timeout(60)


@pytest.mark.integration
def test_the_world_keeps_its_compiled_code_in_the_cache(
    short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(short_tmp / "cache"))
    with EmbeddedWorld(short_tmp / "world", port=free_port()):
        pass  # Node writes the cache as it exits
    folder = short_tmp / "cache" / "pepa" / "node-compile-cache"
    written = [p for p in folder.rglob("*") if p.is_file()]
    assert written, f"nothing in {folder}"
    assert all(os.stat(p).st_uid == os.geteuid() for p in written)
