"""The post-mortem queue, pure: alike deaths merged, oldest cause first, bounded, no kind lost."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.policy.coach.postmortems import MAX_PENDING, PostMortemQueue, signature
from pepa.world.death import KINDS, DamageSource, DeathCause

pytestmark = pytest.mark.timeout(30)

# every kind but mob and player: with 15 kinds, a full queue of 16 needs some kind twice
OTHER_KINDS = [k for k in KINDS if k not in ("mob", "player")]


def bundle(kind: str = "mob", killer: str | None = "zombie", hp: int = 0) -> dict[str, Any]:
    """A context bundle as the knowledge actor builds it (``cause`` from DeathCause.as_dict).

    The kind is read back from the last blow (``death_cause`` ignores a stored kind).
    """
    blow = DamageSource(kind=kind, by=killer, amount=4.0)
    cause = DeathCause(kind=kind, killer=killer, text=f"{kind} {killer}", sources=(blow,))
    return {"cause": cause.as_dict(), "hp": hp}


def keys(queue: PostMortemQueue) -> list[tuple[str, str | None]]:
    return [entry.signature for entry in queue.entries]


def test_the_signature_is_the_kind_and_the_killer() -> None:
    assert signature(bundle("mob", "zombie")) == ("mob", "zombie")
    assert signature(bundle("fall", None)) == ("fall", None)
    assert signature({}) == ("unknown", None)  # no cause: all alike, not guessed
    assert signature({"cause": "garbage"}) == ("unknown", None)


def test_alike_deaths_merge_into_one_entry_keeping_the_newest_bundle() -> None:
    queue = PostMortemQueue()
    first = queue.offer(1, "slain by Zombie", bundle(hp=1), now=10.0)
    assert first.outcome == "queued" and first.entry is not None
    queue.offer(2, "fell", bundle("fall", None), now=11.0)
    merged = queue.offer(3, "slain by Zombie again", bundle(hp=3), now=12.0)
    assert merged.outcome == "merged" and merged.entry is first.entry
    entry = first.entry
    assert (entry.death_ids, entry.deaths, entry.death_id) == ([1, 3], 2, 1)
    assert entry.reason == "slain by Zombie again" and entry.bundle["hp"] == 3
    assert entry.first == 10.0  # merging does not move it back in the queue
    assert len(queue) == 2 and 3 in queue and 4 not in queue
    assert queue.offer(3, "again", bundle(), now=13.0).outcome == "known"
    assert entry.deaths == 2


def test_another_killer_of_the_same_kind_is_another_cause() -> None:
    queue = PostMortemQueue()
    queue.offer(1, "", bundle("mob", "zombie"), now=0.0)
    assert queue.offer(2, "", bundle("mob", "skeleton"), now=1.0).outcome == "queued"
    assert keys(queue) == [("mob", "zombie"), ("mob", "skeleton")]


def test_the_oldest_cause_goes_first() -> None:
    queue = PostMortemQueue()
    queue.offer(1, "", bundle("fall", None), now=5.0)
    queue.offer(2, "", bundle("mob", "zombie"), now=6.0)
    queue.offer(3, "", bundle("drowning", None), now=7.0)
    queue.offer(4, "", bundle("mob", "zombie"), now=8.0)  # newer, merged: zombie stays second
    popped = [queue.pop() for _ in range(4)]
    assert [(e.death_id, e.deaths) for e in popped if e is not None] == [(1, 1), (2, 2), (3, 1)]
    assert popped[3] is None and len(queue) == 0


def fill(queue: PostMortemQueue) -> None:
    """16 distinct causes: 13 kinds once, then zombie, skeleton and spider (mob three times)."""
    death = 0
    for kind in OTHER_KINDS:
        death += 1
        queue.offer(death, kind, bundle(kind, None), now=float(death))
    for killer in ("zombie", "skeleton", "spider"):
        death += 1
        queue.offer(death, killer, bundle("mob", killer), now=float(death))
    assert len(queue) == MAX_PENDING and queue.dropped == 0


def test_a_full_queue_turns_away_a_new_cause_of_a_queued_kind_and_says_so_once() -> None:
    queue = PostMortemQueue()
    fill(queue)
    before = keys(queue)
    creeper = queue.offer(100, "", bundle("mob", "creeper"), now=100.0)
    assert (creeper.outcome, creeper.entry, creeper.full_news) == ("dropped", None, True)
    witch = queue.offer(101, "", bundle("mob", "witch"), now=101.0)
    assert (witch.outcome, witch.full_news) == ("dropped", False)  # said once
    fall = queue.offer(102, "", bundle("fall", None), now=102.0)
    assert fall.outcome == "merged"  # a queued signature still merges when full
    assert keys(queue) == before and queue.dropped == 2


def test_a_full_queue_makes_room_for_a_kind_not_yet_queued() -> None:
    queue = PostMortemQueue()
    fill(queue)
    player = queue.offer(200, "", bundle("player", "griefer"), now=200.0)
    assert player.outcome == "queued" and player.full_news
    # the crowded kind (mob, three entries) gave up its newest: spider
    assert player.evicted is not None and player.evicted.signature == ("mob", "spider")
    assert len(queue) == MAX_PENDING and queue.dropped == 1
    assert {kind for kind, _ in keys(queue)} == set(KINDS)  # every kind still queued
    assert keys(queue)[-1] == ("player", "griefer")


def test_room_again_after_a_pop_and_the_next_fullness_is_news_again() -> None:
    queue = PostMortemQueue()
    fill(queue)
    assert queue.offer(100, "", bundle("mob", "creeper"), now=100.0).full_news
    first = queue.pop()
    assert first is not None and first.signature == (OTHER_KINDS[0], None)
    assert queue.offer(101, "", bundle("mob", "creeper"), now=101.0).outcome == "queued"
    again = queue.offer(102, "", bundle("mob", "witch"), now=102.0)
    assert (again.outcome, again.full_news) == ("dropped", True)


def test_no_kind_can_be_lost_whatever_arrives() -> None:
    queue = PostMortemQueue()
    seen: set[str] = set()
    for death in range(1, 400):
        kind = KINDS[(death * 7) % len(KINDS)]
        queue.offer(death, "", bundle(kind, f"k{death % 5}"), now=float(death))
        seen.add(kind)
        assert {k for k, _ in keys(queue)} == seen
        assert len(queue) <= MAX_PENDING


def test_the_bound_must_exceed_the_kinds() -> None:
    with pytest.raises(ValueError, match="must exceed"):
        PostMortemQueue(bound=len(KINDS))
