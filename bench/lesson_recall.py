"""Lesson recall with 100,000 lessons: the database lookup, and the reflex chain's recall of the
lessons nearest to the present situation.

Run: ``.venv/bin/python bench/lesson_recall.py``. Fills a fresh SQLite
knowledge base and the reflex chain's ``ChainState`` with 100,000 lessons: 10
skills x 20 mobs, each lesson about a random situation (crowd, day or night,
health, food, weapon, armour, terrain, one of 400 map cells). Then, for
2,000 random present moments, times:

- ``KnowledgeStore.lessons_for(skill, hostile)`` (indexed query, one db_session);
- the situation of a world view (``situation_of``) and ``LessonIndex.recall``: the
  lessons about the skill in situations like the present, at every backoff level;
- a whole decision of the reflex chain (``decide``) with a zombie near and its lessons
  consulted.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pony import orm

from bench._common import describe
from pepa.policy.reflex.chain import decide
from pepa.policy.reflex.decision import ChainState
from pepa.policy.reflex.situation import Situation, situation_of
from pepa.state.knowledge import KnowledgeStore
from pepa.world.view import WorldView

SKILLS = ["combat.attack-nearest", *(f"skill.{i}" for i in range(9))]
MOBS = ["zombie", "skeleton", "creeper", "spider", *(f"mob{i}" for i in range(16))]
LESSONS = 100_000
CHOICES = {
    "crowd": ["1", "2", "3+"], "time": ["day", "night"], "hp": ["low", "mid", "high"],
    "food": ["low", "mid", "high"], "weapon": ["fist", "wood", "stone", "iron", "diamond"],
    "armour": ["none", "light", "iron", "heavy"], "terrain": ["surface", "underground", "high"],
}  # fmt: skip


def random_situation(rng: random.Random, mob: str) -> Situation:
    picked = {name: rng.choice(values) for name, values in CHOICES.items()}
    return Situation(
        cause="mob", mob=mob, cell=f"{rng.randrange(20)},{rng.randrange(20)}", **picked
    )


def present(rng: random.Random) -> WorldView:
    """A moment with 1 to 3 zombies near, random health, food, gear and place."""
    x, z = rng.uniform(0, 1280), rng.uniform(0, 1280)
    zombies: list[dict[str, Any]] = [
        {"id": i, "name": "zombie", "distance": 3.0 + i,
         "position": {"x": x + 3 + i, "y": 70.0, "z": z}}
        for i in range(rng.randint(1, 3))
    ]  # fmt: skip
    return WorldView.from_wire({
        "connected": True, "alive": True, "hp": rng.randint(1, 20), "food": rng.randint(0, 20),
        "position": {"x": x, "y": rng.choice([20.0, 70.0, 120.0]), "z": z},
        "isDay": rng.random() < 0.5, "threats": zombies,
        "inventory": {"items": {rng.choice(["stone_sword", "iron_sword", "bread"]): 1}},
        "worn": rng.choice([[], ["iron_chestplate"], ["iron_helmet", "iron_chestplate"]]),
        "enclosure": {"openSides": 4, "ceiling": None},
    })  # fmt: skip


def main() -> None:
    store = KnowledgeStore(Path(tempfile.mkdtemp(prefix="pepa-bench-")) / "knowledge.db").open()
    lesson = store.e["Lesson"]
    memory = ChainState()
    rng = random.Random(1)
    with orm.db_session:
        for n in range(LESSONS):
            skill, mob = SKILLS[n % len(SKILLS)], MOBS[(n // len(SKILLS)) % len(MOBS)]
            signature = random_situation(rng, mob).signature()
            verdict = rng.choice(["avoid", "note"])
            confidence = round(rng.uniform(0.3, 0.95), 2)
            lesson(skill=skill, situation="bench", hostile=mob, verdict=verdict, text="bench",
                   confidence=confidence, signature=signature)  # fmt: skip
            memory.learn(skill, mob, verdict, "survive.flee", confidence, signature)
    db_samples, recall_samples, decide_samples, found = [], [], [], []
    for _ in range(2000):
        world = present(rng)
        started = time.perf_counter()
        store.lessons_for("combat.attack-nearest", "zombie")
        db_samples.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        recalled = memory.lessons.index.recall("combat.attack-nearest", situation_of(world))
        recall_samples.append((time.perf_counter() - started) * 1000)
        found.append(len(recalled))
        started = time.perf_counter()
        decide(world, 0.0, memory)
        decide_samples.append((time.perf_counter() - started) * 1000)
    store.close()
    found.sort()
    print(f"lessons: {LESSONS:,} ({len(SKILLS)} skills x {len(MOBS)} mobs, random situations)")
    print(f"database lessons_for (indexed)        {describe(db_samples)}")
    print(f"situation + recall (in memory)        {describe(recall_samples)}"
          f"   lessons recalled: median {found[len(found) // 2]}, max {found[-1]}")  # fmt: skip
    print(f"a whole decision with a zombie near   {describe(decide_samples)}")


if __name__ == "__main__":
    main()
