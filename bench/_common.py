"""Helpers shared by the benchmarks: a runtime, a tree, percentiles."""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any

import pykka

from pepa.runtime import (
    Bus,
    ChildSpec,
    Registry,
    Runtime,
    Scheduler,
    SupervisedActor,
    Supervisor,
    start_tree,
    stop_tree,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Get:
    """Answer the counter."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Boom:
    """Crash."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Burn:
    """Burn CPU until ``stop`` is set."""

    stop: threading.Event


class BenchActor(SupervisedActor):
    """Answers, crashes or burns on demand."""

    def on_message(self, message: Any) -> Any:
        match message:
            case Get():
                return 1
            case Boom():
                raise RuntimeError("bench crash")
            case Burn(stop=stop):
                n = 0
                while not stop.is_set():
                    for _ in range(1000):
                        n += 1
                return n
            case _:
                return super().on_message(message)


def make_tree(names: list[str], **supervisor_kwargs: Any) -> Runtime:
    """A runtime with a root supervisor over one BenchActor per name."""
    runtime = Runtime(registry=Registry(), scheduler=Scheduler().start(), bus=Bus())
    children = [
        ChildSpec(id=n, actor_class=BenchActor, **supervisor_kwargs.pop("spec", {})) for n in names
    ]
    root = ChildSpec(
        id="root", actor_class=Supervisor, kwargs={"children": children, **supervisor_kwargs}
    )
    ref = start_tree(root, runtime, lambda reason: None)
    _roots[id(runtime)] = ref
    for name in names:
        runtime.registry.handle(name).ask(Get(), timeout=5)
    return runtime


_roots: dict[int, Any] = {}


def close(runtime: Runtime) -> None:
    stop_tree(_roots.pop(id(runtime)), runtime, timeout=5)
    pykka.ActorRegistry.stop_all(block=True, timeout=5)
    runtime.scheduler.stop()


def first_hit(
    world: Any, player: str, dx: int, timeout: float = 5.0, spawned: list[int] | None = None
) -> float | None:
    """Spawn a zombie ``dx`` blocks from ``player``; the server's ms from the spawn to the
    player's first attack packet on it (the scenario plugin's ``reaction`` op), or None.
    ``spawned``: the zombie's entity id is appended to it."""
    mob = world.op("spawn_mob", player=player, name="zombie", dx=dx)["ids"][0]
    if spawned is not None:
        spawned.append(mob)
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        result = world.op("reaction", mob=mob)
        if result["hit"]:
            return float(result["ms"])
        pause.wait(0.01)
    return None


def describe(samples_ms: list[float]) -> str:
    """``median … p99 … max …`` in milliseconds."""
    ordered = sorted(samples_ms)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"median {statistics.median(ordered):7.3f} ms  p99 {p99:7.3f} ms  "
        f"max {ordered[-1]:7.3f} ms  (n={len(ordered)})"
    )


def spread_line(name: str, values: list[float], width: int, *, peak: bool = False) -> str:
    """``name  median .. ms  p90 .. ms  [max .. ms]  total .. s`` of per-item times in ms."""
    p90 = statistics.quantiles(values, n=10)[-1]
    most = f"max {max(values):8.2f} ms  " if peak else ""
    return (f"{name:{width}} median {statistics.median(values):8.2f} ms  p90 {p90:8.2f} ms  "
            f"{most}total {sum(values) / 1000:7.2f} s")  # fmt: skip
