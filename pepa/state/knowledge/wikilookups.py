"""Wiki lookups for the actor that owns the cache: the HTTP on one worker thread, the answer
back as a :class:`WikiFetched` message (see :mod:`pepa.state.knowledge.wiki` and ``docs/wiki.md``).

Not an actor itself: :class:`WikiLookups` is a helper the knowledge actor
holds, used on that actor's thread (its worker thread only fetches).
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from pepa.base.threads import thread_name
from pepa.state.knowledge.wiki import (
    MAX_PENDING,
    MAX_REDIRECTS,
    CachedPage,
    WikiCache,
    WikiClient,
    WikiResult,
    _cached,
    freshness,
    normalise_title,
    redirect_target,
    settle,
    summarise,
)

__all__ = ["WikiFetched", "WikiLookups"]

logger = logging.getLogger(__name__)

# -- for an actor ----------------------------------------------------------------------------

_JOBS = itertools.count(1)


@dataclass(frozen=True, slots=True, kw_only=True)
class WikiFetched:
    """A fetch ended on the wiki worker thread (the actor passes it to ``WikiLookups.finished``)."""

    job: int
    """The lookup it belongs to (unknown to a restarted actor: then it is only stored)."""
    cached: CachedPage | None
    """What the cache held when the fetch started (the fallback when the wiki is away)."""
    result: WikiResult
    """What the wiki said."""


@dataclass(slots=True, kw_only=True)
class _Job:
    futures: list[Future[str | None]]
    asked: str
    hops: int = 0


class WikiLookups:
    """Wiki lookups for an actor that owns the cache.

    :meth:`lookup` and :meth:`finished` run on the actor's thread, the only
    one that touches ``store``; HTTP runs on one worker thread (started on
    the first request, stopped by :meth:`close`), whose results come back
    through ``tell`` as :class:`WikiFetched`. Callers get a
    :class:`concurrent.futures.Future` of the summary, so the actor never
    waits for the wiki.
    """

    def __init__(
        self,
        store: WikiCache | None,
        client: WikiClient | None,
        tell: Callable[[Any], None],
    ) -> None:
        self.store = store
        self.client = client
        self._tell = tell
        self._jobs: dict[int, _Job] = {}
        self._by_title: dict[str, int] = {}
        self._queue: queue.SimpleQueue[tuple[int, str, CachedPage | None] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None

    def lookup(self, title: str) -> Future[str | None]:
        """The summary of a page, soon (actor thread). Lookups of one title in flight share."""
        future: Future[str | None] = Future()
        try:
            name = normalise_title(title)
        except ValueError:
            future.set_result(None)
            return future
        running = self._by_title.get(name)
        if running is not None:
            self._jobs[running].futures.append(future)
            return future
        if len(self._jobs) >= MAX_PENDING:
            logger.debug("wiki lookup of %s dropped: %d already waiting", name, len(self._jobs))
            future.set_result(None)
            return future
        job = next(_JOBS)
        self._jobs[job] = _Job(futures=[future], asked=name)
        self._by_title[name] = job
        self._step(job, name)
        return future

    def finished(self, done: WikiFetched) -> None:
        """Store a fetch's result and answer, or follow a redirect (actor thread)."""
        body = settle(self.store, done.cached, done.result)
        if done.job in self._jobs:
            self._next(done.job, body)

    def close(self, timeout: float = 1.0) -> None:
        """Stop the worker (a fetch in flight ends on its own within the timeout)."""
        for job in list(self._jobs):
            self._answer(job, None)
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _step(self, job: int, name: str) -> None:
        cached = _cached(self.store, name)
        if self.client is None:
            self._next(job, cached.body if cached is not None else None)
        elif cached is not None and freshness(cached, self.client.clock()) == "fresh":
            self._next(job, cached.body)  # no request: no trip to the worker either
        else:
            self._start()
            self._queue.put((job, name, cached))

    def _next(self, job: int, body: str | None) -> None:
        target = redirect_target(body) if body is not None else None
        state = self._jobs[job]
        if target is not None and state.hops < MAX_REDIRECTS:
            state.hops += 1
            try:
                self._step(job, normalise_title(target))
            except ValueError:
                self._answer(job, None)
            return
        summary = summarise(body) if body is not None and target is None else ""
        self._answer(job, summary or None)

    def _answer(self, job: int, summary: str | None) -> None:
        state = self._jobs.pop(job)
        if self._by_title.get(state.asked) == job:
            del self._by_title[state.asked]
        for future in state.futures:
            if not future.done():
                future.set_result(summary)

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=thread_name("pepa-wiki"), daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        """Worker thread: fetch, tell the result; until :meth:`close`."""
        client = self.client
        assert client is not None
        while (item := self._queue.get()) is not None:
            job, name, cached = item
            try:
                result = client.fetch(name, cached)
            except Exception as exc:  # fetch never raises; a bug still must not end the worker
                logger.exception("wiki fetch of %s broke", name)
                result = WikiResult(title=name, status="error", reason=repr(exc))
            try:
                self._tell(WikiFetched(job=job, cached=cached, result=result))
            except Exception as exc:  # the actor is gone (stopping, restarting): drop it
                logger.debug("wiki result for %s dropped: %s", name, exc)
