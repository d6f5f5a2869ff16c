"""``pepa propose``'s rules: slugs, titles, the prompt, outcomes, which files a commit may
take, the proposals in their folder. Values in, values out, but for reading the proposals."""

from __future__ import annotations

import logging
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from pepa.base.errors import PepaError
from pepa.llm import child_env
from pepa.state.files import SchemaError, read_bounded
from pepa.state.proposals import PROPOSAL_FILE

__all__ = [
    "BUILTIN_CONVENTIONS",
    "CONVENTION_BYTES",
    "CONVENTION_FILES",
    "NEW_FILE_DIRS",
    "NOT_SECRET_NAMES",
    "PROPOSAL_BYTES",
    "SECRET_NAMES",
    "ApplyResult",
    "CommitPlan",
    "ProposalInfo",
    "ProposeError",
    "age_text",
    "branch_name",
    "build_prompt",
    "command_env",
    "command_words",
    "commit_message",
    "conventions",
    "find_approved",
    "format_list",
    "list_proposals",
    "outcome_of",
    "plan_commit",
    "proposal_slug",
    "proposal_title",
    "read_proposal",
    "secret_list",
    "secret_reason",
    "stash_name",
]

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


def stash_name(proposal_id: str) -> str:
    """The message of the stash that holds a refused apply's changes."""
    return f"pepa-proposal-{proposal_id}"


def secret_list(paths: list[str]) -> str:
    """``.env (named like a secret (.env)) and 2 more`` — one line however many."""
    first = paths[0]
    more = f" and {len(paths) - 1} more" if len(paths) > 1 else ""
    return f"{first!r}, which looks like a secret ({secret_reason(first)}){more}"
