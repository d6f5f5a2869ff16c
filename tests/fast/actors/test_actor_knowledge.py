"""The knowledge actor through ActorHarness, on a real SQLite file: deaths become post-mortems
and lessons, lessons are graded by their outcome, typed asks are answered, reflection sends
its plan changes to the curriculum, and a broken database never ends the actor."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pepa.actors.knowledge import Knowledge
from pepa.runtime.events import (
    ActivityChanged,
    AdviceApplied,
    ChatReceived,
    ChatSent,
    DamageTaken,
    DeathAnalysed,
    DeathAnalysisRequested,
    DecideProposal,
    Died,
    LearningChanged,
    LessonLearned,
    ProposalDrafted,
    ProposalsChanged,
    RevisePlan,
    SayInChat,
    SkillFinished,
    TopicAsked,
    WorldObserved,
)
from pepa.runtime.events.queries import (
    ActiveLesson,
    ActiveLessons,
    DeathPlaces,
    Learning,
    LearningSummary,
    ProposalIds,
    Proposals,
    Reflect,
)
from pepa.state.knowledge import KnowledgeStore
from pepa.state.knowledge.records import LessonDraft
from pepa.testing import ActorHarness, entity, view
from pepa.world.contact import Contact
from pepa.world.death import DamageSource, DeathCause

pytestmark = pytest.mark.timeout(30)

FIGHTING = ActivityChanged(reflex="defend", skill="combat.attack-nearest zombie")
MET = "cause=mob;mob=zombie;crowd=1;hp=high;weapon=fist;armour=none"
"""The fight of :func:`lose_a_fight` when the zombie was first near (the lesson's situation)."""
FLEE = AdviceApplied(
    skill="combat.attack-nearest", hostile="zombie", verdict="avoid", instead="survive.flee",
    signature=MET,
)  # fmt: skip


def zombie_near(hp: float) -> WorldObserved:
    return WorldObserved(view=view(hp=hp, entities=[entity(7, "zombie", 1.5)]))


def died(n: int = 0) -> Died:
    return Died(reason="killed near zombie", position={"x": 10.0 + n * 40, "y": 64.0, "z": 0.0})


@pytest.fixture
def h(tmp_path: Path) -> Iterator[ActorHarness[Knowledge]]:
    harness = ActorHarness(Knowledge, server_dir=tmp_path)
    yield harness
    harness.stop()


@pytest.fixture
def probe(tmp_path: Path, h: ActorHarness[Knowledge]) -> Iterator[KnowledgeStore]:
    """A second store on the actor's file, for the test to read (and seed) rows."""
    store = KnowledgeStore(tmp_path / "knowledge.db").open()
    yield store
    store.close()


def lose_a_fight(h: ActorHarness[Knowledge], n: int = 0) -> None:
    h.send(FIGHTING)
    for hp in (20, 12, 4):
        h.send(zombie_near(hp))
        h.advance(1)
    h.send(died(n))


def test_a_death_is_stored_with_its_bundle_post_mortem_and_lesson(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    lose_a_fight(h)

    asked = h.last(DeathAnalysisRequested)
    assert asked.reason == "killed near zombie"
    bundle = asked.bundle
    assert [s["hp"] for s in bundle["snapshots"]] == [20, 12, 4]
    assert bundle["last_skill"] == "combat.attack-nearest zombie"
    assert bundle["last_hostile"]["name"] == "zombie" and bundle["hp"] == 4
    (death,) = probe.deaths()
    assert death.id == asked.death_id and death.last_hostile == "zombie"
    assert probe.postmortems(death.id) == [
        ("offline", "lost a fight to zombie", "fought zombie at 1.5 blocks; health 20 → 4")
    ]
    assert [p.note for p in probe.pois_near(10.0, 0.0, 2.0, kind="danger")] == [
        "died: killed near zombie"
    ]
    advice, margin, first = h.events(LessonLearned)  # the advice, the knobs of fights and plans
    assert advice == LessonLearned(
        skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
        alternative="survive.flee", confidence=0.7, signature=MET,
    )  # fmt: skip
    assert (margin.skill, margin.alternative, margin.signature) == ("knob.fight_margin", "+4", MET)
    assert (first.skill, first.alternative, first.signature) == ("knob.gear_first", "+1", "")


def test_the_bundle_keeps_only_the_last_30_seconds(h: ActorHarness[Knowledge]) -> None:
    h.send(zombie_near(20))
    h.advance(31)
    h.send(zombie_near(9), died())
    assert [s["hp"] for s in h.last(DeathAnalysisRequested).bundle["snapshots"]] == [9]


def test_an_llm_post_mortem_is_stored_beside_the_offline_one_and_its_lessons_learned(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    lose_a_fight(h)
    death_id = h.last(DeathAnalysisRequested).death_id
    lesson = {
        "skill": "combat.attack-nearest", "hostile": "zombie", "verdict": "prefer",
        "alternative": "survive.pillar-up", "text": "pillar up", "confidence": 0.8,
    }  # fmt: skip
    h.send(
        DeathAnalysed(
            death_id=death_id, backend="pi", cause="cornered", analysis="no way out",
            lessons=(lesson,),
        )
    )  # fmt: skip
    assert [b for b, _, _ in probe.postmortems(death_id)] == ["offline", "pi"]
    learned = h.last(LessonLearned)
    assert (learned.verdict, learned.alternative, learned.confidence) == (
        "prefer", "survive.pillar-up", 0.8,
    )  # fmt: skip
    assert [x.source for x in probe.lessons_for("combat.attack-nearest", "zombie")] == [
        "pi", "offline",
    ]  # fmt: skip


def test_an_llm_knob_lesson_is_signed_with_the_fight_and_reaches_the_bus(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    lose_a_fight(h)
    death_id = h.last(DeathAnalysisRequested).death_id

    def analysed(lesson: dict[str, object]) -> LessonLearned:
        h.send(DeathAnalysed(death_id=death_id, backend="pi", cause="c", analysis="a",
                             lessons=(lesson,)))  # fmt: skip
        return h.last(LessonLearned)

    margin = {
        "skill": "knob.fight_margin", "hostile": "zombie", "verdict": "tune",
        "alternative": "+6", "text": "want 6 more health", "confidence": 0.8,
    }  # fmt: skip
    # the offline post-mortem turned the same knob in the same fight (+4): the model's lesson is
    # that one again (a lesson is its skill, mob, verdict and situation), confirmed: the
    # higher confidence of the two, +0.1
    assert analysed(margin) == LessonLearned(
        skill="knob.fight_margin", hostile="zombie", verdict="tune", alternative="+4",
        confidence=pytest.approx(0.9), signature=MET,
    )  # fmt: skip
    crowd = {**margin, "skill": "knob.crowd", "alternative": "-1", "text": "flee from two"}
    assert analysed(crowd) == LessonLearned(
        skill="knob.crowd", hostile="zombie", verdict="tune", alternative="-1",
        confidence=0.8, signature=MET,
    )  # fmt: skip
    assert [x.source for x in probe.lessons_for("knob.crowd", "zombie")] == ["pi"]


def test_advice_that_held_is_graded_up_once_and_advice_before_a_death_down(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    lose_a_fight(h)  # the lesson: avoid zombie, flee (0.7)
    h.published.clear()
    h.send(FLEE, FLEE)  # the chain re-dispatched: one grade all the same
    h.advance(5)
    h.send(SkillFinished(skill="survive.flee", ok=True, seconds=5.0))
    assert [e.confidence for e in h.events(LessonLearned)] == [0.75]
    (lesson,) = probe.lessons_for("combat.attack-nearest", "zombie")
    assert (lesson.confidence, lesson.applied) == (0.75, 1)

    h.send(FLEE)
    h.advance(30)
    h.send(died(1))  # within 60 s of following it: the lesson failed
    graded, relearned = [e for e in h.events(LessonLearned)[1:] if not e.skill.startswith("knob.")]
    assert graded.confidence == pytest.approx(0.6)
    assert relearned.confidence == pytest.approx(0.8)  # the new death teaches it again
    (lesson,) = probe.lessons_for("combat.attack-nearest", "zombie")
    assert lesson.applied == 2


def test_deaths_by_cause_and_lessons_held_or_failed_are_summed_up_for_people(
    h: ActorHarness[Knowledge],
) -> None:
    assert h.send(Learning()) == [LearningSummary()]
    fall = DeathCause(kind="fall", key="death.fell.accident.generic")
    h.send(Died(reason="fell 30 blocks", position=None, cause=fall))
    lose_a_fight(h, 1)  # no word from the server: unknown, and a lesson (0.7)
    h.send(FLEE)
    h.send(SkillFinished(skill="survive.flee", ok=True, seconds=5.0))
    summary = h.last(LearningChanged).summary
    assert h.send(Learning()) == [summary]
    assert summary.deaths == 2 and summary.deaths_by_cause == (("fall", 1), ("unknown", 1))
    assert [line[6:] for line in summary.recent_deaths] == ["killed near zombie", "fell 30 blocks"]
    assert summary.lessons_in_force >= 1
    held, *learned = (line[6:] for line in summary.recent_lessons[:4])
    assert held == "held: avoid combat.attack-nearest vs zombie → 0.75"
    assert sorted(learned) == [
        "learned (offline): do not fight zombie like this: flee instead → 0.70",
        "learned (offline): killed by zombie with no armour on: armour and a shield before the "
        "rest of the plan → 0.70",
        "learned (offline): killed by zombie: want 4 more health before a fight like this → 0.70",
    ]
    h.advance(3610)  # an hour on, the next rescan drops the lesson lines
    assert h.last(LearningChanged).summary.recent_lessons == ()


def test_advice_waits_for_its_own_outcome_and_is_forgotten_after_a_minute(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    probe.add_lesson(
        LessonDraft(
            skill="combat.attack-nearest", situation="near", hostile="zombie", verdict="avoid",
            alternative="survive.flee", text="flee", confidence=0.7, signature=MET,
        ),
        source="test",
    )  # fmt: skip
    h.send(FLEE)
    h.send(SkillFinished(skill="nav.goto", ok=True, seconds=1.0))  # another skill
    h.send(SkillFinished(skill="survive.flee", ok=False, seconds=1.0))  # failed: no grade
    assert h.events(LessonLearned) == []
    h.advance(61)
    h.send(SkillFinished(skill="survive.flee", ok=True, seconds=1.0))  # too late
    assert h.events(LessonLearned) == []
    assert probe.lessons_for("combat.attack-nearest", "zombie")[0].applied == 0


def test_active_lessons_are_the_confident_ones(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    for hostile, confidence in (("zombie", 0.7), ("spider", 0.5)):
        probe.add_lesson(
            LessonDraft(
                skill="combat.attack-nearest", situation="near", hostile=hostile, verdict="avoid",
                alternative="survive.flee", text="flee", confidence=confidence,
            ),
            source="test",
        )  # fmt: skip
    assert h.send(ActiveLessons()) == [
        (
            ActiveLesson(
                skill="combat.attack-nearest", hostile="zombie", verdict="avoid",
                alternative="survive.flee", confidence=0.7,
            ),
        )
    ]  # fmt: skip


def test_the_chain_acts_on_the_most_confident_lessons_up_to_a_bound(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    from pepa.actors.knowledge import MAX_IN_FORCE

    letters = "abcdefghijklmnopqrstuvwxyz"
    names = [f"mob_{a}{b}" for a in letters for b in letters][: MAX_IN_FORCE + 50]
    for n, hostile in enumerate(names):
        probe.add_lesson(
            LessonDraft(
                skill="combat.attack-nearest", situation="near", hostile=hostile, verdict="avoid",
                alternative="survive.flee", text="flee", confidence=0.6 + n * 0.001,
            ),
            source="test",
        )  # fmt: skip
    (active,) = h.send(ActiveLessons())
    assert len(active) == MAX_IN_FORCE
    assert {a.hostile for a in active} == set(names[-MAX_IN_FORCE:])  # the most confident


def test_proposals_are_listed_published_and_decided(
    h: ActorHarness[Knowledge], tmp_path: Path
) -> None:
    assert h.send(Proposals()) == [ProposalIds(pending=(), approved=())]
    h.send(ProposalDrafted(file_name="20260101-000000-x.md", markdown="# Proposal: x\n"))
    assert h.last(ProposalsChanged).pending == ("20260101-000000-x.md",)
    h.send(DecideProposal(id="20260101-000000-x.md", decision="approve"))
    assert h.send(Proposals()) == [ProposalIds(pending=(), approved=("20260101-000000-x.md",))]
    assert h.last(ProposalsChanged).approved == ("20260101-000000-x.md",)
    (tmp_path / "proposals" / "20260102-000000-y.md").write_text("# Proposal: y\n")
    h.advance(5)  # another process dropped one: the rescan sees it
    assert h.last(ProposalsChanged).pending == ("20260102-000000-y.md",)


def test_reflection_writes_its_report_and_sends_plan_changes_to_the_curriculum(
    h: ActorHarness[Knowledge], probe: KnowledgeStore, tmp_path: Path
) -> None:
    (tmp_path / "plan.md").write_text("# Plan\n\n- [ ] wooden pickaxe\n")
    for n in range(3):
        lose_a_fight(h, n)
    for ok in (False, False, False, True, False):
        h.send(SkillFinished(skill="nav.goto", ok=ok, seconds=1.0))

    (report,) = h.send(Reflect())
    assert isinstance(report, Path) and report.parent == tmp_path / "reflections"
    assert "Am I in a loop? **yes**" in report.read_text()
    revised = h.last(RevisePlan)
    assert revised.source == "reflection"
    assert revised.changes == (
        "- [ ] 1 stone_sword (craft.stone_sword)",
        "- [ ] 1 iron_chestplate (craft.iron_chestplate)",
    )
    # plan.md has one writer, the curriculum: reflection leaves it alone
    assert (tmp_path / "plan.md").read_text() == "# Plan\n\n- [ ] wooden pickaxe\n"
    assert not (tmp_path / "plan.md.bak").exists()
    (proposal,) = (tmp_path / "proposals").glob("*-reflection-nav-goto.md")
    assert "fails 80% of the time" in proposal.read_text()
    texts = [x.text for x in probe.lessons_for("combat.attack-nearest", "zombie")]
    assert "3 deaths to zombie in a row: stop fighting it, get away" in texts

    h.advance(1800)  # the timer: a quiet window, no loop, no plan change, no second proposal
    assert len(h.events(RevisePlan)) == 1
    assert len(list((tmp_path / "reflections").iterdir())) >= 1
    assert len(list((tmp_path / "proposals").glob("*.md"))) == 1


def test_chat_and_skill_runs_are_logged_and_a_topic_nobody_knows_is_said_so(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    h.send(
        ChatReceived(sender="alice", text="hi", kind="chat"),
        ChatSent(text="hello"),
        SkillFinished(skill="nav.goto", ok=True, seconds=2.0),
        TopicAsked(topic="flux capacitor", by="alice"),
    )
    counts = probe.counts()
    assert counts["chat_log"] == 2 and counts["skill_metrics"] == 1
    assert "I don't know flux capacitor" in h.last(SayInChat).text


def test_the_old_is_pruned_at_start_and_then_on_the_timer(tmp_path: Path) -> None:
    reflections = tmp_path / "reflections"
    reflections.mkdir()
    (reflections / "20010101-000000.md").write_text("old\n")
    h = ActorHarness(Knowledge, server_dir=tmp_path, prune_every=60.0, reflect_every=0)
    try:
        assert list(reflections.iterdir()) == []
        (reflections / "20020202-000000.md").write_text("old too\n")
        h.advance(60)
        assert list(reflections.iterdir()) == []
    finally:
        h.stop()


def test_a_database_that_cannot_be_opened_costs_memory_not_the_actor(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "knowledge.db").mkdir()  # not a file: opening fails
    with caplog.at_level(logging.WARNING):
        h = ActorHarness(Knowledge, server_dir=tmp_path)
    try:
        assert any("no knowledge base this time" in r.getMessage() for r in caplog.records)
        lose_a_fight(h)
        h.send(FLEE, SkillFinished(skill="survive.flee", ok=True, seconds=1.0))
        assert h.events(DeathAnalysisRequested) == [] and h.events(LessonLearned) == []
        assert h.send(ActiveLessons()) == [()]
        assert h.send(Reflect())[0] is not None  # the report needs no database
    finally:
        h.stop()


def test_a_database_that_breaks_later_costs_a_warning_per_write_and_nothing_else(
    h: ActorHarness[Knowledge], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with closing(sqlite3.connect(tmp_path / "knowledge.db")) as raw:
        raw.execute("drop table deaths")  # and everything hanging on it goes with its rows
        raw.commit()
    with caplog.at_level(logging.WARNING):
        lose_a_fight(h)
        h.send(ChatSent(text="still here"))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(w.startswith("knowledge base: storing a death failed") for w in warnings)
    assert h.events(DeathAnalysisRequested) == []
    with closing(sqlite3.connect(tmp_path / "knowledge.db")) as raw:
        lines: list[Any] = raw.execute("select text from chat_log").fetchall()
    assert lines == [("still here",)]  # the rest of the base still works


def test_a_creeper_explosion_teaches_a_knob_as_well_as_a_fight_lesson(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    h.send(ActivityChanged(reflex="defend", skill="combat.attack-nearest creeper"))
    h.send(WorldObserved(view=view(hp=20, entities=[entity(8, "creeper", 2.5)])))
    blown = DeathCause(kind="explosion", key="death.attack.explosion.player", killer="creeper")
    h.send(Died(reason="blown up by creeper", position=None, cause=blown))
    learned = {e.skill: e for e in h.events(LessonLearned)}
    keep = learned["knob.creeper_keep"]
    assert (keep.hostile, keep.verdict, keep.alternative) == ("creeper", "tune", "+7")
    assert keep.signature.startswith("cause=explosion;mob=creeper;crowd=1;hp=high")
    assert learned["combat.attack-nearest"].verdict == "avoid"
    assert [x.skill for x in probe.lessons_for("knob.creeper_keep", "creeper")] == [
        "knob.creeper_keep"
    ]


def test_the_places_of_the_last_deaths_are_given_newest_first(h: ActorHarness[Knowledge]) -> None:
    assert h.send(DeathPlaces()) == [()]
    h.send(died(0), Died(reason="died", position=None), died(1))
    assert h.send(DeathPlaces()) == [((50.0, 0.0), (10.0, 0.0))]


def on(contact: Contact, hp: float) -> WorldObserved:
    return WorldObserved(view=replace(view(hp=hp), contact=contact))


def test_a_near_miss_teaches_a_lesson_about_the_block_that_hurt_and_shows(
    h: ActorHarness[Knowledge], probe: KnowledgeStore
) -> None:
    floor, hot = Contact(below=("grass_block",)), Contact(below=("strange_floor",))
    h.send(ActivityChanged(reflex="task", skill="nav.goto 40 64 0"))
    for hp in (20, 20, 20):
        h.send(on(floor, hp))
        h.advance(1)
    h.send(on(hot, 20))
    for hp in range(19, 10, -1):  # 9 lost on the strange floor, and it walked on
        h.advance(0.5)
        h.send(DamageTaken(hp=hp, source=DamageSource(kind="generic", amount=1, contact=hot)))
    (lesson,) = [x for x in probe.lessons() if x.skill.startswith("hazard.")]
    assert (lesson.skill, lesson.hostile, lesson.confidence, lesson.source) == (
        "hazard.below", "strange_floor", 0.6, "near-miss",
    )  # fmt: skip
    assert h.last(LessonLearned).hostile == "strange_floor"
    summary = h.last(LearningChanged).summary
    assert summary.near_misses == 1 and summary.deaths == 0
    assert (
        "lost 8 to generic from strange_floor (below) while walking"
        in (summary.recent_near_misses[0])
    )
    assert summary.hazards == ("strange_floor: standing on 0.60",)
    assert dict(summary.lessons_by_subject) == {"block": 1}
