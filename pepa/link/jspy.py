"""JSPyBridge 1.2.6 made safe for many threads and for calls that time out.

pepa calls into JS from many threads at once (each bot's perception, reflex and link; a fleet
worker has eight bots), with short timeouts. JSPyBridge's Python side takes neither for granted:

- **Request ids race.** ``Executor.ipc`` and ``pcall`` number requests with ``self.i += 1`` and
  keep a call's own state (``ctr``, ``expectReply``) on the shared executor, with no lock: two
  threads may send the same id, and one of them waits for an answer that went to the other.
- **A batch of requests can be lost.** The event loop sends ``self.outbound`` and then sets it to
  a new list; a request appended in between is never sent (``connection.readAll`` swaps the
  received list the same way).
- **A late answer wedges the bridge.** For every answer the loop thread waits, on a barrier with
  a 5 s timeout, for the caller to take it. A caller that gave up (its timeout passed) never
  comes: the loop stalls 5 s, every other call in flight times out too, and the barrier's
  ``BrokenBarrierError`` ends the loop thread; from then on no call is ever answered (seen at 64
  bots on 2 cores: a group whose every call timed out for minutes; JSPyBridge issue #130).
- **Every answer waits for its caller to wake.** That barrier holds the loop for each answer
  until the thread that asked has woken up and taken the GIL: in a fleet worker (eight bots'
  actors, some 60 threads, the GIL rarely free) answers queued behind each other. Measured
  (``bench/bridge_calls.py``: 16 threads calling, 2 busy in Python): a round trip's median
  37 ms with the barrier, 9 ms without.
- **A request from JS can be taken for an answer.** JS numbers its requests to Python (a bot's
  events, ``c: "pyi"``) from 10000 up; Python numbers its own from 0 and passes 10000 after some
  thousands of calls (a fleet worker's, within its first minute). JSPyBridge's loop gives each
  request from JS to its callback thread and then also to the Python caller waiting for an
  answer with the same id: that call returned JS's arguments (``[[12], None]``). Seen at 64
  bots: 7 perception actors crashed on such a "snapshot" in one run.

:func:`harden` fixes the five, in place, once per process, right after ``import javascript``:
the executor's two request methods and the loop's queueing methods are replaced by locked ones,
a caller that times out withdraws its request (or, if the answer came meanwhile, takes it), and
the loop thread itself is swapped for a copy of JSPyBridge's loop (MIT licence) that takes a
request from JS for nothing but a request, drops answers nobody waits for, hands the others
over without waiting (but the ids JS gives a call's Python objects: the caller records them
before the loop goes on, since JS may call one of them next) and survives a broken barrier.
Nothing changes on the JS side.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import types
from typing import Any

from pepa.base.threads import thread_name

logger = logging.getLogger(__name__)

__all__ = ["harden"]

_BARRIER_TIMEOUT = 5.0  # JSPyBridge's own: the loop's wait for a caller to take its answer
_IPC_TIMEOUT = 10.0  # JSPyBridge's own for property reads ("Timed out accessing ...")


def harden(js: Any) -> None:
    """Make the imported ``javascript`` package's bridge thread-safe (idempotent)."""
    loop = js.config.event_loop
    executor = js.config.executor
    if loop is None or executor is None or getattr(loop, "pepa_hardened", False):
        return
    lock = threading.Lock()
    ids = threading.Lock()
    loop.pepa_lock = lock
    executor.pepa_ids = ids
    _queueing(loop, lock)
    received = _received(js.connection)
    executor.ipc = types.MethodType(_ipc, executor)
    executor.pcall = types.MethodType(_pcall, executor)
    _swap_loop(js, loop, lock, received)
    loop.pepa_hardened = True


# -- the loop's queues ---------------------------------------------------------------------


def _queueing(loop: Any, lock: threading.Lock) -> None:
    # a request: [its event, its timeout, whether the loop waits for its caller (the ids of
    # a call's Python objects, await_response)]
    def queue_request(request_id: int, payload: Any, timeout: float | None = None) -> Any:
        event = threading.Event()
        with lock:
            loop.requests[request_id] = [event, timeout, False]
            loop.outbound.append(payload)
        loop.queue.put("send")
        return event

    def queue_payload(payload: Any) -> None:
        with lock:
            loop.outbound.append(payload)
        loop.queue.put("send")

    def await_response(request_id: int, timeout: float | None = None) -> Any:
        event = threading.Event()
        with lock:
            loop.requests[request_id] = [event, timeout, True]
        loop.queue.put("send")
        return event

    loop.queue_request = queue_request
    loop.queue_payload = queue_payload
    loop.await_response = await_response


def _received(connection: Any) -> Any:
    """``connection.readAll`` without losing an answer appended while it swaps lists."""
    old = connection.com_items
    inbox: collections.deque[Any] = collections.deque(old)
    connection.com_items = inbox  # the reader thread appends to whatever the global names

    def read_all() -> list[Any]:
        items = []
        while old:  # an append to the old list by a reader that had looked it up before the swap
            items.append(old.pop(0))
        while inbox:
            items.append(inbox.popleft())
        return items

    connection.readAll = read_all
    return read_all


# -- the loop thread -------------------------------------------------------------------------


def _swap_loop(js: Any, loop: Any, lock: threading.Lock, read_all: Any) -> None:
    """Stop JSPyBridge's loop thread after its current pass; run the corrected loop instead."""
    old = js.config.event_thread
    loop.active = False
    loop.queue.put("pepa")  # wake it: it finishes this pass and sees active is False
    old.join(_BARRIER_TIMEOUT * 2)
    loop.active = True
    if old.is_alive():  # stuck on a barrier: leave it, and run ours beside it
        logger.warning("JSPyBridge's event loop did not stop; running pepa's beside it")
    thread = threading.Thread(
        target=_run_loop, args=(js, loop, lock, read_all), daemon=True,
        name=thread_name("jspybridge-loop", ""),
    )  # fmt: skip
    js.config.event_thread = thread
    thread.start()


def _run_loop(js: Any, loop: Any, lock: threading.Lock, read_all: Any) -> None:
    """JSPyBridge's ``EventLoop.loop``, with its races and its wedge taken out."""
    connection = js.connection
    while loop.active:
        loop.queue.get(block=True)
        with lock:
            outbound, loop.outbound = loop.outbound, []
        connection.writeAll(outbound)
        loop.threads = [x for x in loop.threads if x[2].is_alive()]
        if len(loop.freeable) > 40:
            freeable, loop.freeable = loop.freeable, []
            loop.queue_payload({"r": 0, "action": "free", "ffid": "", "args": freeable})
        for inbound in read_all():
            request = inbound["r"]
            if inbound.get("c") == "pyi":  # a request from JS, never an answer
                loop.callbackExecutor.add_job(request, inbound.get("cb"), loop.pyi.inbound, inbound)
                continue
            with lock:
                waiting = loop.requests.pop(request, None)
            if waiting is None:
                continue  # an answer nobody waits for (its caller timed out): dropped
            if not waiting[2]:  # an answer: the caller takes it when it wakes; the loop goes on
                loop.responses[request] = inbound, None
                waiting[0].set()
                continue
            # the ids JS gave a call's Python objects: the loop waits until the caller has
            # recorded them, since what comes next may be a call from JS to one of them
            barrier = threading.Barrier(2, timeout=_BARRIER_TIMEOUT)
            loop.responses[request] = inbound, barrier
            waiting[0].set()
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                loop.responses.pop(request, None)


# -- the executor's requests -----------------------------------------------------------------


def _answer(executor: Any, request: int, event: threading.Event, timeout: float) -> Any:
    """Wait for request's answer: (the answer, the loop's barrier or None); None when it timed
    out and was withdrawn.

    The answer to an ``await_response`` request comes with the barrier the loop waits on: the
    caller passes it (:func:`_release`) once it has done what must come first.
    """
    loop = executor.loop
    if not event.wait(timeout):
        with loop.pepa_lock:
            withdrawn = loop.requests.pop(request, None) is not None
        if withdrawn:
            return None
        event.wait()  # the loop took it a moment ago: it is being handed over
    handed = loop.responses.pop(request, None)
    if handed is None:  # the loop stopped waiting for this caller (over 5 s to wake up)
        return None
    return handed


def _release(barrier: threading.Barrier | None) -> None:
    if barrier is None:
        return
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass  # the loop went on without us; the answer is ours all the same


def _ipc(self: Any, action: str, ffid: Any, attr: Any, args: Any = None) -> Any:
    """``Executor.ipc`` with its id taken under a lock and a timed-out request withdrawn."""
    if action not in ("get", "init", "inspect", "serialize", "blob", "set", "keys"):
        raise AssertionError(f"Unhandled action '{action}'")
    with self.pepa_ids:
        self.i += 1
        request = self.i
    payload: dict[str, Any] = {"r": request, "action": action, "ffid": ffid}
    if action in ("get", "init", "inspect", "set"):
        payload["key"] = attr
    if action in ("init", "set"):
        payload["args"] = args
    event = self.loop.queue_request(request, payload)
    handed = _answer(self, request, event, _IPC_TIMEOUT)
    if handed is None:
        raise Exception(f"Timed out accessing '{attr}'")
    answer = handed[0]
    if "error" in answer:
        raise _js_error(attr, answer["error"])
    return answer


def _pcall(
    self: Any,
    ffid: Any,
    action: str,
    attr: Any,
    args: Any,
    *,
    timeout: float = 1000,
    forceRefs: bool = False,  # JSPyBridge's name
) -> Any:
    """``Executor.pcall`` with its ids and its own state per call, and timeouts withdrawn."""
    wanted: dict[int, Any] = {}  # the objects JS must give ids to, by their number
    counted = [0]  # JSPyBridge's ctr: references and objects, numbered together

    def ser(arg: Any) -> Any:
        counted[0] += 1
        if hasattr(arg, "ffid"):
            return {"ffid": arg.ffid}
        wanted[counted[0]] = arg
        return {"r": counted[0], "ffid": ""}

    with self.pepa_ids:
        call_id, ffid_id = self.i + 1, self.i + 2
        self.i += 2
    packet: dict[str, Any] = {"r": call_id, "action": action, "ffid": ffid, "key": attr,
                              "args": args}  # fmt: skip
    if forceRefs:
        _block, local_values = args
        packet["args"] = [args[0], {}]
        flocals = packet["args"][1]
        for key, value in local_values.items():
            primitive = type(value) in (int, float) or value is None or value is True
            flocals[key] = value if primitive or value is False else ser(value)
        packet["p"] = counted[0]
        payload = json.dumps(packet)
    else:
        payload = json.dumps(packet, default=ser)
        payload = payload[:-1] + f',"p":{counted[0]}}}'
    refs = wanted
    # the refs' answer must be waited for before the call's: register both before sending
    ffid_event = self.loop.await_response(ffid_id) if refs else None
    event = self.loop.queue_request(call_id, payload)
    if ffid_event is not None:
        handed = _answer(self, ffid_id, ffid_event, timeout)
        if handed is None:
            _withdraw(self, call_id)
            raise Exception("Execution timed out")
        pre, barrier = handed
        try:
            if "error" in pre:
                raise _js_error(attr, pre["error"])
            for request_id, new_ffid in pre["val"].items():
                self.bridge.m[new_ffid] = refs[int(request_id)]
                try:  # JSPyBridge's: for event emitters
                    if hasattr(self.bridge.m[new_ffid], "__call__"):  # noqa: B004
                        self.bridge.m[new_ffid].iffid = new_ffid
                except Exception:  # JSPyBridge ignores it too
                    logger.debug("no iffid on %r", self.bridge.m[new_ffid])
        finally:
            _release(barrier)  # the objects are known: the loop may hand on calls to them
    handed = _answer(self, call_id, event, timeout)
    if handed is None:
        raise Exception(
            f"Call to '{attr}' timed out. Increase the timeout by setting the `timeout` "
            "keyword argument."
        )
    answer = handed[0]
    if "error" in answer:
        raise _js_error(attr, answer["error"])
    return answer["key"], answer["val"]


def _withdraw(executor: Any, request: int) -> None:
    with executor.loop.pepa_lock:
        executor.loop.requests.pop(request, None)


def _js_error(attr: Any, error: Any) -> Exception:
    from javascript.errors import JavaScriptError

    return JavaScriptError(attr, error)
