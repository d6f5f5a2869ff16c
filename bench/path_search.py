"""Path searches with and without pathcache.js (mineflayer-pathfinder's block reads remembered).

Run: ``.venv/bin/python bench/path_search.py [--seeds 4] [--searches 10] [--rounds 3]``.
Runs ``tests/js/path_search.js``: on the survival sandbox's terrain (8 x 8 chunks per seed),
each search once with the plain reads and once with the cached ones, in turn, for ``--rounds``
rounds with blocks changed between them; the test of the same name checks that both find the
same paths. Prints each side's median and p90 per search, the total, and the ratio; then the
same for the pathfinder's movement checks (``tests/js/physics_reads.js``: simulated runs of 120
ticks with the plain and the remembered reads, in total).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import spread_line
from tests.js import path_searches, physics_reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--searches", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    report = path_searches(args.seeds, args.searches, args.rounds)
    plain = [p for p, _ in report["pairs"]]
    cached = [c for _, c in report["pairs"]]
    ratios = [p / c for p, c in report["pairs"] if c > 0]

    print(f"{report['searches']} searches ({report['statuses']}), "
          f"{len(report['mismatches'])} with another result when cached")  # fmt: skip
    print(spread_line("plain", plain, 7))
    print(spread_line("cached", cached, 7))
    print(f"ratio   median per search {statistics.median(ratios):.2f}x, "
          f"total {sum(plain) / sum(cached):.2f}x; reads answered from the cache "
          f"{report['hits'] / (report['hits'] + report['misses']):.1%}")  # fmt: skip
    physics = physics_reads(args.seeds, 40, args.rounds)
    print(f"movement checks (lib/physics.js, {physics['runs']} runs of 120 ticks, "
          f"{len(physics['mismatches'])} with another track when cached): plain "
          f"{physics['plain_ms']} ms, cached {physics['cached_ms']} ms, "
          f"{physics['plain_ms'] / max(physics['cached_ms'], 1):.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
