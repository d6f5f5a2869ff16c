"""A loopback wiki for tests: serves wikitext pages with ETags and a robots.txt on a free
port, in a thread, and records every request with its headers (the ``wiki`` fixture); a
wiki client on a fake wall clock and a fake pace (``clock``, ``pace``, :func:`make_client`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from pepa.state.knowledge.wiki import WikiClient

BREAD = """{{Infobox item
| image = Bread.png
| renewable = Yes
| stackable = Yes (64)
}}
<!-- the lead paragraph -->
'''Bread''' is a [[food]] item that can be eaten by the [[player]].<ref>{{cite|Notch}}</ref>
It is [[Crafting|crafted]] from three [[wheat]].

== Obtaining ==
* [[Villager]]s sell it.
"""
ROBOTS = "User-agent: *\nDisallow: /w/Secret\n"


class Wiki:
    """What the loopback wiki serves; every request is recorded with its headers."""

    def __init__(self) -> None:
        self.url = ""
        self.robots = ROBOTS
        self.robots_status = 200
        self.pages: dict[str, tuple[str, str | None]] = {"/w/Bread": (BREAD, '"v1"')}
        """Path → (wikitext, ETag)."""
        self.replies: dict[str, tuple[int, dict[str, str]]] = {}
        """Path → a fixed status and headers instead of the page."""
        self.slow: set[str] = set()
        """Paths answered only once ``release`` is set."""
        self.release = threading.Event()
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._lock = threading.Lock()

    def record(self, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append((path, headers))

    @property
    def paths(self) -> list[str]:
        with self._lock:
            return [path for path, _ in self.requests]

    def headers(self, index: int) -> dict[str, str]:
        with self._lock:
            return self.requests[index][1]


class _Server(ThreadingHTTPServer):
    wiki: Wiki

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up on a slow answer: nothing to report


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        wiki = self.server.wiki
        wiki.record(self.path, dict(self.headers.items()))
        path = urlsplit(self.path).path
        if path in wiki.slow:
            wiki.release.wait(10)
        if path == "/robots.txt":
            self._send(wiki.robots_status, wiki.robots)
        elif path in wiki.replies:
            status, headers = wiki.replies[path]
            self._send(status, "busy", headers)
        elif path not in wiki.pages:
            self._send(404, "There is currently no text in this page.")
        else:
            body, etag = wiki.pages[path]
            headers = {"ETag": etag} if etag else {}
            if etag is not None and self.headers.get("If-None-Match") == etag:
                self._send(304, "", headers)
            else:
                self._send(200, body, headers)

    def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/x-wiki; charset=UTF-8")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if status != 304:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def wiki() -> Iterator[Wiki]:
    """A loopback wiki on a free port, in a thread."""
    state = Wiki()
    server = _Server(("127.0.0.1", 0), _Handler)
    server.wiki = state
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="loopback-wiki"
    )
    thread.start()
    yield state
    state.release.set()
    server.shutdown()
    server.server_close()
    thread.join(5)


BREAD_SUMMARY = (
    "Bread is a food item that can be eaten by the player. It is crafted from three wheat."
)


class Clock:
    """Naive UTC wall time that moves only when told."""

    def __init__(self) -> None:
        self.now = datetime(2026, 6, 1, 12, 0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


class Pace:
    """Monotonic time that moves only when slept in; every sleep is recorded, none waits."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def pace() -> Pace:
    return Pace()


def make_client(url: str, clock: Clock, pace: Pace, **options: Any) -> WikiClient:
    options.setdefault("timeout", 5.0)
    return WikiClient(url, clock=clock, monotonic=pace.monotonic, sleep=pace.sleep, **options)
