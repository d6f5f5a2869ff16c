"""Actor-level fault injection against a real pykka runtime.

Every test waits on supervision events published on the bus, never on sleeps.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pykka
import pytest

from pepa.base.errors import ActorCrashed, ActorUnavailable, AskTimeout
from pepa.runtime import (
    Backoff,
    ChildSpec,
    InjectFault,
    Runtime,
    Scheduler,
    Supervisor,
    start_tree,
    stop_tree,
)
from tests import sample_actors
from tests.sample_actors import (
    Block,
    Boom,
    Counter,
    Exit,
    Exiter,
    Finish,
    Get,
    Inc,
    IncLater,
    Ticker,
)
from tests.waiting import Recorder, eventually


def child(name: str, **kwargs: Any) -> ChildSpec:
    spec_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in ("fail_start",)}
    return ChildSpec(id=name, actor_class=Counter, kwargs=spec_kwargs, **kwargs)


class GaveUp:
    """Receives the root's failure; tests wait on it."""

    def __init__(self) -> None:
        self.reason = ""
        self.event = threading.Event()

    def __call__(self, reason: str) -> None:
        self.reason = reason
        self.event.set()

    def wait(self, timeout: float = 10.0) -> str:
        assert self.event.wait(timeout), "the root never gave up"
        return self.reason


def tree(
    runtime: Runtime,
    children: list[ChildSpec],
    gave_up: GaveUp | None = None,
    **supervisor_kwargs: Any,
) -> Any:
    root = ChildSpec(
        id="root",
        actor_class=Supervisor,
        kwargs={"children": children, **supervisor_kwargs},
    )
    return start_tree(root, runtime, gave_up or GaveUp())


def running(recorder: Recorder, *names: str) -> None:
    for name in names:
        recorder.wait_state(name, "running")


def test_exception_in_a_tell_handler_restarts_the_actor_behind_its_stable_name(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a"), child("b")])
    running(recorder, "a", "b")
    a = runtime.registry.handle("a")
    first = a.call("identity")
    a.tell(Inc())
    a.tell(Boom())

    recorder.wait_state("a", "running", count=2)
    assert a.call("identity") != first
    assert a.ask(Get()) == 0  # a fresh instance: state starts over
    assert recorder.states("a") == ["starting", "running", "restarting", "starting", "running"]


def test_sibling_keeps_identity_and_state_when_one_for_one_restarts_another(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a"), child("b")])
    running(recorder, "a", "b")
    b = runtime.registry.handle("b")
    b.tell(Inc())
    b.tell(Inc())
    identity = b.call("identity")

    runtime.registry.handle("a").tell(InjectFault(kind="crash"))
    recorder.wait_state("a", "running", count=2)

    assert b.call("identity") == identity
    assert b.ask(Get()) == 2
    assert recorder.states("b") == ["starting", "running"]


def test_rest_for_one_restarts_the_failed_child_and_those_started_after_it(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a"), child("b"), child("c")], strategy="rest_for_one")
    running(recorder, "a", "b", "c")
    ids = {n: runtime.registry.handle(n).call("identity") for n in "abc"}

    runtime.registry.handle("b").tell(Boom())
    recorder.wait_state("b", "running", count=2)
    recorder.wait_state("c", "running", count=2)

    after = {n: runtime.registry.handle(n).call("identity") for n in "abc"}
    assert after["a"] == ids["a"]
    assert after["b"] != ids["b"]
    assert after["c"] != ids["c"]
    assert recorder.states("a") == ["starting", "running"]


def test_tells_queued_behind_a_crash_reach_the_next_instance(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a")])
    running(recorder, "a")
    a = runtime.registry.handle("a")
    release, entered = threading.Event(), threading.Event()
    a.tell(Block(release=release, entered=entered))
    assert entered.wait(5)
    a.tell(Boom())
    for _ in range(5):
        a.tell(Inc())
    release.set()

    recorder.wait_state("a", "running", count=2)
    assert a.ask(Get()) == 5


def test_poison_with_asks_queued_behind_it_answers_every_ask_with_an_error(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a")])
    running(recorder, "a")
    a = runtime.registry.handle("a")
    release, entered = threading.Event(), threading.Event()
    a.tell(Block(release=release, entered=entered))
    assert entered.wait(5)
    a.tell(InjectFault(kind="poison"))
    ref = runtime.registry.current("a")
    assert ref is not None
    futures = [ref.ask(Get(), block=False) for _ in range(10)]
    release.set()

    errors = []
    for future in futures:
        with pytest.raises(ActorCrashed) as caught:
            future.get(timeout=5)
        errors.append(caught.value)
    assert len(errors) == 10
    recorder.wait_state("a", "running", count=2)
    assert a.ask(Get()) == 0


def test_failing_ask_reaches_the_supervisor_and_the_caller(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a")])
    running(recorder, "a")
    with pytest.raises(ActorCrashed, match="boom"):
        runtime.registry.handle("a").ask(Boom())
    recorder.wait_state("a", "running", count=2)


def test_on_start_that_always_fails_escalates_after_r_plus_one_starts(
    runtime: Runtime, recorder: Recorder
) -> None:
    sample_actors.STARTS.pop("bad", None)
    gave_up = GaveUp()
    fast = Backoff(base=0.001, cap=0.005)
    tree(
        runtime,
        [child("good"), child("bad", fail_start=True, backoff=fast)],
        gave_up,
        max_restarts=3,
        period=60.0,
    )
    reason = gave_up.wait()
    assert "root gave up: more than 3 restarts" in reason
    assert sample_actors.STARTS["bad"] == 4
    assert recorder.states("bad")[-1] == "failed"
    assert recorder.states("good")[-1] == "stopped"


def test_transient_child_that_stops_normally_is_not_restarted(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("t", restart="transient")])
    running(recorder, "t")
    runtime.registry.handle("t").tell(Finish())
    recorder.wait_state("t", "stopped")
    assert recorder.states("t") == ["starting", "running", "stopped"]
    with pytest.raises(ActorUnavailable):
        runtime.registry.handle("t").tell(Inc())


def test_transient_child_that_crashes_is_restarted(runtime: Runtime, recorder: Recorder) -> None:
    tree(runtime, [child("t", restart="transient")])
    running(recorder, "t")
    runtime.registry.handle("t").tell(Boom())
    recorder.wait_state("t", "running", count=2)


def test_temporary_child_that_crashes_is_not_restarted(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("tmp", restart="temporary"), child("other")])
    running(recorder, "tmp", "other")
    runtime.registry.handle("tmp").tell(Boom())
    recorder.wait_state("tmp", "stopped")
    assert "restarting" not in recorder.states("tmp")
    assert runtime.registry.handle("other").ask(Get()) == 0


def test_hung_handler_is_detected_by_heartbeat_and_replaced(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("h"), child("ok")], heartbeat_interval=0.05, heartbeat_timeout=0.3)
    running(recorder, "h", "ok")
    h = runtime.registry.handle("h")
    first = h.call("identity")
    h.tell(InjectFault(kind="hang"))

    recorder.wait_state("h", "hung")
    recorder.wait_state("h", "running", count=2)
    assert h.call("identity") != first
    assert runtime.registry.handle("ok").ask(Get()) == 0


def test_flooded_mailbox_does_not_slow_a_sibling(runtime: Runtime, recorder: Recorder) -> None:
    tree(runtime, [child("busy"), child("calm")])
    running(recorder, "busy", "calm")
    busy = runtime.registry.handle("busy")
    for _ in range(50_000):
        busy.tell(Inc())
    calm = runtime.registry.handle("calm")
    started = time.monotonic()
    assert calm.ask(Get(), timeout=5) == 0
    assert (
        time.monotonic() - started < 2.0
    )  # generous: only catches a sibling stuck behind the flood
    assert busy.ask(Get(), timeout=60) == 50_000


def test_ask_has_a_deadline(runtime: Runtime, recorder: Recorder) -> None:
    tree(runtime, [child("a")], heartbeat_interval=10.0)
    running(recorder, "a")
    a = runtime.registry.handle("a")
    release, entered = threading.Event(), threading.Event()
    a.tell(Block(release=release, entered=entered))
    assert entered.wait(5)
    with pytest.raises(AskTimeout):
        a.ask(Get(), timeout=0.2)
    release.set()


def test_stop_tree_stops_children_in_reverse_start_order(
    runtime: Runtime, recorder: Recorder
) -> None:
    root = tree(runtime, [child("a"), child("b"), child("c")])
    running(recorder, "a", "b", "c")
    assert stop_tree(root, runtime, timeout=5)
    stopped = [e.name for e in recorder.events if getattr(e, "state", None) == "stopped"]
    assert stopped == ["c", "b", "a"]


def test_nested_supervisor_escalates_to_its_parent(runtime: Runtime, recorder: Recorder) -> None:
    inner = ChildSpec(
        id="inner",
        actor_class=Supervisor,
        kwargs={
            "children": [child("x", fail_start=True, backoff=Backoff(base=0.001, cap=0.002))],
            "max_restarts": 1,
        },
    )
    gave_up = GaveUp()
    tree(runtime, [child("keep"), inner], gave_up, max_restarts=1)
    reason = gave_up.wait()
    assert recorder.states("inner")[:3] == ["starting", "running", "restarting"]
    assert "root gave up" in reason
    assert "inner gave up" in reason


def test_system_exit_in_a_handler_only_crashes_that_actor(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [ChildSpec(id="x", actor_class=Exiter), child("y")])
    running(recorder, "x", "y")
    runtime.registry.handle("y").tell(Inc())
    runtime.registry.handle("x").tell(Exit())
    recorder.wait_state("x", "running", count=2)
    assert runtime.registry.handle("y").ask(Get()) == 1


def test_failing_proxy_call_reaches_the_supervisor(runtime: Runtime, recorder: Recorder) -> None:
    tree(runtime, [ChildSpec(id="x", actor_class=Exiter)])
    running(recorder, "x")
    with pytest.raises(ActorCrashed, match="proxy failure"):
        runtime.registry.handle("x").proxy().explode()
    recorder.wait_state("x", "running", count=2)


def test_tells_sent_while_restarting_reach_the_new_instance_in_order(
    runtime: Runtime, recorder: Recorder
) -> None:
    slow = Backoff(base=0.2, cap=0.2, jitter=0.0)
    tree(runtime, [child("a", backoff=slow)])
    running(recorder, "a")
    a = runtime.registry.handle("a")
    a.tell(Boom())
    recorder.wait_state("a", "restarting")
    a.tell(Boom())  # the second failure in a row waits 0.2 s before its restart
    recorder.wait_state("a", "restarting", count=2)
    for _ in range(7):
        a.tell(Inc())
    assert a.ask(Get(), timeout=5) == 7


def test_ask_through_the_stable_name_waits_for_the_restart(
    runtime: Runtime, recorder: Recorder
) -> None:
    slow = Backoff(base=0.2, cap=0.2, jitter=0.0)
    tree(runtime, [child("a", backoff=slow)])
    running(recorder, "a")
    a = runtime.registry.handle("a")
    a.tell(Boom())
    recorder.wait_state("a", "running", count=2)
    a.tell(Boom())
    recorder.wait_state("a", "restarting", count=2)
    assert a.ask(Get(), timeout=5) == 0


def test_fault_injection_off_ignores_injected_faults(runtime: Runtime, recorder: Recorder) -> None:
    runtime.fault_injection = False
    tree(runtime, [child("a")])
    running(recorder, "a")
    assert runtime.registry.handle("a").ask(InjectFault(kind="crash")) is False
    assert recorder.states("a") == ["starting", "running"]


def test_an_old_instance_never_unbinds_the_name_its_successor_serves(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [child("a")])
    running(recorder, "a")
    runtime.registry.handle("a").tell(Boom())
    recorder.wait_state("a", "running", count=2)
    runtime.registry.unbind("a", None, "stopped")  # what a stale supervisor's cleanup does
    assert runtime.registry.state("a") == "running"
    assert runtime.registry.handle("a").ask(Get()) == 0


def test_periodic_ticks_do_not_pile_up_behind_a_busy_actor(
    runtime: Runtime, recorder: Recorder
) -> None:
    tree(runtime, [ChildSpec(id="t", actor_class=Ticker)])
    running(recorder, "t")
    t = runtime.registry.handle("t")
    release, entered = threading.Event(), threading.Event()
    t.tell(Block(release=release, entered=entered))
    assert entered.wait(5)
    for _ in range(20):  # 20 tick intervals pass while the actor is busy
        assert not release.wait(0.01)
    release.set()
    assert t.ask(Get(), timeout=5) < 10  # not the 20 that fired: one waited, the rest were skipped


def test_a_periodic_callback_that_raises_is_logged_and_keeps_running(
    caplog: pytest.LogCaptureFixture,
) -> None:
    scheduler = Scheduler(name="test-scheduler").start()
    calls: list[int] = []
    fourth = threading.Event()

    def flaky() -> None:
        calls.append(len(calls) + 1)
        if len(calls) >= 4:
            fourth.set()
        if len(calls) <= 2:
            raise RuntimeError(f"tick {len(calls)} broke")

    try:
        with caplog.at_level("ERROR", logger="pepa.runtime._scheduler"):
            handle = scheduler.call_every(0.01, flaky)
            assert fourth.wait(10), f"the timer stopped after {len(calls)} call(s)"
            handle.cancel()
    finally:
        scheduler.stop()
    failures = [r for r in caplog.records if "flaky" in r.getMessage()]
    assert [r.getMessage().split("(")[-1] for r in failures[:2]] == [
        "1 in a row); it runs again",
        "2 in a row); it runs again",
    ]
    assert "every 0.01s" in failures[0].getMessage()
    assert failures[0].exc_info is not None and "tick 1 broke" in str(failures[0].exc_info[1])


def test_a_tick_whose_delivery_raised_keeps_ticking(runtime: Runtime, recorder: Recorder) -> None:
    """``every`` (the heartbeats' timer): a failed tell must not leave the tick marked queued."""
    tree(runtime, [ChildSpec(id="t", actor_class=Ticker)])
    running(recorder, "t")
    (ref,) = pykka.ActorRegistry.get_by_class(Ticker)
    deliver, refused = ref.tell, []

    def refuse_twice(message: Any) -> None:
        if len(refused) < 2:
            refused.append(message)
            raise RuntimeError("the mailbox refused a tick")
        deliver(message)

    t = runtime.registry.handle("t")
    ref.tell = refuse_twice  # type: ignore[method-assign]  # a fault in pykka, not in pepa
    eventually(lambda: len(refused) == 2, timeout=10, what="two refused ticks")
    after = t.ask(Get(), timeout=5)
    eventually(lambda: t.ask(Get(), timeout=5) >= after + 5, timeout=10, what="ticks again")


def test_a_later_whose_timer_fires_before_its_handle_is_returned_is_delivered(
    runtime: Runtime, recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    """On a busy machine the timer thread may run a ``later``'s callback before call_later
    has even returned its handle to the actor (a NameError in the callback, at 64 bots):
    the message still comes, and the spent handle is not kept."""
    tree(runtime, [child("c")])
    running(recorder, "c")
    c = runtime.registry.handle("c")
    call_later = runtime.scheduler.call_later

    def timer_thread_first(delay: float, callback: Any) -> Any:
        callback()  # the timer thread won the race
        return call_later(delay, lambda: None)

    runtime.scheduler.call_later = timer_thread_first  # type: ignore[method-assign]
    with caplog.at_level("ERROR"):
        assert c.ask(IncLater(delay=0.0), timeout=5) == 1  # this one: not yet let go of
        eventually(lambda: c.ask(Get(), timeout=5) == 1, timeout=10, what="the later Inc")
        assert c.ask(IncLater(delay=0.0), timeout=5) == 1  # the first, spent, was let go of
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
