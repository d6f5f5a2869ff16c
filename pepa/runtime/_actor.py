"""The base class of every supervised actor.

pykka alone loses failures: an exception in ``on_start`` never reaches
``on_failure``, an exception in a tell handler stops the actor and silently
drops the tells queued behind it, and an exception in a proxy call only
reaches a future nobody may read. :class:`SupervisedActor` replaces pykka's
message loop (pinned to pykka 4.x) so that every failure — in ``on_start``, in
a tell, in an ask or a proxy call, even ``SystemExit`` — takes one path:

1. the name is marked *restarting* in the registry, so new tells are buffered;
2. the ask being handled (if any) gets the exception, every ask queued behind
   it gets :class:`ActorCrashed`; none hangs;
3. tells queued behind the crash are salvaged and delivered to the next
   instance, in order (the message that crashed is not redelivered) — except
   messages wrapped in :class:`Direct` (supervisor reports, timer ticks),
   which belonged to the dead instance alone;
4. ``cleanup()`` runs, then the supervisor gets :class:`ChildExited`.

Subclasses implement ``on_message(message)`` (tells and asks alike; the return
value answers an ask), and optionally ``setup()`` / ``cleanup()``.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import pykka
from pykka import messages as pykka_messages

from pepa.base.errors import ActorCrashed
from pepa.base.threads import thread_name
from pepa.runtime._messages import Call, ChildExited, ChildStarted, Direct, InjectFault, Ping
from pepa.runtime._registry import ActorHandle, Registry
from pepa.runtime._table import ActorTable

if TYPE_CHECKING:
    from pepa.runtime._bus import Bus
    from pepa.runtime._scheduler import Scheduler, TimerHandle

__all__ = ["InjectedFault", "Poison", "Runtime", "SupervisedActor", "SupervisionContext"]

logger = logging.getLogger(__name__)


class InjectedFault(RuntimeError):
    """Raised on purpose by ``InjectFault(kind="crash")``."""


class Poison:
    """A payload no actor understands; ``InjectFault(kind="poison")`` feeds it in."""

    def __repr__(self) -> str:
        return "Poison()"


@dataclass(slots=True, kw_only=True)
class Runtime:
    """Shared services of one actor tree: names, the bus, timers, fault switches."""

    registry: Registry
    """Stable names of every supervised actor."""
    scheduler: Scheduler
    """The runtime's timer thread."""
    bus: Bus
    """Publish/subscribe fan-out between actors."""
    actor_table: ActorTable = field(default_factory=ActorTable)
    """Live state of every supervised actor (written by supervisors)."""
    fault_injection: bool = False
    """Whether ``InjectFault`` messages are honoured."""
    hang_release: threading.Event = field(default_factory=threading.Event)
    """Set at shutdown so that handlers hung on purpose return and their threads end."""
    label: str = ""
    """The bot this tree belongs to (a fleet worker hosts several): its actors' threads are named
    ``<name>@<label>`` (:func:`pepa.base.logs.thread_name`) so their records reach its logs only."""
    fail_start: frozenset[str] = frozenset()
    """Names whose ``setup`` always fails (fault injection only; ``PEPA_FAULT_START``)."""
    clock: Callable[[], float] = time.monotonic
    """Monotonic seconds: what actors call "now" (a fake clock in :mod:`pepa.testing`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SupervisionContext:
    """What a supervisor hands to each child instance it starts."""

    name: str
    """The child's stable name."""
    generation: int
    """1 for the first start, +1 per restart."""
    runtime: Runtime
    """The shared services."""
    report: Callable[[Any], None]
    """Delivers ``ChildStarted`` / ``ChildExited`` to the supervisor (a tell)."""
    started: threading.Event = field(default_factory=threading.Event)
    """Set when ``setup`` has finished, well or badly (the supervisor waits on it)."""


class SupervisedActor(pykka.ThreadingActor):
    """A pykka actor whose every failure reaches its supervisor."""

    use_daemon_thread = True  # a hung handler must never keep the process alive

    def __init__(self, *, supervision: SupervisionContext) -> None:
        super().__init__()
        self.supervision = supervision
        self.name = supervision.name
        self.runtime = supervision.runtime
        self._exit_reported = False
        self._timers: list[TimerHandle] = []
        self._laters: list[tuple[TimerHandle, list[bool]]] = []
        """later()'s live handles, each with whether it has fired."""
        self._pending_ticks: dict[int, list[bool]] = {}

    # -- hooks for subclasses -------------------------------------------------

    def setup(self) -> None:
        """Runs in the actor thread before the first message. Failures are start failures."""

    def on_message(self, message: Any) -> Any:
        """Handle one tell or ask; the return value answers an ask."""
        raise TypeError(f"{self.name} does not handle {type(message).__name__}")

    def cleanup(self) -> None:
        """Runs in the actor thread on every exit, normal or crash. Best effort."""

    # -- conveniences ---------------------------------------------------------

    @property
    def handle(self) -> ActorHandle:
        """This actor's own stable handle (survives its restarts)."""
        return self.runtime.registry.handle(self.name)

    def peer(self, name: str) -> ActorHandle:
        """A stable handle to another actor of the tree."""
        return self.runtime.registry.handle(name)

    def now(self) -> float:
        """Monotonic seconds from the runtime's clock."""
        return self.runtime.clock()

    def every(self, interval: float, message: Any) -> TimerHandle:
        """Tell this instance ``message`` every ``interval`` seconds until it exits."""
        ref, direct = self.actor_ref, Direct(message)
        pending = self._pending_ticks.setdefault(id(direct), [False])

        def tick() -> None:
            if pending[0]:
                return  # the last tick is still queued: ticks never pile up behind slow work
            pending[0] = True
            try:
                ref.tell(direct)
            except pykka.ActorDeadError:
                timer.cancel()
            except BaseException:
                pending[0] = False  # not queued after all: the next tick must send again
                raise  # the scheduler logs it and keeps the timer

        timer = self.runtime.scheduler.call_every(interval, tick)
        self._timers.append(timer)
        return timer

    def later(self, delay: float, message: Any) -> TimerHandle:
        """Tell this instance ``message`` once, ``delay`` seconds from now."""
        ref, direct = self.actor_ref, Direct(message)
        fired = [False]

        def fire() -> None:
            # not the handle: on a busy machine the timer thread may run this before
            # call_later's handle is even assigned here (a NameError once, at 64 bots)
            fired[0] = True
            try:
                ref.tell(direct)
            except pykka.ActorDeadError:
                pass

        # an actor that keeps asking for one more (the persona while lines wait) would keep
        # every spent handle: only the live ones are kept
        self._laters = [(t, f) for t, f in self._laters if not (t.cancelled or f[0])]
        timer = self.runtime.scheduler.call_later(delay, fire)
        self._laters.append((timer, fired))
        return timer

    def publish(self, event: Any) -> None:
        """Fan ``event`` out on the bus (by tell; never blocks)."""
        self.runtime.bus.publish(event)

    # -- pykka plumbing ---------------------------------------------------------

    def on_start(self) -> None:
        if self.runtime.label:
            thread = threading.current_thread()
            thread.name = thread_name(self.name, self.runtime.label)
        if self.runtime.fault_injection and self.name in self.runtime.fail_start:
            raise InjectedFault(f"injected start failure in {self.name}")
        self.setup()

    def on_stop(self) -> None:
        self._run_cleanup()
        self._report_exit("normal", "")

    def on_receive(self, message: Any) -> Any:
        if isinstance(message, Direct):
            pending = self._pending_ticks.get(id(message))
            if pending is not None:
                pending[0] = False
            message = message.message
        if isinstance(message, Ping):
            return self.name
        if isinstance(message, InjectFault):
            return self._inject(message)
        if isinstance(message, Call):
            if message.method.startswith("_"):
                raise AttributeError(f"{message.method} is private")
            return getattr(self, message.method)(*message.args, **message.kwargs)
        return self.on_message(message)

    def _inject(self, fault: InjectFault) -> Any:
        if not self.runtime.fault_injection:
            logger.warning("%s: ignored %s fault (fault injection is off)", self.name, fault.kind)
            return False
        logger.warning("%s: injected %s fault", self.name, fault.kind)
        if fault.kind == "crash":
            raise InjectedFault(f"injected crash in {self.name}")
        if fault.kind == "hang":
            self.runtime.hang_release.wait()
            return True
        return self.on_message(Poison())

    def _actor_loop_setup(self) -> None:
        try:
            self.on_start()
        except BaseException as exc:  # SystemExit included: it must not stop the process
            self._crash(exc, reason="start-failed")
            return
        finally:
            self.supervision.started.set()
        self.supervision.report(
            ChildStarted(name=self.name, generation=self.supervision.generation)
        )

    def _actor_loop_running(self) -> None:
        while not self.actor_stopped.is_set():
            envelope = self.actor_inbox.get()
            try:
                response = self._handle_receive(envelope.message)
            except BaseException as exc:  # one path for tell, ask, proxy and SystemExit
                if envelope.reply_to is not None:
                    envelope.reply_to.set_exception(exc_info=sys.exc_info())
                self._crash(exc, reason="crash")
                return
            if envelope.reply_to is not None:
                envelope.reply_to.set(response)

    def _actor_loop_teardown(self) -> None:
        self._drain_mailbox(crashed=False)

    def _crash(self, exc: BaseException, *, reason: str) -> None:
        registry = self.runtime.registry
        registry.unbind(self.name, self.actor_ref, "restarting")
        pykka.ActorRegistry.unregister(self.actor_ref)
        self.actor_stopped.set()
        detail = f"{type(exc).__name__}: {exc}"
        logger.error(
            "%s %s: %s",
            self.name,
            "failed to start" if reason == "start-failed" else "crashed",
            detail,
            exc_info=(type(exc), exc, exc.__traceback__),
        )
        self._drain_mailbox(crashed=True)
        self._run_cleanup()
        self._report_exit(reason, detail)

    def _drain_mailbox(self, *, crashed: bool) -> None:
        """Answer every queued ask with an error; salvage queued tells for a successor.

        Tells are kept after a crash, and after a normal stop when the name is
        marked *restarting* (a rest_for_one restart); they are dropped only at
        a final stop.
        """
        salvage = crashed or self.runtime.registry.state(self.name) == "restarting"
        salvaged: list[Any] = []
        inbox = cast("queue.Queue[Any]", self.actor_inbox)  # ThreadingActor's inbox
        while True:
            try:  # never block: another thread may be draining this mailbox too
                envelope = inbox.get_nowait()
            except queue.Empty:
                break
            message = envelope.message
            if envelope.reply_to is not None:
                if isinstance(message, pykka_messages._ActorStop):
                    envelope.reply_to.set(None)
                else:
                    error = ActorCrashed(
                        f"{self.name} {'crashed' if crashed else 'stopped'} before answering "
                        f"{type(message).__name__}"
                    )
                    envelope.reply_to.set_exception(exc_info=(ActorCrashed, error, None))
            elif salvage and not isinstance(message, pykka_messages._ActorStop | Ping | Direct):
                salvaged.append(message)
        if salvaged:
            logger.info(
                "%s: %d queued message(s) kept for the next instance", self.name, len(salvaged)
            )
            self.runtime.registry.redeliver(self.name, salvaged)

    def _run_cleanup(self) -> None:
        for timer in self._timers:
            timer.cancel()
        for timer, _ in self._laters:
            timer.cancel()
        try:
            self.cleanup()
        except Exception:
            logger.exception("%s: cleanup failed", self.name)

    def _report_exit(self, reason: str, detail: str) -> None:
        if self._exit_reported:
            return
        self._exit_reported = True
        self.supervision.report(
            ChildExited(
                name=self.name,
                generation=self.supervision.generation,
                reason=reason,  # type: ignore[arg-type]
                detail=detail,
            )
        )

    def abandon(self) -> None:
        """Called from the supervisor's thread on a hung instance: stop it from outside.

        The hung thread cannot be killed; it is marked stopped so it exits as
        soon as its handler returns, its queued asks are failed and its queued
        tells move to the next instance.
        """
        pykka.ActorRegistry.unregister(self.actor_ref)
        self.actor_stopped.set()
        self._exit_reported = True  # the supervisor already knows
        self._drain_mailbox(crashed=True)
