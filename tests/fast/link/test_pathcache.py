"""pathcache.js: mineflayer-pathfinder's block reads and costs remembered, with the same paths
found.

Whole A* searches on the survival sandbox's own terrain, with the plain reads and costs and
with the cached ones, compared field by field (status, cost, nodes visited, every step with
what it breaks and places), then again after blocks changed on the paths found and around
them, the entities about moved, the inventory and the bot's effects changed. A cache that kept
a cell past its block's change fails here (tried: mismatches at the first round after a
change), and so does a dig labour kept past a change of the inventory or of the effects, or an
entity index that answers nothing (tried, each: mismatches). The speed is measured in
``bench/path_search.py``, not here.
"""

from __future__ import annotations

import pytest

from tests.js import path_searches, physics_reads

pytestmark = pytest.mark.timeout(180)


def test_cached_block_reads_find_the_same_paths_before_and_after_blocks_change() -> None:
    # three rounds: as they come, with tools, with Haste; a radius of 6 (the bench's is 24):
    # searches still end both ways, each exhausting a smaller space (3.3 s plain in all)
    report = path_searches(seeds=2, searches=3, rounds=3, radius=6)
    assert report["searches"] == 18
    assert report["mismatches"] == []
    # the comparison means something: searches that end both ways, changes that mattered,
    # paths that dig, and reads and labours the caches answered
    assert report["statuses"].get("success", 0) > 0 and report["statuses"].get("noPath", 0) > 0
    assert report["changed"] > 0
    assert report["dug"] > 0
    assert report["hits"] > report["misses"] > 0
    assert report["labor_hits"] > report["labor_misses"] > 0


def test_the_pathfinders_movement_checks_see_the_same_world_with_remembered_reads() -> None:
    """Its simulated runs (lib/physics.js, as canStraightLine makes them), tick by tick.

    Tried: a cache that kept a cell past its block's change has mismatches at the first round
    after a change.
    """
    report = physics_reads(seeds=2, runs=20, rounds=3)
    assert report["runs"] == 2 * 20 * 3 and report["ticks"] == report["runs"] * 120
    assert report["mismatches"] == []
    assert report["changed"] > 0  # the changes were in the way
    assert report["hits"] > report["misses"] > 0
