"""A stand-in OpenAI-compatible server on 127.0.0.1: ``POST /v1/chat/completions``.

Tests set :attr:`OpenAIStandIn.reply` to choose what the next requests get:
a good completion, a body that is not JSON, an HTTP error, a reply held back
until released (slow), a server-sent-event stream that can pause on a
gate until the test has seen the first chunks, or a flood that never ends
(counting the bytes it managed to send). Every request is recorded.

Run by hand to try a daemon against it::

    .venv/bin/python -m tests.llm_standins.openai_server --port 8080 \\
        --content '{"skill": "nav.explore", "reason": "nothing to do"}'
"""

from __future__ import annotations

import argparse
import logging
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

__all__ = ["OpenAIStandIn", "Reply"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """What the stand-in answers."""

    content: str = ""
    """The message content of a completion (and, split in two, of a stream)."""
    status: int = 200
    """HTTP status."""
    body: bytes | None = None
    """A raw body instead of a completion (garbage, an error object)."""
    chunks: tuple[str, ...] = ()
    """The deltas of a streamed reply (default: ``content`` in two halves)."""
    hold: bool = False
    """Answer only once :meth:`OpenAIStandIn.release_all` is called (a slow model)."""
    gate_after: int | None = None
    """In a stream, wait for :attr:`OpenAIStandIn.gate` after this many chunks."""
    flood: str = ""
    """Send without end until the client hangs up: ``body`` (a body of spaces, no length),
    ``length`` (the same, announced with a Content-Length of 1 GB), ``events`` (valid
    stream events) or ``line`` (one stream line that never ends)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """One request as the stand-in saw it."""

    path: str
    headers: dict[str, str]
    payload: Any


class OpenAIStandIn:
    """The server and its script; ``with OpenAIStandIn() as s: ... s.url``."""

    def __init__(self, reply: Reply | None = None, port: int = 0) -> None:
        self.reply = reply or Reply(content="{}")
        self.requests: list[Request] = []
        self.released = threading.Event()
        self.gate = threading.Event()
        self.stopping = threading.Event()
        self.flood_ended = threading.Event()
        """Set when a flood stopped: the client hung up (or the stand-in closed)."""
        self.sent = 0
        """Bytes of flood the server managed to hand to its socket."""
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.standin = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="standin-openai"
        )

    @property
    def url(self) -> str:
        """The base URL to configure (``…/v1``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> OpenAIStandIn:
        self._thread.start()
        return self

    def release_all(self) -> None:
        """Let held replies and gated streams go on."""
        self.released.set()
        self.gate.set()

    def close(self) -> None:
        """Release everything, stop serving, join every handler thread."""
        self.stopping.set()
        self.release_all()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> OpenAIStandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close joins the handlers: no thread outlives a test
    block_on_close = True
    standin: OpenAIStandIn

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (timeout, cancel) closes its socket mid-reply


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = 20  # a client that stops reading without hanging up cannot block a flood forever

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        standin = self.server.standin
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            payload = orjson.loads(raw)
        except orjson.JSONDecodeError:
            payload = raw
        standin.requests.append(
            Request(path=self.path, headers=dict(self.headers), payload=payload)
        )
        reply = standin.reply
        if reply.hold:
            standin.released.wait(60)
        if reply.flood:
            self._flood(reply.flood)
        elif self.path != "/v1/chat/completions":
            self._send(404, b'{"error": {"message": "no such endpoint"}}')
        elif reply.status != 200 or reply.body is not None:
            self._send(reply.status, reply.body or b"")
        elif isinstance(payload, dict) and payload.get("stream"):
            self._stream(reply)
        else:
            completion = {"choices": [{"message": {"role": "assistant", "content": reply.content}}]}
            self._send(200, orjson.dumps(completion))

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _flood(self, mode: str) -> None:
        standin = self.server.standin
        self.send_response(200)
        self.send_header(
            "Content-Type",
            "text/event-stream" if mode in ("events", "line") else "application/json",
        )
        if mode == "length":
            self.send_header("Content-Length", str(10**9))
        self.end_headers()
        if mode == "events":
            event = {"choices": [{"index": 0, "delta": {"content": "flood " * 50}}]}
            piece = (b"data: " + orjson.dumps(event) + b"\n\n") * 64
        else:
            piece = (b"x" if mode == "line" else b" ") * 65536
        try:
            if mode == "line":
                self.wfile.write(b"data: ")
            while not standin.stopping.is_set():
                self.wfile.write(piece)
                standin.sent += len(piece)
        except OSError:
            pass  # the client hung up: what the test waits for
        finally:
            standin.flood_ended.set()

    def _stream(self, reply: Reply) -> None:
        half = len(reply.content) // 2
        chunks = reply.chunks or (reply.content[:half], reply.content[half:])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()  # HTTP/1.0: the body ends when the connection closes
        self.wfile.write(b": keep-alive\n\n")
        for number, chunk in enumerate(chunks):
            if reply.gate_after is not None and number == reply.gate_after:
                self.server.standin.gate.wait(60)
            event = {"choices": [{"index": 0, "delta": {"content": chunk}}]}
            self.wfile.write(b"data: " + orjson.dumps(event) + b"\n\n")
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--content", default='{"skill": "nav.explore", "reason": "stand-in"}')
    args = parser.parse_args()
    standin = OpenAIStandIn(Reply(content=args.content), port=args.port)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger(__name__).info("serving on %s (Ctrl-C stops)", standin.url)
    try:
        standin._server.serve_forever()
    except KeyboardInterrupt:
        standin._server.server_close()


if __name__ == "__main__":
    main()
