"""The first blow struck in the bridge: the arming (pure), the reflex actor keeping the bridge
armed (fake link, fake clock), and the bridge's own rule (``firstblow.js``, through node).

The real thing, on a real server, is in ``tests/integration/bot/test_fights.py``
(``test_the_bridge_strikes_the_first_blow_as_armed_and_never_while_paused``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pepa.actors.reflex import ARM_EVERY, Reflex
from pepa.link.minecraft import BOT_JS
from pepa.policy.reflex.combat import MOBS
from pepa.policy.reflex.decision import ChainState, Decision
from pepa.policy.reflex.dispatch import Running
from pepa.policy.reflex.firstblow import ARMED_KINDS, PROBE_DISTANCE, armed
from pepa.runtime.events import (
    ActionFinished,
    ActivityChanged,
    FirstBlow,
    HealthChanged,
    HostileGone,
    HostileSpotted,
    LessonLearned,
    Pause,
    PausedChanged,
    Resume,
    SkillFinished,
    TaskSuggested,
    WorldObserved,
)
from pepa.testing import ActorHarness, FakeLink, entity, view
from pepa.world.view import WorldView
from tests.actor_builders import harness
from tests.js import run_node

EVERY_BUT_CREEPERS = {name: PROBE_DISTANCE for name in MOBS if name != "creeper"}
AVOID_ZOMBIES = dict(
    skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
    alternative="survive.flee", confidence=0.9,
)  # fmt: skip


def zombie(entity_id: int, distance: float) -> dict[str, Any]:
    return entity(entity_id, "zombie", distance, position=(0.5 + distance, 64.0, 0.5))


def running(skill: str, reflex: str) -> Running:
    decision = Decision(reflex=reflex, skill=skill, args={}, reason="")
    return Running(decision=decision, action_id="a1", started=0.0, label=skill)


# -- the arming, pure ------------------------------------------------------------------------


def in_world(tmp_path: Path, **kw: Any) -> tuple[FakeLink, ActorHarness[Reflex]]:
    """The reflex actor (tests.test_actor_reflex's harness) on a fake link, with its first view."""
    link = FakeLink()
    h = harness(tmp_path, link, **kw)
    h.send(WorldObserved(view=view()))
    return link, h


def test_a_healthy_bot_is_armed_for_every_kind_but_creepers() -> None:
    assert ARMED_KINDS and "creeper" not in ARMED_KINDS
    assert armed(view(hp=20, food=20), 0.0, ChainState(), None) == EVERY_BUT_CREEPERS


def test_a_task_under_way_gives_way_to_the_first_blow() -> None:
    task = running("gather.wood", "task")
    assert armed(view(hp=20, food=20), 0.0, ChainState(), task) == EVERY_BUT_CREEPERS


def test_nothing_is_armed_when_the_chain_would_not_swing_at_a_newcomer() -> None:
    memory = ChainState()
    cases: list[tuple[str, WorldView, Running | None]] = [
        ("not in the world", WorldView(), None),
        ("hp at the flight line", view(hp=8, food=20), None),
        ("a fight under way with a nearer zombie", view(entities=[zombie(1, 2.0)]), None),
        ("outnumbered with the newcomer", view(entities=[zombie(1, 8.0), zombie(2, 9.0)]), None),
        # a flight is a defend skill: a swing of the same rank waits for it (admit: keep)
        ("a flight under way", view(), running("survive.flee", "defend")),
    ]
    for what, world, under_way in cases:
        assert armed(world, 0.0, memory, under_way) == {}, what


def test_a_lesson_disarms_the_kind_it_is_about_only() -> None:
    memory = ChainState()
    memory.learn(**AVOID_ZOMBIES)
    arming = armed(view(hp=20, food=20), 0.0, memory, None)
    assert "zombie" not in arming
    assert arming == {k: v for k, v in EVERY_BUT_CREEPERS.items() if k != "zombie"}


# -- the reflex actor keeps the bridge armed --------------------------------------------------


def test_the_bridge_is_armed_at_the_health_and_food_of_the_view(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(hp=19, food=17)))
    assert link.armed == EVERY_BUT_CREEPERS
    assert link.armed_as == (19, 17)
    assert "arm" not in [a.name for a in link.actions]  # a standing order, kept apart


def test_switched_off_or_polling_the_bridge_is_never_armed(tmp_path: Path) -> None:
    for what, kw in (("PEPA_FIRST_BLOW=0", {"first_blow": False}), ("polling", {"poll": 0.3})):
        link, h = in_world(tmp_path / what, **kw)
        h.advance(1.0)
        assert link.armings == 0, what


def test_a_pause_disarms_the_bridge_before_it_is_announced_and_a_resume_arms_it(
    tmp_path: Path,
) -> None:
    link, h = in_world(tmp_path)
    seen: list[dict[str, float] | None] = []
    h.bus.listen(lambda e: seen.append(link.armed) if isinstance(e, PausedChanged) else None)
    h.send(Pause())
    assert link.armed == {} and seen == [{}]
    h.send(Resume())
    assert link.armed == EVERY_BUT_CREEPERS and seen == [{}, EVERY_BUT_CREEPERS]


def test_health_hostiles_and_lessons_disarm_at_once_views_at_most_every_half_second(
    tmp_path: Path,
) -> None:
    link, h = in_world(tmp_path)
    assert link.armed == EVERY_BUT_CREEPERS
    # two zombies at 8 and 9 in the next view: a third would make the bot flee, but views
    # re-arm at most every ARM_EVERY
    h.send(WorldObserved(view=view(entities=[zombie(1, 8.0), zombie(2, 9.0)])))
    assert link.armed == EVERY_BUT_CREEPERS
    h.advance(ARM_EVERY)  # the tick re-arms what changed meanwhile
    assert link.armed == {}
    h.send(WorldObserved(view=view()))
    h.advance(ARM_EVERY)
    assert link.armed == EVERY_BUT_CREEPERS
    h.send(HealthChanged(hp=6, food=20, previous_hp=20))  # at once, within ARM_EVERY
    assert link.armed == {} and link.armed_as == (6, 20)
    h.send(HealthChanged(hp=20, food=20, previous_hp=6))
    assert link.armed == EVERY_BUT_CREEPERS
    h.send(LessonLearned(**AVOID_ZOMBIES))
    assert link.armed is not None and "zombie" not in link.armed and "spider" in link.armed
    # two hostiles spotted (from the spawn events, before any view): a third would be fled
    h.send(HostileSpotted(name="zombie", distance=9.0, entity_id=3))
    assert link.armed  # one near: a newcomer would still be struck
    h.send(HostileSpotted(name="zombie", distance=10.0, entity_id=4))
    assert link.armed == {}


def test_what_arrives_together_is_armed_for_once_after_the_last_of_it(tmp_path: Path) -> None:
    """At a spawn in a crowd the hostile, the bridge's first blow and the fight's start reach
    the reflex together: it arms the bridge once, for how things stand after the last."""
    link, h = in_world(tmp_path)
    assert link.armed == EVERY_BUT_CREEPERS
    before = link.armings
    # hurt and healed in one burst: nothing to tell the bridge (one by one, two armings)
    h.together(HealthChanged(hp=6, food=20, previous_hp=20),
               HealthChanged(hp=20, food=20, previous_hp=6))  # fmt: skip
    assert link.armings == before and link.armed == EVERY_BUT_CREEPERS
    # two hostiles and a blow in one burst: disarmed once, as it stands after them
    h.together(
        HostileSpotted(name="zombie", distance=9.0, entity_id=3),
        HealthChanged(hp=15, food=20, previous_hp=20),
        HostileSpotted(name="zombie", distance=10.0, entity_id=4),
    )
    assert link.armings == before + 1 and link.armed == {} and link.armed_as == (15, 20)
    # a pause is never kept waiting: the bridge is disarmed before the pause is announced,
    # whatever is queued behind it
    h.send(HostileGone(entity_id=3), HostileGone(entity_id=4))
    h.send(HealthChanged(hp=20, food=20, previous_hp=15))
    assert link.armed == EVERY_BUT_CREEPERS
    seen: list[dict[str, float] | None] = []
    h.bus.listen(lambda e: seen.append(link.armed) if isinstance(e, PausedChanged) else None)
    h.together(Pause(), WorldObserved(view=view()), HealthChanged(hp=19, food=20, previous_hp=20))
    assert seen == [{}] and link.armed == {}


def test_after_the_bridge_s_first_blow_the_reflex_fights_on_at_its_own_cadence(
    tmp_path: Path,
) -> None:
    link, h = in_world(tmp_path)
    h.send(TaskSuggested(
        skill="gather.wood", args={"item": "oak_log", "count": 4}, reason="milestone",
        source="curriculum", milestone="4 oak_log",
    ))  # fmt: skip
    gather = link.last("gather")
    link.clear()
    h.send(FirstBlow(name="zombie", distance=2.0, entity_id=7))
    # the bridge stopped the walk and swung: no stop, no second swing inside the cooldown
    assert link.actions == []
    assert h.last(ActivityChanged).skill == "combat.attack-nearest zombie"
    # the stopped gather's failure is a pre-empted skill's, not a failed task
    raw = link.done(gather, ok=False, error="stopped")
    h.send(ActionFinished(action_id=raw["id"], ok=False, action="gather", error="stopped"))
    assert not [e for e in h.events(SkillFinished) if e.skill == "gather.wood"]
    h.advance(1.0)  # past the cooldown: the reflex's own next swing
    assert link.last("attack").args == {"entity_id": 7, "stop_first": False}


# -- the bridge's rule, pure JS ---------------------------------------------------------------

STRIKE = r"""
const { strikeNow } = require(process.argv[1])
process.stdout.write(JSON.stringify(JSON.parse(process.argv[2]).map(strikeNow)))
"""
READY: dict[str, Any] = {
    "reach": 4, "distance": 2.0, "struck": False, "sinceSwingMs": 1e9, "lastTargetHere": False,
    "striking": False, "alive": True, "asArmed": True,
}  # fmt: skip
"""A zombie 2 blocks off, armed for at 4, the bot alive and out of any melee: strike."""


def test_the_bridge_strikes_only_what_it_was_armed_for_in_reach_as_armed() -> None:
    held: list[dict[str, Any]] = [
        {"reach": None},  # not armed for its kind
        {"distance": 4.5},  # out of reach
        {"distance": None},  # nowhere known
        {"struck": True},  # one first blow each
        {"sinceSwingMs": 300, "lastTargetHere": True},  # in a melee: the reflex's cadence
        {"striking": True},  # a crit under way
        {"alive": False},
        {"asArmed": False},  # health or food changed since the arming: the chain decides
    ]
    struck = [
        {"distance": 4},  # at the edge of reach
        {"sinceSwingMs": 300},  # a fight that ended: its target is gone
        {"sinceSwingMs": 2000, "lastTargetHere": True},  # the last swing long ago
    ]
    cases = [READY, *({**READY, **c} for c in struck), *({**READY, **c} for c in held)]
    out = run_node(STRIKE, str(BOT_JS / "firstblow.js"), json.dumps(cases))
    assert out == [True] * (1 + len(struck)) + [False] * len(held)
