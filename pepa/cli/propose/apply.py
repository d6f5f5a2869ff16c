"""``pepa propose apply``: an approved proposal applied on a branch of its own.

The pure half (:mod:`.rules`: slugs, titles, the prompt, outcomes, which files a commit may
take) takes values; :class:`~pepa.cli.propose.git.Git` and :func:`run_command` run
subprocesses; :func:`apply_proposal` ties them together. Nothing here pushes or merges (see
docs/proposals.md). The command runs with its tools in the repository, but in a bubblewrap
sandbox that shows it the work tree and nothing of this user's secrets, with
``.git/config`` and ``.git/hooks`` read-only (:mod:`.guard`), and with an allow-listed
environment (:func:`pepa.llm.child_env`). Before pepa runs git again, the guard compares
git's configuration and hooks with their snapshot: a change is put back and refuses the
apply. What pepa commits after it is chosen, never ``git add -A``: the tracked files it
changed and new files under :data:`~pepa.cli.propose.rules.NEW_FILE_DIRS`; a file that looks
like a secret refuses the whole commit (:func:`~pepa.cli.propose.rules.secret_reason`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pepa.base.signals import SignalInbox
from pepa.cli.propose.git import Git, git_command
from pepa.cli.propose.guard import GitGuard, apply_sandbox
from pepa.cli.propose.rules import (
    NEW_FILE_DIRS,
    ApplyResult,
    ProposeError,
    branch_name,
    build_prompt,
    command_env,
    commit_message,
    conventions,
    outcome_of,
    plan_commit,
    proposal_title,
    read_proposal,
    secret_list,
    secret_reason,
    stash_name,
)
from pepa.llm.sandbox import Sandbox

__all__ = ["apply_proposal", "run_command"]

logger = logging.getLogger(__name__)

Say = Callable[[str], None]
"""Where progress lines go (the CLI prints them)."""


GONE_WITHIN = 10.0
"""Seconds a sandbox may take to end everything in it once its command is over."""


def run_command(
    argv: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float,
    sandbox: Sandbox | None = None,
) -> tuple[int | None, str]:  # fmt: skip
    """Run ``argv`` on the terminal (inside ``sandbox`` when given); ``(exit code, why
    none)``. A timeout or Ctrl-C ends its whole process group: SIGTERM, then SIGKILL
    after 5 s. Whatever it left running is killed when it ends, and a sandbox is waited
    for until nothing in it runs, so nothing of the command outlives this call.

    Ctrl-C is only recorded while the command runs (a :class:`SignalInbox`): a
    KeyboardInterrupt raised inside ``Popen.wait`` can leave its internal lock
    held, and every later wait on the command then hangs.
    """
    main = threading.current_thread() is threading.main_thread()
    gone, sync = os.pipe() if sandbox is not None else (-1, -1)
    try:
        with SignalInbox((signal.SIGINT,) if main else ()) as inbox:
            command = sandbox.argv(argv, sync_fd=sync) if sandbox is not None else list(argv)
            try:
                proc = subprocess.Popen(
                    command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, start_new_session=True,
                    pass_fds=(sync,) if sandbox is not None else (),
                )  # fmt: skip
            except OSError as exc:
                return None, f"cannot run {argv[0]}: {exc}"
            finally:
                if sandbox is not None:
                    os.close(sync)
            why = _wait_or_interrupt(proc, inbox, timeout)
        if why is not None:
            for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
                _kill_group(proc, sig)
                try:
                    proc.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
        _kill_group(proc, signal.SIGKILL)  # what it left running
        if sandbox is not None and not _ended(gone, GONE_WITHIN):
            logger.warning("the sandbox of %s still runs %g s after its end", argv[0], GONE_WITHIN)
    finally:
        if sandbox is not None:
            os.close(gone)
    return (proc.returncode, "") if why is None else (None, why)


def _kill_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # the group has already ended


def _ended(fd: int, timeout: float) -> bool:
    """Whether ``fd`` (bwrap's ``--sync-fd``) reaches end of file within ``timeout``."""
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], remaining)
        if ready and not os.read(fd, 4096):
            return True
    return False


def _wait_or_interrupt(
    proc: subprocess.Popen[bytes], inbox: SignalInbox, timeout: float
) -> str | None:
    """Wait until ``proc`` ends (None), Ctrl-C arrives or ``timeout`` passes (why not)."""
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return f"timed out after {timeout:g} s"
        if inbox.wait(min(remaining, 0.05)):  # a signal wakes it at once
            return "interrupted"
    return None


def apply_proposal(
    *, proposal: Path, repo: Path, command: Sequence[str], timeout: float, say: Say = logger.info
) -> ApplyResult:
    """Apply an approved proposal on ``feat/proposal-<slug>``; raises ProposeError on refusal."""
    git = Git.at(repo)
    if git_command(git.root, "rev-parse", "--verify", "-q", "HEAD").returncode != 0:
        raise ProposeError(f"{git.root} has no commits yet")
    dirty = git.dirty()
    if dirty:
        more = f" and {len(dirty) - 5} more" if len(dirty) > 5 else ""
        raise ProposeError(
            f"the work tree of {git.root} is not clean ({', '.join(dirty[:5])}{more}): "
            "commit or stash first"
        )
    if not command or shutil.which(command[0]) is None:
        name = command[0] if command else "(empty)"
        raise ProposeError(f"the apply command `{name}` is not on PATH (PEPA_PROPOSE_COMMAND)")
    guard = GitGuard.of(git)
    sandbox = apply_sandbox(git, command, guard=guard, proposal=proposal)
    proposal_id, markdown = proposal.name, read_proposal(proposal)
    title = proposal_title(markdown, proposal_id)
    branch = branch_name(proposal_id)
    if git.branches(branch):
        raise ProposeError(
            f"branch {branch} already exists: review it, or git branch -D it to retry"
        )
    original, base = git.head(), git.sha("HEAD")
    prompt = build_prompt(
        proposal_id=proposal_id, markdown=markdown, branch=branch, base=original,
        conventions=conventions(git.root),
    )  # fmt: skip
    env = command_env(
        os.environ, PEPA_PROPOSAL=str(proposal.resolve()), PEPA_PROPOSAL_ID=proposal_id,
        PEPA_PROPOSAL_BRANCH=branch,
    )  # fmt: skip
    git.run("checkout", "-q", "-b", branch)
    returned, problem = False, f"cannot return to {original}"
    left: tuple[str, ...] = ()
    refusal = stashed = changed = ""
    set_aside = True  # until pepa has committed what the command left
    try:
        say(f"on new branch {branch} from {original} ({base[:10]})")
        where = "in a sandbox" if sandbox is not None else "without a sandbox"
        say(
            f"running `{shlex.join(command)} <prompt>` {where} (timeout {timeout:g} s); "
            "output follows"
        )
        started = time.monotonic()
        code, why = run_command(
            [*command, prompt], cwd=git.root, env=env, timeout=timeout, sandbox=sandbox
        )
        failure = why or ("" if code == 0 else f"exit code {code}")
        say(f"the command ended after {time.monotonic() - started:.0f} s: {failure or 'exit 0'}")
        changed = guard.check()  # before pepa runs git again
        if changed:
            refusal = (
                f"the command altered git's own files ({changed}): they are restored as "
                "before the run and nothing is committed"
            )
        else:
            failure, left, refusal, set_aside = _commit_leftovers(
                git, branch, base, proposal_id, title, failure
            )
    finally:  # back to where the operator was, whatever happened
        if guard.intact():  # else no git may run here: check() raised, saying so
            if set_aside:  # uncommitted changes must not follow the operator to their branch
                stashed = _stash(git, branch, proposal_id)
            detached = re.fullmatch(r"[0-9a-f]{40,64}", original) is not None
            try:
                git.run("checkout", "-q", *(("--detach",) if detached else ()), original, "--")
                returned, problem = True, ""
            except ProposeError as exc:
                problem = f"{problem}: {exc}"
    tip = git.sha(branch)
    if refusal:
        kept = ""
        if returned and tip == base:
            git.run("branch", "-q", "-D", branch)  # nothing on it: a retry may create it again
        elif changed:
            kept = f"its own commits stay on {branch} for review (git branch -D {branch} drops it)"
        raise ProposeError("; ".join(part for part in (refusal, kept, stashed) if part))
    if stashed:
        failure = "; ".join(part for part in (failure, stashed) if part)
    if left:
        more = f" and {len(left) - 5} more" if len(left) > 5 else ""
        say(
            f"left uncommitted, new files outside {', '.join(NEW_FILE_DIRS)}: "
            f"{', '.join(left[:5])}{more}"
        )
    diff = git.run("diff", "--no-color", "--no-ext-diff", f"{base}..{tip}").encode(
        errors="surrogateescape"
    )
    commits = int(git.run("rev-list", "--count", f"{base}..{tip}").strip())
    outcome = outcome_of(failed=bool(failure), changed=bool(diff))
    if outcome == "no-change" and tip == base and returned:
        git.run("branch", "-q", "-D", branch)
    logger.info("proposal %s: %s on %s (%d commits)", proposal_id, outcome, branch, commits)
    return ApplyResult(
        proposal=proposal_id, branch=branch, base=original, outcome=outcome,
        diff_hash=hashlib.sha256(diff).hexdigest() if diff else "", commits=commits,
        detail="; ".join(part for part in (failure, problem) if part), returned=returned,
        left_out=left,
    )  # fmt: skip


def _commit_leftovers(
    git: Git, branch: str, base: str, proposal_id: str, title: str, failure: str
) -> tuple[str, tuple[str, ...], str, bool]:
    """Commit what the command left on ``branch``, as :func:`plan_commit` chooses.

    Returns (the failure if there is one now, the new files left out, why
    nothing at all was committed because of a secret — "" when not, whether
    changes of the command are still uncommitted and must be set aside).
    """
    if git.head() != branch:
        return failure or f"the command left the branch for {git.head()}", (), "", False
    committed = [path for path in git.committed_since(base) if secret_reason(path)]
    if committed:
        refusal = (
            f"the command committed {secret_list(committed)} on {branch}: review that branch "
            f"before anything else (git branch -D {branch} drops it); pepa committed nothing"
        )
        return failure, (), refusal, True
    plan = plan_commit(*git.changes())
    if plan.secrets:
        refusal = f"refused to commit {secret_list(list(plan.secrets))}: nothing was committed"
        return failure, plan.left_out, refusal, True
    if not failure:
        try:
            git.commit_paths(plan.paths, commit_message(proposal_id, title), verify=True)
            return "", plan.left_out, "", False
        except ProposeError as exc:
            failure = str(exc)  # a hook said no: "git commit failed: <its last line>"
    try:  # keep the failed work on the branch for inspection
        git.commit_paths(plan.paths, commit_message(proposal_id, title, failure), verify=False)
    except ProposeError as exc:
        return f"{failure}; its changes could not be committed: {exc}", plan.left_out, "", True
    return failure, plan.left_out, "", False


def _stash(git: Git, branch: str, proposal_id: str) -> str:
    """Stash what the command left uncommitted on ``branch`` (new files too), so the
    operator's branch gets none of it; what happened, in words ("" when nothing was left)."""
    name = stash_name(proposal_id)
    try:
        if git.head() != branch or not git.dirty():
            return ""
        git.run("stash", "push", "-q", "--include-untracked", "-m", name, identity=True)
    except ProposeError as exc:
        return f"the command's changes are left in the work tree ({exc})"
    return f"the command's changes are stashed as {name} (git stash list; git stash pop)"
