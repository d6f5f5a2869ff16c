"""Death → lesson with the offline coach: from the ``Died`` event to the ``LessonLearned`` event.

Run: ``.venv/bin/python bench/death_to_lesson.py [--postgres URL]``. Starts
the real knowledge actor under a supervisor with a real SQLite file (or a
PostgreSQL database), feeds it 30 s of world views at 5 Hz as perception
would, then kills the bot 200 times in a fight with a zombie. Each round
times the whole path: the context bundle, the ``deaths`` row and its danger
POI, the offline post-mortem, the ``postmortems`` row and the lesson upsert.
Then 200 deaths whose blows were on a block (until the lesson about that block
is in force), and 200 near-misses on it (the blow that makes one, until its
lesson is in force). Each round starts once the actor has finished the last.
"""

from __future__ import annotations

import argparse
import gc
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
from pepa.daemon.worker import GC_THRESHOLDS
from pepa.policy.learning import attribution
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
from pepa.runtime.events import ActivityChanged, DamageTaken, Died, LessonLearned, WorldObserved
from pepa.runtime.events.queries import Learning, Proposals
from pepa.testing import entity, view
from pepa.world.contact import Contact
from pepa.world.death import DamageSource, DeathCause
from pepa.world.view import WorldView

ROUNDS = 200
BLOCK = "strange_floor"
"""The block the second and third parts' blows are put down to."""


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
    gc.set_threshold(*GC_THRESHOLDS)  # as the daemon's worker runs
    state = Path(tempfile.mkdtemp(prefix="pepa-bench-"))
    runtime = Runtime(registry=Registry(), scheduler=Scheduler().start(), bus=Bus())
    learned = threading.Event()
    about_block = threading.Event()

    def heard(event: object) -> None:
        if isinstance(event, LessonLearned):
            learned.set()
            if event.skill.startswith("hazard."):
                about_block.set()

    runtime.bus.listen(heard)
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

    def settle() -> None:
        """Wait for the actor to finish the round (the rest of the death's lessons, the summary
        for people): an ask queues behind them. Deaths in play are seconds apart; without
        it each round would also time the tail of the last."""
        runtime.registry.handle("knowledge").request(Learning(), timeout=10)

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
        settle()
    # a death put down to a block (the blows' contact): until its block lesson is in force
    hot = Contact(below=(BLOCK,))
    blows = tuple(DamageSource(kind="generic", amount=1.0, ago=0.5 * i, contact=hot)
                  for i in range(8))  # fmt: skip
    blocks = []
    for n in range(ROUNDS):
        about_block.clear()
        started = time.perf_counter()
        bus.publish(Died(reason=f"burned ({n})", position={"x": 10.0, "y": 5.0, "z": n},
                         cause=DeathCause(kind="fire", sources=blows)))  # fmt: skip
        if not about_block.wait(10):
            raise SystemExit(f"round {n}: no block lesson within 10 s")
        blocks.append((time.perf_counter() - started) * 1000)
        settle()
    # a near-miss: the blow that makes it, until its block lesson is in force (one near-miss
    # counts per 30 s in play: the gap is lifted here, every round is one)
    attribution.NEAR_MISS_GAP = 0.0
    near = []
    for n in range(ROUNDS):
        about_block.clear()
        bus.publish(DamageTaken(hp=14.0, source=DamageSource(kind="generic", amount=6.0,
                                                             contact=hot)))  # fmt: skip
        started = time.perf_counter()
        bus.publish(DamageTaken(hp=10.0, source=DamageSource(kind="generic", amount=4.0,
                                                             contact=hot)))  # fmt: skip
        if not about_block.wait(10):
            raise SystemExit(f"round {n}: no near-miss lesson within 10 s")
        near.append((time.perf_counter() - started) * 1000)
        settle()
    stop_tree(root, runtime, timeout=5)
    pykka.ActorRegistry.stop_all(block=True, timeout=5)
    runtime.scheduler.stop()
    where = "PostgreSQL" if args.postgres else "SQLite (WAL)"
    print(f"death -> lesson, offline coach, {where}  {describe(samples)}")
    print(f"death -> block lesson in force, {where}  {describe(blocks)}")
    print(f"near-miss -> block lesson in force, {where}  {describe(near)}")


if __name__ == "__main__":
    main()
