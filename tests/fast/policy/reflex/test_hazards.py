"""Lessons about block and mob types acting: the pathfinder's step costs for block types, and
the defend link keeping from a mob type a lesson names. Pure."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.policy.reflex.advice import ADVICE_CONFIDENCE
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState
from pepa.policy.reflex.hazards import IN_FORCE, NEVER_COST, STEP_COST, HazardBook
from pepa.world.view import WorldView

pytestmark = pytest.mark.timeout(10)


def test_a_deaths_block_lesson_forbids_the_step_a_near_misss_makes_it_dear() -> None:
    book = HazardBook()
    assert book.learn("hazard.below", "magma_block", 0.75)
    assert book.learn("hazard.touching", "cactus", 0.6)
    assert not book.learn("combat.attack-nearest", "zombie", 0.9)  # not about a block
    assert not book.learn("hazard.mob", "ravager", 0.9)  # a mob: the defend link's
    assert not book.learn("hazard.below", "magma_block", 0.8)  # the same cost
    assert book.costs() == {
        "below": {"magma_block": NEVER_COST}, "inside": {}, "touching": {"cactus": STEP_COST},
    }  # fmt: skip
    assert book.learn("hazard.below", "magma_block", 0.5)  # graded down: out of force
    assert book.costs()["below"] == {} and len(book) == 1
    assert IN_FORCE == ADVICE_CONFIDENCE


def world(threats: list[dict[str, Any]], hp: float = 20) -> WorldView:
    return WorldView.from_wire({
        "connected": True, "alive": True, "hp": hp, "food": 20,
        "position": {"x": 0.5, "y": 70.0, "z": 0.5}, "timeOfDay": 1000, "isDay": True,
        "threats": threats, "inventory": {"items": {}},
        "enclosure": {"openSides": 4, "ceiling": None},
    })  # fmt: skip


def brute(distance: float) -> list[dict[str, Any]]:
    return [{"id": 5, "name": "odd_brute", "distance": distance, "sight": True,
             "position": {"x": 0.5 + distance, "y": 70.0, "z": 0.5}}]  # fmt: skip


def test_a_mob_type_a_lesson_keeps_from_is_fled_before_it_comes_near() -> None:
    memory = ChainState()
    fresh = decide(world(brute(3.0)), 0.0, memory)
    assert (fresh.reflex, fresh.skill) == ("defend", "combat.attack-nearest")  # the policy fights
    assert decide(world(brute(10.0)), 0.0, memory).skill is None  # and waits for it to come
    memory.learn("hazard.mob", "odd_brute", "avoid", "", 0.75)
    taught = decide(world(brute(10.0)), 0.0, ChainState(lessons=memory.lessons))
    assert (taught.reflex, taught.skill) == ("defend", "survive.flee")
    assert "keeping from the odd_brute at 10 (a lesson)" in taught.reason
    assert taught.advice == ("hazard.mob", "odd_brute", "avoid", "")
    far = decide(world(brute(14.0)), 0.0, ChainState(lessons=memory.lessons))
    assert far.skill is None  # beyond the radius: nothing to do yet


def test_a_weak_mob_lesson_or_one_about_another_mob_changes_nothing() -> None:
    memory = ChainState()
    memory.learn("hazard.mob", "odd_brute", "avoid", "", 0.5)  # below the advice's threshold
    memory.learn("hazard.mob", "other_brute", "avoid", "", 0.9)
    plan = decide(world(brute(3.0)), 0.0, memory)
    assert plan.skill == "combat.attack-nearest"
