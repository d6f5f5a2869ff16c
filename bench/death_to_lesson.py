"""Death → lesson with the offline coach: from the ``Died`` event to the ``LessonLearned`` event.

Run: ``.venv/bin/python bench/death_to_lesson.py [--postgres URL]``. Starts
the real knowledge actor under a supervisor with a real SQLite file (or a
PostgreSQL database), feeds it 30 s of world views at 5 Hz as perception
would, then kills the bot 200 times in a fight with a zombie. Each round
times the whole path: the context bundle, the ``deaths`` row and its danger
POI, the offline post-mortem, the ``postmortems`` row and the lesson upsert.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pykka

from bench._common import describe
from pepa.actors.knowledge import Knowledge
from pepa.base.errors import PepaError
from pepa.runtime import (
    Bus,
    ChildSpec,
    Registry,
    Runtime,
    Scheduler,
    Supervisor,
    start_tree,
    stop_tree,
)
from pepa.runtime.events import ActivityChanged, Died, LessonLearned, WorldObserved
from pepa.runtime.events.queries import Proposals
from pepa.testing import entity, view
from pepa.world.view import WorldView

ROUNDS = 200


def snapshot(i: int) -> WorldView:
    """What perception would publish at step ``i`` of a fight with a zombie."""
    return view(
        hp=max(1.0, 20.0 - i * 0.15), food=18, position=(10.0, 5.0, float(i)),
        entities=[entity(7, "zombie", 1.8, position=(11.0, 5.0, float(i)))],
        items={"bread": 3, "oak_planks": 12},
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres", help="a postgresql:// URL instead of a SQLite file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # 200 "death recorded" warnings are the point
    state = Path(tempfile.mkdtemp(prefix="pepa-bench-"))
    runtime = Runtime(registry=Registry(), scheduler=Scheduler().start(), bus=Bus())
    learned = threading.Event()
    runtime.bus.listen(lambda event: learned.set() if isinstance(event, LessonLearned) else None)
    knowledge = ChildSpec(
        id="knowledge", actor_class=Knowledge,
        kwargs={"server_dir": state, "db_url": args.postgres} if args.postgres
        else {"server_dir": state},
    )  # fmt: skip
    root = start_tree(
        ChildSpec(id="root", actor_class=Supervisor, kwargs={"children": [knowledge]}),
        runtime,
        lambda reason: None,
    )
    deadline = time.monotonic() + 10
    while True:  # the root starts its children on its own thread: wait for knowledge
        try:
            runtime.registry.handle("knowledge").request(Proposals(), timeout=5)
            break
        except PepaError:
            if time.monotonic() > deadline:
                raise
            threading.Event().wait(0.05)
    bus = runtime.bus
    for i in range(150):  # 30 s of snapshots at 5 Hz
        bus.publish(WorldObserved(view=snapshot(i)))
    bus.publish(ActivityChanged(reflex="defend", skill="combat.attack-nearest zombie"))
    samples = []
    for n in range(ROUNDS):
        learned.clear()
        started = time.perf_counter()
        bus.publish(
            Died(reason=f"killed near zombie ({n})", position={"x": 10.0, "y": 5.0, "z": n})
        )
        if not learned.wait(10):
            raise SystemExit(f"round {n}: no lesson within 10 s")
        samples.append((time.perf_counter() - started) * 1000)
    stop_tree(root, runtime, timeout=5)
    pykka.ActorRegistry.stop_all(block=True, timeout=5)
    runtime.scheduler.stop()
    where = "PostgreSQL" if args.postgres else "SQLite (WAL)"
    print(f"death -> lesson, offline coach, {where}  {describe(samples)}")


if __name__ == "__main__":
    main()
