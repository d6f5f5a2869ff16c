"""Test seams for the mind without a server: a fake link, a fake clock, an actor harness.

Like httpx's ``MockTransport``, these are public so that every part of the
bot's mind can be tested without flying-squid, mineflayer or threads:

- :class:`FakeClock` is monotonic seconds that move only when told;
- :class:`FakeLink` implements :class:`pepa.link.api.Link`: it plays back
  snapshots (raw JS fields, as ``bot_helper.js`` sends them), records every
  action, and completes an action when the test says so, as the
  ``actionDone`` event the real link would emit;
- :class:`ActorHarness` runs one supervised actor in the test's own thread:
  ``setup``, then each message the test sends; timers fire when the test
  advances the clock; everything the actor publishes lands in
  :attr:`ActorHarness.published`. An exception in the actor reaches the
  test (a crash is a failure, not a restart).

The harness runs the actor's real code (its ``on_message``, its policy, its
files); only the runtime around it is synchronous. What needs a real server
— the pathfinder, mob AI, the JS bridge — stays in the integration tests.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from pepa.base.errors import ActorUnavailable
from pepa.runtime import Bus, Registry, Runtime, Scheduler, SupervisedActor, SupervisionContext
from pepa.runtime._scheduler import TimerHandle
from pepa.world.view import WorldView

__all__ = [
    "Action",
    "ActorHarness",
    "FakeClock",
    "FakeLink",
    "ManualScheduler",
    "entity",
    "raw_snapshot",
    "view",
]

A = TypeVar("A", bound=SupervisedActor)
E = TypeVar("E")


class FakeClock:
    """Monotonic seconds that move only by :meth:`advance`."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        """Move the clock forward; returns the new time."""
        if seconds < 0:
            raise ValueError("a monotonic clock never goes back")
        self.now += seconds
        return self.now


# -- snapshots as the JS side sends them ----------------------------------------------------


def entity(
    entity_id: int,
    name: str,
    distance: float,
    *,
    kind: str = "hostile",
    position: tuple[float, float, float] | None = None,
    sight: bool | None = None,
) -> dict[str, Any]:
    """One raw JS entity: ``kind`` is ``hostile``, ``animal`` or ``player``; ``sight``: whether
    it sees the bot (the JS side marks hostiles within 24 blocks)."""
    raw: dict[str, Any] = {"id": entity_id, "name": name, "distance": distance}
    if kind == "hostile":
        raw.update(type="hostile", kind="Hostile mobs")
    elif kind == "player":
        raw.update(type="player", username=name)
    else:
        raw.update(type="animal", kind="Passive mobs")
    if position is not None:
        raw["position"] = dict(zip("xyz", position, strict=True))
    if sight is not None:
        raw["sight"] = sight
    return raw


def raw_snapshot(
    *,
    hp: float = 20,
    food: int = 20,
    position: tuple[float, float, float] | None = (0.5, 64.0, 0.5),
    entities: list[dict[str, Any]] | None = None,
    items: Mapping[str, int] | None = None,
    time_of_day: int = 1000,
    open_sides: int = 4,
    ceiling: int | None = None,
    beds: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A connected, alive bot's snapshot in the JS shape; ``extra`` overrides any raw field."""
    raw: dict[str, Any] = {
        "connected": True,
        "alive": True,
        "hp": hp,
        "food": food,
        "saturation": 5.0,
        "position": dict(zip("xyz", position, strict=True)) if position else None,
        "dimension": "overworld",
        "timeOfDay": time_of_day,
        "isDay": not 13000 <= time_of_day < 23000,
        "moving": False,
        "sleeping": False,
        "heldItem": None,
        "enclosure": {"openSides": open_sides, "ceiling": ceiling},
        "beds": beds or [],
        "entities": entities or [],
        "inventory": {"counts": dict(items or {}), "emptySlots": 36 - len(items or {})},
    }
    raw.update(extra)
    return raw


def view(**fields: Any) -> WorldView:
    """The typed view of :func:`raw_snapshot` with these arguments."""
    version = fields.pop("version", "1.20.4")
    return WorldView.parse(raw_snapshot(**fields), version=version)


# -- the fake link -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Action:
    """One call the mind made on the link."""

    id: str | None
    """The action id handed back (None for instant calls)."""
    method: str
    """``goto``, ``attack``, ``stop`` …"""
    args: tuple[Any, ...]


@dataclass(slots=True)
class FakeLink:
    """A :class:`~pepa.link.api.Link` that plays back snapshots and records actions."""

    clock: FakeClock = field(default_factory=FakeClock)
    connected: bool = True
    version: str | None = "1.20.4"
    world: dict[str, Any] | None = field(default_factory=raw_snapshot)
    """What :meth:`snapshot` returns (None while disconnected)."""
    refuse: set[str] = field(default_factory=set)
    """Methods that fail (an action returns None, an instant call False)."""
    actions: list[Action] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    snapshots: int = 0
    """How many times :meth:`snapshot` was called (a bridge round trip each, for real)."""
    armed: dict[str, float] | None = None
    """The latest :meth:`arm` (None before any): kept apart from :attr:`actions`, as it is the
    reflex's standing order to the bridge, not something the bot does."""
    armed_as: tuple[float, int] | None = None
    """The health and food of the latest :meth:`arm`."""
    armings: int = 0
    """How many times :meth:`arm` was called (a bridge round trip each, for real)."""
    _queued: list[dict[str, Any]] = field(default_factory=list)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    # -- what the test does ---------------------------------------------------------------

    def play(self, *snapshots: dict[str, Any]) -> None:
        """Queue snapshots: each :meth:`snapshot` call takes the next; the last one stays."""
        self._queued.extend(snapshots)

    def calls(self, method: str) -> list[Action]:
        """Every recorded call of ``method``, oldest first."""
        return [a for a in self.actions if a.method == method]

    def last(self, method: str | None = None) -> Action:
        """The latest recorded action (of ``method``); AssertionError when there is none."""
        found = [a for a in self.actions if method is None or a.method == method]
        if not found:
            raise AssertionError(f"no {method or 'action'} was called; calls: {self.actions}")
        return found[-1]

    def done(
        self, action: Action | str | None = None, *, ok: bool = True, error: str = ""
    ) -> dict[str, Any]:
        """The ``actionDone`` event ending ``action`` (default: the latest action with an id)."""
        if action is None:
            action = next(a for a in reversed(self.actions) if a.id is not None)
        if isinstance(action, str):
            action = next(a for a in self.actions if a.id == action)
        return {
            "type": "actionDone",
            "id": action.id,
            "ok": ok,
            "action": action.method,
            "error": error,
        }

    def clear(self) -> None:
        """Forget the recorded calls."""
        self.actions.clear()
        self.said.clear()

    # -- the Link protocol -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any] | None:
        self.snapshots += 1
        if not self.connected:
            return None
        if self._queued:
            self.world = self._queued.pop(0)
        return self.world

    def _action(self, method: str, *args: Any) -> str | None:
        if method in self.refuse or not self.connected:
            self.actions.append(Action(None, method, args))
            return None
        action_id = f"a{next(self._ids)}"
        self.actions.append(Action(action_id, method, args))
        return action_id

    def _instant(self, method: str, *args: Any) -> bool:
        self.actions.append(Action(None, method, args))
        return self.connected and method not in self.refuse

    def goto(self, x: float, y: float, z: float, reach: float = 1.0) -> str | None:
        return self._action("goto", x, y, z, reach)

    def charge(self, x: float, y: float, z: float, reach: float = 1.0) -> str | None:
        return self._action("charge", x, y, z, reach)

    def goto_player(self, name: str, reach: float = 2.0) -> str | None:
        return self._action("gotoPlayer", name, reach)

    def follow(self, name: str, reach: float = 2.0) -> str | None:
        return self._action("follow", name, reach)

    def eat(self, item: str) -> str | None:
        return self._action("eat", item)

    def sleep(self, x: int, y: int, z: int) -> str | None:
        return self._action("sleep", x, y, z)

    def escape(self, mode: str = "any", reach: float = 3.0) -> str | None:
        return self._action("escape", mode, reach)

    def gather(
        self,
        names: list[str],
        count: int,
        radius: float = 48.0,
        drops: list[str] | None = None,
        under_cover: bool = False,
    ) -> str | None:
        cover = [True] if under_cover else []  # recorded only when set
        return self._action("gather", list(names), count, radius, list(drops or []), *cover)

    def craft(self, item: str, times: int = 1, under_cover: bool = False) -> str | None:
        cover = [True] if under_cover else []  # recorded only when set
        return self._action("craft", item, times, *cover)

    def place(self, item: str) -> str | None:
        return self._action("place", item)

    def hunt(self, names: list[str], radius: float = 32.0) -> str | None:
        return self._action("hunt", list(names), radius)

    def smelt(self, item: str, count: int, fuel: str, under_cover: bool = False) -> str | None:
        cover = [True] if under_cover else []  # recorded only when set
        return self._action("smelt", item, count, fuel, *cover)

    def shelter(self) -> str | None:
        return self._action("shelter")

    def wear(self) -> str | None:
        return self._action("wear")

    def surface(self) -> str | None:
        return self._action("surface")

    def flee(self, sources: list[tuple[float, float]], distance: float = 16.0) -> str | None:
        return self._action("flee", [tuple(p) for p in sources], distance)

    def cover(
        self,
        sources: list[tuple[float, float, float]],
        radius: float = 6.0,
        avoid: list[tuple[float, float]] | None = None,
    ) -> str | None:
        return self._action(
            "cover", [tuple(p) for p in sources], radius, [tuple(p) for p in avoid or []]
        )

    def attack(self, entity_id: int, stop_first: bool = False) -> bool:
        return self._instant("attack", entity_id, *((True,) if stop_first else ()))

    def arm(self, reach: Mapping[str, float], hp: float = 0.0, food: int = 0) -> bool:
        self.armings += 1
        if not self.connected or "arm" in self.refuse:
            return False
        self.armed, self.armed_as = dict(reach), (hp, food)
        return True

    def look_around(self) -> bool:
        return self._instant("lookAround")

    def set_danger(self, areas: list[tuple[float, float, float]]) -> bool:
        return self._instant("setDanger", [tuple(a) for a in areas])

    def chat(self, text: str) -> bool:
        ok = self._instant("chat", text)
        if ok:
            self.said.append(text)
        return ok

    def stop(self) -> None:
        self._instant("stop")


# -- a synchronous runtime ------------------------------------------------------------------


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
