"""``pepa propose``: list proposals, apply an approved one on a branch of its own.

The pure half (slugs, titles, the prompt, outcomes, which files a commit may
take) takes values; :class:`Git` and :func:`run_command` run subprocesses;
:func:`apply_proposal` ties them together. Nothing here pushes or merges (see
docs/proposals.md). The command runs with its tools in the repository, but
with an allow-listed environment (:func:`pepa.llm.child_env`): no pepa secret.
What pepa commits after it is chosen, never ``git add -A``: the tracked files
it changed and new files under :data:`NEW_FILE_DIRS`; a file that looks like a
secret refuses the whole commit (:func:`secret_reason`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from pepa.base.errors import PepaError
from pepa.base.signals import SignalInbox
from pepa.llm import child_env
from pepa.state.files import SchemaError, read_bounded
from pepa.state.proposals import PROPOSAL_FILE

__all__ = [
    "NEW_FILE_DIRS", "SECRET_NAMES", "ApplyResult", "CommitPlan", "Git", "ProposalInfo",
    "ProposeError", "apply_proposal", "branch_name", "build_prompt", "command_env",
    "command_words", "conventions", "find_approved", "format_list", "list_proposals",
    "outcome_of", "plan_commit", "proposal_slug", "proposal_title", "run_command",
    "secret_reason", "stash_name",
]  # fmt: skip

logger = logging.getLogger(__name__)

CONVENTION_FILES = ("AGENTS.md", "CONTRIBUTING.md", "STYLE.md", "docs/STYLE.md")
"""Files whose text is the repository's conventions, in this order."""
BUILTIN_CONVENTIONS = (
    "Follow the style of the code around your change. Keep the change small and focused. "
    "Add or adjust a test that fails without the change and passes with it. Run the "
    "project's linters and tests if it has them. Explain the why in the commit message."
)
PROPOSAL_BYTES = 40_000
"""Caps on the prompt's parts: Linux refuses a single argument over 128 KiB."""
CONVENTION_BYTES = 40_000
NEW_FILE_DIRS = ("pepa/", "skills/", "tests/", "docs/")
"""Where a new file the command left may be committed; new files elsewhere stay uncommitted."""
SECRET_NAMES = (
    ".env", ".env.*", "*.env", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem",
    "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "credentials*", ".netrc",
    ".pgpass", ".git-credentials", "secrets.*",
)  # fmt: skip
"""File names (lower-cased) that look like secrets: apply refuses to commit them."""
NOT_SECRET_NAMES = (".env.example", ".env.sample", ".env.template", "*.pub")
"""Look-alikes that hold no secret (templates, public keys)."""
Say = Callable[[str], None]
"""Where progress lines go (the CLI prints them)."""


class ProposeError(PepaError):
    """Apply refused: not a git repository, dirty tree, not approved, branch exists."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProposalInfo:
    """One proposal as ``pepa propose list`` shows it."""

    id: str
    """The file name."""
    status: str
    """``pending`` or ``approved``."""
    title: str
    """The first heading."""
    created: float
    """Unix time the file was written (moving it keeps it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ApplyResult:
    """What one ``pepa propose apply`` did."""

    proposal: str
    """The proposal's id."""
    branch: str
    """``feat/proposal-<slug>`` (deleted again when nothing changed)."""
    base: str
    """The branch (or commit) it started from and returned to."""
    outcome: str
    """``applied``, ``no-change`` or ``failed``."""
    diff_hash: str
    """sha256 of ``git diff <base>..<branch>``; empty when there is no diff."""
    commits: int
    """Commits on the branch since the base."""
    detail: str = ""
    """Why it failed, or what else went wrong."""
    returned: bool = True
    """Whether the work tree is back on the original branch."""
    left_out: tuple[str, ...] = ()
    """New files the command left outside :data:`NEW_FILE_DIRS`: not committed, still there."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitPlan:
    """What pepa commits of what the command left."""

    paths: tuple[str, ...]
    """Changed tracked files and new files under :data:`NEW_FILE_DIRS`."""
    left_out: tuple[str, ...]
    """New files elsewhere."""
    secrets: tuple[str, ...]
    """Changed or new files (anywhere, ignored ones aside) that look like secrets."""


def proposal_slug(proposal_id: str) -> str:
    """``20261130-015700-nav-goto-alice.md`` → ``nav-goto-alice``."""
    stem = re.sub(r"^\d{8}-\d{4,6}-", "", proposal_id.removesuffix(".md"))
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-")[:60] or "proposal"


def branch_name(proposal_id: str) -> str:
    """The branch an apply creates."""
    return f"feat/proposal-{proposal_slug(proposal_id)}"


def proposal_title(markdown: str, fallback: str) -> str:
    """The first markdown heading, else the first line, else ``fallback``."""
    lines = [line.strip() for line in markdown.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("#"):
            return line.lstrip("#").strip() or fallback
    return lines[0][:100] if lines else fallback


def age_text(seconds: float) -> str:
    """``45s``, ``12m``, ``3h``, ``2d``."""
    steps = (("d", 86400), ("h", 3600), ("m", 60))
    unit, size = next(((u, n) for u, n in steps if seconds >= n), ("s", 1))
    return f"{int(max(0.0, seconds) // size)}{unit}"


def format_list(infos: Sequence[ProposalInfo], *, now: float, branches: set[str]) -> str:
    """Pending then approved proposals, one line each; ``branches`` marks applied ones."""
    if not infos:
        return "no pending or approved proposals\n"
    width = max(len(info.id) for info in infos)
    lines = []
    for info in infos:
        branch = branch_name(info.id) if info.status == "approved" else ""
        mark = f"  [{branch}]" if branch in branches else ""
        age = age_text(now - info.created)
        lines.append(f"{info.status:<9}{info.id:<{width}}  {age:>4}  {info.title}{mark}")
    return "\n".join(lines) + "\n"


def build_prompt(
    *, proposal_id: str, markdown: str, branch: str, base: str, conventions: str
) -> str:
    """The prompt handed to the LLM command as its last argument."""
    slug = proposal_slug(proposal_id)
    title = proposal_title(markdown, proposal_id)
    return (
        f"You are working in a git repository, on the branch `{branch}`, made for you from "
        f"`{base}`. Address the self-improvement proposal below with a focused code change.\n\n"
        "Rules of this run:\n"
        "- Change only what the proposal needs; add or adjust a test that shows it is fixed.\n"
        "- Follow the repository's conventions below.\n"
        f"- Commit on `{branch}` with a clear message, or leave your changes uncommitted: "
        f'they are committed for you as "proposal {slug}: {title}".\n'
        "- Never push, never merge, never switch or create branches, never rewrite "
        "commits older than yours.\n"
        "- Exit when done; a non-zero exit marks the attempt as failed.\n\n"
        f"# Repository conventions\n\n{conventions}\n\n"
        f"# The proposal ({proposal_id})\n\n{_cap(markdown, PROPOSAL_BYTES)}\n"
    )


def command_words(propose_command: str, pi_command: str) -> list[str]:
    """The apply command: ``PEPA_PROPOSE_COMMAND``, else ``<pi command> -p``."""
    if propose_command.strip():
        return shlex.split(propose_command)
    return [*shlex.split(pi_command or "pi"), "-p"]


def outcome_of(*, failed: bool, changed: bool) -> str:
    """``failed`` (non-zero exit, timeout, interrupt, commit refused), else by the diff."""
    return "failed" if failed else "applied" if changed else "no-change"


def secret_reason(path: str) -> str:
    """Why ``path`` (relative to the repository, ``/``-separated) looks like a secret; or ""."""
    parts = PurePosixPath(path).parts
    if not parts:
        return ""
    if parts[0] == "state":
        return "pepa's state directory"
    name = parts[-1].lower()
    if any(fnmatchcase(name, pattern) for pattern in NOT_SECRET_NAMES):
        return ""
    pattern = next((p for p in SECRET_NAMES if fnmatchcase(name, p)), "")
    return f"named like a secret ({pattern})" if pattern else ""


def plan_commit(tracked: Sequence[str], new: Sequence[str]) -> CommitPlan:
    """Which of the changed ``tracked`` files and the ``new`` (not ignored) files to commit."""
    secrets = tuple(path for path in (*tracked, *new) if secret_reason(path))
    kept = tuple(path for path in new if path.startswith(NEW_FILE_DIRS))
    left_out = tuple(path for path in new if not path.startswith(NEW_FILE_DIRS))
    return CommitPlan(paths=(*tracked, *kept), left_out=left_out, secrets=secrets)


def command_env(environ: Mapping[str, str], **extra: str) -> dict[str, str]:
    """The apply command's (and pepa's git's) environment: the allow-list, git's own
    ``GIT_*`` settings, and ``extra``; never a pepa secret."""
    return {**child_env(environ, extra_prefixes=("GIT_",)), **extra}


def commit_message(proposal_id: str, title: str, failure: str = "") -> str:
    """``proposal <slug>: <title>``, marked when the attempt failed."""
    mark = f" (failed: {failure})" if failure else ""
    return f"proposal {proposal_slug(proposal_id)}{mark}: {title}"


def _cap(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit].decode(errors="ignore") + "\n[… cut]"


def list_proposals(folder: Path) -> list[ProposalInfo]:
    """Pending, then approved proposals of one server, oldest first."""
    infos = []
    for status, where in (("pending", folder), ("approved", folder / "approved")):
        found = []
        for path in sorted(where.glob("*.md")) if where.is_dir() else ():
            try:
                title = proposal_title(read_proposal(path), path.name)
                created = path.lstat().st_mtime
            except ProposeError as exc:  # a directory named *.md, a link, a file moved meanwhile
                logger.warning("%s", exc)
                continue
            found.append(ProposalInfo(id=path.name, status=status, title=title, created=created))
        infos.extend(sorted(found, key=lambda info: info.created))
    return infos


def read_proposal(path: Path) -> str:
    """A proposal's checked text: a regular file (never through a link), bounded, no control
    characters; ProposeError says what is wrong with it."""
    try:
        return PROPOSAL_FILE.parse(read_bounded(path, PROPOSAL_FILE.max_bytes))
    except (SchemaError, OSError) as exc:
        raise ProposeError(f"cannot use the proposal {path}: {exc}") from None


def find_approved(folder: Path, name: str) -> Path:
    """The approved proposal ``name`` (an id or a path); ProposeError says where it is instead."""
    proposal_id = Path(name).name
    approved = folder / "approved" / proposal_id
    if approved.is_file():
        return approved
    if (folder / proposal_id).is_file():
        raise ProposeError(f"proposal {proposal_id} is pending: approve it first (y in pepa tui)")
    if (folder / "rejected" / proposal_id).is_file():
        raise ProposeError(f"proposal {proposal_id} was rejected")
    raise ProposeError(f"no approved proposal {proposal_id} in {folder / 'approved'}")


def conventions(root: Path) -> str:
    """The repository's own conventions, else a short built-in text, plus its docs."""
    parts = []
    for name in CONVENTION_FILES:
        path = root / name
        if path.is_file():
            parts.append(f"## {name}\n\n{path.read_text(errors='replace').strip()}")
    if not parts:
        parts.append(BUILTIN_CONVENTIONS)
    docs = sorted(str(p.relative_to(root)) for p in (root / "docs").glob("*.md"))
    readme = ["README.md"] if (root / "README.md").is_file() else []
    if docs or readme:
        parts.append("Read the docs that concern your change: " + ", ".join(readme + docs))
    return _cap("\n\n".join(parts), CONVENTION_BYTES)


class Git:
    """``git`` commands in one repository; a failing command raises :class:`ProposeError`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def at(cls, path: Path) -> Git:
        """The repository holding ``path``, at its top level."""
        if not path.is_dir():
            raise ProposeError(f"{path} is not a directory")
        done = _git(path, "rev-parse", "--show-toplevel")
        if done.returncode != 0:
            raise ProposeError(f"{path} is not a git repository (choose one with --repo)")
        return cls(Path(done.stdout.decode().strip()))

    def run(self, *args: str, identity: bool = False, stdin: bytes | None = None) -> str:
        """Stdout of ``git <args>`` (``stdin`` fed to it)."""
        who = ("-c", "user.name=pepa", "-c", "user.email=pepa@localhost")  # none configured
        if identity and _git(self.root, "config", "user.email").returncode != 0:
            done = _git(self.root, *who, *args, stdin=stdin)
        else:
            done = _git(self.root, *args, stdin=stdin)
        if done.returncode != 0:
            error = done.stderr.decode(errors="replace").strip().splitlines()
            raise ProposeError(f"git {args[0]} failed: {error[-1] if error else done.returncode}")
        return done.stdout.decode(errors="surrogateescape")  # lossless: diffs are hashed

    def head(self) -> str:
        """The current branch, or the commit when HEAD is detached."""
        done = _git(self.root, "symbolic-ref", "-q", "--short", "HEAD")
        return done.stdout.decode().strip() if done.returncode == 0 else self.sha("HEAD")

    def sha(self, ref: str) -> str:
        """The commit ``ref`` names."""
        return self.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}").strip()

    def dirty(self) -> list[str]:
        """Changed, staged and untracked paths (ignored ones are not dirty)."""
        return [line[3:] for line in self.run("status", "--porcelain=v1").splitlines() if line]

    def branches(self, pattern: str) -> set[str]:
        """Local branches matching ``pattern``."""
        listing = self.run("for-each-ref", "--format=%(refname:short)", f"refs/heads/{pattern}")
        return set(listing.split())

    def changes(self) -> tuple[list[str], list[str]]:
        """Unstage what the command staged; then (changed tracked files, new files git does
        not ignore). Force-added ignored files drop out here."""
        self.run("reset", "-q")
        tracked = self.run("diff", "--name-only", "-z", "--no-renames").split("\0")
        new = self.run("ls-files", "-z", "--others", "--exclude-standard").split("\0")
        return [path for path in tracked if path], [path for path in new if path]

    def committed_since(self, base: str) -> list[str]:
        """Files added or changed by commits between ``base`` and HEAD."""
        listing = self.run(
            "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", base, "HEAD"
        )
        return [path for path in listing.split("\0") if path]

    def commit_paths(self, paths: Sequence[str], message: str, *, verify: bool) -> bool:
        """Stage exactly ``paths`` (literally, removals too) and commit them; False if none."""
        if not paths:
            return False
        names = "".join(f"{path}\0" for path in paths).encode(errors="surrogateescape")
        self.run(
            "--literal-pathspecs", "add", "--pathspec-from-file=-", "--pathspec-file-nul",
            stdin=names,
        )  # fmt: skip
        self.run(
            "commit", "-q", "-m", message, *(() if verify else ("--no-verify",)), identity=True
        )
        return True


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``git <args>`` with the allow-listed environment: a hook or filter the command planted
    in the repository runs with no pepa secret either."""
    env = command_env(os.environ, GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", GIT_OPTIONAL_LOCKS="0")
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, input=stdin if stdin is not None else b"",
        capture_output=True, check=False,
    )  # fmt: skip


def run_command(
    argv: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int | None, str]:
    """Run ``argv`` on the terminal; ``(exit code, why none)``. A timeout or Ctrl-C ends
    its whole process group: SIGTERM, then SIGKILL after 5 s.

    Ctrl-C is only recorded while the command runs (a :class:`SignalInbox`): a
    KeyboardInterrupt raised inside ``Popen.wait`` can leave its internal lock
    held, and every later wait on the command then hangs.
    """
    main = threading.current_thread() is threading.main_thread()
    with SignalInbox((signal.SIGINT,) if main else ()) as inbox:
        try:
            proc = subprocess.Popen(
                list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, start_new_session=True
            )
        except OSError as exc:
            return None, f"cannot run {argv[0]}: {exc}"
        why = _wait_or_interrupt(proc, inbox, timeout)
    if why is None:
        return proc.returncode, ""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass  # the group has already ended
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    return None, why


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
    if _git(git.root, "rev-parse", "--verify", "-q", "HEAD").returncode != 0:
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
    refusal = stashed = ""
    set_aside = True  # until pepa has committed what the command left
    try:
        say(f"on new branch {branch} from {original} ({base[:10]})")
        say(f"running `{shlex.join(command)} <prompt>` (timeout {timeout:g} s); output follows")
        started = time.monotonic()
        code, why = run_command([*command, prompt], cwd=git.root, env=env, timeout=timeout)
        failure = why or ("" if code == 0 else f"exit code {code}")
        say(f"the command ended after {time.monotonic() - started:.0f} s: {failure or 'exit 0'}")
        failure, left, refusal, set_aside = _commit_leftovers(
            git, branch, base, proposal_id, title, failure
        )
    finally:  # back to where the operator was, whatever happened
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
        if returned and tip == base:
            git.run("branch", "-q", "-D", branch)  # nothing on it: a retry may create it again
        raise ProposeError("; ".join(part for part in (refusal, stashed) if part))
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
            f"the command committed {_secret_list(committed)} on {branch}: review that branch "
            f"before anything else (git branch -D {branch} drops it); pepa committed nothing"
        )
        return failure, (), refusal, True
    plan = plan_commit(*git.changes())
    if plan.secrets:
        refusal = f"refused to commit {_secret_list(list(plan.secrets))}: nothing was committed"
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


def stash_name(proposal_id: str) -> str:
    """The message of the stash that holds a refused apply's changes."""
    return f"pepa-proposal-{proposal_id}"


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


def _secret_list(paths: list[str]) -> str:
    """``.env (named like a secret (.env)) and 2 more`` — one line however many."""
    first = paths[0]
    more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
    return f"{first!r}, which looks like a secret ({secret_reason(first)}){more}"
