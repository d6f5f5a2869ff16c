"""The knowledge base on a real SQLite file: schema, migrations, seeding, deaths, places, chat."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pepa.knowledge import KnowledgeError, KnowledgeStore
from pepa.world.node import node_modules

TABLES = {
    "meta", "lessons", "recipes", "mob_intel", "block_intel", "deaths", "postmortems", "poi",
    "wiki_pages", "chat_log", "code_changes", "skill_metrics",
}  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> KnowledgeStore:
    s = KnowledgeStore(tmp_path / "knowledge.db").open()
    yield s  # type: ignore[misc]
    s.close()


def data_root() -> Path:
    return node_modules() / "minecraft-data" / "minecraft-data" / "data"


def test_every_table_exists_in_wal_mode_with_a_schema_version(
    store: KnowledgeStore, tmp_path: Path
) -> None:
    with sqlite3.connect(tmp_path / "knowledge.db") as raw:
        tables = {
            row[0] for row in raw.execute("select name from sqlite_master where type='table'")
        }
        mode = raw.execute("PRAGMA journal_mode").fetchone()[0]
    assert tables >= TABLES
    assert mode == "wal"
    assert store.meta("schema_version") == "1"


def test_opening_again_is_idempotent_and_keeps_the_rows(tmp_path: Path) -> None:
    first = KnowledgeStore(tmp_path / "knowledge.db").open()
    first.log_chat(speaker="alice", direction="in", text="hi")
    first.close()
    again = KnowledgeStore(tmp_path / "knowledge.db").open()
    assert again.counts()["chat_log"] == 1
    again.close()


def test_seeding_comes_from_minecraft_data_once(store: KnowledgeStore) -> None:
    assert store.seed("1.16.5", data_root()) is True
    counts = store.counts()
    assert counts["recipes"] > 1000 and counts["block_intel"] > 700 and counts["mob_intel"] > 50
    assert counts["lessons"] >= 5
    assert store.seed("1.16.5", data_root()) is False
    assert store.counts() == counts


def test_a_death_is_stored_with_its_bundle_and_leaves_a_danger_poi(store: KnowledgeStore) -> None:
    bundle = {
        "last_skill": "combat.attack-nearest zombie",
        "hp": 0,
        "food": 12,
        "last_hostile": {"name": "zombie", "distance": 1.5},
        "snapshots": [{"hp": 3}],
    }
    death = store.record_death(
        reason="killed near zombie", position={"x": 100.0, "y": 5.0, "z": -40.0}, bundle=bundle
    )
    assert (death.last_hostile, death.hostile_distance) == ("zombie", 1.5)
    assert store.deaths()[0].id == death.id
    near = store.pois_near(101.0, -41.0, 5.0, kind="danger")
    assert len(near) == 1 and near[0].note == "died: killed near zombie"
    assert store.pois_near(300.0, 300.0, 5.0) == []


def test_places_are_found_across_cell_borders(store: KnowledgeStore) -> None:
    store.add_poi("water", {"x": 15.5, "y": 5.0, "z": 15.5}, "pond")
    assert [p.note for p in store.pois_near(16.5, 16.5, 3.0)] == ["pond"]


def test_skill_runs_add_up(store: KnowledgeStore) -> None:
    store.record_skill("survive.eat", True, 1.6)
    store.record_skill("survive.eat", False, 0.4)
    assert store.skill_metrics() == {"survive.eat": {"ok": 1, "failed": 1, "mean_seconds": 1.0}}


def test_a_database_that_cannot_be_opened_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "knowledge.db").mkdir()
    with pytest.raises(KnowledgeError, match="cannot open"):
        KnowledgeStore(tmp_path / "knowledge.db").open()


def test_a_lesson_learned_again_grows_more_confident(store: KnowledgeStore) -> None:
    from pepa.knowledge.coach_offline import LessonDraft

    draft = LessonDraft(
        skill="combat.attack-nearest", situation="hostile nearby", hostile="zombie",
        verdict="avoid", alternative="survive.flee", text="flee zombies", confidence=0.7,
    )  # fmt: skip
    first = store.add_lesson(draft, source="offline")
    again = store.add_lesson(draft, source="offline")
    assert (first.confidence, again.confidence) == (pytest.approx(0.7), pytest.approx(0.8))
    assert [x.text for x in store.lessons(min_confidence=0.75)] == ["flee zombies"]
