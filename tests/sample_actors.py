"""Small actors used by the supervision tests."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from pepa.runtime import SupervisedActor, SupervisionContext

STARTS: dict[str, int] = {}
"""How many times each test actor's setup ran (reset by tests that read it)."""
_starts_lock = threading.Lock()


@dataclass(frozen=True, slots=True, kw_only=True)
class Inc:
    """Add one to the counter."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Get:
    """Answer the counter."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Boom:
    """Raise in the handler."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """Block the handler until ``release`` is set."""

    release: threading.Event
    entered: threading.Event


@dataclass(frozen=True, slots=True, kw_only=True)
class Finish:
    """Stop this actor normally."""


class Counter(SupervisedActor):
    """Counts ``Inc`` messages; fails on demand."""

    def __init__(self, *, supervision: SupervisionContext, fail_start: bool = False) -> None:
        super().__init__(supervision=supervision)
        self.fail_start = fail_start
        self.count = 0

    def setup(self) -> None:
        with _starts_lock:
            STARTS[self.name] = STARTS.get(self.name, 0) + 1
        if self.fail_start:
            raise RuntimeError(f"{self.name} cannot start")

    def on_message(self, message: Any) -> Any:
        match message:
            case Inc():
                self.count += 1
            case Get():
                return self.count
            case Boom():
                raise ValueError("boom")
            case Block(release=release, entered=entered):
                entered.set()
                release.wait()
            case Finish():
                self.stop()
            case IncLater(delay=delay):
                self.later(delay, Inc())
                return len(self._laters)
            case _:
                return super().on_message(message)
        return None

    def identity(self) -> str:
        """The pykka URN of this instance (a proxy-callable method)."""
        return self.actor_urn


@dataclass(frozen=True, slots=True, kw_only=True)
class IncLater:
    """Add one to the counter ``delay`` seconds from now (``later``); answers how many of
    its ``later`` handles the actor still keeps."""

    delay: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Exit:
    """Call sys.exit in the handler."""


class Exiter(Counter):
    """A counter whose handler may call sys.exit (which must only crash this actor)."""

    def on_message(self, message: Any) -> Any:
        if isinstance(message, Exit):
            raise SystemExit(4)
        return super().on_message(message)

    def explode(self) -> None:
        """A public method that fails (for proxy calls)."""
        raise KeyError("proxy failure")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tock:
    """Timer message of Ticker."""


class Ticker(Counter):
    """Counts its own timer ticks (every 10 ms)."""

    def setup(self) -> None:
        super().setup()
        self.every(0.01, _Tock())

    def on_message(self, message: Any) -> Any:
        if isinstance(message, _Tock):
            self.count += 1
            return None
        return super().on_message(message)
