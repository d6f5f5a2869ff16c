"""``pepa propose apply``: real git in temporary repositories, stand-in LLM commands as small
scripts; what is committed (never ``git add -A``) and what is refused."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pepa.base.node import REPO_ROOT
from pepa.cli.propose import (
    ApplyResult,
    ProposeError,
    apply_proposal,
    find_approved,
    list_proposals,
    plan_commit,
    secret_reason,
)
from pepa.state.proposals import ProposalStore
from tests.propose_repo import (
    BRANCH,
    PROPOSAL,
    PROPOSAL_ID,
    STANDINS,
    STASH,
    assert_back_on_main_and_clean,
    git,
    running,
    seen,
    standin,
)
from tests.waiting import eventually

pytestmark = pytest.mark.timeout(60)


def apply(tmp_path: Path, repo: Path, proposals: Path, kind: str, **kw: float) -> ApplyResult:
    return apply_proposal(
        proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
        command=standin(tmp_path, kind), timeout=kw.get("timeout", 30.0), say=lambda _: None,
    )  # fmt: skip


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
    assert seen(tmp_path, "hang")  # it ran, and nothing of it runs now
    assert running(tmp_path / "standins" / "hang.py") == []
    assert git(repo, "branch", "--list", BRANCH).strip()  # kept, even empty
    assert_back_on_main_and_clean(repo)


def test_ctrl_c_ends_the_command_and_still_returns_to_main(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    def press_ctrl_c() -> None:  # once the command runs, as Ctrl-C in the terminal reaches pepa
        eventually(lambda: seen(tmp_path, "interrupt"), 20, "the stand-in started")
        os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press_ctrl_c, name="test-ctrl-c")
    presser.start()
    result = apply(tmp_path, repo, proposals, "interrupt")
    presser.join(5)
    assert (result.outcome, result.detail) == ("failed", "interrupted")
    assert running(tmp_path / "standins" / "interrupt.py") == []
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
    root = REPO_ROOT
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
