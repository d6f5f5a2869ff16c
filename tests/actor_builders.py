"""Actors in an :class:`~pepa.testing.ActorHarness` with the stand-ins their tests share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pepa.actors.perception import Perception
from pepa.actors.reflex import Reflex
from pepa.runtime.events.queries import ActiveLesson, ActiveLessons
from pepa.testing import ActorHarness, FakeLink


def perception(link: FakeLink | None = None) -> ActorHarness[Perception]:
    return ActorHarness(Perception, link=link or FakeLink(), server_label="localhost:25565")


def harness(
    tmp_path: Path,
    link: FakeLink | None = None,
    *,
    lessons: tuple[ActiveLesson, ...] = (),
    **kw: Any,
) -> ActorHarness[Reflex]:
    def knowledge(message: object) -> object:
        assert isinstance(message, ActiveLessons)
        return lessons

    return ActorHarness(
        Reflex, link=link or FakeLink(), server_dir=tmp_path, peers={"knowledge": knowledge}, **kw
    )
