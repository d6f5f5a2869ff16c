"""Wiki lookups: pages of minecraft.wiki fetched on demand and cached in ``wiki_pages``.

What is fetched is the page's raw wikitext (``/w/<Title>?action=raw``): one
small text request, no HTML to scrape; :func:`summarise` turns it into the
lead paragraph in plain text. See ``docs/wiki.md``.

The pure parts (titles, freshness, wikitext, robots.txt rules) are in
:mod:`pepa.state.knowledge.wikitext`; the names callers need are re-exported here.

I/O parts:

- :class:`WikiClient` — one polite HTTP client (standard library only):
  robots.txt read once a day and obeyed, an honest User-Agent, at most one
  request a second, ETag revalidation, a body cap. It never raises: every
  failure is a :class:`WikiResult` that is not ``ok``.
- :func:`lookup` — the blocking path: cache, fetch when needed, save,
  summary.
- :class:`pepa.state.knowledge.wikilookups.WikiLookups` — the same for an actor:
  the cache is read and written on the actor's thread, the HTTP runs on one
  worker thread, and the answer comes back as a ``WikiFetched`` message.
"""

from __future__ import annotations

import http.client
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import metadata
from typing import Literal, Protocol
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import pepa
from pepa.base.urls import redact_url
from pepa.state.knowledge._models import utcnow
from pepa.state.knowledge.wikitext import (
    CachedPage,
    freshness,
    normalise_title,
    page_path,
    redirect_target,
    robots_allowed,
    summarise,
)

__all__ = [
    "DEFAULT_URL",
    "CachedPage",
    "WikiCache",
    "WikiClient",
    "WikiResult",
    "default_user_agent",
    "freshness",
    "lookup",
    "normalise_title",
    "page_path",
    "redirect_target",
    "robots_allowed",
    "settle",
    "summarise",
]

logger = logging.getLogger(__name__)

DEFAULT_URL = "https://minecraft.wiki"
"""Where pages come from unless ``PEPA_WIKI_URL`` says otherwise."""
MISS_TTL = timedelta(days=1)
"""A page the wiki does not have is not asked for again for this long (in memory)."""
ROBOTS_TTL = timedelta(days=1)
"""robots.txt is read again after this long."""
TIMEOUT = 10.0
"""Seconds one request may take, connection and body together."""
MAX_BYTES = 512 * 1024
"""Bytes of a body read at most; the rest is dropped (``truncated``)."""
MIN_INTERVAL = 1.0
"""Seconds between two requests of one client at least."""
MAX_CRAWL_DELAY = 30.0
"""A robots.txt ``Crawl-delay`` is honoured up to this many seconds."""
BACKOFF = 60.0
"""Seconds without requests after the wiki was unreachable or overloaded."""
MAX_BACKOFF = 3600.0
"""Longest ``Retry-After`` obeyed."""
MAX_REDIRECTS = 1
"""``#REDIRECT`` pages followed per lookup."""
MAX_PENDING = 32
"""Lookups an actor may have waiting for the wiki; more are answered None at once."""

Status = Literal[
    "cached", "fetched", "not-modified", "missing", "disallowed", "offline", "error", "invalid"
]
_OK: frozenset[str] = frozenset({"cached", "fetched", "not-modified"})


@dataclass(frozen=True, slots=True, kw_only=True)
class WikiResult:
    """What one :meth:`WikiClient.fetch` came to."""

    title: str
    """The normalised title (the title as given if it could not be normalised)."""
    status: Status
    """``cached`` (fresh, no request), ``fetched`` (200), ``not-modified`` (304), ``missing``
    (404/410), ``disallowed`` (robots.txt), ``offline`` (no connection, timeout or backing
    off), ``error`` (another HTTP status), ``invalid`` (not a title)."""
    body: str = ""
    """The wikitext, when ``ok``."""
    etag: str | None = None
    """The ETag to store, when ``ok``."""
    fetched_at: datetime | None = None
    """The ``fetched_at`` to store, when ``ok``."""
    truncated: bool = False
    """True when the body was longer than the cap and was cut."""
    reason: str = ""
    """Why it is not ``ok``, in one line."""

    @property
    def ok(self) -> bool:
        """True when ``body`` holds the page."""
        return self.status in _OK

    @property
    def changed(self) -> bool:
        """True when the cache must be written (a new body or a new ``fetched_at``)."""
        return self.status in ("fetched", "not-modified")


class WikiCache(Protocol):
    """Where pages are kept: :class:`pepa.state.knowledge.KnowledgeStore` in the bot."""

    def wiki_page(self, title: str) -> CachedPage | None: ...

    def save_wiki_page(
        self, title: str, etag: str | None, body: str, fetched_at: datetime
    ) -> None: ...


def default_user_agent() -> str:
    """``pepa/<version> (+<project URL>; Minecraft survival bot knowledge lookup)``."""
    version = getattr(pepa, "__version__", None)
    url = None
    try:
        meta = metadata.metadata("pepa")
        version = version or meta["Version"]
        urls = [u.split(",", 1)[-1].strip() for u in meta.get_all("Project-URL") or []]
        url = next(iter(urls + (meta.get_all("Home-page") or [])), None)
    except metadata.PackageNotFoundError:
        pass
    contact = f"+{url}; " if url else ""
    return f"pepa/{version or 'unknown'} ({contact}Minecraft survival bot knowledge lookup)"


# -- the HTTP client -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Response:
    status: int
    etag: str | None
    retry_after: str | None
    body: str
    truncated: bool


class _Refused(Exception):
    """Internal: this fetch ends here with ``status`` and ``reason``."""

    def __init__(self, status: Status, reason: str) -> None:
        super().__init__(reason)
        self.status: Status = status
        self.reason = reason


class WikiClient:
    """Fetches raw wikitext politely; one thread at a time. Never raises from :meth:`fetch`."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        user_agent: str | None = None,
        timeout: float = TIMEOUT,
        clock: Callable[[], datetime] = utcnow,
        *,
        max_bytes: int = MAX_BYTES,
        min_interval: float = MIN_INTERVAL,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            shown = redact_url(base_url, keep_user=False)
            raise ValueError(f"wiki URL {shown!r} is not an http(s) URL")
        self.base_url = base_url.rstrip("/")
        self._shown = redact_url(self.base_url, keep_user=False)
        """The base URL for logs and errors: credentials in it never land there."""
        self.user_agent = user_agent or default_user_agent()
        self.timeout = timeout
        self.clock = clock
        """Naive UTC now: what ``fetched_at`` and the TTLs are measured in."""
        self.max_bytes = max_bytes
        self.min_interval = min_interval
        self.monotonic = monotonic
        """Paces requests and backs off (with ``sleep``); injected by tests."""
        self.sleep = sleep
        self.requests = 0
        """Requests sent so far, robots.txt included."""
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._interval = min_interval
        self._last_request: float | None = None
        self._robots: RobotFileParser | None = None
        self._robots_at: datetime | None = None
        self._misses: dict[str, datetime] = {}
        self._quiet_until = 0.0
        self._quiet_reason = ""
        self._unreachable = False

    def __repr__(self) -> str:
        return f"WikiClient({self._shown!r})"

    def fetch(self, title: str, cached: CachedPage | None = None) -> WikiResult:
        """The page from the cache, the wiki, or a reason why not (any failure is quiet)."""
        try:
            name = normalise_title(title)
        except ValueError as exc:
            return WikiResult(title=title, status="invalid", reason=str(exc))
        now = self.clock()
        plan = freshness(cached, now)
        if cached is not None and plan == "fresh":
            return WikiResult(
                title=name, status="cached", body=cached.body, etag=cached.etag,
                fetched_at=cached.fetched_at,
            )  # fmt: skip
        missed = self._misses.get(name)
        if missed is not None and now - missed < MISS_TTL:
            return WikiResult(title=name, status="missing", reason=f"no page {name} (asked lately)")
        path = page_path(name, self._prefix)
        try:
            self._check_quiet()
            if not robots_allowed(self._robots_for(now), self.user_agent, path):
                return WikiResult(
                    title=name, status="disallowed", reason=f"robots.txt disallows {path}"
                )
            etag = cached.etag if cached is not None and plan == "revalidate" else None
            response = self._get(path, etag=etag)
        except _Refused as refused:
            return WikiResult(title=name, status=refused.status, reason=refused.reason)
        return self._page(name, path, response, cached, now)

    def _page(
        self, name: str, path: str, response: _Response, cached: CachedPage | None, now: datetime
    ) -> WikiResult:
        status = response.status
        if status == 200 and not response.body.strip():
            self._remember_miss(name, now)
            return WikiResult(title=name, status="missing", reason=f"page {name} is empty")
        if status == 200:
            return WikiResult(
                title=name, status="fetched", body=response.body, etag=response.etag,
                fetched_at=now, truncated=response.truncated,
            )  # fmt: skip
        if status == 304 and cached is not None:
            return WikiResult(
                title=name, status="not-modified", body=cached.body,
                etag=response.etag or cached.etag, fetched_at=now,
            )  # fmt: skip
        if status in (404, 410):
            self._remember_miss(name, now)
            reason = f"no page {name} (HTTP {status})"
            return WikiResult(title=name, status="missing", reason=reason)
        if status == 429 or status >= 500:
            self._back_off(f"HTTP {status} for {path}", response.retry_after)
        return WikiResult(title=name, status="error", reason=f"HTTP {status} for {path}")

    def _remember_miss(self, name: str, now: datetime) -> None:
        self._misses = {n: at for n, at in self._misses.items() if now - at < MISS_TTL}
        self._misses[name] = now

    # -- robots.txt ------------------------------------------------------------------------

    def _robots_for(self, now: datetime) -> RobotFileParser:
        if (
            self._robots is not None
            and self._robots_at is not None
            and now - self._robots_at < ROBOTS_TTL
        ):
            return self._robots
        response = self._get("/robots.txt")
        parser = RobotFileParser()
        if 200 <= response.status < 300:
            parser.parse(response.body.splitlines())
        elif response.status in (401, 403):
            parser.parse(["User-agent: *", "Disallow: /"])  # as urllib.robotparser: keep out
        elif 400 <= response.status < 500 and response.status != 429:
            parser.parse([])  # no robots.txt: no rules
        else:
            if response.status == 429 or response.status >= 500:
                self._back_off(f"HTTP {response.status} for /robots.txt", response.retry_after)
            raise _Refused("error", f"robots.txt unavailable (HTTP {response.status})")
        delay = parser.crawl_delay(self.user_agent)
        self._interval = max(self.min_interval, min(float(delay or 0), MAX_CRAWL_DELAY))
        self._robots, self._robots_at = parser, now
        return parser

    # -- requests ---------------------------------------------------------------------------

    def _check_quiet(self) -> None:
        if self.monotonic() < self._quiet_until:
            logger.debug("wiki lookup skipped, backing off: %s", self._quiet_reason)
            raise _Refused("offline", f"backing off: {self._quiet_reason}")

    def _back_off(self, reason: str, retry_after: str | None = None) -> None:
        seconds = BACKOFF
        if retry_after and retry_after.strip().isdigit():
            seconds = min(MAX_BACKOFF, max(BACKOFF, float(retry_after.strip())))
        self._quiet_until = self.monotonic() + seconds
        self._quiet_reason = reason

    def _pace(self) -> None:
        if self._last_request is not None:
            wait = self._last_request + self._interval - self.monotonic()
            if wait > 0:
                self.sleep(wait)
        self._last_request = self.monotonic()

    def _get(self, path: str, *, etag: str | None = None) -> _Response:
        """One GET; a network failure backs off and raises :class:`_Refused`."""
        self._pace()
        self.requests += 1
        headers = {"User-Agent": self.user_agent, "Accept": "text/plain, */*;q=0.5"}
        if etag:
            headers["If-None-Match"] = etag
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=self.timeout)
        deadline = time.monotonic() + self.timeout
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            body, truncated = _read_capped(conn, response, self.max_bytes, deadline)
        except (OSError, http.client.HTTPException) as exc:
            why = "timed out" if isinstance(exc, TimeoutError) else str(exc) or type(exc).__name__
            self._went_offline(f"{self._shown}{path}: {why}")
            raise _Refused("offline", f"{self._shown} unreachable: {why}") from None
        finally:
            conn.close()
        if self._unreachable:
            self._unreachable = False
            logger.info("wiki %s answers again", self._shown)
        return _Response(
            status=response.status, etag=response.getheader("ETag"),
            retry_after=response.getheader("Retry-After"),
            body=body.decode("utf-8", errors="replace"), truncated=truncated,
        )  # fmt: skip

    def _went_offline(self, reason: str) -> None:
        self._back_off(reason)
        if self._unreachable:
            logger.debug("wiki still unreachable: %s", reason)
        else:
            self._unreachable = True
            logger.info("wiki unreachable, no lookups for %.0f s: %s", BACKOFF, reason)


def _read_capped(
    conn: http.client.HTTPConnection,
    response: http.client.HTTPResponse,
    limit: int,
    deadline: float,
) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the body, the whole read within ``deadline``."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        if conn.sock is not None:
            conn.sock.settimeout(remaining)
        chunk = response.read(min(65536, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    body = b"".join(chunks)
    return body[:limit], len(body) > limit


# -- lookups ---------------------------------------------------------------------------------


def _cached(store: WikiCache | None, name: str) -> CachedPage | None:
    if store is None:
        return None
    try:
        return store.wiki_page(name)
    except Exception as exc:  # a broken cache costs a warning, never the caller
        logger.warning("cannot read wiki page %s from the knowledge base: %s", name, exc)
        return None


def settle(store: WikiCache | None, cached: CachedPage | None, result: WikiResult) -> str | None:
    """Save what the wiki said; the wikitext to use (a stale copy beats none when offline)."""
    if result.changed and result.fetched_at is not None and store is not None:
        try:
            store.save_wiki_page(result.title, result.etag, result.body, result.fetched_at)
        except Exception as exc:  # a broken cache costs a warning, never the caller
            logger.warning("cannot save wiki page %s: %s", result.title, exc)
    if result.ok:
        return result.body
    if cached is not None and result.status in ("offline", "error", "disallowed"):
        return cached.body
    if result.status not in ("missing", "invalid"):
        logger.debug("no wiki page %s: %s", result.title, result.reason)
    return None


def _offline(name: str, reason: str) -> WikiResult:
    return WikiResult(title=name, status="offline", reason=reason)


def lookup(store: WikiCache | None, client: WikiClient | None, title: str) -> str | None:
    """The summary of a wiki page: cached, fetched, followed through a redirect, or None.

    Blocks for up to a few times the client's timeout; never raises. With no
    client (wiki lookups off) only the cache answers.
    """
    name: str | None = title
    for _ in range(MAX_REDIRECTS + 1):
        try:
            name = normalise_title(name or "")
        except ValueError:
            return None
        cached = _cached(store, name)
        result = (
            client.fetch(name, cached) if client is not None else _offline(name, "wiki lookups off")
        )
        body = settle(store, cached, result)
        if body is None:
            return None
        name = redirect_target(body)
        if name is None:
            return summarise(body) or None
    return None
