"""Block searches by mineflayer's bot.findBlocks and by find.js (no Block per cell).

Run: ``.venv/bin/python bench/find_blocks.py [--version 1.21.4] [--seeds 3] [--queries 10]``.
Runs ``tests/js/find_blocks.js``: on the survival sandbox's terrain (8 x 8 chunks per seed), the
searches bot_helper.js makes (a gather's nearest log within 48 blocks with the cells it skipped,
ore below the feet in a box, block ids within 24), each made by mineflayer and by find.js in
turn; the test of the same name checks that both find the same blocks. Prints each side's
median, p90 and max per search, the total, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import spread_line
from tests.js import find_blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="1.21.4")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=10)
    args = parser.parse_args()
    report = find_blocks(args.version, args.seeds, args.queries)
    theirs = [t for t, _ in report["pairs"]]
    ours = [o for _, o in report["pairs"]]

    print(f"{args.version}: {report['searches']} searches, {report['found']} found something, "
          f"{len(report['mismatches'])} with another result by find.js")  # fmt: skip
    print(spread_line("mineflayer", theirs, 10, peak=True))
    print(spread_line("find.js", ours, 10, peak=True))
    print(
        f"ratio: {sum(theirs) / max(sum(ours), 1e-9):.1f}x in total, "
        f"{statistics.median(theirs) / max(statistics.median(ours), 1e-9):.1f}x at the median"
    )


if __name__ == "__main__":
    main()
