"""The pure parts of the LLM layer: strict validation, the shared budget, prompts, choice."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.daemon.config import resolve
from pepa.llm import (
    CancelToken,
    LlmSettings,
    LlmUnavailable,
    OfflineBackend,
    OpenAIBackend,
    PiBackend,
    make_backend,
    settings_from_config,
)
from pepa.llm.budget import LlmBudget, load_budget, save_budget
from pepa.policy.coach.prompts import (
    death_facts,
    next_action_prompt,
    postmortem_prompt,
    world_facts,
)
from pepa.policy.coach.validate import (
    LLM_CONFIDENCE_CAP,
    ReplyRejected,
    SkillCatalog,
    extract_object,
    validate_next_action,
    validate_postmortem,
)
from pepa.testing import entity, view
from pepa.world.view import WorldView

pytestmark = pytest.mark.timeout(30)

CATALOG = SkillCatalog.from_registry()


def lesson(**overrides: Any) -> dict[str, Any]:
    base = {
        "skill": "combat.attack-nearest",
        "verdict": "avoid",
        "alternative": "survive.flee",
        "hostile": "zombie",
        "situation": "night, no armour",
        "text": "do not melee zombies bare-handed at night",
        "confidence": 0.7,
    }
    return {**base, **overrides}


def postmortem(**overrides: Any) -> dict[str, Any]:
    base = {"cause": "lost a fight to a zombie", "analysis": "fists against a zombie at night"}
    return {**base, "lessons": [lesson()], **overrides}


def text(value: Any) -> str:
    return orjson.dumps(value).decode()


# -- validation: accepted -----------------------------------------------------------


def test_a_bare_json_post_mortem_is_accepted_and_normalised() -> None:
    reply = validate_postmortem(text(postmortem(lessons=[lesson(hostile=" Zombie ")])), CATALOG)
    assert reply.cause == "lost a fight to a zombie"
    (only,) = reply.lessons
    assert only.hostile == "zombie" and only.alternative == "survive.flee"
    assert only.as_dict()["verdict"] == "avoid"


def test_a_fenced_json_post_mortem_is_accepted() -> None:
    fenced = "```json\n" + text(postmortem()) + "\n```\n"
    assert validate_postmortem(fenced, CATALOG).lessons[0].skill == "combat.attack-nearest"
    assert validate_postmortem("```\n" + text(postmortem()) + "\n```", CATALOG).cause


def test_llm_confidence_is_clamped_to_the_cap() -> None:
    reply = validate_postmortem(text(postmortem(lessons=[lesson(confidence=1)])), CATALOG)
    assert reply.lessons[0].confidence == LLM_CONFIDENCE_CAP
    low = validate_postmortem(text(postmortem(lessons=[lesson(confidence=0.3)])), CATALOG)
    assert low.lessons[0].confidence == 0.3


def test_optional_lesson_fields_default_to_empty_and_no_lessons_is_fine() -> None:
    bare = {"skill": "survive.eat", "verdict": "note", "text": "eat earlier", "confidence": 0.5}
    reply = validate_postmortem(text(postmortem(lessons=[bare])), CATALOG)
    assert reply.lessons[0].alternative == "" and reply.lessons[0].hostile == ""
    assert validate_postmortem(text(postmortem(lessons=[])), CATALOG).lessons == ()
    assert validate_postmortem(text({"cause": "c", "analysis": "a"}), CATALOG).lessons == ()


def test_unknown_keys_are_ignored() -> None:
    reply = validate_postmortem(text(postmortem(mood="sad")), CATALOG)
    assert reply.cause


def test_an_avoid_lesson_may_leave_the_alternative_to_the_whitelist() -> None:
    reply = validate_postmortem(text(postmortem(lessons=[lesson(alternative="")])), CATALOG)
    assert reply.lessons[0].alternative == ""


def test_a_next_action_naming_an_advisable_skill_is_accepted() -> None:
    action = validate_next_action('{"skill": "nav.explore", "reason": "nothing to do"}', CATALOG)
    assert (action.skill, action.reason) == ("nav.explore", "nothing to do")


# -- validation: rejected -----------------------------------------------------------

GOOD = text(postmortem())


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        (None, "empty"),
        ("Error: rate limit exceeded, retry in 20s", "error text"),
        ("error: 429 Too Many Requests", "error text"),
        ('{"error": "Rate limit reached for requests"}', "error text"),
        ("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>", "error text"),
        ("Traceback (most recent call last):\n  File x", "error text"),
        ("Sure! Here is the analysis:\n" + GOOD, "prose around"),
        (GOOD + "\nHope this helps!", "prose around"),
        ("Here you go:\n```json\n" + GOOD + "\n```", "prose or several fences"),
        ("```json\n" + GOOD + "\n```\n```json\n" + GOOD + "\n```", "prose or several fences"),
        ("I think the bot died of a zombie.", "not JSON"),
        ('{"cause": "x", "analysis": }', "invalid JSON"),
        ("{'cause': 'single quotes'}", "invalid JSON"),
        ('{"cause": "x", "analysis": "y", "n": NaN}', "invalid JSON"),
        ("[" + GOOD + "]", "not a JSON object"),
        ("x" * 20_000, "longer than"),
    ],
)
def test_garbage_replies_are_rejected(reply: Any, reason: str) -> None:
    with pytest.raises(ReplyRejected, match=reason) as caught:
        validate_postmortem(reply, CATALOG)
    assert len(caught.value.excerpt) <= 200


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"analysis": "a", "lessons": []}, "cause is missing"),
        ({"cause": 3, "analysis": "a"}, "cause is not a string"),
        ({"cause": " ", "analysis": "a"}, "cause is empty"),
        ({"cause": "c" * 201, "analysis": "a"}, "cause is longer than 200"),
        ({"cause": "c", "analysis": "a" * 2001}, "analysis is longer than 2000"),
        (postmortem(lessons={"skill": "x"}), "lessons is not a list"),
        (postmortem(lessons=[lesson()] * 6), "more than 5 lessons"),
        (postmortem(lessons=["avoid zombies"]), "a lesson is not an object"),
        (postmortem(lessons=[lesson(skill="choose.safe.surface")]), "unknown skill"),
        (postmortem(lessons=[lesson(alternative="survive.teleport")]), "unknown skill"),
        (postmortem(lessons=[lesson(alternative="combat.attack-nearest")]), "may not be"),
        (postmortem(lessons=[lesson(skill="survive.flee")]), "the skill itself"),
        (postmortem(lessons=[lesson(verdict="maybe")]), "verdict 'maybe'"),
        (postmortem(lessons=[lesson(verdict="prefer", alternative="")]), "names no alternative"),
        (postmortem(lessons=[lesson(verdict="note")]), "note lesson names an alternative"),
        (postmortem(lessons=[lesson(hostile="zombie; drop table")]), "not a mob name"),
        (postmortem(lessons=[lesson(confidence="high")]), "confidence is not a number"),
        (postmortem(lessons=[lesson(confidence=True)]), "confidence is not a number"),
        (postmortem(lessons=[lesson(confidence=1.5)]), "outside 0..1"),
        (postmortem(lessons=[lesson(confidence=-0.1)]), "outside 0..1"),
        (postmortem(lessons=[lesson(text="t" * 301)]), "text is longer than 300"),
        (postmortem(lessons=[lesson(text=None)]), "text is missing"),
        (postmortem(lessons=[lesson(skill=["combat.attack-nearest"])]), "skill is not a string"),
    ],
)
def test_wrong_shapes_and_unknown_skills_are_rejected(data: Any, reason: str) -> None:
    with pytest.raises(ReplyRejected, match=reason):
        validate_postmortem(text(data), CATALOG)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ('{"skill": "craft.diamond-pickaxe", "reason": "r"}', "unknown skill"),
        ('{"skill": "combat.attack-nearest", "reason": "r"}', "may not be dispatched"),
        ('{"skill": "nav.follow", "reason": "r"}', "may not be dispatched"),
        ('{"skill": "nav.explore"}', "reason is missing"),
        ('{"skill": "nav.explore", "reason": ""}', "reason is empty"),
        ('{"reason": "r"}', "skill is missing"),
        ("explore: there is nothing else to do", "not JSON"),
        ("Error: model overloaded", "error text"),
    ],
)
def test_bad_next_actions_are_rejected(reply: str, reason: str) -> None:
    with pytest.raises(ReplyRejected, match=reason):
        validate_next_action(reply, CATALOG)


def test_extract_object_returns_the_object() -> None:
    assert extract_object('  {"a": 1}\n') == {"a": 1}


def test_the_catalog_knows_which_skills_the_coach_may_dispatch() -> None:
    assert "combat.attack-nearest" in CATALOG.ids
    assert "combat.attack-nearest" not in CATALOG.advisable
    assert {"survive.flee", "nav.explore"} <= CATALOG.advisable


# -- the budget -----------------------------------------------------------------------

HOUR = 3600.0
MINUTE = 60.0


def test_at_most_three_calls_per_rolling_hour() -> None:
    budget = LlmBudget()
    assert budget.try_spend("analysis", 0.0) is None
    assert budget.try_spend("escalation", 1.0) is None
    assert budget.try_spend("reflection", 2.0) is None
    refusal = budget.try_spend("reflection", 3.0)
    assert refusal is not None and "3 LLM calls" in refusal
    assert budget.refusal("analysis", HOUR - 1.0) is not None
    assert budget.refusal("analysis", HOUR + 0.5) is None  # the first call left the window


def test_analyses_cool_down_for_twelve_minutes() -> None:
    budget = LlmBudget()
    budget.spend("analysis", 0.0)
    refusal = budget.refusal("analysis", 11 * MINUTE)
    assert refusal is not None and "analysis cooldown" in refusal
    assert budget.refusal("escalation", 11 * MINUTE) is None  # another kind is not held back
    assert budget.refusal("analysis", 12 * MINUTE) is None


def test_escalations_have_their_own_ten_minute_cooldown() -> None:
    budget = LlmBudget()
    budget.spend("escalation", 0.0)
    assert budget.refusal("escalation", 9 * MINUTE) is not None
    assert budget.refusal("analysis", 9 * MINUTE) is None
    assert budget.refusal("escalation", 10 * MINUTE) is None


def test_a_clock_that_went_back_never_frees_the_budget_early() -> None:
    budget = LlmBudget()
    for at in (5000.0, 5001.0, 5002.0):
        budget.spend("reflection", at)
    assert budget.refusal("reflection", 100.0) is not None  # the clock jumped back
    assert budget.refusal("reflection", 100.0 + HOUR + 1.0) is None


def test_unknown_kinds_are_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown LLM call kind"):
        LlmBudget().refusal("banter", 0.0)


def test_the_budget_survives_a_restart_through_its_file(tmp_path: Path) -> None:
    path = tmp_path / "llm-budget.json"
    budget = load_budget(path)
    budget.spend("analysis", 100.0)
    budget.spend("escalation", 200.0)
    save_budget(path, budget)
    again = load_budget(path)
    assert again.calls == [(100.0, "analysis"), (200.0, "escalation")]
    assert again.refusal("analysis", 300.0) is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["llm-budget.json"]  # no temp left


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[]", b'{"calls": [[1, "banter"]]}', b'{"calls": [["x", "analysis"]]}'],
)
def test_a_corrupt_budget_file_warns_once_and_starts_fresh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes
) -> None:
    path = tmp_path / "llm-budget.json"
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="pepa.llm.budget"):
        budget = load_budget(path)
    assert budget.calls == []
    assert len([r for r in caplog.records if "corrupt" in r.getMessage()]) == 1


def test_no_budget_file_is_a_fresh_budget(tmp_path: Path) -> None:
    assert load_budget(tmp_path / "missing.json").calls == []
    assert load_budget(None).calls == []


# -- prompts --------------------------------------------------------------------------


def bundle() -> dict[str, Any]:
    snapshots = [{"hp": 20 - i // 10, "food": 18, "isDay": False} for i in range(150)]
    snapshots[-1]["hp"] = 3
    return {
        "snapshots": snapshots,
        "last_skill": "combat.attack-nearest zombie",
        "last_hostile": {"name": "zombie", "distance": 1.74, "id": 7},
        "hp": 0,
        "food": 18,
        "inventory": {"items": {"bread": 3, "dirt": 40, "stick": 2}, "emptySlots": 30},
    }


def test_the_post_mortem_prompt_is_compact_and_names_every_fact() -> None:
    prompt = postmortem_prompt("pepa_bot was slain by Zombie", bundle(), CATALOG)
    assert len(prompt) < 5000  # about 1250 tokens, a third of it the knobs (one line each)
    for fact in (
        "slain by Zombie",
        "combat.attack-nearest zombie",
        "zombie at 1.7 blocks",
        "dirt x40, bread x3, stick x2",
        "time: night",
        "→ 3 → 0",
    ):
        assert fact in prompt
    for skill_id in CATALOG.ids:
        assert skill_id in prompt
    assert "survive.flee*" in prompt and "combat.attack-nearest*" not in prompt


def test_the_hp_trail_keeps_only_the_last_changes() -> None:
    hp_line = next(line for line in death_facts("x", bundle()) if line.startswith("- hp"))
    assert hp_line.count("→") == 7 and "…" in hp_line


def test_the_world_facts_name_the_nearest_threats_and_the_inventory() -> None:
    world = view(
        hp=7.5,
        food=3,
        time_of_day=14000,
        entities=[entity(1, "zombie", 4.3), entity(2, "cow", 2.0, kind="animal")],
        items={"bread": 2, "dirt": 9},
    )
    assert world_facts(world) == [
        "- hp 7.5, food 3",
        "- position 0.5 64 0.5 in overworld",
        "- time: night",
        "- hostiles near: zombie at 4.3",
        "- inventory: dirt x9, bread x2",
    ]


def test_world_facts_before_any_snapshot_say_what_is_unknown() -> None:
    assert world_facts(WorldView()) == [
        "- hp ?, food ?",
        "- position ? ? ? in ?",
        "- hostiles near: none",
        "- inventory: empty",
    ]


def test_an_empty_bundle_still_makes_a_prompt() -> None:
    facts = death_facts("", {})
    assert "- hp (oldest to last): unknown" in facts and "- inventory: empty" in facts


def test_the_next_action_prompt_offers_only_skills_the_coach_may_dispatch() -> None:
    world = view(position=(1, 64, -3), time_of_day=1000)
    prompt = next_action_prompt(world, CATALOG)
    assert "hp 20, food 20" in prompt and "hostiles near: none" in prompt
    assert "- position 1 64 -3 in overworld" in prompt and "- time: day" in prompt
    assert "- nav.explore:" in prompt
    assert "combat.attack-nearest" not in prompt and "nav.follow" not in prompt


# -- choosing a back end -----------------------------------------------------------------


def test_make_backend_builds_each_back_end() -> None:
    settings = LlmSettings(openai_url="http://127.0.0.1:9/v1", openai_model="m")
    assert isinstance(make_backend("pi", settings), PiBackend)
    assert isinstance(make_backend("openai", settings), OpenAIBackend)
    assert isinstance(make_backend("offline", settings), OfflineBackend)
    broken = make_backend("openai", LlmSettings(openai_url="ftp://x"))
    assert isinstance(broken, OfflineBackend) and "not an http(s) URL" in broken.why


def test_settings_come_from_the_config() -> None:
    config = resolve({}, {"PEPA_OPENAI_MODEL": "m", "OPENAI_API_KEY": "k"}, {})
    settings = settings_from_config(config)
    assert settings == LlmSettings(openai_model="m", openai_key="k")
    url = resolve({}, {"PEPA_OPENAI_URL": "http://h:1/v1", "PEPA_LLM_TIMEOUT": "9"}, {})
    assert settings_from_config(url).openai_url == "http://h:1/v1"
    assert settings_from_config(url).timeout == 9.0


def test_the_openai_key_never_shows_in_a_repr() -> None:
    settings = LlmSettings(openai_key="sk-secret")
    assert "sk-secret" not in repr(settings)
    assert "sk-secret" not in repr(make_backend("openai", settings))


def test_the_offline_back_end_refuses_to_answer() -> None:
    offline = OfflineBackend()
    with pytest.raises(LlmUnavailable, match="no LLM is configured"):
        offline.complete("why?", timeout=1.0)
    with pytest.raises(LlmUnavailable, match="PEPA_OPENAI_URL"):
        offline.stream("why?", on_chunk=lambda s, t: None, on_done=lambda c, m: None, timeout=1)


def test_a_missing_pi_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LlmUnavailable, match="not on PATH"):
        PiBackend().complete("why?", timeout=1.0)


def test_a_cancel_token_runs_callbacks_once_and_late_ones_at_once() -> None:
    token = CancelToken()
    seen: list[str] = []
    token.on_cancel(lambda: seen.append("early"))
    token.cancel()
    token.cancel()
    token.on_cancel(lambda: seen.append("late"))
    assert seen == ["early", "late"] and token.cancelled


# -- knob lessons: the same whitelist and bounds as the offline post-mortem's --------


def knob(**overrides: Any) -> dict[str, Any]:
    base = {
        "skill": "knob.fight_margin",
        "verdict": "tune",
        "alternative": "+4",
        "hostile": "Skeleton",
        "text": "want more health before a skeleton",
        "confidence": 0.9,
    }
    return {**base, **overrides}  # fmt: skip


def test_a_knob_lesson_within_its_bounds_is_accepted_with_the_knobs_own_mob() -> None:
    lessons = [knob(), knob(skill="knob.eat_below", alternative="+2", hostile="zombie"),
               knob(skill="knob.creeper_keep", alternative="+6.5", hostile="")]  # fmt: skip
    margin, eat, keep = validate_postmortem(text(postmortem(lessons=lessons)), CATALOG).lessons
    assert (margin.skill, margin.verdict, margin.alternative, margin.hostile) == (
        "knob.fight_margin", "tune", "+4", "skeleton",
    )  # fmt: skip
    assert margin.confidence == LLM_CONFIDENCE_CAP
    assert eat.hostile == ""  # a knob about no mob: the model's mob is dropped
    assert keep.hostile == "creeper"  # the knob's own mob


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (knob(skill="knob.low_hp"), "unknown knob 'low_hp'"),
        (knob(verdict="avoid"), "verdict is 'tune'"),
        (knob(alternative="+40"), "not a signed number within 8"),
        (knob(alternative="4"), "not a signed number"),
        (knob(alternative="+4; rm -rf /"), "not a signed number"),
        (knob(alternative=""), "alternative is empty"),
        (knob(hostile=""), "needs the mob of the fight"),
        (knob(hostile="../etc"), "needs the mob of the fight"),
        (knob(confidence=2), "outside 0..1"),
    ],
)
def test_a_knob_lesson_off_the_whitelist_or_out_of_bounds_is_rejected(
    bad: dict[str, Any], error: str
) -> None:
    with pytest.raises(ReplyRejected, match=re.escape(error)):
        validate_postmortem(text(postmortem(lessons=[bad])), CATALOG)


def test_the_post_mortem_prompt_lists_every_knob_with_its_bounds() -> None:
    prompt = postmortem_prompt("slain by zombie", {"snapshots": []}, CATALOG)
    assert "- knob.fight_margin (default 0, 0 to 8; hostile: the mob of the fight)" in prompt
    assert "- knob.eat_below (default 16, 16 to 19; hostile: no mob)" in prompt
    assert "- knob.creeper_keep (default 0, 0 to 10; hostile: creeper)" in prompt
