"""Archers and cover: the policy rows, the defend link's cover and its hysteresis, the view's
``sight`` field and the cover action on the fake link. Pure, no server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pepa.actors.reflex import Reflex
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.combat import assess
from pepa.policy.reflex.decision import COVER_HOLD, COVER_RETRY, SAFE_FOR, ChainState
from pepa.runtime.events import ActionFinished, WorldObserved
from pepa.testing import ActorHarness, FakeLink, entity, raw_snapshot, view
from pepa.world.view import Entity, WorldView
from skills import get

IRON_SET = ["iron_helmet", "iron_chestplate", "iron_leggings", "iron_boots"]


def mob(
    entity_id: int, name: str, distance: float, *, sight: bool | None = None, dz: float = 0.0
) -> dict[str, Any]:
    """A hostile ``distance`` blocks east of the bot (which stands at 0.5 64 0.5)."""
    return entity(entity_id, name, distance, position=(0.5 + distance, 64.0, 0.5 + dz), sight=sight)


def world(
    *mobs: dict[str, Any],
    hp: float = 20,
    worn: list[str] | None = None,
    items: dict[str, int] | None = None,
) -> WorldView:
    return view(hp=hp, entities=list(mobs), worn=worn or [], items=items or {})


# (what, world, may_cover, stance or None, a word of the reason)
ROWS: list[tuple[str, WorldView, bool, str | None, str]] = [
    ("unseen skeleton at 12: go on", world(mob(1, "skeleton", 12, sight=False)), True, None, ""),
    ("unseen skeleton at 6: go on", world(mob(1, "skeleton", 6, sight=False)), True, None, ""),
    ("unseen skeleton in reach: fight", world(mob(1, "skeleton", 3, sight=False)), True,
     "fight", "skeleton"),
    ("seen skeleton at 6: close in", world(mob(1, "skeleton", 6, sight=True)), True,
     "approach", "close in"),
    ("seen skeleton at 12: take cover", world(mob(1, "skeleton", 12, sight=True)), True,
     "cover", "cover"),
    ("sight not known yet at 6: as seen", world(mob(1, "skeleton", 6)), True, "approach", "close"),
    ("sight not known yet at 12: wait for it", world(mob(1, "skeleton", 12)), True, None, ""),
    ("no cover, bare: flee", world(mob(1, "skeleton", 12, sight=True)), False, "flee", "range"),
    ("no cover, a shield: close in", world(mob(1, "skeleton", 12, sight=True), worn=["shield"]),
     False, "approach", "shield"),
    ("no cover, iron armour: close in", world(mob(1, "skeleton", 12, sight=True), worn=IRON_SET),
     False, "approach", "15 armour"),
    ("no cover, iron armour but hp 11: flee",
     world(mob(1, "skeleton", 12, sight=True), worn=IRON_SET, hp=11), False, "flee", "range"),
    ("no cover, leather (7): flee", world(mob(1, "skeleton", 12, sight=True),
     worn=["leather_chestplate", "leather_leggings", "leather_boots"]), False, "flee", "range"),
    ("an unseen skeleton is no reason to flee at hp 10",
     world(mob(1, "skeleton", 10, sight=False), hp=10), True, None, ""),
    ("a zombie behind an unseen skeleton is the nearest",
     world(mob(1, "skeleton", 3.5, sight=False), mob(2, "zombie", 3)), True, "fight", "zombie"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("what", "w", "may_cover", "stance", "why"), ROWS, ids=[r[0] for r in ROWS]
)
def test_the_archer_rows(
    what: str, w: WorldView, may_cover: bool, stance: str | None, why: str
) -> None:
    plan = assess(w, may_cover=may_cover)
    assert (plan.stance if plan else None) == stance
    if plan is not None:
        assert why in plan.reason


def test_cover_is_taken_from_every_archer_in_range_and_never_beside_a_zombie() -> None:
    w = world(
        mob(1, "skeleton", 12, sight=True),
        mob(2, "skeleton", 14, sight=False, dz=3),
        mob(3, "zombie", 15, dz=-4),
    )
    d = decide(w, 0.0, ChainState())
    assert (d.reflex, d.skill) == ("defend", "survive.cover")
    assert sorted(d.args["from"]) == [[12.5, 64.0, 0.5], [14.5, 64.0, 3.5]]
    assert d.args["avoid"] == [[15.5, -3.5]]
    assert d.args["radius"] == 6.0


def test_cover_is_kept_while_the_archer_is_in_range_and_a_few_seconds_after() -> None:
    memory = ChainState()
    memory.slot.suggest("gather.wood", {}, "milestone")
    seen = world(mob(1, "skeleton", 12, sight=True))
    go = decide(seen, 0.0, memory)
    assert go.skill == "survive.cover"
    memory.started(go, 0.0)
    hidden = world(mob(1, "skeleton", 11, sight=False))
    memory.observe(hidden, 2.0)
    stay = decide(hidden, 2.0, memory)
    assert (stay.reflex, stay.skill) == ("defend", None) and "in cover" in stay.reason
    # the skeleton came round and sees the bot again: cover anew at once (the last one worked)
    again = world(mob(1, "skeleton", 10, sight=True))
    memory.observe(again, 3.0)
    assert decide(again, 3.0, memory).skill == "survive.cover"
    # it walked off out of range: stay SAFE_FOR seconds more, then the task goes on
    gone = world()
    memory.observe(gone, 4.0)
    assert decide(gone, 4.0, memory).reflex == "defend"
    memory.observe(gone, 4.0 + SAFE_FOR)
    assert decide(gone, 4.0 + SAFE_FOR, memory).reflex == "task"
    assert not memory.in_cover()


def test_cover_ends_when_an_archer_in_range_has_not_seen_the_bot_for_a_while() -> None:
    memory = ChainState()
    memory.slot.suggest("gather.wood", {}, "milestone")
    seen = world(mob(1, "skeleton", 12, sight=True))
    memory.started(decide(seen, 0.0, memory), 0.0)
    hidden = world(mob(1, "skeleton", 11, sight=False))  # behind a wall, and it stays there
    memory.observe(hidden, 1.0)
    memory.observe(hidden, 1.0 + COVER_HOLD - 0.1)
    assert decide(hidden, 1.0 + COVER_HOLD - 0.1, memory).reflex == "defend"
    memory.observe(hidden, 1.0 + COVER_HOLD)
    assert decide(hidden, 1.0 + COVER_HOLD, memory).reflex == "task"  # eats, shelters, works
    # seen again: cover again
    memory.observe(seen, 30.0)
    assert decide(seen, 30.0, memory).skill == "survive.cover"


def test_an_unseen_skeleton_does_not_stop_the_task() -> None:
    memory = ChainState()
    memory.slot.suggest("gather.wood", {}, "milestone")
    d = decide(world(mob(1, "skeleton", 9, sight=False)), 0.0, memory)
    assert (d.reflex, d.skill) == ("task", "gather.wood")


def test_after_a_search_that_found_no_cover_the_bot_flees_and_searches_again_later() -> None:
    memory = ChainState()
    seen = world(mob(1, "skeleton", 12, sight=True))
    go = decide(seen, 0.0, memory)
    memory.started(go, 0.0)  # the search fails at once: the bot still stands in sight
    memory.observe(seen, 0.1)
    fled = decide(seen, 0.1, memory)
    assert fled.skill == "survive.flee" and fled.args["flight"] is True
    shielded = world(mob(1, "skeleton", 12, sight=True), worn=["shield"])
    memory.observe(shielded, 0.2)
    assert decide(shielded, 0.2, ChainState(cover_tried_at=0.0)).skill == "combat.approach"
    assert decide(seen, COVER_RETRY, ChainState(cover_tried_at=0.0)).skill == "survive.cover"


# -- the view and the link ------------------------------------------------------------------


def test_sight_is_parsed_and_goes_round_the_wire() -> None:
    raw = raw_snapshot(entities=[mob(1, "skeleton", 12, sight=False), mob(2, "zombie", 3)])
    v = WorldView.parse(raw)
    by_id = {e.id: e for e in v.entities}
    assert (by_id[1].sight, by_id[2].sight) == (False, None)
    wire = v.to_wire()
    assert wire["threats"][1]["sight"] is False and "sight" not in wire["threats"][0]
    back = WorldView.from_wire(wire)
    assert {e.id: e.sight for e in back.entities} == {1: False, 2: None}


@pytest.mark.parametrize("bad", ["yes", 1, None, [True]])
def test_a_sight_of_the_wrong_type_counts_as_unknown(bad: object) -> None:
    raw = {"id": 1, "name": "skeleton", "distance": 9, "type": "hostile", "sight": bad}
    parsed = Entity.parse(raw)
    assert parsed is not None and parsed.sight is None


def test_the_cover_skill_asks_the_link_to_search_and_walk() -> None:
    link = FakeLink()
    args = {"from": [[12.5, 64.0, 0.5]], "avoid": [[3.5, 0.5]], "radius": 6.0}
    skill = get("survive.cover")
    assert skill.check(world(), {}) == "no archer to hide from"
    start = skill.run(link, args, world())
    assert start.ok and start.action_id is not None
    assert link.last("cover").args == {
        "sources": [(12.5, 64.0, 0.5)],
        "radius": 6.0,
        "avoid": [(3.5, 0.5)],
    }


def test_closing_in_on_an_archer_is_a_charge_that_keeps_the_shields_guard_on() -> None:
    """combat.approach walks with a ``charge``, not a ``goto``: a goto holds the off-hand
    shield down for the whole walk (its JS function holdsShield), so the arrows shot during the
    charge hit the bot (3 a minute on the shield against 14-15, docs/survival.md)."""
    link = FakeLink()
    start = get("combat.approach").run(link, {"to": {"x": 8.5, "y": 64.0, "z": 0.5}}, world())
    assert start.ok and start.action_id is not None
    assert link.last("charge").args == {"x": 8.5, "y": 64.0, "z": 0.5, "reach": 3.0}
    assert not link.calls("goto")


def test_the_reflex_actor_runs_cover_on_the_link(tmp_path: Path) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path)
    h.send(WorldObserved(view=world(mob(7, "skeleton", 12, sight=True))))
    assert link.last("cover").args["sources"] == [(12.5, 64.0, 0.5)]


def test_cover_reached_counts_as_hidden_before_a_view_shows_it(tmp_path: Path) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path)
    h.send(WorldObserved(view=world(mob(7, "skeleton", 12, sight=True))))
    raw = link.done(ok=True)  # the JS side reached a cell no archer sees
    h.send(ActionFinished(action_id=raw["id"], ok=True, action=raw["action"], error=""))
    memory = h.actor.memory
    assert memory.hidden_at >= memory.cover_tried_at  # another search may go at once


def test_an_archer_spotted_before_any_snapshot_waits_for_the_snapshot_that_tells() -> None:
    memory = ChainState()
    memory.slot.suggest("gather.wood", {}, "milestone")
    spotted = view().with_threat(entity_id=9, name="skeleton", distance=12.0)  # no sight yet
    assert decide(spotted, 0.0, memory).reflex == "task"
    # seen, with no position known: the JS side hides from the archers it sees itself
    placeless = world(entity(9, "skeleton", 12.0, sight=True))
    d = decide(placeless, 0.0, ChainState())
    assert (d.skill, d.args["from"]) == ("survive.cover", [])
    assert get("survive.cover").check(placeless, d.args) is None
