"""``pepa propose``: real git in temporary repositories, stand-in LLM commands as small scripts."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from pepa.base.errors import ConfigError
from pepa.cli.commands import main
from pepa.cli.propose import (
    ApplyResult,
    ProposeError,
    age_text,
    apply_proposal,
    branch_name,
    build_prompt,
    command_words,
    conventions,
    find_approved,
    format_list,
    list_proposals,
    outcome_of,
    plan_commit,
    proposal_slug,
    proposal_title,
    secret_reason,
)
from pepa.daemon.config import resolve
from pepa.state.proposals import ProposalStore

pytestmark = pytest.mark.timeout(60)

PROPOSAL_ID = "20261130-015700-nav-goto-alice.md"
PROPOSAL = (
    "# Proposal: `nav.goto alice` keeps failing\n\n"
    "## Failures\n\n1. no path\n2. no path\n3. no path\n"
)
BRANCH = "feat/proposal-nav-goto-alice"
STASH = f"pepa-proposal-{PROPOSAL_ID}"

STANDINS = {
    "edit": """
pathlib.Path("pepa").mkdir(exist_ok=True)
pathlib.Path("pepa/fix.txt").write_text("fixed\\n")
readme = pathlib.Path("README.md")
readme.write_text(readme.read_text() + "more\\n")
print("stand-in: edited two files", flush=True)
""",
    "commit": """
pathlib.Path("fix.txt").write_text("fixed\\n")
subprocess.run(["git", "add", "fix.txt"], check=True)
subprocess.run(["git", "commit", "-q", "-m", "stand-in: own commit"], check=True)
""",
    "nothing": """
print("stand-in: nothing to do", flush=True)
""",
    "fail": """
pathlib.Path("docs").mkdir(exist_ok=True)
pathlib.Path("docs/half.txt").write_text("half done\\n")
sys.exit(3)
""",
    "litter": """
for name in (".env", "state/x", "ignored/cache", "pepa/new.py", "notes.txt"):
    pathlib.Path(name).parent.mkdir(exist_ok=True)
    pathlib.Path(name).write_text(f"{name}: MC_PASSWORD=hunter2\\n")
readme = pathlib.Path("README.md")
readme.write_text(readme.read_text() + "more\\n")
subprocess.run(["git", "add", "-f", ".env", "state/x"], check=True)  # staged: still not committed
""",
    "commit-secret": """
pathlib.Path("tests").mkdir(exist_ok=True)
pathlib.Path("tests/id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\\n")
subprocess.run(["git", "add", "tests/id_rsa"], check=True)
subprocess.run(["git", "commit", "-q", "-m", "stand-in: adds a key"], check=True)
""",
    "hang": """
signal.pause()  # hangs until pepa ends it
""",
    "interrupt": """
os.kill(os.getppid(), signal.SIGINT)  # as Ctrl-C in the terminal reaches pepa
signal.pause()
""",
    "switch": """
subprocess.run(["git", "checkout", "-q", "main"], check=True)
pathlib.Path("stray.txt").write_text("on main\\n")
""",
}
"""Bodies of the stand-in LLM commands; each first records what it saw."""

PREAMBLE = """\
import json, os, pathlib, signal, subprocess, sys, time
branch = subprocess.run(
    ["git", "symbolic-ref", "--short", "HEAD"], capture_output=True, text=True
).stdout.strip()
seen = {"prompt": sys.argv[-1], "cwd": os.getcwd(), "branch": branch, "pid": os.getpid(),
        "env": os.environ.get("PEPA_PROPOSAL_ID"), "environ": dict(os.environ)}
pathlib.Path(__file__).with_suffix(".seen.json").write_text(json.dumps(seen))
"""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No global git configuration, and no repository above ``tmp_path``."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("MC_HOST", "MC_PORT", "PEPA_STATE_DIR", "PEPA_DB_URL", "PEPA_PROPOSE_TIMEOUT"):
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


def standin(tmp_path: Path, kind: str, body: str = "") -> list[str]:
    """The command line of a stand-in LLM command (outside the repository)."""
    folder = tmp_path / "standins"
    folder.mkdir(exist_ok=True)
    script = folder / f"{kind}.py"
    script.write_text(PREAMBLE + (body or STANDINS[kind]))
    return [sys.executable, str(script)]


def seen(tmp_path: Path, kind: str) -> dict[str, object]:
    path = tmp_path / "standins" / f"{kind}.seen.json"
    return dict(json.loads(path.read_text())) if path.exists() else {}


def apply(tmp_path: Path, repo: Path, proposals: Path, kind: str, **kw: float) -> ApplyResult:
    return apply_proposal(
        proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
        command=standin(tmp_path, kind), timeout=kw.get("timeout", 30.0), say=lambda _: None,
    )  # fmt: skip


def assert_back_on_main_and_clean(repo: Path) -> None:
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git(repo, "status", "--porcelain") == ""


# -- apply --------------------------------------------------------------------------


def test_an_edit_becomes_one_commit_on_the_branch_and_the_tree_returns_to_main(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    main_before = git(repo, "rev-parse", "main")
    result = apply(tmp_path, repo, proposals, "edit")
    assert (result.outcome, result.branch, result.base, result.commits) == (
        "applied", BRANCH, "main", 1,
    )  # fmt: skip
    assert git(repo, "log", "-1", "--format=%s", BRANCH).strip() == (
        "proposal nav-goto-alice: Proposal: `nav.goto alice` keeps failing"
    )
    assert git(repo, "show", f"{BRANCH}:pepa/fix.txt") == "fixed\n"
    diff = subprocess.run(
        ["git", "diff", f"main..{BRANCH}"], cwd=repo, capture_output=True, check=True
    ).stdout
    assert result.diff_hash == hashlib.sha256(diff).hexdigest()
    assert_back_on_main_and_clean(repo)
    assert git(repo, "rev-parse", "main") == main_before  # never merged
    assert not (repo / "pepa" / "fix.txt").exists()
    saw = seen(tmp_path, "edit")
    assert (saw["cwd"], saw["branch"], saw["env"]) == (str(repo), BRANCH, PROPOSAL_ID)
    prompt = str(saw["prompt"])
    assert "Indent with four spaces" in prompt  # the repository's AGENTS.md
    assert "never push" in prompt.lower()
    assert PROPOSAL in prompt


def test_commits_made_by_the_command_are_kept_as_they_are(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    result = apply(tmp_path, repo, proposals, "commit")
    assert (result.outcome, result.commits) == ("applied", 1)
    assert git(repo, "log", "-1", "--format=%s", BRANCH).strip() == "stand-in: own commit"
    assert_back_on_main_and_clean(repo)


def test_a_command_that_changes_nothing_is_no_change_and_leaves_no_branch(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    result = apply(tmp_path, repo, proposals, "nothing")
    assert (result.outcome, result.commits, result.diff_hash) == ("no-change", 0, "")
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert_back_on_main_and_clean(repo)


def test_a_failing_command_keeps_its_work_on_the_branch_and_the_tree_returns_clean(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    result = apply(tmp_path, repo, proposals, "fail")
    assert result.outcome == "failed"
    assert result.detail == "exit code 3"
    assert git(repo, "show", f"{BRANCH}:docs/half.txt") == "half done\n"
    assert "(failed: exit code 3)" in git(repo, "log", "-1", "--format=%s", BRANCH)
    assert_back_on_main_and_clean(repo)
    assert not (repo / "docs" / "half.txt").exists()


def test_a_hanging_command_is_ended_after_the_timeout(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    started = time.monotonic()
    result = apply(tmp_path, repo, proposals, "hang", timeout=2.0)
    assert time.monotonic() - started < 20
    assert (result.outcome, result.detail) == ("failed", "timed out after 2 s")
    pid = seen(tmp_path, "hang")["pid"]
    assert isinstance(pid, int)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert git(repo, "branch", "--list", BRANCH).strip()  # kept, even empty
    assert_back_on_main_and_clean(repo)


def test_ctrl_c_ends_the_command_and_still_returns_to_main(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    result = apply(tmp_path, repo, proposals, "interrupt")
    assert (result.outcome, result.detail) == ("failed", "interrupted")
    pid = seen(tmp_path, "interrupt")["pid"]
    assert isinstance(pid, int)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert_back_on_main_and_clean(repo)


def test_a_command_that_leaves_the_branch_fails(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    result = apply(tmp_path, repo, proposals, "switch")
    assert result.outcome == "failed"
    assert "left the branch" in result.detail
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"


def test_a_commit_refused_by_a_hook_fails_but_the_work_is_kept(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint says no' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = apply(tmp_path, repo, proposals, "edit")
    assert result.outcome == "failed"
    assert result.detail == "git commit failed: lint says no"
    assert git(repo, "show", f"{BRANCH}:pepa/fix.txt") == "fixed\n"
    assert_back_on_main_and_clean(repo)


def test_without_a_git_identity_pepa_commits_as_itself(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "--unset", "user.email")
    result = apply(tmp_path, repo, proposals, "edit")
    assert result.outcome == "applied"
    assert git(repo, "log", "-1", "--format=%an <%ae>", BRANCH).strip() == "pepa <pepa@localhost>"


def test_a_detached_head_is_restored_as_it_was(tmp_path: Path, repo: Path, proposals: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach", head)
    result = apply(tmp_path, repo, proposals, "edit")
    assert (result.outcome, result.base) == ("applied", head)
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert subprocess.run(["git", "symbolic-ref", "-q", "HEAD"], cwd=repo).returncode == 1


# -- what is committed: never git add -A -------------------------------------------------

SECRET_ENV = {
    "MC_PASSWORD": "hunter2-authme", "PEPA_DB_URL": "postgresql://u:db-secret@h/d",
    "OPENAI_API_KEY": "sk-openai-secret", "PEPA_WORKER_CONFIG": '{"password": "hunter2"}',
    "OPERATOR_USERNAMES": "alice",
}  # fmt: skip


def test_only_tracked_changes_and_new_files_under_the_code_folders_are_committed(
    tmp_path: Path, repo: Path, proposals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRET_ENV.items():
        monkeypatch.setenv(name, value)
    (repo / ".gitignore").write_text("ignored/\n.env\nstate/\n")
    git(repo, "commit", "-q", "-am", "ignore secrets")
    said: list[str] = []
    result = apply_proposal(
        proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
        command=standin(tmp_path, "litter"), timeout=30.0, say=said.append,
    )  # fmt: skip
    assert (result.outcome, result.commits, result.left_out) == ("applied", 1, ("notes.txt",))
    committed = git(repo, "show", "--name-only", "--format=", BRANCH).split()
    assert sorted(committed) == ["README.md", "pepa/new.py"]
    assert git(repo, "status", "--porcelain") == "?? notes.txt\n"  # left, and said so
    assert any("left uncommitted" in line and "notes.txt" in line for line in said)
    assert (repo / ".env").exists() and (repo / "state" / "x").exists()  # never staged
    environ = seen(tmp_path, "litter")["environ"]
    assert isinstance(environ, dict)
    assert not set(environ) & set(SECRET_ENV)  # the command has its tools, not pepa's secrets
    assert environ["PEPA_PROPOSAL_ID"] == PROPOSAL_ID


@pytest.mark.parametrize("secret", ["config/prod.pem", ".env", "pepa/credentials.json", "state/x"])
def test_a_secret_file_git_does_not_ignore_refuses_the_whole_commit(
    tmp_path: Path, repo: Path, proposals: Path, secret: str
) -> None:
    body = (
        f"pathlib.Path({secret!r}).parent.mkdir(parents=True, exist_ok=True)\n"
        f"pathlib.Path({secret!r}).write_text('not for git\\n')\n"
        "pathlib.Path('pepa').mkdir(exist_ok=True)\n"
        "pathlib.Path('pepa/fix.py').write_text('x = 1\\n')\n"
        "pathlib.Path('README.md').write_text('changed\\n')\n"
    )
    main_before = git(repo, "rev-parse", "main")
    with pytest.raises(ProposeError) as info:
        apply_proposal(
            proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
            command=standin(tmp_path, "secret", body), timeout=30.0, say=lambda _: None,
        )  # fmt: skip
    message = str(info.value)
    assert "\n" not in message and repr(secret) in message and "looks like a secret" in message
    assert "nothing was committed" in message
    assert f"the command's changes are stashed as {STASH}" in message
    assert git(repo, "branch", "--list", BRANCH) == ""  # nothing on it: gone, a retry may run
    assert git(repo, "rev-parse", "main") == main_before
    assert_back_on_main_and_clean(repo)  # none of the command's changes came along to main
    assert not (repo / secret).exists() and not (repo / "pepa" / "fix.py").exists()
    assert (repo / "README.md").read_text() == "# demo\n"
    assert git(repo, "stash", "list", "--format=%gs").strip().endswith(STASH)
    git(repo, "stash", "pop", "-q")  # kept for a person: everything the command left
    assert (repo / secret).read_text() == "not for git\n"
    assert (repo / "pepa" / "fix.py").exists() and (repo / "README.md").read_text() == "changed\n"


def test_a_secret_the_command_committed_itself_is_refused_and_its_branch_kept(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    with pytest.raises(ProposeError, match=r"the command committed 'tests/id_rsa'") as info:
        apply(tmp_path, repo, proposals, "commit-secret")
    assert "\n" not in str(info.value) and f"git branch -D {BRANCH}" in str(info.value)
    assert git(repo, "log", "-1", "--format=%s", BRANCH).strip() == "stand-in: adds a key"
    assert_back_on_main_and_clean(repo)


def test_a_secret_committed_beside_uncommitted_changes_leaves_main_clean_and_stashes_them(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    body = STANDINS["commit-secret"] + "pathlib.Path('notes.txt').write_text('draft\\n')\n"
    with pytest.raises(ProposeError, match=r"the command committed 'tests/id_rsa'") as info:
        apply_proposal(
            proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
            command=standin(tmp_path, "commit-secret-and-more", body), timeout=30.0,
            say=lambda _: None,
        )  # fmt: skip
    assert "\n" not in str(info.value) and f"stashed as {STASH}" in str(info.value)
    assert_back_on_main_and_clean(repo)
    assert not (repo / "notes.txt").exists()


def test_pepas_own_checkout_ignores_env_files() -> None:
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    names = [".env", ".env.local", "deploy/.env", ".env.example"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--verbose", "--non-matching", *names],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    ignored = {}  # "<source>:<line>:<pattern>\t<path>"; no source: no match; "!": re-included
    for line in done.stdout.splitlines():
        rule, path = line.split("\t")
        ignored[path] = bool(rule.split(":")[0]) and not rule.split(":", 2)[2].startswith("!")
    assert ignored == {".env": True, ".env.local": True, "deploy/.env": True, ".env.example": False}


def test_secret_names_and_the_commit_plan() -> None:
    for path in (
        ".env", "config/.env.production", "deploy/prod.env", "id_rsa", "keys/id_ed25519",
        "server.pem", "tls/server.key", "credentials.json", "pepa/Credentials", ".netrc",
        "state/127.0.0.1_25565/knowledge.db", "certs/store.p12",
    ):  # fmt: skip
        assert secret_reason(path), path
    for path in (
        ".env.example", "id_rsa.pub", "pepa/llm/_isolation.py", "docs/security.md",
        "tests/state_files.py", "pepa/daemon/statedir.py", "keyboard.py", "environment.md",
    ):  # fmt: skip
        assert not secret_reason(path), path
    plan = plan_commit(
        ["README.md", "pepa/cli/main.py"],
        ["pepa/new.py", "skills/x.py", "tests/t.py", "docs/d.md", "notes.txt", "pepa.py"],
    )
    assert plan.paths == (
        "README.md", "pepa/cli/main.py", "pepa/new.py", "skills/x.py", "tests/t.py", "docs/d.md",
    )  # fmt: skip
    assert (plan.left_out, plan.secrets) == (("notes.txt", "pepa.py"), ())
    assert plan_commit(["config/prod.pem"], ["x/.env"]).secrets == ("config/prod.pem", "x/.env")


# -- refusals ------------------------------------------------------------------------


def test_a_dirty_work_tree_is_refused_naming_up_to_five_paths(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    (repo / "README.md").write_text("changed\n")
    for n in range(6):
        (repo / f"new{n}.txt").write_text("x")
    (repo / "ignored").mkdir()
    (repo / "ignored" / "cache").write_text("ignored files do not count")
    with pytest.raises(ProposeError, match=r"not clean \(README\.md, .* and 2 more\)") as info:
        apply(tmp_path, repo, proposals, "edit")
    assert "\n" not in str(info.value)
    assert seen(tmp_path, "edit") == {}
    assert git(repo, "branch", "--list", BRANCH) == ""


def test_an_existing_branch_is_refused(tmp_path: Path, repo: Path, proposals: Path) -> None:
    git(repo, "branch", BRANCH)
    with pytest.raises(ProposeError, match="already exists"):
        apply(tmp_path, repo, proposals, "edit")
    assert seen(tmp_path, "edit") == {}


def test_a_directory_that_is_not_a_git_repository_is_refused(
    tmp_path: Path, isolated_git: None, proposals: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(ProposeError, match="not a git repository"):
        apply(tmp_path, plain, proposals, "edit")


def test_a_command_not_on_path_is_refused_before_any_branch(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    with pytest.raises(ProposeError, match="not on PATH"):
        apply_proposal(
            proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
            command=["no-such-pi-here", "-p"], timeout=5.0,
        )  # fmt: skip
    assert git(repo, "branch", "--list", BRANCH) == ""


def test_only_approved_proposals_can_be_applied(tmp_path: Path) -> None:
    store = ProposalStore(tmp_path / "proposals")
    for name in ("20260101-000000-a.md", "20260101-000000-b.md"):
        store.write(name, "# x\n")
    store.decide("20260101-000000-b.md", "reject")
    with pytest.raises(ProposeError, match="pending: approve it first"):
        find_approved(store.folder, "20260101-000000-a.md")
    with pytest.raises(ProposeError, match="was rejected"):
        find_approved(store.folder, "20260101-000000-b.md")
    with pytest.raises(ProposeError, match="no approved proposal"):
        find_approved(store.folder, "nothing.md")
    store.decide("20260101-000000-a.md", "approve")
    path = find_approved(store.folder, str(store.folder / "approved" / "20260101-000000-a.md"))
    assert path == store.folder / "approved" / "20260101-000000-a.md"


def test_a_symlinked_approved_proposal_is_refused_and_never_read(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    # an approved proposal that points at a private file must never reach the LLM's prompt
    private = tmp_path / "private.txt"
    private.write_text("# secret\nMC_PASSWORD=hunter2\n")
    link = proposals / "approved" / PROPOSAL_ID
    link.unlink()
    link.symlink_to(private)
    with pytest.raises(ProposeError, match="symbolic link"):
        apply(tmp_path, repo, proposals, "edit")
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert not seen(tmp_path, "edit")
    assert [info.id for info in list_proposals(proposals)] == []


# -- the command line ----------------------------------------------------------------


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


# -- the pure half ------------------------------------------------------------------------


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
