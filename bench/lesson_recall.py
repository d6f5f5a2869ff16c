"""Lesson recall with 100,000 lessons: the database lookup and the reflex's in-memory advice.

Run: ``.venv/bin/python bench/lesson_recall.py``. Fills a fresh SQLite
knowledge base with 100,000 lessons (1,000 skills x 100 hostiles), then times
``KnowledgeStore.lessons_for(skill, hostile)`` (indexed query, one
db_session) and the reflex chain's ``Memory.advice`` lookup.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pony import orm

from bench._common import describe
from pepa.knowledge import KnowledgeStore
from pepa.survival import Memory

SKILLS, HOSTILES = 1000, 100


def main() -> None:
    store = KnowledgeStore(Path(tempfile.mkdtemp(prefix="pepa-bench-")) / "knowledge.db").open()
    lesson = store.e["Lesson"]
    memory = Memory()
    with orm.db_session:
        for s in range(SKILLS):
            for h in range(HOSTILES):
                lesson(skill=f"skill.{s}", situation="bench", hostile=f"mob{h}", verdict="note",
                       text="bench", confidence=0.5)  # fmt: skip
                memory.learn(f"skill.{s}", f"mob{h}", "note", "", 0.5)
    rng = random.Random(1)
    keys = [
        (f"skill.{rng.randrange(SKILLS)}", f"mob{rng.randrange(HOSTILES)}") for _ in range(2000)
    ]
    db_samples, mem_samples = [], []
    for skill, hostile in keys:
        started = time.perf_counter()
        found = store.lessons_for(skill, hostile)
        db_samples.append((time.perf_counter() - started) * 1000)
        assert len(found) == 1
        started = time.perf_counter()
        _ = memory.advice.get((skill, hostile))
        mem_samples.append((time.perf_counter() - started) * 1000)
    store.close()
    print(f"lessons: {SKILLS * HOSTILES:,}")
    print(f"database recall (indexed)  {describe(db_samples)}")
    print(f"reflex advice (in memory)  {describe(mem_samples)}")


if __name__ == "__main__":
    main()
