"""The fight-or-flee policy and the defend link of the chain: pure, table-driven, no server."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.combat import armour_points, assess, crowd_limit, weapon_damage
from pepa.policy.reflex.decision import ChainState
from pepa.testing import entity, view
from pepa.world.view import WorldView

IRON_SET = ["iron_helmet", "iron_chestplate", "iron_leggings", "iron_boots"]


def mob(
    entity_id: int, name: str, distance: float, *, swelling: bool | None = None
) -> dict[str, Any]:
    """A hostile ``distance`` blocks east of the bot (which stands at 0.5 64 0.5)."""
    raw = entity(entity_id, name, distance, position=(0.5 + distance, 64.0, 0.5))
    if swelling is not None:
        raw["swelling"] = swelling
    return raw


def world(
    *mobs: dict[str, Any],
    hp: float = 20,
    food: int = 20,
    items: dict[str, int] | None = None,
    worn: list[str] | None = None,
) -> WorldView:
    return view(hp=hp, food=food, entities=list(mobs), items=items or {}, worn=worn or [])


CASES: list[tuple[str, WorldView, str | None, str]] = [
    # (what, world, stance or None, a word of the reason)
    ("nothing around", world(), None, ""),
    ("a lone zombie in reach, full health", world(mob(1, "zombie", 3)), "fight", "zombie"),
    ("a lone zombie at 8: let it come", world(mob(1, "zombie", 8)), None, ""),
    ("a spider in reach at 12 hp", world(mob(1, "spider", 2), hp=12), "fight", "spider"),
    ("low health", world(mob(1, "zombie", 3), hp=8), "flee", "hp 8"),
    ("hp 9 bare-handed: too low for a zombie", world(mob(1, "zombie", 3), hp=9), "flee", "< 10"),
    (
        "hp 9 with a stone sword: enough",
        world(mob(1, "zombie", 3), hp=9, items={"stone_sword": 1}),
        "fight", "zombie",
    ),
    (
        "three zombies: outnumbered",
        world(mob(1, "zombie", 6), mob(2, "zombie", 7), mob(3, "zombie", 8)),
        "flee", "outnumbered",
    ),
    (
        "three zombies, iron sword and iron armour: fight",
        world(
            mob(1, "zombie", 3), mob(2, "zombie", 7), mob(3, "zombie", 8),
            items={"iron_sword": 1}, worn=IRON_SET,
        ),
        "fight", "zombie",
    ),
    (
        "three zombies, too hungry to sprint: fight the one in reach",
        world(mob(1, "zombie", 3), mob(2, "zombie", 7), mob(3, "zombie", 8), food=6),
        "fight", "zombie",
    ),
    ("a creeper in reach: strike", world(mob(1, "creeper", 3.5)), "fight", "strike the creeper"),
    ("a creeper at 6: let it come", world(mob(1, "creeper", 6)), None, ""),
    (
        "a hissing creeper at 2.5: back off",
        world(mob(1, "creeper", 2.5, swelling=True)), "back-off", "hissing",
    ),
    (
        "a hissing creeper at 6.5 is still lit: back off",
        world(mob(1, "creeper", 6.5, swelling=True)), "back-off", "hissing",
    ),
    ("a hissing creeper at 9: out of range", world(mob(1, "creeper", 9, swelling=True)), None, ""),
    ("a skeleton at 6: close in", world(mob(1, "skeleton", 6)), "approach", "close in"),
    ("a skeleton in reach: fight", world(mob(1, "skeleton", 3)), "fight", "skeleton"),
    ("a skeleton at 13, sight not known yet: wait", world(mob(1, "skeleton", 13)), None, ""),
    ("a cow is no threat", world(entity(1, "cow", 2, kind="animal")), None, ""),
]  # fmt: skip


@pytest.mark.parametrize(("what", "w", "stance", "why"), CASES, ids=[c[0] for c in CASES])
def test_the_policy_table(what: str, w: WorldView, stance: str | None, why: str) -> None:
    plan = assess(w)
    assert (plan.stance if plan else None) == stance
    if plan is not None:
        assert why in plan.reason


def test_gear_is_read_from_the_inventory_and_the_armour_worn() -> None:
    bare = world()
    armed = world(items={"wooden_sword": 1, "iron_sword": 1, "stone_axe": 1}, worn=IRON_SET)
    assert (weapon_damage(bare), armour_points(bare), crowd_limit(bare)) == (1.0, 0, 3)
    assert (weapon_damage(armed), armour_points(armed), crowd_limit(armed)) == (9, 15, 4)


def test_after_striking_a_creeper_the_bot_backs_off() -> None:
    creeper = world(mob(1, "creeper", 3.5))
    plan = assess(creeper, struck_creeper=True)
    assert plan is not None and plan.stance == "back-off"


# -- the defend link of the chain ---------------------------------------------------------------


def test_a_creeper_strike_is_followed_by_a_back_off_then_another_strike() -> None:
    memory = ChainState()
    creeper = world(mob(1, "creeper", 3.5))
    strike = decide(creeper, 10.0, memory)
    assert (strike.skill, strike.args["entity_id"]) == ("combat.attack-nearest", 1)
    memory.started(strike, 10.0)
    back = decide(creeper, 10.5, memory)
    assert back.skill == "survive.flee" and back.args["flight"] is False
    assert back.args["to"]["x"] < 0.5  # away from the creeper, which is east
    assert decide(creeper, 12.0, memory).skill == "combat.attack-nearest"


def test_a_flight_goes_on_until_clear_for_a_while_and_eats_on_the_way() -> None:
    memory = ChainState()
    crowd = world(mob(1, "zombie", 4), mob(2, "zombie", 5), mob(3, "zombie", 5), hp=6, food=12,
                  items={"bread": 3})  # fmt: skip
    flee = decide(crowd, 0.0, memory)
    assert flee.skill == "survive.flee" and flee.args["flight"] is True
    assert [round(p[0], 1) for p in flee.args["from"]] == [4.5, 5.5, 5.5]
    memory.started(flee, 0.0)
    # one zombie still follows, 14 blocks behind: far enough to eat first, then run on
    behind = world(mob(1, "zombie", 14), hp=6, food=12, items={"bread": 3})
    memory.observe(behind, 4.0)
    assert decide(behind, 4.0, memory).skill == "survive.eat"
    memory.last_eat = 4.0
    assert decide(behind, 5.0, memory).skill == "survive.flee"  # still within 20
    # gone from sight: lie low for SAFE_FOR seconds, then the task may resume
    gone = world(hp=6, food=17)
    memory.observe(gone, 6.0)
    lying = decide(gone, 7.0, memory)
    assert (lying.reflex, lying.skill) == ("defend", None)
    memory.slot.suggest("gather.wood", {}, "milestone")
    memory.observe(gone, 9.5)
    assert decide(gone, 9.5, memory).reflex == "task"
    assert memory.flight_since is None


def test_a_zombie_in_reach_during_a_flight_is_fought_when_healthy_again() -> None:
    memory = ChainState(flight_since=0.0)
    healed = world(mob(1, "zombie", 2.5), hp=16)
    assert decide(healed, 1.0, memory).skill == "combat.attack-nearest"
    far = world(mob(1, "zombie", 6), hp=16)
    assert decide(far, 1.0, memory).skill == "survive.flee"  # still fleeing, not waiting for it


def test_a_skeleton_close_by_is_closed_in_on() -> None:
    d = decide(world(mob(1, "skeleton", 6)), 0.0, ChainState())
    assert (d.skill, d.args["entity_id"], d.args["to"]["x"]) == ("combat.approach", 1, 6.5)
