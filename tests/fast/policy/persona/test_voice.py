# ruff: noqa: RUF001 - the persona's lines are Russian
"""The persona's voice: which line for which moment, and how rarely it speaks. Pure."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.policy.persona.voice import MIN_GAP, PER_HOUR, Voice, line_for
from pepa.state.persona import load_cooldowns, save_cooldowns

pytestmark = pytest.mark.timeout(10)


def test_moments_have_russian_lines_with_details() -> None:
    assert line_for("skill:gather.wood") == "пошёл за деревом"
    assert line_for("threat:creeper") == "ох, криперы, прячусь"
    assert line_for("player", "alice") == "привет, alice!"
    assert line_for("skill:craft.wooden_pickaxe", "wooden_pickaxe") == "мастерю wooden_pickaxe"
    assert line_for("skill:nav.goto") is None  # walking is not worth a word
    assert line_for("nonsense") is None


def test_at_least_a_minute_between_lines_and_the_same_moment_rarely() -> None:
    voice = Voice()
    assert voice.speak("dusk", "", 1000.0) is not None
    assert voice.speak("death", "", 1000.0 + MIN_GAP - 1) is None
    assert voice.speak("death", "", 1000.0 + MIN_GAP) is not None
    assert voice.speak("dusk", "", 1000.0 + 2 * MIN_GAP) is None  # said 2 minutes ago
    assert voice.speak("threat", "zombie", 1000.0 + 3 * MIN_GAP) is not None
    assert voice.speak("threat", "skeleton", 1000.0 + 4 * MIN_GAP) is not None


def test_at_most_eight_lines_an_hour() -> None:
    voice = Voice()
    said = [voice.speak("player", f"p{i}", i * MIN_GAP) for i in range(20)]
    assert sum(line is not None for line in said) == PER_HOUR
    assert voice.speak("player", "late", 3600.0 + 1) is not None  # the first ones aged out


def test_cooldowns_survive_a_restart_and_a_broken_file_is_forgiven(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "persona.json"
    voice = Voice.restore(load_cooldowns(path))
    assert voice.speak("dawn", "", 500.0) is not None
    save_cooldowns(path, voice.saved())  # as the persona actor does after each line
    again = Voice.restore(load_cooldowns(path))  # a restarted worker
    assert again.speak("death", "", 530.0) is None
    assert again.speak("death", "", 560.0) is not None
    path.write_text("{not json")
    fresh = Voice.restore(load_cooldowns(path))
    assert "unreadable" in caplog.text
    assert fresh.speak("dawn", "", 570.0) is not None
