"""A death's cause from the JS event to the post-mortem, the prompt and the bus. Pure: no server.

The JS side (``death_cause.js``, its capture on the sandbox) is tested in
``tests/fast/link/test_death_cause.py``; this module checks what Python makes of what
it sends, including what a hostile or broken server could send instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from pepa.actors.perception import WorldEvent
from pepa.policy.coach.prompts import death_facts
from pepa.policy.learning.deaths import DeathAnalysis, drafts_of
from pepa.policy.learning.postmortem import analyse
from pepa.runtime.events import Died
from pepa.testing import FakeLink, entity, raw_snapshot, view
from pepa.world.death import KINDS, MAX_SOURCES, DeathCause, death_cause, kind_of_key
from tests.actor_builders import perception

ZOMBIE = {
    "key": "death.attack.mob", "text": "pepa_bot was slain by Zombie",
    "args": ["pepa_bot", "zombie"], "killer": "zombie",
    "sources": [
        {"kind": "mob", "by": "zombie", "amount": 3.0, "ago": 1.2},
        {"kind": "mob", "by": "zombie", "amount": 4.5, "ago": 0.0},
    ],
}  # fmt: skip
ARROW = {
    "key": "death.attack.arrow", "text": "pepa_bot was shot by Skeleton", "killer": "skeleton",
    "sources": [{"kind": "arrow", "by": "skeleton", "amount": 4.0, "ago": 0.0}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("death.attack.mob", "mob"),
        ("death.attack.mob.item", "mob"),
        ("death.attack.player", "player"),
        ("death.attack.arrow", "arrow"),
        ("death.attack.arrow.item", "arrow"),
        ("death.fell.accident.generic", "fall"),
        ("death.fell.accident.ladder", "fall"),
        ("death.attack.fall", "fall"),
        ("death.attack.lava", "lava"),
        ("death.attack.lava.player", "lava"),
        ("death.attack.inFire", "fire"),
        ("death.attack.onFire", "fire"),
        ("death.attack.drown", "drowning"),
        ("death.attack.starve", "starvation"),
        ("death.attack.explosion", "explosion"),
        ("death.attack.explosion.player", "explosion"),
        ("death.attack.inWall", "suffocation"),
        ("death.attack.outOfWorld", "void"),
        ("death.attack.cactus", "contact"),
        ("death.attack.generic", "generic"),
        ("death.attack.mobsomething", None),  # a prefix is a whole key part, not letters
        ("death.attack.newThing", None),
        ("chat.type.text", None),
        (None, None),
    ],
)
def test_vanilla_death_keys_name_their_kind(key: str | None, kind: str | None) -> None:
    assert kind_of_key(key) == kind


def test_a_mob_kill_keeps_the_message_the_killer_and_the_blows() -> None:
    cause = death_cause(ZOMBIE)
    assert (cause.kind, cause.key, cause.killer) == ("mob", "death.attack.mob", "zombie")
    assert cause.text == "pepa_bot was slain by Zombie"
    assert [(s.kind, s.by, s.amount) for s in cause.sources] == [
        ("mob", "zombie", 3.0), ("mob", "zombie", 4.5),
    ]  # fmt: skip
    assert cause.summary() == "slain by zombie"
    assert death_cause(cause.as_dict()) == cause  # a stored row reads back the same


@pytest.mark.parametrize(
    ("raw", "summary"),
    [
        (ARROW, "shot by skeleton"),
        (
            {
                "key": "death.fell.accident.generic",
                "sources": [{"kind": "fall", "amount": 20, "ago": 0, "fall": 31.6}],
            },
            "fell 32 blocks",
        ),
        ({"key": "death.attack.lava"}, "burned in lava"),
        ({"key": "death.attack.drown"}, "drowned"),
        ({"key": "death.attack.starve"}, "starved"),
        ({"key": "death.attack.explosion.player", "killer": "creeper"}, "blown up by creeper"),
        ({"key": "death.attack.inWall"}, "suffocated in a wall"),
        ({"key": "death.attack.outOfWorld"}, "fell out of the world"),
        ({}, "died (cause unknown)"),
    ],
)
def test_each_kind_has_a_short_summary(raw: dict[str, Any], summary: str) -> None:
    assert death_cause(raw).summary() == summary


def test_without_a_message_the_last_blow_decides_and_names_the_killer() -> None:
    cause = death_cause({"sources": [
        {"kind": "mob", "by": "zombie", "amount": 2, "ago": 3},
        {"kind": "arrow", "by": "skeleton", "amount": 4, "ago": 0.1},
    ]})  # fmt: skip
    assert (cause.kind, cause.key, cause.killer) == ("arrow", None, "skeleton")


def test_an_unknown_death_key_with_no_blows_is_generic_not_guessed() -> None:
    assert death_cause({"key": "death.attack.newThing"}).kind == "generic"
    assert death_cause({"key": "death.attack.newThing", "sources": [
        {"kind": "fall", "amount": 3, "ago": 0, "fall": 5}]}).kind == "fall"  # fmt: skip


@pytest.mark.parametrize(
    "raw",
    [None, "slain", 42, [], {"key": 5, "text": ["x"], "killer": {"a": 1}, "sources": "many"}],
)
def test_garbage_is_an_unknown_cause_not_an_error(raw: Any) -> None:
    assert death_cause(raw) == DeathCause()


def test_a_hostile_server_cannot_push_text_or_kinds_of_its_own() -> None:
    cause = death_cause({
        "key": "chat.type.text",  # not a death key: decides nothing, is not kept
        "kind": "lava",  # the kind comes from the key or the blows, never from the sender
        "text": "line one\nline two\x1b[31m" + "x" * 1000,
        "killer": "zombie; rm -rf /",  # not a name
        "sources": [
            {"kind": "nuke", "amount": 1}, "junk",
            {"kind": "mob", "by": "\n", "amount": 1e300, "ago": float("nan")},
        ] * 10,
    })  # fmt: skip
    assert cause.key is None and cause.killer is None
    assert cause.text is not None and "\n" not in cause.text and "\x1b" not in cause.text
    assert len(cause.text) == 300
    assert len(cause.sources) <= MAX_SOURCES
    assert all(s.kind in KINDS and s.by is None and s.amount == 0.0 for s in cause.sources)
    assert cause.kind == "mob"


def test_the_offline_post_mortem_believes_the_server_over_the_nearest_hostile() -> None:
    bundle = {
        "last_skill": "gather.iron_ore", "last_hostile": {"name": "zombie", "distance": 3.0},
        "snapshots": [{"hp": 12, "food": 15}, {"hp": 0, "food": 15}], "cause": ARROW,
    }  # fmt: skip
    post = analyse("shot by skeleton", bundle)
    assert post.cause == "killed by skeleton while doing gather.iron_ore"
    assert post.lesson is not None and post.lesson.hostile == "skeleton"


def test_a_fall_is_a_hazard_note_not_a_fight_lesson() -> None:
    bundle = {
        "last_skill": "nav.goto", "last_hostile": {"name": "creeper", "distance": 9.0},
        "snapshots": [{"hp": 20, "food": 18}],
        "cause": {"key": "death.fell.accident.generic",
                  "sources": [{"kind": "fall", "amount": 20, "ago": 0, "fall": 24}]},
    }  # fmt: skip
    post = analyse("fell 24 blocks", bundle)
    assert post.cause == "fell 24 blocks while doing nav.goto"
    assert post.lesson is not None
    assert (post.lesson.skill, post.lesson.situation, post.lesson.hostile) == (
        "nav.goto", "fall", "",
    )  # fmt: skip
    assert post.lesson.verdict == "note" and "mind the drop" in post.lesson.text


def test_starvation_by_the_servers_word_even_with_a_hostile_near() -> None:
    bundle = {"last_hostile": {"name": "spider", "distance": 12.0}, "snapshots": [{"food": 0}],
              "cause": {"key": "death.attack.starve"}}  # fmt: skip
    assert analyse("starved", bundle).cause == "starvation"


def test_with_no_word_from_the_server_the_snapshots_still_speak() -> None:
    fight = {
        "last_skill": "combat.attack-nearest zombie",
        "last_hostile": {"name": "zombie", "distance": 1.5},
        "snapshots": [{"hp": 4}],
    }
    assert analyse("killed near zombie", fight).cause == "lost a fight to zombie"
    hungry = {"snapshots": [{"food": 0, "hp": 1}]}
    assert analyse("died", hungry).cause == "starvation"
    assert analyse("died", {"snapshots": [{"food": 9}]}).lesson is None


def test_the_bundle_and_the_prompt_carry_the_cause() -> None:
    deaths = DeathAnalysis()
    post = deaths.died("slain by zombie", 10.0, death_cause(ZOMBIE))
    assert post.bundle["cause"]["key"] == "death.attack.mob"
    lines = death_facts("slain by zombie", post.bundle)
    assert lines[0] == "- death message: pepa_bot was slain by Zombie"
    assert lines[1] == "- cause: slain by zombie (kind mob)"
    assert lines[2].startswith("- damage before death (oldest first): mob by zombie -3 1.2 s")


def test_perception_publishes_the_servers_cause_not_a_guess() -> None:
    link = FakeLink(world=raw_snapshot(entities=[entity(4, "zombie", 2.0)]))
    h = perception(link)
    h.send(WorldEvent({"type": "death", "position": {"x": 1, "y": 64, "z": 2}, "cause": ARROW}))
    died = h.last(Died)
    assert died.reason == "shot by skeleton"
    assert died.cause == death_cause(ARROW)


def test_deaths_by_the_world_are_lessons_apart_by_cause() -> None:
    starved = analyse("starved", {"cause": {"key": "death.attack.starve"}, "snapshots": []})
    burned = analyse("burned", {"last_skill": "survive.eat", "cause": {"key": "death.attack.lava"}})
    assert starved.lesson is not None and burned.lesson is not None
    assert (starved.lesson.skill, burned.lesson.skill) == ("survive.eat", "survive.eat")
    assert starved.lesson.signature == "cause=starvation"
    assert burned.lesson.signature == "cause=lava"


def test_the_llms_lessons_about_a_hostile_are_signed_with_the_deaths_fight() -> None:
    deaths = DeathAnalysis()
    deaths.observe(view(hp=14, entities=[entity(4, "zombie", 3.0)]), 0.0)
    bundle = deaths.died("slain by zombie", 1.0, death_cause(ZOMBIE)).bundle
    lessons = (
        {"skill": "combat.attack-nearest", "hostile": "zombie", "verdict": "avoid",
         "alternative": "survive.flee", "text": "run", "confidence": 0.8},
        {"skill": "survive.eat", "verdict": "note", "text": "eat", "confidence": 0.7},
    )  # fmt: skip
    fight, food = drafts_of(lessons, bundle)
    assert fight.signature.startswith("cause=mob;mob=zombie;crowd=1;hp=high")
    assert food.signature == ""
    assert drafts_of(lessons[:1])[0].signature == ""  # no bundle kept: anywhere
