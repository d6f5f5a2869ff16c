"""A git repository and a proposals folder of the test's own, with git's settings isolated."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.state.proposals import ProposalStore
from tests.propose_repo import PROPOSAL, PROPOSAL_ID, agent_dir, git


@pytest.fixture
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No global git configuration, no repository above ``tmp_path``, and pi's own directory
    (where the stand-ins record) in ``tmp_path``."""
    agent_dir(tmp_path).mkdir(exist_ok=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent_dir(tmp_path)))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in (
        "MC_HOST", "MC_PORT", "PEPA_STATE_DIR", "PEPA_DB_URL", "PEPA_PROPOSE_TIMEOUT",
        "PEPA_PI_SANDBOX",
    ):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path, isolated_git: None) -> Path:
    """A git repository on ``main`` with one commit and an AGENTS.md."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Tester")
    git(root, "config", "user.email", "tester@example.org")
    (root / "README.md").write_text("# demo\n")
    (root / "AGENTS.md").write_text("Indent with four spaces. Tests first.\n")
    (root / ".gitignore").write_text("ignored/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


@pytest.fixture
def proposals(tmp_path: Path) -> Path:
    """The proposals folder of the embedded world's server, one approved proposal in it."""
    store = ProposalStore(tmp_path / "state" / "127.0.0.1_25565" / "proposals")
    store.write(PROPOSAL_ID, PROPOSAL)
    store.decide(PROPOSAL_ID, "approve")
    return store.folder
