"""Supervisors after Erlang/OTP, built on pykka actors.

A :class:`Supervisor` is itself a :class:`SupervisedActor`, so supervisors
nest. It starts its children in spec order, one after the other — each
child's ``setup`` has finished before the next starts, as with OTP's
``start_link`` — restarts them by their restart type and its strategy, and
stops them in reverse order. A supervisor's own ``setup`` therefore ends when
its whole subtree runs.

- restart types: ``permanent`` (always restarted), ``transient`` (restarted
  only after an abnormal exit), ``temporary`` (never restarted);
- strategies: ``one_for_one`` (only the failed child), ``rest_for_one`` (the
  failed child and every child started after it), ``one_for_all``;
- restart intensity: more than R restarts in T seconds and the supervisor
  stops its children and crashes with :class:`SupervisorGaveUp`, which its own
  supervisor sees as a failed child (escalation); the root's failure goes to
  the worker process, which exits non-zero for the process supervisor;
- backoff: the first restart of a failure run is immediate, later ones wait
  exponentially longer with jitter; a child that ran ``stable_after`` seconds
  starts a fresh run;
- heartbeat: every ``heartbeat_interval`` a ``Ping`` ask goes to each running
  child; one unanswered for ``heartbeat_timeout`` marks the child hung: it is
  abandoned (its thread cannot be killed) and replaced.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import pykka

from pepa.base.errors import SupervisorGaveUp
from pepa.runtime._actor import Runtime, SupervisedActor, SupervisionContext
from pepa.runtime._messages import ActorStateChanged, ChildExited, ChildStarted, Direct, Ping
from pepa.runtime._policy import Backoff, RestartIntensity
from pepa.runtime._table import ActorRow

__all__ = ["ChildSpec", "Restart", "Strategy", "Supervisor", "start_tree", "stop_tree"]

logger = logging.getLogger(__name__)

Strategy = Literal["one_for_one", "rest_for_one", "one_for_all"]
Restart = Literal["permanent", "transient", "temporary"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChildSpec:
    """How a supervisor starts, restarts and stops one child."""

    id: str
    """The child's stable name, unique in the tree."""
    actor_class: type[SupervisedActor]
    """Started as ``actor_class.start(supervision=ctx, **kwargs)``."""
    kwargs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Keyword arguments for the actor's constructor."""
    restart: Restart = "permanent"
    """When the child is restarted."""
    shutdown: float = 5.0
    """Seconds a stop may take before the child is abandoned."""
    start_timeout: float = 30.0
    """Seconds ``setup`` may take; past that the start counts as failed."""
    backoff: Backoff = field(default_factory=Backoff)
    """Delays between restarts of a child failing repeatedly."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Tick:
    """Heartbeat timer."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _RestartDue:
    """A backed-off restart is due."""

    names: tuple[str, ...]
    token: int


@dataclass(slots=True)
class _Child:
    spec: ChildSpec
    ref: pykka.ActorRef[Any] | None = None
    state: str = "stopped"
    generation: int = 0
    restarts: int = 0
    failures: int = 0
    started_at: float = 0.0
    reason: str = ""
    ping: Any = None
    ping_sent: float = 0.0
    restart_token: int = 0


class Supervisor(SupervisedActor):
    """Starts, watches, restarts and stops a list of children."""

    def __init__(
        self,
        *,
        supervision: SupervisionContext,
        children: list[ChildSpec],
        strategy: Strategy = "one_for_one",
        max_restarts: int = 5,
        period: float = 30.0,
        heartbeat_interval: float = 1.0,
        heartbeat_timeout: float = 5.0,
    ) -> None:
        super().__init__(supervision=supervision)
        names = [spec.id for spec in children]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate child ids under {self.name}: {names}")
        self.strategy = strategy
        self.intensity = RestartIntensity(max_restarts=max_restarts, period=period)
        self.heartbeat_interval = heartbeat_interval
        self.heartbeat_timeout = heartbeat_timeout
        self._children: dict[str, _Child] = {spec.id: _Child(spec=spec) for spec in children}
        self._tokens = 0

    # -- lifecycle ------------------------------------------------------------

    def setup(self) -> None:
        for child in self._children.values():
            if child.state == "stopped":  # a rest_for_one restart may have started it already
                self._start_child(child)
        self.every(self.heartbeat_interval, _Tick())

    def cleanup(self) -> None:
        for child in reversed(list(self._children.values())):
            self._stop_child(child, final=True)

    def on_message(self, message: Any) -> Any:
        match message:
            case ChildStarted():
                self._on_started(message)
            case ChildExited():
                self._on_exited(message)
            case _Tick():
                self._heartbeat()
            case _RestartDue(names=names, token=token):
                self._restart_due(names, token)
            case _:
                raise TypeError(f"{self.name} does not handle {type(message).__name__}")
        return None

    def abandon(self) -> None:
        """A hung supervisor is replaced: its children must not live on beside the new ones."""
        super().abandon()
        for child in self._children.values():
            ref, child.ref = child.ref, None
            if ref is not None:
                try:
                    ref.stop(block=False)  # never waits: this runs on the parent's thread
                except pykka.ActorDeadError:
                    pass

    def _start_child(self, child: _Child) -> None:
        child.generation += 1
        child.ping = None
        child.started_at = time.monotonic()
        ctx = SupervisionContext(
            name=child.spec.id,
            generation=child.generation,
            runtime=self.runtime,
            report=self._report_to_me(),
        )
        self._set_state(child, "starting")
        try:
            child.ref = child.spec.actor_class.start(supervision=ctx, **child.spec.kwargs)
        except Exception as exc:  # the constructor failed: a start failure like any other
            logger.error("%s could not be constructed: %r", child.spec.id, exc, exc_info=exc)
            self._start_failed(child, f"{type(exc).__name__}: {exc}")
            return
        self.runtime.registry.bind(child.spec.id, child.ref)
        if not ctx.started.wait(child.spec.start_timeout):
            ref, child.ref = child.ref, None
            logger.error("%s did not start within %gs", child.spec.id, child.spec.start_timeout)
            self.runtime.registry.unbind(child.spec.id, ref, "restarting")
            self._abandon(ref)
            self._start_failed(child, f"setup took longer than {child.spec.start_timeout:g}s")

    def _start_failed(self, child: _Child, detail: str) -> None:
        self._on_exited(
            ChildExited(
                name=child.spec.id,
                generation=child.generation,
                reason="start-failed",
                detail=detail,
            )
        )

    def _report_to_me(self) -> Callable[[Any], None]:
        ref = self.actor_ref

        def report(message: Any) -> None:
            try:
                ref.tell(Direct(message))
            except pykka.ActorDeadError:
                logger.debug("%s is gone; report %r dropped", self.name, message)

        return report

    def _stop_child(self, child: _Child, *, final: bool) -> None:
        """Stop one child within its shutdown time; abandon it past that."""
        ref, child.ref = child.ref, None
        child.ping = None
        child.restart_token = 0
        self.runtime.registry.unbind(child.spec.id, ref, "stopped" if final else "restarting")
        if final and child.state != "failed":
            self._set_state(child, "stopped")
        if ref is None:
            return
        try:
            ref.stop(block=False).get(timeout=child.spec.shutdown)
        except pykka.Timeout:
            logger.warning(
                "%s did not stop within %gs; abandoned", child.spec.id, child.spec.shutdown
            )
            self._abandon(ref)
        except pykka.ActorDeadError:
            pass

    @staticmethod
    def _abandon(ref: pykka.ActorRef[Any]) -> None:
        actor = _actor_of(ref)
        if actor is not None:
            actor.abandon()

    # -- reacting to children -------------------------------------------------

    def _on_started(self, message: ChildStarted) -> None:
        child = self._children.get(message.name)
        if child is None or message.generation != child.generation or child.state != "starting":
            return
        self._set_state(child, "running")

    def _on_exited(self, message: ChildExited) -> None:
        child = self._children.get(message.name)
        if child is None or message.generation != child.generation:
            return
        if child.state not in ("starting", "running"):
            return  # an exit this supervisor caused itself
        ref, child.ref = child.ref, None
        child.ping = None
        abnormal = message.reason != "normal"
        if abnormal:
            child.reason = message.detail or message.reason
        restart = child.spec.restart
        if restart == "temporary" or (restart == "transient" and not abnormal):
            self.runtime.registry.unbind(child.spec.id, ref, "stopped")
            self._set_state(child, "stopped")
            logger.info(
                "%s exited (%s); %s child not restarted", child.spec.id, message.reason, restart
            )
            return
        self._restart(child, child.reason if abnormal else "exited normally")

    def _heartbeat(self) -> None:
        now = time.monotonic()
        for child in self._children.values():
            if child.state != "running" or child.ref is None:
                continue
            if child.ping is None:
                try:
                    child.ping = child.ref.ask(Ping(), block=False)
                    child.ping_sent = now
                except pykka.ActorDeadError:
                    pass
                continue
            try:
                child.ping.get(timeout=0)
                child.ping = None
            except pykka.Timeout:
                if now - child.ping_sent > self.heartbeat_timeout:
                    self._on_hung(child, now - child.ping_sent)
            except Exception:
                child.ping = None  # it crashed; its ChildExited is on the way

    def _on_hung(self, child: _Child, silent_for: float) -> None:
        ref, child.ref = child.ref, None
        child.ping = None
        child.reason = f"hung: no heartbeat answer for {silent_for:.1f}s"
        logger.error("%s is %s; replacing it", child.spec.id, child.reason)
        self.runtime.registry.unbind(child.spec.id, ref, "restarting")
        self._set_state(child, "hung")
        if ref is not None:
            self._abandon(ref)
        self._restart(child, child.reason)

    # -- restarting -----------------------------------------------------------

    def _restart(self, failed: _Child, reason: str) -> None:
        now = time.monotonic()
        if not self.intensity.allow(now):
            self._give_up(failed, reason)
            return
        if now - failed.started_at >= failed.spec.backoff.stable_after:
            failed.failures = 0
        failed.failures += 1
        delay = failed.spec.backoff.delay(failed.failures)
        targets = self._restart_targets(failed)
        for child in reversed(targets):
            if child is not failed and child.state in ("starting", "running"):
                self._stop_child(child, final=False)
        for child in targets:
            child.restarts += 1
            self.runtime.registry.unbind(child.spec.id, None, "restarting")
            why = (
                reason if child is failed else f"restarted with {failed.spec.id} ({self.strategy})"
            )
            self._set_state(child, "restarting", why)
        logger.warning(
            "%s: restarting %s in %.3fs after: %s",
            self.name,
            ", ".join(c.spec.id for c in targets),
            delay,
            reason,
        )
        if delay <= 0:
            for child in targets:
                self._start_child(child)
            return
        self._tokens += 1
        token = self._tokens
        for child in targets:
            child.restart_token = token
        names = tuple(c.spec.id for c in targets)
        ref = self.actor_ref

        def due() -> None:
            try:
                ref.tell(Direct(_RestartDue(names=names, token=token)))
            except pykka.ActorDeadError:
                pass

        self.runtime.scheduler.call_later(delay, due)

    def _restart_due(self, names: tuple[str, ...], token: int) -> None:
        for name in names:
            child = self._children[name]
            if child.state == "restarting" and child.restart_token == token:
                child.restart_token = 0
                self._start_child(child)

    def _restart_targets(self, failed: _Child) -> list[_Child]:
        children = list(self._children.values())
        if self.strategy == "one_for_one":
            return [failed]
        if self.strategy == "rest_for_one":
            return children[children.index(failed) :]
        return children

    def _give_up(self, failed: _Child, reason: str) -> None:
        intensity = self.intensity
        text = (
            f"{self.name} gave up: more than {intensity.max_restarts} restarts in "
            f"{intensity.period:g}s (last: {failed.spec.id}: {reason})"
        )
        logger.error("%s", text)
        self._set_state(failed, "failed", reason)
        for child in reversed(list(self._children.values())):
            self._stop_child(child, final=True)
        raise SupervisorGaveUp(text)

    def _set_state(self, child: _Child, state: str, reason: str | None = None) -> None:
        child.state = state
        if reason is not None:
            child.reason = reason
        row = ActorRow(
            name=child.spec.id,
            state=state,
            restarts=child.restarts,
            reason=child.reason,
            supervisor=self.name,
        )
        self.runtime.actor_table.update(row)
        self.runtime.bus.publish(
            ActorStateChanged(
                name=child.spec.id, state=state, restarts=child.restarts, reason=child.reason
            )
        )


def start_tree(
    spec: ChildSpec,
    runtime: Runtime,
    on_give_up: Callable[[str], None],
) -> pykka.ActorRef[Any]:
    """Start the root of a supervision tree; ``on_give_up`` hears the root's failure.

    The root itself is not restarted: when it fails (its restart intensity was
    exceeded, or it crashed) the process must end and the process supervisor
    decides what happens next.
    """

    def report(message: Any) -> None:
        if isinstance(message, ChildExited) and message.reason != "normal":
            on_give_up(message.detail or message.reason)

    ctx = SupervisionContext(name=spec.id, generation=1, runtime=runtime, report=report)
    ref = spec.actor_class.start(supervision=ctx, **spec.kwargs)
    runtime.registry.bind(spec.id, ref)
    return ref


def stop_tree(root: pykka.ActorRef[Any], runtime: Runtime, timeout: float = 10.0) -> bool:
    """Stop the tree (children in reverse start order); True if it stopped in time."""
    actor = _actor_of(root)
    if actor is not None:
        runtime.registry.unbind(actor.name, root, "stopped")
    stopped = True
    try:
        root.stop(block=False).get(timeout=timeout)
    except pykka.Timeout:
        logger.error("actor tree did not stop within %gs", timeout)
        stopped = False
    except pykka.ActorDeadError:
        pass
    runtime.hang_release.set()
    return stopped


def _actor_of(ref: pykka.ActorRef[Any]) -> SupervisedActor | None:
    """The actor object behind ``ref`` (pykka 4 keeps a weak reference to it)."""
    actor = ref._actor_weakref()
    return actor if isinstance(actor, SupervisedActor) else None
