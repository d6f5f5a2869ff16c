"""A model stand-in for the coach's tests: a back end object (``Model``) that answers
structured asks from a script and records what it was asked, free questions that stream until
the test ends them, and the coach in an :class:`~pepa.testing.ActorHarness` whose structured
asks run inline (the ``worker`` seam)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from pepa.actors.coach import Coach
from pepa.llm import CancelToken
from pepa.testing import ActorHarness

NEXT = '{"skill": "nav.explore", "reason": "nothing threatens; look for wood"}'

POSTMORTEM = orjson.dumps(
    {
        "cause": "fought a zombie bare-handed",
        "analysis": "hp fell from 20 to 0 in eight seconds of melee at night",
        "lessons": [
            {
                "skill": "combat.attack-nearest",
                "verdict": "avoid",
                "alternative": "survive.flee",
                "hostile": "zombie",
                "situation": "night, no weapon",
                "text": "flee zombies until you hold a sword",
                "confidence": 0.95,
            }
        ],
    }
).decode()

PLAN = "4 oak_log (gather.wood)\n1 crafting_table (craft.crafting_table)\n3 diamond (dig.down)\n"

BUNDLE = {
    "snapshots": [{"hp": 20, "food": 17}, {"hp": 2, "food": 16}],
    "last_skill": "combat.attack-nearest zombie",
    "last_hostile": {"name": "zombie", "distance": 1.5},
}


@dataclass
class Streaming:
    """A free question in flight, ended by the test."""

    prompt: str
    tools: bool
    on_chunk: Callable[[str, str], None]
    on_done: Callable[[int, int], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True

    def join(self, timeout: float = 5.0) -> None:
        return None


@dataclass
class Model:
    """A back end stand-in: structured asks answered from ``replies`` (the last one repeats)."""

    replies: list[str | Exception] = field(default_factory=lambda: [NEXT])
    name: str = "standin"
    prompts: list[str] = field(default_factory=list)
    streams: list[Streaming] = field(default_factory=list)

    def complete(self, prompt: str, *, timeout: float, cancel: CancelToken | None = None) -> str:
        self.prompts.append(prompt)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply

    def stream(
        self,
        prompt: str,
        *,
        on_chunk: Callable[[str, str], None],
        on_done: Callable[[int, int], None],
        timeout: float,
        tools: bool = False,
    ) -> Streaming:
        running = Streaming(prompt, tools, on_chunk, on_done)
        self.streams.append(running)
        return running


def inline(job: Callable[[], None], name: str) -> None:
    """The worker seam: run the ask at once, in the test's thread."""
    job()


def coach(tmp_path: Path, **kwargs: Any) -> ActorHarness[Coach]:
    """A coach on a fake clock whose tells to its own handle (replies) reach its mailbox."""
    built: list[ActorHarness[Coach]] = []
    options: dict[str, Any] = {"worker": inline, "budget_path": tmp_path / "llm-budget.json"}
    options.update(kwargs)
    harness = ActorHarness(
        Coach, peers={"coach": lambda message: built[0].actor.actor_ref.tell(message)}, **options
    )
    built.append(harness)
    return harness
