"""Between a decision and a running skill: which decision replaces which (``admit``). Pure."""

from __future__ import annotations

import pytest

from pepa.policy.reflex.decision import Decision
from pepa.policy.reflex.dispatch import Running, admit


def running(reflex: str, skill: str) -> Running:
    return Running(Decision(reflex=reflex, skill=skill), "a1", 0.0, skill)


@pytest.mark.parametrize(
    ("now", "then", "admission"),
    [
        (("task", "gather.logs"), None, "start"),
        (("task", "gather.logs"), ("task", "gather.logs"), "keep"),
        (("defend", "survive.flee"), ("task", "gather.logs"), "preempt"),
        (("task", "gather.logs"), ("defend", "survive.flee"), "keep"),
        # closing in on an archer, shot below the health to fight it: the retreat wins
        (("defend", "survive.flee"), ("defend", "combat.approach"), "preempt"),
        (("defend", "survive.cover"), ("defend", "combat.approach"), "keep"),  # it stepped back
        # never the other way round: the two cannot take turns
        (("defend", "combat.approach"), ("defend", "survive.flee"), "keep"),
        (("defend", "combat.approach"), ("defend", "survive.cover"), "keep"),
        (("defend", "survive.cover"), ("defend", "survive.flee"), "keep"),
    ],
)
def test_a_higher_reflex_or_a_retreat_from_an_advance_replaces_the_running_skill(
    now: tuple[str, str], then: tuple[str, str] | None, admission: str
) -> None:
    decision = Decision(reflex=now[0], skill=now[1])
    assert admit(None if then is None else running(*then), decision) == admission
