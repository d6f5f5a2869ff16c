"""The curriculum actor through ActorHarness, on real files in a temporary state folder: it hands
the first actionable milestone to the task slot, resumes the one ``current-task.json`` names
without handing it out again (and never writes that file), rests a failing milestone, takes a
task back when its milestone is reached or the goal changes, applies reflection's plan
revisions (refusing one that would break the plan), hands a lost task out again and brings a
plan naming old skill ids to the current ones."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.actors.curriculum import Curriculum
from pepa.policy.curriculum.assigner import LOST_AFTER_TICKS, RETRY_AFTER, WAIT_REST
from pepa.runtime.events import (
    Connected,
    Died,
    GoalSet,
    HomeKnown,
    LessonLearned,
    MilestoneReached,
    PlanAsked,
    PlanChanged,
    PlanDrafted,
    ReflexTicked,
    RevisePlan,
    SayInChat,
    SkillFinished,
    TaskSuggested,
    TaskWithdrawn,
    WorldObserved,
)
from pepa.runtime.events.queries import ActiveLesson
from pepa.state.memory import PLAN_FILE
from pepa.testing import ActorHarness, view
from pepa.world.death import DeathCause
from pepa.world.view import WorldView

pytestmark = pytest.mark.timeout(30)

PLAN = (
    "# Plan\n\nGoal: a wooden pickaxe\n\n"
    "- [x] 1 crafting_table (craft.crafting_table)\n"
    "- [ ] build a hut by the lake\n"
    "- [ ] 1 bogus (craft.bogus)\n"
    "- [ ] 3 oak_log (gather.wood)\n"
    "- [ ] 1 wooden_pickaxe (craft.wooden_pickaxe)\n"
)
LOGS = "3 oak_log (gather.wood)"
PICKAXE = "1 wooden_pickaxe (craft.wooden_pickaxe)"
IN_WORLD = WorldObserved(view=view())


def write_plan(folder: Path, text: str = PLAN) -> None:
    (folder / "plan.md").write_text(text)
    (folder / "goal.md").write_text("a wooden pickaxe\n")


def holding(**items: int) -> WorldObserved:
    return WorldObserved(view=view(items=items))


def finished(skill: str, ok: bool = True, detail: str = "") -> SkillFinished:
    return SkillFinished(skill=skill, ok=ok, seconds=1.0, detail=detail)


def suggested(h: ActorHarness[Curriculum]) -> list[tuple[str, str]]:
    return [(e.skill, e.milestone) for e in h.events(TaskSuggested)]


def diary(folder: Path) -> str:
    return "".join(p.read_text() for p in sorted((folder / "diary").glob("*.md")))


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Any]:
    started: list[ActorHarness[Curriculum]] = []

    def make(**kwargs: Any) -> ActorHarness[Curriculum]:
        h = ActorHarness(Curriculum, server_dir=tmp_path, **kwargs)
        started.append(h)
        return h

    yield make
    for h in started:
        h.stop()


# -- handing out ---------------------------------------------------------------------------


def test_the_first_actionable_milestone_goes_out_once_in_the_world(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path)
    h = start()
    assert h.last(PlanChanged) == PlanChanged(
        goal="a wooden pickaxe", done=1, total=5, next="1 bogus (craft.bogus)"
    )
    h.advance(3)
    assert h.events(TaskSuggested) == []  # no world view yet: not connected
    h.send(IN_WORLD)
    h.advance(1)
    (task,) = h.events(TaskSuggested)  # the done line, the note and craft.bogus are skipped
    assert task == TaskSuggested(
        skill="gather.wood", args={"item": "oak_log", "count": 3}, reason=f"milestone {LOGS}",
        source="curriculum", milestone=LOGS,
    )  # fmt: skip
    h.advance(10)
    assert len(h.events(TaskSuggested)) == 1  # one at a time
    assert not (tmp_path / "current-task.json").exists()  # the task slot's file, not ours


def test_nothing_goes_out_while_disconnected_or_when_the_curriculum_is_off(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path)
    h = start()
    h.send(WorldObserved(view=WorldView()))  # disconnected
    h.advance(5)
    assert h.events(TaskSuggested) == []
    off = start(enabled=False)
    assert off.scheduler.pending() == 0  # and no timer wakes it
    off.send(IN_WORLD)
    off.advance(5)
    for _ in range(LOST_AFTER_TICKS * 2):
        off.send(ReflexTicked(idle=True))
    assert off.events(TaskSuggested) == []
    off.send(PlanAsked(by="alice"))  # the plan is still answered
    assert off.last(SayInChat).text.startswith("Plan 1/5 done. Next: build a hut")


def test_a_milestone_out_before_a_restart_is_resumed_from_the_task_file_never_written(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path)
    task_file = tmp_path / "current-task.json"
    record = {"kind": "milestone", "skill": "gather.wood", "milestone": LOGS,
              "args": {"item": "oak_log", "count": 3}}  # fmt: skip
    task_file.write_bytes(orjson.dumps(record, option=orjson.OPT_INDENT_2) + b"\n")
    before = task_file.read_bytes()
    h = start()
    h.send(IN_WORLD)
    h.advance(5)
    assert h.events(TaskSuggested) == []  # the task slot resumes it from the file itself
    assert task_file.read_bytes() == before
    h.send(finished("gather.wood"), holding(oak_log=3))  # the skill ends, the logs show
    assert h.last(MilestoneReached).text == LOGS
    assert h.events(TaskWithdrawn) == []  # it ended by itself: nothing to take back
    h.advance(3)
    assert suggested(h)[-1] == ("craft.wooden_pickaxe", PICKAXE)
    h.send(holding(oak_log=3, wooden_pickaxe=1))
    assert h.last(MilestoneReached).text == PICKAXE
    h.send(GoalSet(text="a stone sword", by="alice"))
    assert task_file.read_bytes() == before  # a whole scenario: never written nor cleared


def test_a_milestone_that_fails_three_times_rests_then_comes_back(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path, "# Plan\n\n- [ ] 3 oak_log (gather.wood)\n")
    h = start()
    h.send(IN_WORLD)
    for attempt in range(3):
        h.advance(3)
        assert len(h.events(TaskSuggested)) == attempt + 1
        h.send(finished("gather.wood", ok=False, detail="no trees"), IN_WORLD)
    h.advance(RETRY_AFTER - 10)
    assert len(h.events(TaskSuggested)) == 3  # resting
    assert "gave up on 3 oak_log (gather.wood) for now: no trees" in diary(tmp_path)
    h.advance(11)
    assert len(h.events(TaskSuggested)) == 4  # back after RETRY_AFTER


# -- taking a task back ----------------------------------------------------------------------


def test_a_milestone_reached_while_out_is_withdrawn(tmp_path: Path, start: Any) -> None:
    write_plan(tmp_path)
    h = start()
    h.send(IN_WORLD)
    h.advance(1)
    assert suggested(h) == [("gather.wood", LOGS)]
    h.send(holding(oak_log=2))
    assert h.events(TaskWithdrawn) == []
    h.send(holding(oak_log=3))  # an operator handed the logs over
    assert h.events(TaskWithdrawn) == [TaskWithdrawn(skill="gather.wood", milestone=LOGS)]
    assert "- [x] 3 oak_log (gather.wood)" in (tmp_path / "plan.md").read_text()
    assert f"done: {LOGS}" in diary(tmp_path)
    h.advance(1)
    assert suggested(h)[-1] == ("craft.wooden_pickaxe", PICKAXE)
    h.send(finished("gather.wood"))  # the withdrawn run ends late: nothing to take back
    assert len(h.events(TaskWithdrawn)) == 1


def test_a_new_goal_or_an_adopted_plan_withdraws_the_task_out(tmp_path: Path, start: Any) -> None:
    write_plan(tmp_path)
    h = start()
    h.send(IN_WORLD)
    h.advance(1)
    h.send(GoalSet(text="some food", by="alice"))
    assert h.events(TaskWithdrawn) == [TaskWithdrawn(skill="gather.wood", milestone=LOGS)]
    assert (tmp_path / "plan.md.bak").read_text() == PLAN
    assert "Goal: some food" in (tmp_path / "plan.md").read_text()
    assert "new goal from alice: some food" in diary(tmp_path)
    h.send(PlanDrafted(goal="some food", milestones=("2 oak_log (gather.wood)",), source="pi"))
    h.advance(1)
    assert suggested(h)[-1] == ("gather.wood", "2 oak_log (gather.wood)")
    h.send(PlanDrafted(goal="some food", milestones=("1 furnace (craft.furnace)",), source="pi"))
    assert h.events(TaskWithdrawn)[-1] == TaskWithdrawn(
        skill="gather.wood", milestone="2 oak_log (gather.wood)"
    )


# -- plan.md's one writer -------------------------------------------------------------------


def test_reflections_revision_is_applied_with_a_backup_and_a_diary_line(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path)
    h = start()
    at = datetime(2025, 3, 4, 5, 6, tzinfo=UTC)
    change = "- [ ] 5 food (food.hunt)"
    h.send(RevisePlan(changes=(change,), source="reflection", at=at))
    plan = (tmp_path / "plan.md").read_text()
    assert plan.startswith(PLAN) and "## Adjusted by reflection 2025-03-04 05:06 UTC" in plan
    assert plan.endswith(f"\n{change}\n")
    assert (tmp_path / "plan.md.bak").read_text() == PLAN
    assert f"reflection changed the plan: {change}" in diary(tmp_path)
    assert h.last(PlanChanged).total == 6
    announced = len(h.events(PlanChanged))
    h.send(RevisePlan(changes=(change,), source="reflection", at=at))  # already there
    assert (tmp_path / "plan.md").read_text() == plan
    assert len(h.events(PlanChanged)) == announced


def test_a_revision_that_would_break_the_plan_grammar_is_refused(
    tmp_path: Path, start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_plan(tmp_path)
    h = start()
    at = datetime(2025, 3, 4, tzinfo=UTC)
    with caplog.at_level(logging.WARNING):
        h.send(RevisePlan(changes=("- [ ] 0 oak_log (gather.wood)",), source="reflection", at=at))
        h.send(RevisePlan(changes=("x" * 600,), source="reflection", at=at))
    assert (tmp_path / "plan.md").read_text() == PLAN
    assert not (tmp_path / "plan.md.bak").exists()
    assert caplog.text.count("plan.md left as it is") == 2
    assert "milestone count must be between 1 and 2304" in caplog.text
    assert PLAN_FILE.parse((tmp_path / "plan.md").read_bytes()) == PLAN
    assert not (tmp_path / "diary").exists()  # no "changed the plan" line
    full = "# Plan\n\n" + "".join(f"- [ ] note {n}\n" for n in range(997))
    (tmp_path / "plan.md").write_text(full)  # months of notes: one more heading is too many
    change = "- [ ] 5 food (food.hunt)"
    h.send(RevisePlan(changes=(change,), source="reflection", at=at))
    assert (tmp_path / "plan.md").read_text() == full
    assert "must have at most 1000 lines" in caplog.text


# -- the lost-task watch and renamed skills ----------------------------------------------------


def test_a_task_lost_while_the_chain_idles_goes_out_again(tmp_path: Path, start: Any) -> None:
    write_plan(tmp_path)
    h = start()
    h.send(IN_WORLD)
    h.advance(1)
    for _ in range(LOST_AFTER_TICKS - 1):
        h.send(ReflexTicked(idle=True))
    h.send(ReflexTicked(idle=False))  # it was busy after all: the count starts over
    for _ in range(LOST_AFTER_TICKS - 1):
        h.send(ReflexTicked(idle=True))
    assert len(h.events(TaskSuggested)) == 1
    h.send(ReflexTicked(idle=True))
    first, again = h.events(TaskSuggested)
    assert again == first


def test_a_plan_naming_old_skill_ids_is_rewritten_once_and_ticks_with_the_renamed_skills(
    tmp_path: Path, start: Any
) -> None:
    old = (
        "# Plan\n\nGoal: food and a chest\n\n- [ ] a note on place-chest (place-chest)\n"
        "- [ ] 5 food (acquire-food)\n- [ ] 1 chest (place-chest)\n"
    )
    write_plan(tmp_path, old)
    h = start()
    new = (tmp_path / "plan.md").read_text()
    assert new == old.replace("(acquire-food)", "(food.hunt)").replace(
        "1 chest (place-chest)", "1 chest (base.place-chest)"
    )  # the note's line is the operator's, kept byte for byte
    assert (tmp_path / "plan.md.bak").read_text() == old
    h.send(IN_WORLD)
    h.advance(1)
    assert suggested(h) == [("food.hunt", "5 food (food.hunt)")]
    h.send(holding(beef=5))
    h.advance(1)
    assert suggested(h)[-1] == ("base.place-chest", "1 chest (base.place-chest)")
    h.send(finished("base.place-chest"))
    assert h.last(MilestoneReached).text == "1 chest (base.place-chest)"
    assert (tmp_path / "plan.md.bak").read_text() == old  # rewritten once, not at every read
    assert '"chest"' in (tmp_path / "locations.json").read_text()


def test_a_task_recorded_under_an_old_id_still_ends_with_the_renamed_skill(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path, "# Plan\n\n- [ ] 1 chest (place-chest)\n- [ ] 3 oak_log (gather.wood)\n")
    record = {"kind": "milestone", "skill": "place-chest", "milestone": "1 chest (place-chest)"}
    (tmp_path / "current-task.json").write_bytes(orjson.dumps(record))
    h = start()
    h.send(IN_WORLD)
    h.advance(3)
    assert h.events(TaskSuggested) == []  # resumed, under its old name
    h.send(finished("base.place-chest"), IN_WORLD)
    assert h.last(MilestoneReached).text == "1 chest (base.place-chest)"
    h.advance(3)
    assert suggested(h) == [("gather.wood", "3 oak_log (gather.wood)")]


def test_connecting_with_no_plan_and_no_recipes_writes_the_default_goal(
    tmp_path: Path, start: Any
) -> None:
    h = start()
    h.send(Connected(server="127.0.0.1:25565", version="1.20.4"))
    assert (tmp_path / "goal.md").read_text().startswith("survive")
    assert not (tmp_path / "plan.md").exists()  # nothing to derive it with
    h.send(IN_WORLD)
    assert '"spawn"' in (tmp_path / "locations.json").read_text()
    assert "oak_log" not in (tmp_path / "inventory-log.jsonl").read_text()
    h.send(holding(oak_log=1))
    h.advance(1)
    assert (tmp_path / "inventory-log.jsonl").read_text().count("\n") == 1  # at most every 300 s


def test_a_recorded_milestone_already_ticked_off_is_withdrawn_at_start(
    tmp_path: Path, start: Any
) -> None:
    """A crash between ticking plan.md and the reflex clearing current-task.json."""
    write_plan(
        tmp_path, "# Plan\n\n- [x] 3 oak_log (gather.wood)\n- [ ] 1 chest (base.place-chest)\n"
    )
    record = {"kind": "milestone", "skill": "gather.wood", "milestone": "3 oak_log (gather.wood)"}
    (tmp_path / "current-task.json").write_bytes(orjson.dumps(record))
    h = start()
    withdrawn = h.last(TaskWithdrawn)
    assert (withdrawn.skill, withdrawn.milestone) == ("gather.wood", "3 oak_log (gather.wood)")
    h.send(IN_WORLD)
    h.advance(3)
    assert suggested(h) == [("base.place-chest", "1 chest (base.place-chest)")]


def test_a_death_and_the_servers_word_for_it_go_into_the_diary(tmp_path: Path, start: Any) -> None:
    write_plan(tmp_path)
    h = start()
    cause = DeathCause(kind="fall", key="death.fell.accident.generic", text="pepa_bot fell")
    h.send(Died(reason="fell 31 blocks", position={"x": 10.4, "y": 64.0, "z": -3.6}, cause=cause))
    h.send(Died(reason="died (cause unknown)", position=None))
    lines = diary(tmp_path)
    assert "died at 10 64 -4: fell 31 blocks (the server: pepa_bot fell)" in lines
    assert "died at ?: died (cause unknown)\n" in lines


# -- lessons: armour first ------------------------------------------------------------------

ARMED_PLAN = (
    "# Plan\n\nGoal: survive\n\n"
    "- [ ] 1 iron_pickaxe (craft.iron_pickaxe)\n"
    "- [ ] 1 iron_sword (craft.iron_sword)\n"
    "- [ ] 1 iron_chestplate (craft.iron_chestplate)\n"
    "- [ ] 1 shield (craft.shield)\n"
)
GEAR_FIRST = ActiveLesson(
    skill="knob.gear_first", hostile="", verdict="tune", alternative="+1", confidence=0.7
)


def test_a_lesson_hands_out_armour_and_a_shield_before_the_rest_of_the_plan(
    tmp_path: Path, start: Any, caplog: pytest.LogCaptureFixture
) -> None:
    write_plan(tmp_path, ARMED_PLAN)
    h = start(peers={"knowledge": lambda message: (GEAR_FIRST,)})  # learned in an earlier run
    with caplog.at_level(logging.INFO, logger="pepa.actors.curriculum"):
        h.send(IN_WORLD)
        h.advance(1)
    assert suggested(h) == [("craft.iron_chestplate", "1 iron_chestplate (craft.iron_chestplate)")]
    assert "before 1 iron_pickaxe (craft.iron_pickaxe): armour first (a lesson)" in caplog.text


def test_armour_first_comes_with_a_lesson_learned_now_and_never_with_learning_off(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path, ARMED_PLAN)
    taught = LessonLearned(
        skill="knob.gear_first", hostile="", verdict="tune", alternative="+1", confidence=0.7
    )
    off = start(learning=False, peers={"knowledge": lambda message: (GEAR_FIRST,)})
    off.send(taught, IN_WORLD)
    off.advance(1)
    assert [skill for skill, _ in suggested(off)] == ["craft.iron_pickaxe"]  # the plan's order
    off.stop()
    on = start()
    on.send(taught, IN_WORLD)
    on.advance(1)
    assert [skill for skill, _ in suggested(on)] == ["craft.iron_chestplate"]


def test_the_home_is_reached_only_by_its_build_and_then_told_to_the_reflex(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path, "# Plan\n\nGoal: a home\n\n- [ ] 1 home (base.build-home)\n")
    h = start()
    h.send(WorldObserved(view=view(position=(10.5, 64.0, 3.5))))
    h.advance(1)
    assert suggested(h) == [("base.build-home", "1 home (base.build-home)")]
    # a step on its way (wood for the door) ends well: the milestone is not reached
    h.send(SkillFinished(skill="base.build-home", ok=True, seconds=1.0, step=True))
    assert h.events(MilestoneReached) == [] and h.events(HomeKnown) == []
    assert "home" not in orjson.loads((tmp_path / "locations.json").read_bytes())
    h.advance(5)
    assert len(suggested(h)) == 2  # out again for its next step
    h.send(finished("base.build-home"))  # built: the bot stands inside the door
    assert h.last(MilestoneReached).text == "1 home (base.build-home)"
    home = orjson.loads((tmp_path / "locations.json").read_bytes())["home"]
    assert (home["x"], home["y"], home["z"]) == (10.5, 64.0, 3.5)
    assert h.last(HomeKnown) == HomeKnown(x=10.5, y=64.0, z=3.5)
    h.send(Connected(server="127.0.0.1:25565", version="1.16.5"))  # told again at each connect
    assert len(h.events(HomeKnown)) == 2


def test_a_milestone_waiting_for_time_rests_at_once_and_the_next_goes_out(
    tmp_path: Path, start: Any
) -> None:
    write_plan(tmp_path, "# Plan\n\n- [ ] 3 wheat (farm.tend)\n- [ ] 3 oak_log (gather.wood)\n")
    h = start()
    h.send(IN_WORLD)
    h.advance(1)
    assert suggested(h) == [("farm.tend", "3 wheat (farm.tend)")]
    h.send(finished("farm.tend", ok=False, detail="waiting: 9 crops growing, none ripe"))
    h.advance(5)
    assert suggested(h)[-1] == ("gather.wood", LOGS)  # the field grows meanwhile
    h.advance(WAIT_REST)
    h.send(finished("gather.wood", ok=False, detail="no tree"))
    h.advance(5)
    assert suggested(h)[-1] == ("farm.tend", "3 wheat (farm.tend)")  # its rest is over
