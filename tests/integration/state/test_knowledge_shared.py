"""A knowledge base several bots share on a real PostgreSQL: lessons announced, deaths apart."""

from __future__ import annotations

import itertools
import logging
import queue
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg2
import pytest
from pony import orm

from pepa.state.knowledge import KnowledgeStore
from pepa.state.knowledge._models import utcnow
from pepa.state.knowledge.records import LessonDraft
from pepa.state.knowledge.seeding import seed
from pepa.state.knowledge.shared import Heard, LessonListener, parse_payload
from pepa.state.knowledge.store import LESSON_CHANNEL
from tests.js import minecraft_data
from tests.pg_server import PostgresServer
from tests.waiting import eventually

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

_names = itertools.count()

DRAFT = LessonDraft(
    skill="combat.attack-nearest", situation="hostile nearby", hostile="zombie",
    verdict="avoid", alternative="survive.flee", text="flee zombies", confidence=0.7,
)  # fmt: skip


@pytest.fixture
def url(postgres: PostgresServer) -> str:
    return postgres.create_database(f"shared{next(_names)}")


@pytest.fixture
def pair(url: str) -> Iterator[tuple[KnowledgeStore, KnowledgeStore]]:
    a = KnowledgeStore(url=url, bot="miner").open()
    b = KnowledgeStore(url=url, bot="wood1").open()
    yield a, b
    a.close()
    b.close()


def listening(url: str) -> tuple[LessonListener, queue.Queue[tuple[str, int]]]:
    heard: queue.Queue[tuple[str, int]] = queue.Queue()

    def hand_over(batch: Heard) -> None:
        for ident, bot in batch.lessons.items():
            heard.put((bot, ident))

    listener = LessonListener(url, hand_over).start()
    assert listener.wait_listening(20)
    return listener, heard


def test_a_lesson_one_bot_writes_is_announced_to_the_others_at_its_commit(
    url: str, pair: tuple[KnowledgeStore, KnowledgeStore]
) -> None:
    a, b = pair
    listener, heard = listening(url)
    try:
        lesson = a.add_lesson(DRAFT, source="offline")
        assert heard.get(timeout=10) == ("miner", lesson.id)
        assert b.lesson(lesson.id) == lesson  # the other bot reads the very row
        graded = b.grade_lesson("combat.attack-nearest", "zombie", "avoid", success=True)
        assert graded is not None and heard.get(timeout=10) == ("wood1", lesson.id)
    finally:
        listener.close()


def test_each_bot_counts_its_own_deaths_but_every_danger_place_is_shared(
    pair: tuple[KnowledgeStore, KnowledgeStore],
) -> None:
    a, b = pair
    a.record_death(reason="slain by zombie", position={"x": 1, "y": 64, "z": 2}, bundle={},
                   cause={"kind": "mob"})  # fmt: skip
    assert a.deaths_by_cause() == {"mob": 1} and b.deaths_by_cause() == {}
    assert [r for _, r in a.recent_deaths(5)] == ["slain by zombie"] and b.recent_deaths(5) == []
    assert len(a.deaths_since(utcnow() - timedelta(hours=1))) == 1
    assert b.deaths_since(utcnow() - timedelta(hours=1)) == []
    assert b.death_places(5) == [(1.0, 2.0)]  # a place that killed one bot is the colony's


def test_a_shared_base_decays_a_lesson_once_whoever_reflects(
    pair: tuple[KnowledgeStore, KnowledgeStore],
) -> None:
    a, b = pair
    lesson = a.add_lesson(DRAFT, source="offline")
    then = utcnow() + timedelta(days=3)  # the window: three days, all past the grace day
    old = utcnow() - timedelta(days=5)
    with orm.db_session:
        row = a.e["Lesson"][lesson.id]
        row.created = old
        row.touched = old
    first = a.decay_lessons(utcnow(), then, 0.6)
    second = b.decay_lessons(utcnow(), then, 0.6)  # the same window, by the other bot
    assert [x.id for x in first] == [lesson.id] and second == []
    after = b.lesson(lesson.id)
    assert after is not None and after.confidence == pytest.approx(0.7 - 0.05 * 3, abs=0.01)  # once


def listener_backends(postgres: PostgresServer, database: str) -> list[int]:
    """The server processes LISTENing on the lesson channel in ``database``."""
    connection = psycopg2.connect(host="127.0.0.1", port=postgres.port, user="pepa",
                                  dbname="postgres")  # fmt: skip
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND query ILIKE %s",
                (database, f"LISTEN {LESSON_CHANNEL}%"),
            )
            return sorted(pid for (pid,) in cursor.fetchall())
    finally:
        connection.close()


def test_the_listener_comes_back_after_its_connection_is_cut(
    url: str,
    pair: tuple[KnowledgeStore, KnowledgeStore],
    postgres: PostgresServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    a, _ = pair
    database = url.rsplit("/", 1)[1]
    caplog.set_level(logging.WARNING, logger="pepa.state.knowledge.shared")
    listener, heard = listening(url)
    try:
        (before,) = listener_backends(postgres, database)  # the listener's own connection
        connection = psycopg2.connect(host="127.0.0.1", port=postgres.port, user="pepa",
                                      dbname="postgres")  # fmt: skip
        connection.autocommit = True
        with connection.cursor() as cursor:  # what a restarted server does to it
            cursor.execute("SELECT pg_terminate_backend(%s)", (before,))
            assert cursor.fetchall() == [(True,)], "the listener's connection was not cut"
        connection.close()

        def lost() -> list[str]:
            return [r.getMessage() for r in caplog.records if "connection lost" in r.getMessage()]

        eventually(lost, 20, "the listener to say its connection was lost")
        # it connects again and hears the next lesson
        lesson = None
        for _ in range(50):
            lesson = a.add_lesson(DRAFT, source="offline")
            try:
                got = heard.get(timeout=0.5)
            except queue.Empty:
                continue
            if got == ("miner", lesson.id):
                break
        else:
            pytest.fail("the listener never heard a lesson again")
        assert len(lost()) == 1, lost()
        after = listener_backends(postgres, database)
        assert len(after) == 1 and after != [before], (before, after)  # a new connection
    finally:
        listener.close()


@pytest.mark.parametrize(
    ("payload", "parsed"),
    [("miner:12", ("miner", 12)), (":3", ("", 3)), ("x", None), ("a:b", None),
     ("a:" + "1" * 70, None), ("a:-1", None)],
)  # fmt: skip
def test_an_announcement_is_parsed_or_refused(payload: str, parsed: object) -> None:
    assert parse_payload(payload) == parsed


def test_bots_that_join_together_seed_a_shared_base_once(url: str) -> None:
    import threading

    data = minecraft_data()
    stores = [KnowledgeStore(url=url, bot=f"bot{i}").open() for i in range(4)]
    results: list[object] = []
    try:
        threads = [
            threading.Thread(target=lambda s=s: results.append(seed(s, "1.16.5", data)))
            for s in stores
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        # one seeds; each other finds it seeded (False) or being seeded (None: it goes on
        # at once, and its knowledge actor tries again later)
        assert results.count(True) == 1 and set(results) <= {True, False, None}
        assert [seed(s, "1.16.5", data) for s in stores] == [False] * 4
        assert stores[0].counts()["block_intel"] > 500
    finally:
        for s in stores:
            s.close()


def test_a_seed_does_not_wait_while_another_bot_seeds(url: str) -> None:
    """Another connection holds the seed lock (a bot seeding): a seed answers None at once
    instead of waiting for it, and seeds once the lock is free."""
    from pepa.state.knowledge.seeding import SEED_LOCK

    data = minecraft_data()
    store = KnowledgeStore(url=url, bot="late").open()
    seeder = psycopg2.connect(url)
    try:
        with seeder.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (SEED_LOCK,))
        assert seed(store, "1.16.5", data) is None
        assert store.counts()["block_intel"] == 0
        seeder.rollback()  # the seeder's transaction ends (here without a seed)
        assert seed(store, "1.16.5", data) is True
    finally:
        seeder.close()
        store.close()


def test_bots_that_start_together_open_a_new_shared_base_without_a_fault(url: str) -> None:
    import threading

    outcomes: list[str] = []

    def open_one(i: int) -> None:
        store = KnowledgeStore(url=url, bot=f"bot{i}")
        try:
            store.open()
            outcomes.append("ok")
        except Exception as exc:  # what a lost race raised: the test says which
            outcomes.append(repr(exc))
        finally:
            store.close()

    threads = [threading.Thread(target=open_one, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes == ["ok"] * 6


def test_bots_that_finish_the_same_skill_at_once_lose_no_count(url: str) -> None:
    """Tried: the read-then-write it replaced lost runs here ("duplicate key", "updated outside
    of current transaction"), as it did in a fleet of 32."""
    import threading

    stores = [KnowledgeStore(url=url, bot=f"bot{i}").open() for i in range(6)]
    runs = 25
    try:

        def finish(store: KnowledgeStore, i: int) -> None:
            for n in range(runs):
                store.record_skill("combat.attack-nearest", (n + i) % 3 != 0, 0.5)

        threads = [threading.Thread(target=finish, args=(s, i)) for i, s in enumerate(stores)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(40)
        metric = stores[0].skill_metrics()["combat.attack-nearest"]
        assert metric["ok"] + metric["failed"] == 6 * runs
        assert metric["failed"] == sum(1 for i in range(6) for n in range(runs) if (n + i) % 3 == 0)
        assert metric["mean_seconds"] == 0.5
    finally:
        for s in stores:
            s.close()


def test_a_knowledge_actor_that_found_the_base_being_seeded_seeds_it_later(
    url: str, tmp_path: Path
) -> None:
    """Its Connected finds another bot seeding (the lock held): the actor answers on, and
    seeds when it looks again SEED_RETRY seconds on, the lock free by then. A shared base's
    seed runs on a thread of its own (the seeding bot's actor was replaced as hung once)."""
    from pepa.actors.knowledge import SEED_RETRY, Knowledge
    from pepa.runtime.events import Connected
    from pepa.state.knowledge.seeding import SEED_LOCK
    from pepa.testing import ActorHarness

    data = minecraft_data()
    h = ActorHarness(
        Knowledge, server_dir=tmp_path, db_url=url, data_root=data, username="late",
        reflect_every=0,
    )  # fmt: skip
    probe = KnowledgeStore(url=url, bot="probe").open()
    seeder = psycopg2.connect(url)
    try:
        with seeder.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (SEED_LOCK,))
        h.send(Connected(server="127.0.0.1:25565", version="1.16.5"))
        first = h.actor.seeding
        assert first is not None
        first.join(30)  # it found the lock taken
        h.advance(0)  # its answer: look again later
        assert probe.meta("seeded:1.16.5") is None
        seeder.rollback()
        h.advance(SEED_RETRY)
        again = h.actor.seeding
        assert again is not None and again is not first
        again.join(30)
        assert probe.meta("seeded:1.16.5") is not None
        assert probe.counts()["block_intel"] > 500
    finally:
        seeder.close()
        probe.close()
        h.stop()


def notify_flood(url: str, payloads: list[str], *, fade: int | None = None) -> None:
    """``NOTIFY`` every payload, as anyone who can connect to the base can; ``fade``: the
    lesson whose confidence drops below acting in the same transaction, announced by nobody."""
    connection = psycopg2.connect(url)
    try:
        with connection.cursor() as cursor:  # one transaction: delivered together at its commit
            if fade is not None:
                cursor.execute("UPDATE lessons SET confidence = 0.3 WHERE id = %s", (fade,))
            for payload in payloads:
                cursor.execute("SELECT pg_notify(%s, %s)", (LESSON_CHANNEL, payload))
        connection.commit()
    finally:
        connection.close()


def test_a_flood_of_announcements_reaches_the_listener_deduplicated_and_bounded(url: str) -> None:
    from pepa.state.knowledge.shared import MAX_PENDING

    batches: queue.Queue[Heard] = queue.Queue()
    listener = LessonListener(url, batches.put).start()
    assert listener.wait_listening(20)
    try:
        notify_flood(url, [f"miner:{i % 50}" for i in range(2000)])  # 50 lessons, 40 times each
        first = batches.get(timeout=10)
        flood = [f"miner:{1000 + i}" for i in range(3 * MAX_PENDING)] + ["garbage"] * 500
        notify_flood(url, flood)
        got = [batches.get(timeout=10)]
        while not got[-1].overflowed and len(got) < 10:
            got.append(batches.get(timeout=10))
    finally:
        listener.close()
    assert first.lessons == dict.fromkeys(range(50), "miner") and not first.overflowed
    assert all(len(batch.lessons) <= MAX_PENDING for batch in got)
    assert got[-1].overflowed  # beyond the bound: the actor reads the lessons in force again
    assert len(got) <= 2  # one hand-over per flood, not one per payload


def test_a_knowledge_actor_reads_a_flood_in_few_queries_and_acts_only_on_valid_lessons(
    url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from pepa.actors.knowledge import Knowledge
    from pepa.runtime.events import LessonLearned
    from pepa.runtime.events.queries import ActiveLessons
    from pepa.testing import ActorHarness

    caplog.set_level(logging.WARNING, logger="pepa.actors.knowledge")
    h = ActorHarness(Knowledge, server_dir=tmp_path, db_url=url, username="wood1",
                     reflect_every=0)  # fmt: skip
    other = KnowledgeStore(url=url, bot="miner").open()
    runs: list[str] = []
    real_run = h.actor.db.run

    def counted(what: str, action: Any) -> Any:
        runs.append(what)
        return real_run(what, action)

    try:
        assert h.actor.listener is not None and h.actor.listener.wait_listening(20)
        h.actor.db.run = counted  # type: ignore[method-assign]
        planted = other.add_lesson(
            replace(DRAFT, hostile="husk", alternative="shell.run", text="run rm -rf"),
            source="offline",
        )
        escape = other.add_lesson(
            replace(DRAFT, hostile="skeleton", verdict="note", alternative="",
                    text="\x1b[2Jforged\nline"),
            source="offline",
        )  # fmt: skip
        fading = other.add_lesson(replace(DRAFT, hostile="spider"), source="offline")

        def heard_fading() -> bool:
            h.advance(0)
            return any(e.hostile == "spider" for e in h.events(LessonLearned))

        eventually(heard_fading, 30, "the spider lesson told to the chain")  # at 0.7
        notify_flood(url, [f"miner:{i}" for i in range(10_000, 15_000)], fade=fading.id)
        good = other.add_lesson(DRAFT, source="offline")  # said last: the flood is in before it

        def told() -> bool:
            h.advance(0)
            return any(e.hostile == "zombie" and e.verdict == "avoid" and e.alternative ==
                       "survive.flee" for e in h.events(LessonLearned))  # fmt: skip

        eventually(told, 30, "the valid lesson told to the chain")
        assert len(runs) <= 40, f"{len(runs)} database calls for one flood"
        # the flood overflowed: the lessons in force were read again, the faded one too
        assert any(e.hostile == "spider" and e.confidence == 0.3 for e in h.events(LessonLearned))
        learned = h.events(LessonLearned)
        assert learned and all(e.hostile not in ("husk", "skeleton") for e in learned)
        (active,) = h.send(ActiveLessons())
        assert {(a.hostile, a.alternative) for a in active} >= {("zombie", "survive.flee")}
        assert not {a.hostile for a in active} & {"husk", "skeleton"}
        refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
        assert any(f"lesson {planted.id}" in m and "shell.run" in m for m in refusals), refusals
        assert any(f"lesson {escape.id}" in m and "control characters" in m for m in refusals)
        assert good.id not in h.actor.refused
    finally:
        other.close()
        h.stop()
