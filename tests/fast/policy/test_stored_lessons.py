"""A lesson read from a shared knowledge base passes the checks an LLM's lesson passes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pepa.policy.coach.validate import SkillCatalog, stored_lesson_problem
from pepa.state.knowledge.records import LessonRecord

CATALOG = SkillCatalog.from_registry()
SEED = LessonRecord(
    skill="combat.attack-nearest", hostile="creeper", verdict="avoid", alternative="survive.flee",
    confidence=0.6, text="creeper: explodes within 3 blocks: never melee without a shield, run",
    source="seed", id=1,
)  # fmt: skip


def test_the_lessons_pepa_writes_itself_pass() -> None:
    assert stored_lesson_problem(SEED, CATALOG) == ""
    note = replace(SEED, verdict="note", alternative="", hostile="zombie")
    assert stored_lesson_problem(note, CATALOG) == ""
    placed = replace(SEED, signature="cause=mob;mob=creeper;crowd=1;time=night")
    assert stored_lesson_problem(placed, CATALOG) == ""
    knob = replace(SEED, skill="knob.creeper_keep", verdict="tune", alternative="+2")
    assert stored_lesson_problem(knob, CATALOG) == ""
    for skill, subject in (
        ("hazard.below", "magma_block"),
        ("hazard.touching", "cactus"),
        ("hazard.inside", "stone_pressure_plate"),
        ("hazard.mob", "ravager"),
    ):
        about = replace(SEED, skill=skill, hostile=subject, alternative="")
        assert stored_lesson_problem(about, CATALOG) == "", skill


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"skill": "shell.run"}, "unknown skill"),
        ({"alternative": "shell.run"}, "unknown skill"),
        ({"verdict": "obey"}, "verdict"),
        ({"verdict": "prefer", "alternative": ""}, "no alternative"),
        ({"hostile": "Zombie; DROP"}, "not a mob name"),
        ({"confidence": 7.0}, "outside 0..1"),
        ({"text": ""}, "empty"),
        ({"text": "x" * 400}, "longer than"),
        ({"text": "fine\x1b[2J\nforged line"}, "control characters"),
        ({"signature": "mob=creeper;evil=1"}, "not a signature"),
        ({"skill": "knob.creeper_keep", "verdict": "tune", "alternative": "+900"}, "change"),
        ({"skill": "hazard.beside", "alternative": ""}, "unknown hazard lesson"),
        ({"skill": "hazard.below", "alternative": "survive.flee"}, "names no alternative"),
        ({"skill": "hazard.below", "alternative": "", "verdict": "prefer"}, "'avoid'"),
        ({"skill": "hazard.below", "alternative": "", "hostile": "../etc"}, "not a block"),
        ({"skill": "hazard.mob", "alternative": "", "hostile": ""}, "not a block or mob name"),
    ],
)
def test_a_row_no_pepa_would_write_is_refused(change: dict[str, object], problem: str) -> None:
    assert problem in stored_lesson_problem(replace(SEED, **change), CATALOG)  # type: ignore[arg-type]
