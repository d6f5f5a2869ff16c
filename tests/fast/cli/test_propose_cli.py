"""``pepa propose`` from the command line (apply and list, against real git and a real SQLite
file), and the pure half: slugs, titles, outcomes, the prompt, the settings."""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from pepa.base.errors import ConfigError
from pepa.cli.commands import main
from pepa.cli.propose import (
    age_text,
    branch_name,
    build_prompt,
    command_words,
    conventions,
    format_list,
    list_proposals,
    outcome_of,
    proposal_slug,
    proposal_title,
)
from pepa.daemon.config import resolve
from pepa.state.proposals import ProposalStore
from tests.propose_repo import (
    BRANCH,
    PROPOSAL,
    PROPOSAL_ID,
    STASH,
    assert_back_on_main_and_clean,
    git,
    standin,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_git: None) -> Iterator[None]:
    """The CLI runs in ``tmp_path``: no stray .env, and ``--state-dir state`` is relative."""
    monkeypatch.chdir(tmp_path)
    yield


@pytest.mark.parametrize(
    ("kind", "code", "outcome", "says"), [
        ("edit", 0, "applied", "pepa: applied: 1 commit(s) on " + BRANCH),
        ("fail", 1, "failed", "pepa: failed (exit code 3); " + BRANCH + " is kept"),
        ("nothing", 1, "no-change", "pepa: no change"),
    ],
)  # fmt: skip
def test_cli_apply_records_the_outcome_in_code_changes(
    tmp_path: Path, repo: Path, proposals: Path, cli_env: None,
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
    kind: str, code: int, outcome: str, says: str,
) -> None:  # fmt: skip
    monkeypatch.setenv("PEPA_PROPOSE_COMMAND", shlex.join(standin(tmp_path, kind)))
    argv = ["propose", "apply", PROPOSAL_ID, "--state-dir", "state", "--repo", str(repo)]
    assert main(argv) == code
    out, err = capfd.readouterr()
    assert f"on new branch {BRANCH} from main" in out
    assert says in out + err
    db = tmp_path / "state" / "127.0.0.1_25565" / "knowledge.db"
    query = "SELECT proposal, branch, outcome, diff_hash FROM code_changes"
    with closing(sqlite3.connect(db)) as con:
        rows = con.execute(query).fetchall()
    assert len(rows) == 1
    assert rows[0][:3] == (PROPOSAL_ID, BRANCH, outcome)
    assert bool(rows[0][3]) == (outcome != "no-change")
    assert_back_on_main_and_clean(repo)


def test_cli_refusal_is_one_line_and_records_nothing(
    tmp_path: Path, repo: Path, proposals: Path, cli_env: None,
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("PEPA_PROPOSE_COMMAND", shlex.join(standin(tmp_path, "edit")))
    (repo / "wip.py").write_text("x = 1\n")
    state = str(tmp_path / "state")
    assert main(["propose", "apply", PROPOSAL_ID, "--state-dir", state, "--repo", str(repo)]) == 1
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("pepa: error: the work tree of") and "(wip.py)" in err
    assert not (tmp_path / "state" / "127.0.0.1_25565" / "knowledge.db").exists()


def test_cli_secret_refusal_is_one_line_and_records_nothing(
    tmp_path: Path, repo: Path, proposals: Path, cli_env: None,
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    body = "pathlib.Path('.env').write_text('MC_PASSWORD=hunter2\\n')\n"
    monkeypatch.setenv("PEPA_PROPOSE_COMMAND", shlex.join(standin(tmp_path, "env", body)))
    state = str(tmp_path / "state")
    assert main(["propose", "apply", PROPOSAL_ID, "--state-dir", state, "--repo", str(repo)]) == 1
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("pepa: error: refused to commit '.env', which looks like a secret")
    assert err.rstrip().endswith(f"stashed as {STASH} (git stash list; git stash pop)")
    assert not (tmp_path / "state" / "127.0.0.1_25565" / "knowledge.db").exists()
    assert git(repo, "log", "--branches", "--format=%s").splitlines() == ["start"]
    assert_back_on_main_and_clean(repo)


def test_cli_list_shows_pending_and_approved_with_title_and_age(
    tmp_path: Path, repo: Path, proposals: Path, cli_env: None,
    capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    store = ProposalStore(proposals)
    store.write("20261201-000000-eat.md", "Created by hand\n\n# Eat earlier\n")
    store.write("20261201-000001-gone.md", "# Rejected one\n")
    store.decide("20261201-000001-gone.md", "reject")
    git(repo, "branch", BRANCH)  # as if applied
    state = str(tmp_path / "state")
    assert main(["propose", "list", "--state-dir", state, "--repo", str(repo)]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("pending  20261201-000000-eat.md")
    assert lines[0].endswith("Eat earlier")
    assert lines[1].startswith(f"approved {PROPOSAL_ID}")
    assert lines[1].endswith(f"Proposal: `nav.goto alice` keeps failing  [{BRANCH}]")
    assert " 0s " in lines[0] or " 1s " in lines[0]


def test_cli_list_of_an_empty_server_says_so(
    tmp_path: Path, cli_env: None, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["propose", "list", "--state-dir", str(tmp_path / "none")]) == 0
    assert capfd.readouterr().out == "no pending or approved proposals\n"


def test_slug_and_branch_drop_the_time_stamp() -> None:
    assert proposal_slug(PROPOSAL_ID) == "nav-goto-alice"
    assert proposal_slug("20261130-0157-eat-at-14.md") == "eat-at-14"
    assert proposal_slug("Odd Name!.md") == "odd-name"
    assert proposal_slug("20261130-015700-.md") == "proposal"
    assert branch_name(PROPOSAL_ID) == BRANCH


def test_title_is_the_first_heading() -> None:
    assert proposal_title(PROPOSAL, "x") == "Proposal: `nav.goto alice` keeps failing"
    assert proposal_title("plain first line\nmore", "x") == "plain first line"
    assert proposal_title("", "fallback.md") == "fallback.md"


def test_outcomes() -> None:
    assert outcome_of(failed=False, changed=True) == "applied"
    assert outcome_of(failed=False, changed=False) == "no-change"
    assert outcome_of(failed=True, changed=True) == "failed"


def test_ages() -> None:
    assert [age_text(s) for s in (-3, 5, 61, 7200, 3 * 86400)] == ["0s", "5s", "1m", "2h", "3d"]


def test_the_default_command_is_pi_with_p() -> None:
    assert command_words("", "pi --model small") == ["pi", "--model", "small", "-p"]
    assert command_words("claude -p", "pi") == ["claude", "-p"]


def test_conventions_fall_back_to_a_built_in_text_and_list_the_docs(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "architecture.md").write_text("# map\n")
    text = conventions(tmp_path)
    assert "Add or adjust a test" in text
    assert "docs/architecture.md" in text
    (tmp_path / "CONTRIBUTING.md").write_text("Sign your commits.\n")
    assert "Sign your commits." in conventions(tmp_path)
    assert "Add or adjust a test" not in conventions(tmp_path)


def test_the_prompt_is_capped_below_the_argument_limit() -> None:
    prompt = build_prompt(
        proposal_id=PROPOSAL_ID, markdown="# big\n" + "é" * 200_000, branch=BRANCH, base="main",
        conventions="c",
    )  # fmt: skip
    assert len(prompt.encode()) < 128 * 1024


def test_list_reads_pending_then_approved_and_skips_rejected(tmp_path: Path) -> None:
    store = ProposalStore(tmp_path)
    for name in ("20260101-000000-a.md", "20260101-000001-b.md", "20260101-000002-c.md"):
        store.write(name, f"# {name[-4]}\n")
    store.decide("20260101-000000-a.md", "approve")
    store.decide("20260101-000002-c.md", "reject")
    infos = list_proposals(tmp_path)
    assert [(i.status, i.id, i.title) for i in infos] == [
        ("pending", "20260101-000001-b.md", "b"), ("approved", "20260101-000000-a.md", "a"),
    ]  # fmt: skip
    text = format_list(infos, now=infos[0].created + 90, branches=set())
    assert text.splitlines()[0] == "pending  20260101-000001-b.md    1m  b"


def test_propose_settings_come_from_the_environment() -> None:
    config = resolve({}, {"PEPA_PROPOSE_COMMAND": "pi --x -p", "PEPA_PROPOSE_TIMEOUT": "60"}, {})
    assert (config.propose_command, config.propose_timeout) == ("pi --x -p", 60.0)
    assert resolve({}, {}, {}).propose_timeout == 1800.0
    with pytest.raises(ConfigError, match="PEPA_PROPOSE_TIMEOUT"):
        resolve({}, {"PEPA_PROPOSE_TIMEOUT": "soon"}, {})
    with pytest.raises(ConfigError, match="out of range"):
        resolve({}, {"PEPA_PROPOSE_TIMEOUT": "0"}, {})
