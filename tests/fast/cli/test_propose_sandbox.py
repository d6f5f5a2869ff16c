"""``pepa propose apply`` runs its command in a bubblewrap sandbox and watches git's own files
(docs/proposals.md, "The sandbox"): stand-in commands try to read ``.env``, the token cache
and the fleet's password, to set ``core.hooksPath`` and to plant a hook; real git, real bwrap."""

from __future__ import annotations

import json
import logging
import shlex
import shutil
import stat
from pathlib import Path

import pytest

from pepa.cli.commands import main
from pepa.cli.propose import ApplyResult, Git, ProposeError, apply_proposal, find_approved
from pepa.cli.propose.guard import GitGuard, snapshot
from pepa.state.proposals import ProposalStore
from tests.propose_repo import (
    BRANCH,
    PROPOSAL,
    PROPOSAL_ID,
    STASH,
    agent_dir,
    assert_back_on_main_and_clean,
    git,
    seen,
    standin,
)

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]

MARKERS = {
    ".env": "ENV-MARKER-4c1d",
    "state/127.0.0.1_25565/auth/msal-cache.json": "TOKEN-MARKER-9e2a",
    "state/127.0.0.1_25565/postgres/roles.json": "PG-PASSWORD-MARKER-77b0",
}
"""Secrets in the checkout (all ignored by git), relative to it."""
HOME_MARKER = "HOME-MARKER-31f5"

READ = f"""
got = {{}}
for name in {sorted(MARKERS)!r}:
    try:
        got[name] = pathlib.Path(name).read_text()
    except OSError as exc:
        got[name] = "unreadable: " + exc.strerror
got["home"] = sorted(os.listdir(os.environ["HOME"]))
got["proposal"] = pathlib.Path(os.environ["PEPA_PROPOSAL"]).read_text()
got["readme"] = pathlib.Path("README.md").read_text()
record.with_suffix(".got.json").write_text(json.dumps(got))
"""
"""A stand-in that reads each secret, lists HOME, reads the proposal and the README."""

TAMPER = """
tried = {}
done = subprocess.run(["git", "config", "core.hooksPath", "/tmp/elsewhere"], capture_output=True)
tried["config"] = done.returncode
hook = pathlib.Path(".git/hooks/post-checkout")
try:
    hook.write_text("#!/bin/sh\\necho planted\\n")
    hook.chmod(0o755)
    tried["hook"] = "written"
except OSError as exc:
    tried["hook"] = exc.strerror
record.with_suffix(".tried.json").write_text(json.dumps(tried))
readme = pathlib.Path("README.md")
readme.write_text(readme.read_text() + "more\\n")
"""
"""A stand-in steered by a proposal: sets core.hooksPath, plants a hook, edits the README."""


@pytest.fixture
def checkout(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``repo`` as pepa's checkout and the CLI's working directory: ``.env`` and ``state/``
    (ignored) planted with markers, the approved proposal under ``state/``; HOME with a
    marker. Returns the proposals folder."""
    (repo / ".gitignore").write_text("ignored/\n.env\nstate/\n")
    git(repo, "commit", "-q", "-am", "ignore secrets")
    for name, marker in MARKERS.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(marker + "\n")
    store = ProposalStore(repo / "state" / "127.0.0.1_25565" / "proposals")
    store.write(PROPOSAL_ID, PROPOSAL)
    store.decide(PROPOSAL_ID, "approve")
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text(HOME_MARKER + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(repo)
    return store.folder


def apply(tmp_path: Path, repo: Path, proposals: Path, kind: str, body: str) -> ApplyResult:
    return apply_proposal(
        proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
        command=standin(tmp_path, kind, body), timeout=30.0, say=lambda _: None,
    )  # fmt: skip


def folder_with(path: Path, **files: str) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def recorded(tmp_path: Path, name: str) -> dict[str, object]:
    return dict(json.loads((agent_dir(tmp_path) / name).read_text()))


def test_the_apply_command_reads_no_secret_of_the_checkout(
    tmp_path: Path, repo: Path, checkout: Path
) -> None:
    apply(tmp_path, repo, checkout, "read", READ)
    got = recorded(tmp_path, "read.got.json")
    for name, marker in MARKERS.items():
        assert marker not in str(got[name]), f"the command read {name}"
    assert got["home"] == []  # an empty HOME
    assert got["proposal"] == PROPOSAL  # the proposal itself stays readable
    assert got["readme"] == "# demo\n"  # and the work tree, of course
    assert_back_on_main_and_clean(repo)


def test_without_the_sandbox_the_same_command_reads_them(
    tmp_path: Path, repo: Path, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the check above is not vacuous: unconfined, the stand-in reads every marker
    monkeypatch.setenv("PEPA_PI_SANDBOX", "off")
    apply(tmp_path, repo, checkout, "read", READ)
    got = recorded(tmp_path, "read.got.json")
    for name, marker in MARKERS.items():
        assert marker in str(got[name])
    assert got["home"] == ["notes.txt"]


def test_in_the_sandbox_git_config_and_hooks_cannot_be_written(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    config = (repo / ".git" / "config").read_bytes()
    result = apply(tmp_path, repo, proposals, "tamper", TAMPER)
    tried = recorded(tmp_path, "tamper.tried.json")
    assert tried["config"] != 0 and tried["hook"] == "Read-only file system"
    assert (repo / ".git" / "config").read_bytes() == config
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert (result.outcome, result.commits) == ("applied", 1)  # the README change, nothing else
    assert_back_on_main_and_clean(repo)


def test_a_changed_git_config_or_hook_is_restored_and_refused(
    tmp_path: Path, repo: Path, proposals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PEPA_PI_SANDBOX", "off")  # no read-only bind: the snapshot check's turn
    config = (repo / ".git" / "config").read_bytes()
    hooks = snapshot([repo / ".git" / "hooks"])
    main_before = git(repo, "rev-parse", "main")
    with pytest.raises(ProposeError) as info:
        apply(tmp_path, repo, proposals, "tamper", TAMPER)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("the command altered git's own files (.git/config changed, ")
    assert ".git/hooks/post-checkout added" in message
    assert "restored as before the run and nothing is committed" in message
    assert recorded(tmp_path, "tamper.tried.json") == {"config": 0, "hook": "written"}
    assert (repo / ".git" / "config").read_bytes() == config
    assert snapshot([repo / ".git" / "hooks"]) == hooks
    assert git(repo, "branch", "--list", BRANCH) == ""  # nothing on it: gone
    assert git(repo, "rev-parse", "main") == main_before
    assert_back_on_main_and_clean(repo)
    assert f"stashed as {STASH}" in message  # its README change, set aside for a person
    assert git(repo, "log", "--branches", "--format=%s").splitlines() == ["start"]


def test_in_the_sandbox_a_new_commondir_is_caught_by_the_snapshot(
    tmp_path: Path, repo: Path, proposals: Path
) -> None:
    # .git itself is writable (objects, refs): a file git would follow is caught afterwards
    body = "pathlib.Path('.git/commondir').write_text('../elsewhere\\n')\n"
    with pytest.raises(ProposeError, match=r"\(\.git/commondir added\)"):
        apply(tmp_path, repo, proposals, "commondir", body)
    assert not (repo / ".git" / "commondir").exists()
    assert_back_on_main_and_clean(repo)


def test_the_guard_puts_back_config_hooks_and_attributes_exactly(
    tmp_path: Path, repo: Path
) -> None:
    dotgit = repo / ".git"
    sample = dotgit / "hooks" / "keep"
    sample.write_text("#!/bin/sh\nexit 0\n")
    sample.chmod(0o750)
    guard = GitGuard.of(Git.at(repo))
    before = snapshot(guard.paths)
    with (dotgit / "config").open("a") as config:
        config.write("[core]\n\tfsmonitor = /tmp/run-me\n")
    (dotgit / "hooks" / "pre-commit").write_text("#!/bin/sh\necho planted\n")
    sample.chmod(0o755)
    (dotgit / "info" / "attributes").write_text("* filter=run-me\n")
    said = guard.check()
    assert said == (
        ".git/config changed, .git/hooks/keep changed, .git/hooks/pre-commit added and 1 more"
    )
    assert snapshot(guard.paths) == before
    assert stat.S_IMODE(sample.stat().st_mode) == 0o750
    assert guard.check() == ""
    shutil.rmtree(dotgit / "hooks")  # a whole hooks folder swapped for a link elsewhere
    (tmp_path / "elsewhere").mkdir()
    (dotgit / "hooks").symlink_to(tmp_path / "elsewhere")
    said = guard.check()
    assert said.startswith(".git/hooks changed, ") and "removed" in said
    assert not (dotgit / "hooks").is_symlink() and snapshot(guard.paths) == before
    other = folder_with(tmp_path / "other", attributes="someone else's\n")
    shutil.rmtree(dotgit / "info")  # info swapped for a link: restored, never written through
    (dotgit / "info").symlink_to(other)
    assert guard.check().startswith(".git/info changed, ")
    assert (other / "attributes").read_text() == "someone else's\n"
    assert snapshot(guard.paths) == before


def test_without_bwrap_apply_is_refused_before_any_branch(
    tmp_path: Path, repo: Path, proposals: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PEPA_PI_SANDBOX", str(tmp_path / "no-bwrap"))
    with pytest.raises(ProposeError) as info:
        apply(tmp_path, repo, proposals, "edit", "")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("the apply command runs only in a sandbox")
    assert "(Debian: apt-get install bubblewrap)" in message and "PEPA_PI_SANDBOX=off" in message
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert seen(tmp_path, "edit") == {}


def test_without_bwrap_the_cli_says_so_in_one_line(
    tmp_path: Path, repo: Path, proposals: Path, monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PEPA_PI_SANDBOX", "/nowhere/bwrap")
    monkeypatch.setenv("PEPA_PROPOSE_COMMAND", shlex.join(standin(tmp_path, "edit")))
    state = str(tmp_path / "state")
    assert main(["propose", "apply", PROPOSAL_ID, "--state-dir", state, "--repo", str(repo)]) == 1
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("pepa: error: the apply command runs only in a sandbox, and the ")
    assert "`/nowhere/bwrap` is not installed" in err
    assert git(repo, "branch", "--list", BRANCH) == ""


def test_with_the_sandbox_off_apply_runs_and_warns(
    tmp_path: Path, repo: Path, proposals: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    monkeypatch.setenv("PEPA_PI_SANDBOX", "off")
    caplog.set_level(logging.WARNING)
    said: list[str] = []
    result = apply_proposal(
        proposal=find_approved(proposals, PROPOSAL_ID), repo=repo,
        command=standin(tmp_path, "edit"), timeout=30.0, say=said.append,
    )  # fmt: skip
    assert result.outcome == "applied"
    assert any("without a sandbox" in line for line in said)
    assert any("PEPA_PI_SANDBOX=off" in r.getMessage() for r in caplog.records)
