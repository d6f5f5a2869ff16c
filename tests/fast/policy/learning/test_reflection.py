"""Reflection: the pure "am I in a loop?" analysis over deaths and lessons."""

from __future__ import annotations

from datetime import datetime

import pytest

from pepa.policy.learning.reflection import (
    DeathFact,
    Window,
    adjust_plan,
    death_facts,
    proposal,
    reflect,
)
from pepa.state.knowledge import DeathRecord

pytestmark = pytest.mark.timeout(30)

AT = datetime(2026, 11, 30, 4, 0)


def test_three_deaths_to_one_mob_are_a_loop_with_a_lesson_and_a_plan_change() -> None:
    deaths = [
        DeathFact(cause="lost a fight to zombie", x=10.0 + i * 50, z=0.0, hostile="zombie")
        for i in range(3)
    ]
    result = reflect(at=AT, deaths=deaths, skills={})
    assert result.in_loop
    assert result.findings == ("died 3 times of the same cause: lost a fight to zombie",)
    (lesson,) = result.lessons
    assert (lesson.verdict, lesson.hostile, lesson.alternative) == (
        "avoid", "zombie", "survive.flee",
    )  # fmt: skip
    assert result.plan_changes == (
        "- [ ] 1 stone_sword (craft.stone_sword)",
        "- [ ] 1 iron_chestplate (craft.iron_chestplate)",
    )
    assert "Am I in a loop? **yes**" in result.markdown
    assert "## New lessons" in result.markdown


def test_deaths_piling_up_on_one_spot_are_a_death_trap() -> None:
    causes = ["fell", "drowned", "lost a fight to spider", "burned"]
    deaths = [DeathFact(cause=c, x=100.0 + i, z=-50.0 + i) for i, c in enumerate(causes)]
    result = reflect(at=AT, deaths=deaths, skills={})
    assert result.findings == ("died 4 times within 16 blocks of 102 -48",)
    assert result.plan_changes == ("- [ ] keep away from 102 -48 (a death trap); move the base",)


def test_a_skill_failing_half_its_runs_is_a_proposal_hint_a_quiet_window_is_no_loop() -> None:
    skills = {"nav.goto": {"ok": 2, "failed": 4}, "survive.eat": {"ok": 9, "failed": 1}}
    result = reflect(at=AT, deaths=[], skills=skills)
    assert result.proposal_hints == ("nav.goto: fails 67% of the time; look at its preconditions",)
    quiet = reflect(at=AT, deaths=[DeathFact(cause="fell")], skills={"nav.goto": {"ok": 5}})
    assert not quiet.in_loop and quiet.findings == () and "**no**" in quiet.markdown


def test_the_diary_repeating_itself_is_a_loop() -> None:
    diary = ["- went to the mine", "- went to the mine", "- went to the mine", "- slept"]
    assert reflect(at=AT, deaths=[], skills={}, diary=diary).in_loop


def test_plan_adjustments_are_appended_once_under_a_dated_heading() -> None:
    plan = "# Plan\n\n- [x] wooden pickaxe\n- [ ] stone pickaxe\n"
    changes = ("- [ ] keep away from 1 2",)
    once = adjust_plan(plan, changes, AT)
    assert once.startswith(plan.rstrip("\n"))
    assert "## Adjusted by reflection 2026-11-30 04:00 UTC\n\n- [ ] keep away from 1 2\n" in once
    assert adjust_plan(once, changes, AT) == once
    assert adjust_plan("", changes, AT).startswith("# Plan\n\n## Adjusted")


def test_stored_deaths_become_facts_with_their_first_cause() -> None:
    placed = DeathRecord(
        id=1, at=AT, reason="killed near zombie", position={"x": 1.0, "y": 64.0, "z": 2.0},
        last_skill="combat.attack-nearest zombie", last_hostile="zombie", hostile_distance=1.5,
    )  # fmt: skip
    nowhere = DeathRecord(
        id=2, at=AT, reason="fell", position=None, last_skill="", last_hostile="",
        hostile_distance=None,
    )  # fmt: skip
    assert death_facts([(placed, "lost a fight to zombie"), (nowhere, "fell")]) == [
        DeathFact(
            cause="lost a fight to zombie", x=1.0, z=2.0, hostile="zombie",
            skill="combat.attack-nearest zombie",
        ),
        DeathFact(cause="fell"),
    ]  # fmt: skip


def test_a_window_counts_skill_runs_until_it_closes() -> None:
    window = Window(AT)
    for ok in (True, False, False):
        window.ran("nav.goto", ok)
    later = datetime(2026, 11, 30, 4, 30)
    assert window.close(later) == {"nav.goto": {"ok": 1, "failed": 2}}
    assert (window.start, window.runs) == (later, {})


def test_a_proposal_is_written_once_per_skill_while_one_is_pending() -> None:
    hint = "nav.goto: fails 80% of the time; look at its preconditions"
    drafted = proposal(hint, AT, pending=["20261129-000000-other.md"])
    assert drafted is not None
    name, markdown = drafted
    assert name == "20261130-040000-reflection-nav-goto.md"
    assert markdown.startswith("# Proposal: `nav.goto` keeps failing (reflection)\n")
    assert hint in markdown
    assert proposal(hint, AT, pending=[name]) is None


def test_the_plan_lines_reflection_adds_are_milestones_the_curriculum_works() -> None:
    from pepa.policy.learning.reflection import ARMED, FED
    from pepa.state.plans import actionable_lines

    found = actionable_lines([*ARMED, FED])
    assert [(m.count, m.item, m.skill) for m in found] == [
        (1, "stone_sword", "craft.stone_sword"),
        (1, "iron_chestplate", "craft.iron_chestplate"),
        (5, "food", "food.hunt"),
    ]
