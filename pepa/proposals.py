"""Self-improvement proposals on disk: ``proposals/*.md`` pending, then approved or rejected.

A proposal is a markdown file. Approving moves it to ``proposals/approved/``
(where ``pepa propose apply`` picks it up); rejecting moves it to
``proposals/rejected/`` so the decision is kept, never deleted.
"""

from __future__ import annotations

import re
from pathlib import Path

from pepa.errors import PepaError
from pepa.memory import write_atomic

__all__ = ["ProposalError", "ProposalStore"]

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.md$")


class ProposalError(PepaError):
    """A proposal id that does not name a pending proposal."""


class ProposalStore:
    """The ``proposals/`` folder of one server."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def pending(self) -> list[str]:
        """Ids of pending proposals, oldest first (names start with a timestamp)."""
        if not self.folder.is_dir():
            return []
        return sorted(p.name for p in self.folder.glob("*.md") if p.is_file())

    def approved(self) -> list[str]:
        """Ids approved and waiting for ``pepa propose apply``, oldest first."""
        folder = self.folder / "approved"
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.glob("*.md") if p.is_file())

    def write(self, proposal_id: str, markdown: str) -> Path:
        """Add a pending proposal (atomically); returns its path."""
        if not _ID.match(proposal_id):
            raise ProposalError(f"{proposal_id!r} is not a proposal id")
        path = self.folder / proposal_id
        write_atomic(path, markdown.encode())
        return path

    def decide(self, proposal_id: str, decision: str) -> Path:
        """Move a pending proposal to ``approved/`` or ``rejected/``; return its new path."""
        if decision not in ("approve", "reject"):
            raise ProposalError(f"decision must be approve or reject, not {decision!r}")
        if not _ID.match(proposal_id):
            raise ProposalError(f"{proposal_id!r} is not a proposal id")
        source = self.folder / proposal_id
        if not source.is_file():
            raise ProposalError(f"no pending proposal {proposal_id!r}")
        target_dir = self.folder / ("approved" if decision == "approve" else "rejected")
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / proposal_id
        source.replace(target)
        return target
