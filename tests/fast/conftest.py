"""The fast tier: no server, no PostgreSQL. ``store`` is a knowledge store on a SQLite file
(the store's cases, ``tests/store_cases.py``; the integration tier runs them on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pepa.state.knowledge import KnowledgeStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[KnowledgeStore]:
    """The knowledge store on a SQLite file of the test's own."""
    s = KnowledgeStore(tmp_path / "knowledge.db").open()
    yield s
    s.close()
