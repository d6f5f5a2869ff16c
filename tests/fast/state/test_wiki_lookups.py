"""Wiki lookups off the knowledge actor's thread (``WikiLookups``): answered through a future,
cut short on close, from the cache alone without a client, and bounded."""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pykka
import pytest

from pepa.state.knowledge import KnowledgeStore
from pepa.state.knowledge.wiki import (
    CachedPage,
    WikiClient,
)
from pepa.state.knowledge.wikilookups import WikiFetched, WikiLookups
from pepa.worldserver.process import free_port
from tests.wiki_server import BREAD, BREAD_SUMMARY, Clock, Pace, Wiki, make_client

pytestmark = pytest.mark.timeout(20)


class _Watched:
    """A store that remembers which threads touched it."""

    def __init__(self, store: KnowledgeStore) -> None:
        self.store = store
        self.threads: set[int] = set()

    def wiki_page(self, title: str) -> CachedPage | None:
        self.threads.add(threading.get_ident())
        return self.store.wiki_page(title)

    def save_wiki_page(self, title: str, etag: str | None, body: str, fetched_at: datetime) -> None:
        self.threads.add(threading.get_ident())
        self.store.save_wiki_page(title, etag, body, fetched_at)


class WikiActor(pykka.ThreadingActor):
    """The lines the knowledge actor needs, in a bare pykka actor."""

    def __init__(self, path: Path, client: WikiClient) -> None:
        super().__init__()
        self.path = path
        self.client = client
        self.ident = 0

    def on_start(self) -> None:
        self.ident = threading.get_ident()
        self.store = _Watched(KnowledgeStore(self.path).open())
        self.wiki = WikiLookups(self.store, self.client, tell=self.actor_ref.tell)

    def on_receive(self, message: Any) -> Any:
        if isinstance(message, WikiFetched):
            self.wiki.finished(message)
        return None

    def on_stop(self) -> None:
        self.wiki.close()
        self.store.store.close()

    def lookup_wiki(self, title: str) -> Future[str | None]:
        return self.wiki.lookup(title)

    def touched_by(self) -> tuple[int, set[int]]:
        return self.ident, set(self.store.threads)


def test_an_actor_looks_up_off_its_thread_and_answers_through_a_future(
    wiki: Wiki, tmp_path: Path, clock: Clock, pace: Pace
) -> None:
    wiki.slow.add("/w/Bread")
    ref = WikiActor.start(tmp_path / "knowledge.db", make_client(wiki.url, clock, pace))
    try:
        proxy = ref.proxy()
        first = proxy.lookup_wiki("bread").get(timeout=5)
        shared = proxy.lookup_wiki("Bread").get(timeout=5)
        # the fetch hangs on the server, yet the actor answers at once
        proxy.touched_by().get(timeout=1)
        assert not first.done()
        wiki.release.set()
        assert first.result(timeout=10) == BREAD_SUMMARY
        assert shared.result(timeout=10) == BREAD_SUMMARY
        assert wiki.paths.count("/w/Bread?action=raw") == 1
        cached = proxy.lookup_wiki("bread").get(timeout=5)
        assert cached.done() and cached.result() == BREAD_SUMMARY  # fresh: no worker trip
        ident, threads = proxy.touched_by().get(timeout=1)
        assert threads == {ident}  # only the actor's thread touched the database
    finally:
        ref.stop(timeout=5)


def test_closing_answers_lookups_in_flight_with_none(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    wiki.slow.add("/robots.txt")
    mailbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    lookups = WikiLookups(store, make_client(wiki.url, clock, pace), tell=mailbox.put)
    future = lookups.lookup("bread")
    lookups.close(timeout=0.1)
    assert future.result(timeout=0) is None
    wiki.release.set()
    done = mailbox.get(timeout=10)  # the fetch in flight still ends and is told
    lookups.finished(done)  # unknown job now: stored, nobody to answer
    assert store.wiki_page("Bread") is not None


def test_without_a_client_the_actor_helper_answers_from_the_cache(
    store: KnowledgeStore, clock: Clock
) -> None:
    lookups = WikiLookups(store, None, tell=lambda message: None)
    assert lookups.lookup("bread").result(timeout=0) is None
    store.save_wiki_page("Bread", None, BREAD, clock.now - timedelta(days=30))
    assert lookups.lookup("bread").result(timeout=0) == BREAD_SUMMARY
    assert lookups.lookup("a|b").result(timeout=0) is None
    lookups.close()


def test_too_many_waiting_lookups_are_answered_none_at_once(
    store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    mailbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    client = make_client(f"http://127.0.0.1:{free_port()}", clock, pace)
    lookups = WikiLookups(store, client, tell=mailbox.put)
    waiting = [lookups.lookup(f"page {n}") for n in range(32)]
    assert lookups.lookup("one too many").result(timeout=0) is None
    lookups.finished(mailbox.get(timeout=10))  # the server is down: answered None, quietly
    assert waiting[0].result(timeout=0) is None
    lookups.close()
    assert all(future.result(timeout=0) is None for future in waiting)
