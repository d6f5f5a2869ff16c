"""What every LLM back end offers, the errors it raises, and how a call is cancelled.

::

    LlmError                  an LLM call failed (pepa.base.errors.PepaError)
    ├── LlmUnavailable        no back end to ask: no model configured, `pi` not found,
    │                         connection refused
    ├── LlmTimeout            no complete reply before the deadline
    ├── LlmCancelled          the caller gave up on the call
    └── ReplyRejected         a reply that failed strict validation (pepa.policy.coach.validate)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from pepa.base.errors import PepaError

__all__ = [
    "Backend",
    "CancelToken",
    "Chunk",
    "Done",
    "LlmCancelled",
    "LlmError",
    "LlmTimeout",
    "LlmUnavailable",
    "Running",
]

Chunk = Callable[[str, str], None]
"""``on_chunk(stream, text)``: ``stream`` is ``stdout`` (the answer) or ``stderr`` (diagnostics)."""
Done = Callable[[int, int], None]
"""``on_done(code, duration_ms)``: called once; code 0 is success."""


class LlmError(PepaError):
    """An LLM call failed; the message is one line saying why."""


class LlmUnavailable(LlmError):
    """There is nothing to ask: no model configured, the command missing, the server down."""


class LlmTimeout(LlmError):
    """The back end did not finish its reply before the deadline."""


class LlmCancelled(LlmError):
    """The caller cancelled the call."""


class CancelToken:
    """Lets another thread abort a blocking call (kill the process, shut the socket).

    The call registers how to abort itself with :meth:`on_cancel`; a callback
    registered after :meth:`cancel` runs at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the token is cancelled (at once if it already is)."""
        with self._lock:
            if not self._cancelled:
                self._callbacks.append(callback)
                return
        callback()

    def cancel(self) -> None:
        """Abort the call: run every registered callback once."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()


class Running(Protocol):
    """A streaming request in flight."""

    def cancel(self) -> None:
        """Stop it; ``on_done`` still comes."""

    def join(self, timeout: float = 5.0) -> None:
        """Wait for its threads to end."""


class Backend(Protocol):
    """One LLM back end: free questions stream, structured asks return the whole reply.

    Both methods run the model outside the caller's thread or block only the
    calling (worker) thread: an actor never calls :meth:`complete` itself.
    """

    name: str
    """``pi``, ``openai`` or ``offline``."""

    def stream(
        self, prompt: str, *, on_chunk: Chunk, on_done: Done, timeout: float, tools: bool = False
    ) -> Running:
        """Start answering ``prompt``; chunks and the end arrive on other threads.

        ``tools`` lets an agent back end (``pi``) use its tools: run commands,
        read and edit files. Only the operator's ``cmd:ask-pi`` from the
        socket passes True (the coach's ``AskLlm`` handler); nothing that
        carries chat text may. Raises :class:`LlmError` if the request cannot
        even start.
        """
        ...

    def complete(self, prompt: str, *, timeout: float, cancel: CancelToken | None = None) -> str:
        """The whole reply to ``prompt``, blocking the calling thread at most ``timeout`` s.

        Never with tools: a structured ask is a text function. Raises
        :class:`LlmError` (a subclass) when there is no usable reply.
        """
        ...
