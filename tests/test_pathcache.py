"""pathcache.js: mineflayer-pathfinder's block reads remembered, with the same paths found.

Whole A* searches on the survival sandbox's own terrain, with the plain reads and with the
cached ones, compared field by field (status, cost, nodes visited, every step with what it
breaks and places), then again after blocks changed on the paths found and around them.
A cache that kept a cell past its block's change fails here (tried: mismatches at the first
round after a change). The speed is measured in ``bench/path_search.py``, not here.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.js import run_script

pytestmark = pytest.mark.timeout(180)


def run_searches(seeds: int, searches: int, rounds: int, radius: int = 24) -> dict[str, Any]:
    """Run tests/js/path_search.js; its JSON report."""
    return run_script("path_search.js", seeds, searches, rounds, radius, timeout=170)


def test_cached_block_reads_find_the_same_paths_before_and_after_blocks_change() -> None:
    # a radius of 12: the same three searches end in noPath as at 24 (the bench's), each
    # exhausting a smaller space (1.4 s plain instead of 4.8 s); the changes tell as often
    report = run_searches(seeds=2, searches=6, rounds=3, radius=12)
    assert report["searches"] == 36
    assert report["mismatches"] == []
    # the comparison means something: searches that end both ways, changes that mattered,
    # and reads the cache answered
    assert report["statuses"].get("success", 0) > 0 and report["statuses"].get("noPath", 0) > 0
    assert report["changed"] > 0
    assert report["hits"] > report["misses"] > 0


def run_physics(seeds: int, runs: int, rounds: int) -> dict[str, Any]:
    """Run tests/js/physics_reads.js; its JSON report."""
    return run_script("physics_reads.js", seeds, runs, rounds, timeout=170)


def test_the_pathfinders_movement_checks_see_the_same_world_with_remembered_reads() -> None:
    """Its simulated runs (lib/physics.js, as canStraightLine makes them), tick by tick.

    Tried: a cache that kept a cell past its block's change has mismatches at the first round
    after a change.
    """
    report = run_physics(seeds=2, runs=20, rounds=3)
    assert report["runs"] == 2 * 20 * 3 and report["ticks"] == report["runs"] * 120
    assert report["mismatches"] == []
    assert report["changed"] > 0  # the changes were in the way
    assert report["hits"] > report["misses"] > 0
