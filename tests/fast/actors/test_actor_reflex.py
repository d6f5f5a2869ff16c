"""The Reflex actor through the fake link: pre-emption, cooldowns, orders, the task slot, lessons.

No server, no threads: :class:`pepa.testing.ActorHarness` runs the actor in the
test's thread on a fake clock; :class:`pepa.testing.FakeLink` records what it
asks of the world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from pepa.actors.reflex import Reflex
from pepa.policy.curriculum.assigner import WAITING
from pepa.runtime.events import (
    ActionFinished,
    ActivityChanged,
    AdviceApplied,
    HealthChanged,
    HostileGone,
    HostileSpotted,
    OperatorOrder,
    Pause,
    PlayerSpotted,
    ProposalDrafted,
    ReflexTicked,
    Resume,
    SayInChat,
    SkillFinished,
    StuckDetected,
    TaskSuggested,
    TaskWithdrawn,
    WorldObserved,
)
from pepa.runtime.events.queries import ActiveLesson
from pepa.testing import ActorHarness, FakeLink, entity, view
from tests.actor_builders import harness

TASK_FILE = "current-task.json"


def finish(h: ActorHarness[Reflex], link: FakeLink, *, ok: bool = True, error: str = "") -> None:
    """End the link's latest action as the JS side would."""
    raw = link.done(ok=ok, error=error)
    h.send(ActionFinished(action_id=raw["id"], ok=ok, action=raw["action"], error=error))


def task_file(tmp_path: Path) -> dict[str, Any] | None:
    path = tmp_path / TASK_FILE
    return orjson.loads(path.read_bytes()) if path.exists() else None


def milestone(text: str = "4 oak_log (gather.wood)") -> TaskSuggested:
    return TaskSuggested(
        skill="gather.wood", args={"item": "oak_log", "count": 4},
        reason=f"milestone {text}", source="curriculum", milestone=text,
    )  # fmt: skip


# -- defend: attack, cooldown, flee, pre-emption -----------------------------------------


def test_a_hostile_in_reach_is_hit_once_per_cooldown(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(entities=[entity(7, "zombie", 3.0)])))
    assert [a.args for a in link.calls("attack")] == [{"entity_id": 7, "stop_first": False}]
    h.send(HostileSpotted(name="zombie", distance=2.5, entity_id=7))
    assert len(link.calls("attack")) == 1  # inside the 0.6 s sword cooldown
    h.advance(0.5)  # the first tick is still inside it
    assert len(link.calls("attack")) == 1
    h.advance(0.5)  # the next one swings again
    assert len(link.calls("attack")) == 2
    assert h.last(ActivityChanged).skill == "combat.attack-nearest zombie"


def test_a_swing_at_a_target_already_gone_is_no_failure_and_costs_no_cooldown(
    tmp_path: Path,
) -> None:
    """In a crowd another bot kills the zombie between the view and the swing: the bridge no
    longer has it. Before, each such swing was a failed combat.attack-nearest (739 in one run
    of 64 idle bots, and three in a row drafted a proposal in every one of the 64) and spent
    the 0.6 s cooldown of a swing that never happened."""
    link = FakeLink(refuse={"attack"})
    h = harness(tmp_path, link)
    for n in range(4):
        if n:
            h.advance(0.7)
        h.send(WorldObserved(view=view(entities=[entity(7 + n, "zombie", 2.0)])))
    assert len(link.calls("attack")) >= 4
    assert [e for e in h.events(SkillFinished) if not e.ok] == []
    assert h.events(ProposalDrafted) == []
    link.refuse.clear()
    link.clear()
    h.send(WorldObserved(view=view(entities=[entity(20, "zombie", 2.0)])))
    assert link.last("attack").args["entity_id"] == 20  # at once: the gone one's swing cost nothing


def test_a_spotted_hostile_is_fought_before_any_snapshot_shows_it(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()))
    h.send(HostileSpotted(name="zombie", distance=2.0, entity_id=9))
    assert link.last("attack").args["entity_id"] == 9


def test_a_hostile_gone_before_any_snapshot_is_no_longer_fought_or_counted(
    tmp_path: Path,
) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()))
    # three zombies each gone (killed by another player) before a snapshot showed them: the
    # ghosts made the bot swing at ids its bridge no longer had and then flee, "outnumbered"
    for ghost in (9, 10, 11):
        h.send(HostileSpotted(name="zombie", distance=2.0, entity_id=ghost))
        h.send(HostileGone(entity_id=ghost))
        h.advance(0.7)  # past the swing cooldown
    link.clear()
    h.send(HostileSpotted(name="zombie", distance=3.0, entity_id=12))
    assert [a.name for a in link.actions] == ["attack"]
    assert link.last("attack").args["entity_id"] == 12
    h.send(HostileGone(entity_id=12))
    h.advance(2.0)
    assert [a.name for a in link.actions] == ["attack"]  # nothing left to swing at


def gathering(tmp_path: Path) -> tuple[ActorHarness[Reflex], FakeLink]:
    """A reflex whose bot works its task (a gather) at 0 64 0; the link's record cleared."""
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(position=(0, 64, 0))), milestone())
    assert link.last().name == "gather"
    link.clear()
    return h, link


def test_low_health_pre_empts_a_running_task_and_flees_away(tmp_path: Path) -> None:
    h, link = gathering(tmp_path)
    zombie = entity(7, "zombie", 3.0, position=(3, 64, 0))
    h.send(WorldObserved(view=view(hp=6, position=(0, 64, 0), entities=[zombie])))
    assert [a.name for a in link.actions] == ["stop", "flee"]
    assert link.last("flee").args == {
        "sources": [(3.0, 0.0)],
        "distance": 16.0,
    }  # away from the zombie, 16 blocks


def test_the_same_decision_leaves_the_running_skill_alone(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), milestone())
    link.clear()
    h.send(WorldObserved(view=view(food=19)))
    h.advance(2.0)
    assert link.actions == []  # no stop, no second gather


def test_a_lower_reflex_waits_for_the_running_one(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(food=10, items={"bread": 3})))
    assert link.last().name == "eat"
    h.send(OperatorOrder(verb="come", operator="alice"))  # an order never stops eating
    assert link.last().name == "eat"
    finish(h, link)  # … it walks once the bread is eaten
    assert link.last().name == "goto_player"


# -- eat, sleep ----------------------------------------------------------------------------


def test_hunger_eats_the_best_food_and_a_refused_bed_waits_thirty_seconds(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(food=10, items={"bread": 3, "cooked_beef": 1})))
    assert link.last().args == {"item": "cooked_beef"}
    finish(h, link)
    night = view(time_of_day=14000, beds=[{"x": 3, "y": 64, "z": 0, "distance": 3.0}])
    h.send(WorldObserved(view=night))
    assert link.last().name == "sleep"
    finish(h, link, ok=False, error="monsters nearby")
    assert h.last(SayInChat).text == "I can't sleep: monsters nearby"
    assert link.last().name == "shelter"  # meanwhile not out on the surface
    finish(h, link, ok=False, error="no blocks left to build with")
    link.clear()
    h.advance(29.0)
    assert link.calls("sleep") == []
    h.advance(1.5)
    assert len(link.calls("sleep")) == 1


# -- operator orders and the task slot -----------------------------------------------------


def test_an_order_is_written_before_it_runs_and_stay_clears_only_the_order(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), milestone())
    assert task_file(tmp_path) == {
        "kind": "milestone", "skill": "gather.wood", "milestone": "4 oak_log (gather.wood)",
        "args": {"item": "oak_log", "count": 4},
    }  # fmt: skip
    h.send(OperatorOrder(verb="follow", operator="alice"))
    assert task_file(tmp_path) == {"kind": "follow", "operator": "alice"}
    assert [a.name for a in link.actions[-2:]] == ["stop", "follow"]
    h.send(OperatorOrder(verb="stay", operator="alice"))
    assert task_file(tmp_path) is not None and task_file(tmp_path)["kind"] == "milestone"
    assert link.last().name == "stop"


def test_a_milestone_ending_never_overwrites_an_operators_order(tmp_path: Path) -> None:
    """The bug of issue 13: a follow given just after a milestone ends was lost on restart."""
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), milestone())
    gather = link.last("gather")
    h.send(OperatorOrder(verb="follow", operator="alice"))
    h.send(ActionFinished(action_id=str(gather.id), ok=True, action="gather", error=""))
    h.send(TaskWithdrawn(skill="gather.wood", milestone="4 oak_log (gather.wood)"))
    h.send(milestone("1 crafting_table (craft.crafting_table)"))
    assert task_file(tmp_path) == {"kind": "follow", "operator": "alice"}
    h.stop()

    again = FakeLink()
    harness(tmp_path, again).send(WorldObserved(view=view()))
    assert again.last().name == "follow" and again.last().args["name"] == "alice"


def test_a_restart_resumes_the_milestone_of_the_file(tmp_path: Path) -> None:
    (tmp_path / TASK_FILE).write_bytes(
        orjson.dumps(
            {
                "kind": "milestone",
                "skill": "gather.wood",
                "milestone": "4 oak_log",
                "args": {"item": "oak_log", "count": 4},
            }
        )
    )
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()))
    assert link.last().name == "gather"
    finish(h, link)
    assert task_file(tmp_path) is None  # done: the curriculum hands out the next one
    assert h.last(SkillFinished).ok


def test_come_says_here_i_am_and_ends_the_order(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), OperatorOrder(verb="come", operator="alice"))
    finish(h, link)
    assert h.last(SayInChat).text == "Here I am, alice."
    assert task_file(tmp_path) is None


def test_an_operator_out_of_sight_is_waited_for(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), OperatorOrder(verb="follow", operator="alice"))
    finish(h, link, ok=False, error="cannot see alice")
    link.clear()
    h.advance(5.0)
    assert link.actions == []  # waiting, not retrying in a loop
    h.send(PlayerSpotted(name="alice", distance=20.0))
    assert link.last().name == "follow"


def test_a_swing_that_pre_empts_a_task_stops_it_in_its_own_call(tmp_path: Path) -> None:
    h, link = gathering(tmp_path)
    zombie = entity(7, "zombie", 3.0, position=(3, 64, 0))
    h.send(WorldObserved(view=view(position=(0, 64, 0), entities=[zombie])))
    # one bridge round trip before the hit, not a stop and then a swing
    assert [(a.name, a.args) for a in link.actions] == [
        ("attack", {"entity_id": 7, "stop_first": True})
    ]
    h.advance(1.0)  # the next swing: nothing runs to stop any more
    assert link.last("attack").args["stop_first"] is False and link.calls("stop") == []


def test_a_pre_empting_swing_inside_its_cooldown_still_stops_the_task(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    zombie = entity(7, "zombie", 3.0, position=(3, 64, 0))
    h.send(WorldObserved(view=view(position=(0, 64, 0), entities=[zombie])), milestone())
    assert link.last().name == "attack"
    h.send(WorldObserved(view=view(position=(0, 64, 0))))  # out of sight: the task goes on
    assert link.last().name == "gather"
    link.clear()
    h.send(WorldObserved(view=view(position=(0, 64, 0), entities=[zombie])))  # back, 0 s on
    assert [a.name for a in link.actions] == ["stop"]  # no swing yet, and no walking on
    h.advance(1.0)
    assert link.last("attack").args == {"entity_id": 7, "stop_first": False}


def test_waiting_for_an_unseen_operator_never_stops_defend_or_eat(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), OperatorOrder(verb="come", operator="alice"))
    finish(h, link, ok=False, error="cannot see alice")
    link.clear()
    h.send(HostileSpotted(name="zombie", distance=2.0, entity_id=9))
    assert link.last().name == "attack" and link.last().args["entity_id"] == 9
    h.send(WorldObserved(view=view(food=10, items={"bread": 3})))  # the zombie is dead
    assert link.last().name == "eat"
    finish(h, link)
    h.send(WorldObserved(view=view(food=18, items={"bread": 2})))
    link.clear()
    h.advance(5.0)
    assert link.actions == []  # the order's walk still waits
    h.send(PlayerSpotted(name="alice", distance=20.0))
    assert link.last().name == "goto_player"


def test_an_order_given_while_fleeing_does_not_stop_the_flight(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    zombie = entity(7, "zombie", 3.0, position=(3, 64, 0))
    h.send(WorldObserved(view=view(hp=5, position=(0, 64, 0), entities=[zombie])))
    assert link.last().name == "flee"
    link.clear()
    h.send(OperatorOrder(verb="follow", operator="alice"))
    assert link.calls("stop") == [] and link.calls("follow") == []


def test_a_task_that_cannot_run_is_dropped_and_reported(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()))
    h.send(TaskSuggested(skill="survive.eat", args={"item": "bread"}, reason="r", source="pi"))
    failed = h.last(SkillFinished)
    assert (failed.skill, failed.ok, failed.detail) == (
        "survive.eat",
        False,
        "no bread in the inventory",
    )
    assert task_file(tmp_path) is None  # a suggestion is never written


# -- pause, stuck, failures, lessons ---------------------------------------------------------


def test_paused_does_nothing_until_resumed(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link, paused=True)
    h.send(WorldObserved(view=view(entities=[entity(7, "zombie", 2.0)])))
    h.advance(1.0)
    assert link.calls("attack") == []
    assert h.last(ReflexTicked).idle is False
    h.send(Resume())
    assert link.last("attack").args == {"entity_id": 7, "stop_first": False}
    h.send(Pause())
    assert link.last().name == "stop"


def test_the_stuck_ladder_repaths_then_pillars_up(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), OperatorOrder(verb="come", operator="alice"))
    link.clear()
    h.send(StuckDetected(step="repath", reason="no progress for 60 s"))
    assert [a.name for a in link.actions] == ["stop", "goto_player"]
    h.send(StuckDetected(step="pillar-up", reason="still stuck"))
    assert link.last().name == "escape" and link.last().args["mode"] == "up"
    h.send(StuckDetected(step="alert", reason="boxed in"))
    assert h.last(SayInChat).text == "I'm stuck and could not get free: boxed in"


def test_three_identical_failures_draft_a_proposal(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()))
    for _ in range(3):
        h.send(milestone())
        finish(h, link, ok=False, error="no path to the tree")
    assert "gather.wood" in h.last(ProposalDrafted).markdown


def test_a_confident_lesson_turns_a_fight_into_a_retreat(tmp_path: Path) -> None:
    lesson = ActiveLesson(
        skill="combat.attack-nearest", hostile="creeper", verdict="avoid",
        alternative="survive.flee", confidence=0.9,
    )  # fmt: skip
    creeper = entity(5, "creeper", 3.0, position=(3, 64, 0))
    link = FakeLink()
    h = harness(tmp_path, link, lessons=(lesson,))
    h.send(WorldObserved(view=view(position=(0, 64, 0), entities=[creeper])))
    assert link.calls("attack") == [] and link.last().name == "flee"
    assert h.last(AdviceApplied).verdict == "avoid"

    control = FakeLink()
    off = harness(tmp_path / "off", control, lessons=(lesson,), learning=False)
    off.send(WorldObserved(view=view(position=(0, 64, 0), entities=[creeper])))
    assert control.last().name == "attack"


def test_knowledge_down_means_no_lessons_not_a_crash(tmp_path: Path) -> None:
    link = FakeLink()
    h = ActorHarness(Reflex, link=link, server_dir=tmp_path)  # no knowledge stand-in
    h.send(WorldObserved(view=view(entities=[entity(5, "creeper", 3.0)])))
    assert link.last().name == "attack"


def test_health_events_update_the_view_between_snapshots(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(position=(0, 64, 0), entities=[entity(7, "zombie", 6.0)])))
    assert [a.name for a in link.actions] == ["look_around"]  # healthy: a zombie at 6 waits
    h.send(HealthChanged(hp=5, food=20, previous_hp=20))
    assert link.last().name == "flee"  # low health with a hostile near: flee


def test_with_the_curriculum_off_a_milestone_in_the_file_is_not_worked(tmp_path: Path) -> None:
    (tmp_path / TASK_FILE).write_bytes(
        orjson.dumps({"kind": "milestone", "skill": "gather.wood", "milestone": "4 oak_log"})
    )
    link = FakeLink()
    h = harness(tmp_path, link, milestones=False)
    h.send(WorldObserved(view=view()))
    assert link.calls("gather") == []
    h.send(OperatorOrder(verb="follow", operator="alice"))
    assert task_file(tmp_path) == {"kind": "follow", "operator": "alice"}


def test_a_task_whose_start_fails_is_dropped_not_retried_in_a_loop(tmp_path: Path) -> None:
    link = FakeLink(refuse={"gather"})
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), milestone())
    h.advance(3.0)
    assert len(h.events(SkillFinished)) == 1 and not h.last(SkillFinished).ok
    assert task_file(tmp_path) is None  # a restart does not resume what the curriculum rests


def test_an_old_skill_id_is_run_and_withdrawn_under_its_new_name(tmp_path: Path) -> None:
    (tmp_path / TASK_FILE).write_bytes(
        orjson.dumps({"kind": "milestone", "skill": "explore", "milestone": "look around"})
    )
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()))
    assert h.last(ActivityChanged).skill == "nav.explore"
    h.send(TaskWithdrawn(skill="explore", milestone="look around"))
    assert task_file(tmp_path) is None


def test_an_unknown_order_is_ignored(tmp_path: Path) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), OperatorOrder(verb="dance", operator="alice"))
    assert task_file(tmp_path) is None and link.calls("stop") == []


def test_a_new_task_that_is_the_same_work_goes_on_without_a_stop(tmp_path: Path) -> None:
    """A goal's milestone asking for the logs already being gathered: stopping the dig and
    starting it again at once only raced the JS side (it hung in the sandbox)."""
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view()), milestone())
    assert len(link.calls("gather")) == 1
    h.send(TaskWithdrawn(skill="gather.wood", milestone="4 oak_log (gather.wood)"))
    h.send(milestone("1 oak_log (gather.wood)"))
    assert len(link.calls("gather")) == 1 and link.calls("stop") == []  # it goes on
    assert task_file(tmp_path)["milestone"] == "1 oak_log (gather.wood)"  # type: ignore[index]
    craft = TaskSuggested(
        skill="craft.crafting_table", args={}, reason="milestone", source="curriculum",
        milestone="1 crafting_table (craft.crafting_table)",
    )  # fmt: skip
    h.send(craft)  # other work: the dig stops
    assert len(link.calls("stop")) == 1


def test_a_failed_hunt_for_the_nights_food_rests_before_the_next(tmp_path: Path) -> None:
    lesson = ActiveLesson(
        skill="knob.night_food", hostile="", verdict="tune", alternative="+4", confidence=0.7
    )
    link = FakeLink()
    h = harness(tmp_path, link, lessons=(lesson,))
    evening = view(time_of_day=10000, items={"bread": 1})
    h.send(WorldObserved(view=evening))
    assert h.last(ActivityChanged).skill == "food.hunt"
    finish(h, link, ok=False, error="no path")  # no animal in sight: it went looking, in vain
    h.send(WorldObserved(view=evening))
    assert len(link.calls("goto")) == 1 and h.last(ActivityChanged).skill is None  # resting
    h.advance(31)
    h.send(WorldObserved(view=evening))
    assert h.last(ActivityChanged).skill == "food.hunt"


def test_a_task_whose_item_is_held_ends_at_once_waiting_for_the_milestones_above(
    tmp_path: Path,
) -> None:
    link = FakeLink()
    h = harness(tmp_path, link)
    h.send(WorldObserved(view=view(items={"oak_log": 4})), milestone())
    assert link.calls("gather") == []  # held: nothing to do
    (ended,) = h.events(SkillFinished)
    assert ended.skill == "gather.wood" and not ended.ok and ended.detail.startswith(WAITING)
    assert task_file(tmp_path) is None  # the slot is free for the next milestone
    h.advance(1.0)
    assert len(h.events(SkillFinished)) == 1  # told once, not at every tick
