"""The LLM stand-ins as fixtures: a directory first on PATH for the ``pi`` script, and the
OpenAI-compatible loopback server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm_standins import OpenAIStandIn


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory first on PATH, for the stand-in ``pi``; pi's own directory
    (``PI_CODING_AGENT_DIR``, where it records) beside it."""
    path = tmp_path / "bin"
    path.mkdir()
    monkeypatch.setenv("PATH", f"{path}{os.pathsep}{os.environ['PATH']}")
    agent = tmp_path / "pi-agent"
    agent.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.delenv("PEPA_PI_SANDBOX", raising=False)
    return path


@pytest.fixture
def server() -> Iterator[OpenAIStandIn]:
    with OpenAIStandIn() as standin:
        yield standin
