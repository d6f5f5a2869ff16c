"""The ``openai`` back end: any OpenAI-compatible chat endpoint (llama.cpp, Ollama, vLLM …).

``POST {base_url}/chat/completions`` with ``model``, ``messages`` and
``stream``: ``false`` for structured asks (the reply is
``choices[0].message.content``), ``true`` for free questions (server-sent
events, one ``data: {json}`` line per delta, ``data: [DONE]`` at the end).
Standard library only (``http.client``). The key, when set, goes only into the
``Authorization`` header and never into a log line or an error. Replies are
bounded while they arrive, not after: at most :data:`MAX_BODY` bytes of a
plain reply, :data:`MAX_STREAM` bytes of a stream and :data:`MAX_LINE` bytes
of one stream line are read; past that the call ends with an :class:`LlmError`
and the connection is closed.
"""

from __future__ import annotations

import http.client
import logging
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import orjson

from pepa.base.threads import thread_name
from pepa.base.urls import redact_url
from pepa.llm._base import (
    CancelToken,
    Chunk,
    Done,
    LlmCancelled,
    LlmError,
    LlmTimeout,
    LlmUnavailable,
)

__all__ = ["OpenAIBackend"]

logger = logging.getLogger(__name__)

MAX_BODY = 1_000_000
"""Bytes of a non-streaming reply (or an error body) read at most."""
MAX_STREAM = 4_000_000
"""Bytes of a streamed reply (all its event lines) read at most."""
MAX_LINE = 65_536
"""Bytes of one server-sent-event line read at most."""


class OpenAIBackend:
    """Talks to ``{base_url}/chat/completions``."""

    name = "openai"

    def __init__(
        self,
        base_url: str,
        *,
        model: str = "",
        api_key: str | None = None,
        max_body: int = MAX_BODY,
        max_stream: int = MAX_STREAM,
        max_line: int = MAX_LINE,
    ) -> None:
        shown = redact_url(base_url, keep_user=False)
        try:
            parts = urlsplit(base_url)
            port = parts.port  # a port that is no number raises here
        except ValueError:
            parts, port = urlsplit(""), None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise LlmUnavailable(f"openai URL {shown!r} is not an http(s) URL")
        self.base_url = base_url
        self.shown_url = shown
        """``base_url`` with any credentials masked: the only form that reaches a log line."""
        self.model = model
        self._api_key = api_key
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port
        self._path = parts.path.rstrip("/") + "/chat/completions"
        self.max_body = max_body
        self.max_stream = max_stream
        self.max_line = max_line

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.shown_url!r}, model={self.model!r})"

    # -- structured asks -----------------------------------------------------------

    def complete(self, prompt: str, *, timeout: float, cancel: CancelToken | None = None) -> str:
        """``choices[0].message.content`` of one non-streaming completion."""
        deadline = time.monotonic() + timeout
        conn, sock = self._connect(timeout, cancel)
        try:
            response = self._post(conn, sock, prompt, stream=False, deadline=deadline)
            body = _read_all(sock, response, deadline, limit=self.max_body, name=self.name)
        except TimeoutError:
            raise LlmTimeout(f"{self.name} gave no reply within {timeout:g}s") from None
        except (OSError, http.client.HTTPException) as exc:
            if cancel is not None and cancel.cancelled:
                raise LlmCancelled(f"{self.name} call cancelled") from None
            raise LlmError(f"{self.name}: connection failed mid-reply: {exc}") from exc
        finally:
            _hang_up(conn, sock)
        if response.status >= 400:
            raise LlmError(f"{self.name}: HTTP {response.status}: {_excerpt(body)}")
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise LlmError(f"{self.name}: the reply is not JSON: {_excerpt(body)}") from None
        return _content(data, self.name)

    # -- free questions --------------------------------------------------------------

    def stream(
        self, prompt: str, *, on_chunk: Chunk, on_done: Done, timeout: float, tools: bool = False
    ) -> _SseStream:
        """Stream the answer's deltas as ``stdout`` chunks; errors end as a ``stderr`` chunk.

        ``tools`` changes nothing: a chat completion has no tools to run.
        """
        sse = _SseStream(self, prompt, on_chunk=on_chunk, on_done=on_done, timeout=timeout)
        sse.start()
        return sse

    # -- plumbing -------------------------------------------------------------------

    def _connect(
        self, timeout: float, cancel: CancelToken | None
    ) -> tuple[http.client.HTTPConnection, socket.socket]:
        """A connected HTTP(S) connection and its socket (kept: a response that ends with the
        connection takes the socket from ``conn``, and a cancel or a cap must still reach it)."""
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=timeout)
        try:
            conn.connect()
        except TimeoutError:
            raise LlmTimeout(
                f"{self.name}: no connection to {self.shown_url} in {timeout:g}s"
            ) from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise LlmUnavailable(
                f"{self.name}: cannot connect to {self.shown_url}: {reason}"
            ) from exc
        sock = conn.sock
        assert sock is not None  # connect() succeeded
        if cancel is not None:
            cancel.on_cancel(lambda: _abort(sock))
        return conn, sock

    def _post(
        self,
        conn: http.client.HTTPConnection,
        sock: socket.socket,
        prompt: str,
        *,
        stream: bool,
        deadline: float,
    ) -> http.client.HTTPResponse:
        payload: dict[str, Any] = {
            "messages": [{"role": "user", "content": prompt}],
            "stream": stream,
        }
        if self.model:
            payload["model"] = self.model
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if stream:
            headers["Accept"] = "text/event-stream"
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        _remaining(sock, deadline)
        conn.request("POST", self._path, body=orjson.dumps(payload), headers=headers)
        _remaining(sock, deadline)
        return conn.getresponse()


class _SseStream:
    """One streaming completion on its own thread (``Running``)."""

    def __init__(
        self, backend: OpenAIBackend, prompt: str, *, on_chunk: Chunk, on_done: Done, timeout: float
    ) -> None:
        self._backend = backend
        self._prompt = prompt
        self._on_chunk = on_chunk
        self._on_done = on_done
        self._timeout = timeout
        self._cancel = CancelToken()
        self._thread = threading.Thread(
            target=self._run, daemon=True, name=thread_name("pepa-llm-sse")
        )

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.cancel()

    def join(self, timeout: float = 5.0) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        started = time.monotonic()
        try:
            code = self._pump(started + self._timeout)
        except LlmError as exc:
            self._on_chunk("stderr", f"{exc}\n")
            code = 1
        self._on_done(code, int((time.monotonic() - started) * 1000))

    def _pump(self, deadline: float) -> int:
        backend, name = self._backend, self._backend.name
        conn, sock = backend._connect(self._timeout, self._cancel)
        try:
            response = backend._post(conn, sock, self._prompt, stream=True, deadline=deadline)
            if response.status >= 400:
                body = _read_all(sock, response, deadline, limit=backend.max_body, name=name)
                raise LlmError(f"{name}: HTTP {response.status}: {_excerpt(body)}")
            total = 0
            while True:
                _remaining(sock, deadline)
                line = response.readline(backend.max_line + 1)
                if not line:
                    return 0  # the server closed the stream without [DONE]: take what came
                if len(line) > backend.max_line:
                    raise LlmError(
                        f"{name}: a stream line is longer than {backend.max_line} bytes; "
                        "stopped reading"
                    )
                total += len(line)
                if total > backend.max_stream:
                    raise LlmError(
                        f"{name}: the streamed reply passed {backend.max_stream} bytes; "
                        "stopped reading"
                    )
                text = line.decode("utf-8", "replace").strip()
                if not text.startswith("data:"):
                    continue  # blank separators, ": keep-alive" comments, event names
                data = text[len("data:") :].strip()
                if data == "[DONE]":
                    return 0
                try:
                    event = orjson.loads(data)
                except orjson.JSONDecodeError:
                    raise LlmError(f"{name}: a stream event is not JSON: {data[:200]!r}") from None
                delta = _delta(event, name)
                if delta:
                    self._on_chunk("stdout", delta)
        except TimeoutError:
            raise LlmTimeout(f"{name} stopped answering within {self._timeout:g}s") from None
        except (OSError, http.client.HTTPException) as exc:
            if self._cancel.cancelled:
                raise LlmCancelled(f"{name} call cancelled") from None
            raise LlmError(f"{name}: connection failed mid-reply: {exc}") from exc
        finally:
            _hang_up(conn, sock)


def _remaining(sock: socket.socket, deadline: float) -> None:
    """Give the next socket operation only the time left before ``deadline``."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    sock.settimeout(left)


def _read_all(
    sock: socket.socket,
    response: http.client.HTTPResponse,
    deadline: float,
    *,
    limit: int,
    name: str,
) -> bytes:
    """The whole body, read as it arrives; LlmError as soon as it passes ``limit`` bytes."""
    too_big = f"{name}: the reply is larger than {limit} bytes; stopped reading"
    if response.length is not None and response.length > limit:
        raise LlmError(f"{too_big} (Content-Length {response.length})")
    chunks: list[bytes] = []
    size = 0
    while True:
        _remaining(sock, deadline)
        chunk = response.read1(min(65536, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise LlmError(too_big)


def _abort(sock: socket.socket) -> None:
    """End the connection now, whoever else still holds the socket (a response, a traceback)."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _hang_up(conn: http.client.HTTPConnection, sock: socket.socket) -> None:
    """Done with the connection, whole reply or not: the server sees it end at once."""
    _abort(sock)
    sock.close()
    conn.close()


def _excerpt(body: bytes) -> str:
    return " ".join(body[:200].decode("utf-8", "replace").split()) or "(empty body)"


def _error_text(data: dict[str, Any]) -> str:
    error = data.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error)[:200]


def _content(data: Any, name: str) -> str:
    if isinstance(data, dict) and data.get("error"):
        raise LlmError(f"{name}: the server answered with an error: {_error_text(data)}")
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LlmError(f"{name}: the reply is not a chat completion: {str(data)[:200]}") from None
    if not isinstance(content, str):
        raise LlmError(f"{name}: the reply's content is not text: {str(content)[:200]}")
    return content


def _delta(event: Any, name: str) -> str:
    if isinstance(event, dict) and event.get("error"):
        raise LlmError(f"{name}: the server answered with an error: {_error_text(event)}")
    try:
        choice = event["choices"][0]
    except (KeyError, IndexError, TypeError):
        return ""  # usage-only or keep-alive events carry no text
    delta = choice.get("delta") if isinstance(choice, dict) else None
    content = delta.get("content") if isinstance(delta, dict) else None
    return content if isinstance(content, str) else ""
