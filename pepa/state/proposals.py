"""Self-improvement proposals on disk: ``proposals/*.md`` pending, then approved or rejected.

A proposal is a markdown file. Approving moves it to ``proposals/approved/``
(where ``pepa propose apply`` picks it up); rejecting moves it to
``proposals/rejected/`` so the decision is kept, never deleted.

Other processes (and people) may drop files here, so a listed proposal is
checked first (:data:`PROPOSAL_FILE`): a name of at most :data:`MAX_ID`
characters matching ``[A-Za-z0-9][A-Za-z0-9._-]*.md``, a regular file (not a
symbolic link) of at most 256 KiB of UTF-8 text without control characters.
One that fails is moved aside to ``<name>.bad-<ts>`` (no longer listed) with
one warning. What pepa writes itself is clamped to the same limits first
(:func:`clamp`), so its own proposals are always listed.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from pathlib import Path

from pepa.base.errors import PepaError
from pepa.state.files import SchemaError, TextFile, load, read_bounded, reject, write_atomic

__all__ = ["MAX_ID", "PROPOSAL_FILE", "ProposalError", "ProposalStore", "clamp"]

logger = logging.getLogger(__name__)

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.md$")
MAX_ID = 128
"""Characters of a proposal id (its file name)."""
PROPOSAL_FILE = TextFile(max_bytes=256 * 1024, max_lines=5000, max_line=10_000, empty_ok=False)
"""A proposal: markdown, bounded, no control characters."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def clamp(markdown: str) -> str:
    """``markdown`` cut to what :data:`PROPOSAL_FILE` accepts, so a written proposal is listed.

    Error details and LLM text may carry escapes, lone surrogates and huge
    lines: control characters become spaces, a surrogate ``?``, a line past
    10 000 characters is cut (``…``), past 5000 lines or 256 KiB the rest is
    cut with one line that says so.
    """
    text = _CONTROL.sub(" ", markdown).encode("utf-8", errors="replace").decode("utf-8")
    lines = text.split("\n")
    ended = lines[-1] == ""
    if ended:
        lines.pop()
    limit = PROPOSAL_FILE.max_line
    lines = [line if len(line) <= limit else line[: limit - 1] + "…" for line in lines]
    if len(lines) > PROPOSAL_FILE.max_lines:
        cut = len(lines) - PROPOSAL_FILE.max_lines + 1
        lines[PROPOSAL_FILE.max_lines - 1 :] = [f"… ({cut} more lines cut)"]
        ended = True
    text = "\n".join(lines) + ("\n" if ended else "")
    data = text.encode("utf-8")
    if len(data) <= PROPOSAL_FILE.max_bytes:
        return text
    note = f"\n… (cut at {PROPOSAL_FILE.max_bytes // 1024} KiB)\n"
    head = data[: PROPOSAL_FILE.max_bytes - len(note.encode())].decode("utf-8", errors="ignore")
    return "\n".join(head.split("\n")[: PROPOSAL_FILE.max_lines - 1]) + note


class ProposalError(PepaError):
    """A proposal id that does not name a pending proposal."""


class ProposalStore:
    """The ``proposals/`` folder of one server."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._checked: dict[Path, tuple[int, int, int]] = {}
        """Proposals that passed, by (inode, size, mtime): unchanged ones are not read again."""

    def pending(self) -> list[str]:
        """Ids of pending proposals, oldest first (names start with a timestamp)."""
        return self._listed(self.folder)

    def approved(self) -> list[str]:
        """Ids approved and waiting for ``pepa propose apply``, oldest first."""
        return self._listed(self.folder / "approved")

    def read(self, proposal_id: str, *, approved: bool = False) -> str:
        """A pending (or approved) proposal's checked text; ProposalError when it is not one."""
        if len(proposal_id) > MAX_ID or not _ID.match(proposal_id):
            raise ProposalError(f"{proposal_id!r} is not a proposal id")
        path = (self.folder / "approved" if approved else self.folder) / proposal_id
        try:
            return PROPOSAL_FILE.parse(read_bounded(path, PROPOSAL_FILE.max_bytes))
        except FileNotFoundError:
            raise ProposalError(f"no proposal {proposal_id!r} in {path.parent}") from None
        except (SchemaError, OSError) as exc:
            raise ProposalError(f"proposal {proposal_id}: {exc}") from None

    def _listed(self, folder: Path) -> list[str]:
        """The valid proposals in ``folder``; bad ones are moved aside (one warning each)."""
        try:
            entries = [e.name for e in os.scandir(folder) if e.name.endswith(".md")]
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            logger.warning("cannot list the proposals in %s: %s", folder, exc)
            return []
        names = []
        for name in entries:
            if name.startswith("."):
                continue  # another writer's temporary file
            path = folder / name
            if len(name) > MAX_ID or not _ID.match(name):
                problem = f"the name must match {_ID.pattern} in at most {MAX_ID} characters"
                reject(path, problem, log=logger, then="it is not listed")
            elif self._valid(path):
                names.append(name)
        return sorted(names)

    def _valid(self, path: Path) -> bool:
        try:
            info = os.lstat(path)
        except OSError:
            return False  # gone meanwhile
        key = (info.st_ino, info.st_size, info.st_mtime_ns)
        if stat.S_ISREG(info.st_mode) and self._checked.get(path) == key:
            return True
        self._checked.pop(path, None)
        if load(path, PROPOSAL_FILE, None, log=logger, then="it is not listed") is None:
            return False
        if len(self._checked) >= 1000:
            self._checked.clear()
        self._checked[path] = key
        return True

    def write(self, proposal_id: str, markdown: str) -> Path:
        """Add a pending proposal (atomically); returns its path."""
        if len(proposal_id) > MAX_ID or not _ID.match(proposal_id):
            raise ProposalError(f"{proposal_id!r} is not a proposal id")
        path = self.folder / proposal_id
        write_atomic(path, clamp(markdown).encode("utf-8"))
        return path

    def decide(self, proposal_id: str, decision: str) -> Path:
        """Move a pending proposal to ``approved/`` or ``rejected/``; return its new path."""
        if decision not in ("approve", "reject"):
            raise ProposalError(f"decision must be approve or reject, not {decision!r}")
        if len(proposal_id) > MAX_ID or not _ID.match(proposal_id):
            raise ProposalError(f"{proposal_id!r} is not a proposal id")
        source = self.folder / proposal_id
        try:
            regular = stat.S_ISREG(os.lstat(source).st_mode)  # never a link's target
        except OSError:
            regular = False
        if not regular:
            raise ProposalError(f"no pending proposal {proposal_id!r}")
        target_dir = self.folder / ("approved" if decision == "approve" else "rejected")
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / proposal_id
        source.replace(target)
        return target
