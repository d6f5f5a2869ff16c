"""A synchronous runtime: one supervised actor run in the test's own thread, on a fake clock."""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, cast

from pepa.base.errors import ActorUnavailable
from pepa.runtime import Bus, Registry, Runtime, Scheduler, SupervisedActor, SupervisionContext
from pepa.runtime._scheduler import TimerHandle
from pepa.testing.clock import FakeClock
from pepa.testing.fakelink import FakeLink

__all__ = ["ActorHarness", "ManualScheduler"]

A = TypeVar("A", bound=SupervisedActor)
E = TypeVar("E")


class ManualScheduler(Scheduler):
    """Timers on a :class:`FakeClock`: they fire in :meth:`run_due`, in the caller's thread."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(name="pepa-manual-scheduler")
        self.clock = clock
        self._due: list[tuple[float, int, TimerHandle, Callable[[], None]]] = []
        self._order = itertools.count()

    def start(self) -> ManualScheduler:
        return self  # no thread

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        handle = TimerHandle(self.clock() + max(0.0, delay))
        heapq.heappush(self._due, (handle.due, next(self._order), handle, callback))
        return handle

    def call_every(self, interval: float, callback: Callable[[], None]) -> TimerHandle:
        handle = TimerHandle(self.clock() + interval)

        def tick() -> None:
            if handle.cancelled:
                return
            callback()
            inner = self.call_later(interval, tick)
            handle.due = inner.due

        heapq.heappush(self._due, (handle.due, next(self._order), handle, tick))
        return handle

    def pending(self) -> int:
        """Timers still to fire (not cancelled), periodic ones included."""
        return sum(not entry[2].cancelled for entry in self._due)

    def next_in(self) -> float | None:
        """Seconds from now to the next timer to fire; None when none is left."""
        due = [entry[0] for entry in self._due if not entry[2].cancelled]
        return min(due) - self.clock() if due else None

    def run_due(self) -> int:
        """Run every callback due by now; returns how many ran."""
        ran = 0
        while self._due and self._due[0][0] <= self.clock():
            _, _, handle, callback = heapq.heappop(self._due)
            if not handle.cancelled:
                callback()
                ran += 1
        return ran

    def stop(self, timeout: float = 2.0) -> None:
        self._due.clear()


class ActorHarness(Generic[A]):
    """One actor, run synchronously in the test's thread, on a fake clock.

    ``ActorHarness(Reflex, link=FakeLink(), server_dir=tmp_path)`` builds the
    actor with these keyword arguments (plus ``link`` if given) and runs its
    ``setup``. :meth:`send` delivers a message and then any timer tick or self-tell
    it caused; :meth:`advance` moves the clock and fires due timers.
    """

    def __init__(
        self,
        actor_class: type[A],
        *,
        name: str | None = None,
        clock: FakeClock | None = None,
        peers: Mapping[str, Callable[[Any], Any]] | None = None,
        start: bool = True,
        **kwargs: Any,
    ) -> None:
        link = kwargs.get("link")
        self.clock = clock or (link.clock if isinstance(link, FakeLink) else FakeClock())
        self.scheduler = ManualScheduler(self.clock)
        self.bus = Bus()
        self.registry = _PeerRegistry(dict(peers or {}))
        self.runtime = Runtime(
            registry=self.registry, scheduler=self.scheduler, bus=self.bus, clock=self.clock
        )
        self.published: list[Any] = []
        self.reports: list[Any] = []
        self.bus.listen(self.published.append)
        context = SupervisionContext(
            name=name or actor_class.__name__.lower(),
            generation=1,
            runtime=self.runtime,
            report=self.reports.append,
        )
        self.actor: A = actor_class(supervision=context, **kwargs)
        self.registry.own = (context.name, self.actor.actor_ref.tell)
        if start:
            self.start()

    def start(self) -> None:
        """Run the actor's ``setup`` (through pykka's ``on_start``), then pending tells."""
        self.actor.on_start()
        self._drain()

    def send(self, *messages: Any) -> list[Any]:
        """Deliver messages in order; returns the replies (an ask's answer, else None)."""
        replies = []
        for message in messages:
            replies.append(self.actor.on_receive(message))
            self._drain()
        return replies

    def together(self, *messages: Any) -> None:
        """Deliver messages that arrive together: all in the mailbox before the first is
        handled, as a burst of events reaches an actor on a busy machine."""
        for message in messages:
            self.actor.actor_ref.tell(message)
        self._drain()

    def advance(self, seconds: float) -> None:
        """Move the clock forward in steps, firing timers as they come due."""
        target = self.clock() + seconds
        while True:
            due = [entry[0] for entry in self.scheduler._due if not entry[2].cancelled]
            step_to = min([target, *due])
            if step_to > self.clock():
                self.clock.advance(step_to - self.clock())
            self.scheduler.run_due()
            self._drain()
            if self.clock() >= target:
                return

    def events(self, event_type: type[E]) -> list[E]:
        """Every published event of ``event_type``, oldest first."""
        return [e for e in self.published if isinstance(e, event_type)]

    def last(self, event_type: type[E]) -> E:
        """The latest published ``event_type``; AssertionError when there is none."""
        found = self.events(event_type)
        if not found:
            kinds = sorted({type(e).__name__ for e in self.published})
            raise AssertionError(f"no {event_type.__name__} was published; saw {kinds}")
        return found[-1]

    def stop(self) -> None:
        """Run the actor's ``cleanup``."""
        self.actor.cleanup()

    def _drain(self) -> None:
        inbox = cast("queue.Queue[Any]", self.actor.actor_inbox)  # a ThreadingActor's inbox
        while True:
            try:
                envelope = inbox.get_nowait()
            except queue.Empty:
                return
            self.actor.on_receive(envelope.message)


class _PeerRegistry(Registry):
    """A registry whose other actors are plain functions of a message (the test's stand-ins)."""

    def __init__(self, peers: dict[str, Callable[[Any], Any]]) -> None:
        super().__init__()
        self.peers = peers
        self.told: list[tuple[str, Any]] = []
        self.own: tuple[str, Callable[[Any], None]] | None = None
        """The actor under test: its name and how to queue a tell to it."""
        self._lock = threading.Lock()

    def tell(self, name: str, message: Any) -> None:
        if self.own is not None and name == self.own[0]:
            self.own[1](message)  # to the actor under test: delivered by the harness's drain
            return
        with self._lock:
            self.told.append((name, message))
        if name not in self.peers:
            raise ActorUnavailable(f"no actor named {name!r} is running (no stand-in)")
        self.peers[name](message)

    def resolve(self, name: str, deadline: float) -> Any:
        if name not in self.peers:
            raise ActorUnavailable(f"no actor named {name!r} is running (no stand-in)")
        return _StandInRef(self.peers[name])


class _StandInRef:
    """Enough of a pykka ``ActorRef`` for :meth:`ActorHandle.ask`: answers at once."""

    def __init__(self, answer: Callable[[Any], Any]) -> None:
        self._answer = answer

    def ask(self, message: Any, block: bool = False) -> _Answered:
        return _Answered(self._answer(message))


class _Answered:
    def __init__(self, value: Any) -> None:
        self._value = value

    def get(self, timeout: float | None = None) -> Any:
        return self._value
