"""Knowledge: the bot's memory of this server.

Today it owns the proposals folder; the SQLite knowledge base (lessons, deaths,
post-mortems) moves in here with the learning layer, so that only this actor's
thread ever touches the database.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pepa.events import DecideProposal, ErrorRaised, ProposalDrafted, ProposalsChanged
from pepa.proposals import ProposalError, ProposalStore
from pepa.supervision import SupervisedActor, SupervisionContext

__all__ = ["Knowledge"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Rescan:
    """Timer: look for proposals written by other processes."""


class Knowledge(SupervisedActor):
    """Publishes the pending proposals and applies operators' decisions."""

    def __init__(
        self, *, supervision: SupervisionContext, server_dir: Path, rescan: float = 5.0
    ) -> None:
        super().__init__(supervision=supervision)
        self.proposals = ProposalStore(server_dir / "proposals")
        self.rescan = rescan
        self.pending: tuple[str, ...] | None = None

    def setup(self) -> None:
        self.runtime.bus.subscribe(DecideProposal, self.handle)
        self.runtime.bus.subscribe(ProposalDrafted, self.handle)
        self._refresh()
        self.every(self.rescan, _Rescan())

    def pending_proposals(self) -> tuple[str, ...]:
        """Ids of the pending proposals (proxy-callable)."""
        return tuple(self.proposals.pending())

    def on_message(self, message: Any) -> Any:
        match message:
            case DecideProposal(id=proposal_id, decision=decision):
                try:
                    moved = self.proposals.decide(proposal_id, decision)
                except ProposalError as exc:
                    self.publish(ErrorRaised(source="proposals", text=str(exc)))
                else:
                    logger.info("proposal %s: %sd (now %s)", proposal_id, decision, moved)
                self._refresh()
            case ProposalDrafted(file_name=file_name, markdown=markdown):
                path = self.proposals.write(file_name, markdown)
                logger.warning("new proposal: %s", path)
                self._refresh()
            case _Rescan():
                self._refresh()
            case _:
                return super().on_message(message)
        return None

    def _refresh(self) -> None:
        pending = tuple(self.proposals.pending())
        if pending != self.pending:
            self.pending = pending
            self.publish(ProposalsChanged(pending=pending))
