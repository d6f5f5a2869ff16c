"""The hazard gauntlet: dangers pepa has no rule for, each met at five new places, learning on
and off.

Run: ``.venv/bin/python bench/hazard_gauntlet.py [--arm on] [--arm off]
[--kinds magma,cactus,...] [--exposures 5]``; ``--report FILE ...`` runs nothing and
reports result files together (two arms run as two processes at once, then reported as one).

Each arm is its own sandbox world and ``pepa start`` daemon (``PEPA_LEARNING=1`` or ``0``,
nothing else differs) with an operator, alice. For every kind of ``tests/hazard_courses.py``
``KINDS`` in turn, the bot walks ``--exposures`` sky courses, each at a new place 64 blocks
from the last, whose straight way crosses a band of that danger, at a health that makes the
crossing deadly; a lane round the band is a few blocks longer. An exposure ends when the bot
reaches alice, dies, or after 45 s. What one kind taught stays for the next (one bot, one
knowledge base per arm).

Reported per arm and kind: deaths at each exposure number and over all five; the target:
with learning on, at most one death per kind over its five exposures. Written to
``bench/results/hazard-gauntlet-<arm>-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hazard_courses import KINDS, expose, place
from tests.world_harness import Player, own_daemon

RESULTS = Path(__file__).resolve().parent / "results"
TARGET = 1
"""Deaths per kind over its exposures that learning on may have at most."""


def run_arm(arm: str, kinds: list[str], exposures: int) -> list[dict[str, Any]]:
    """Every exposure of one arm, in order."""
    rows: list[dict[str, Any]] = []
    learning = "1" if arm == "on" else "0"
    with own_daemon(time=6000, env={"PEPA_LEARNING": learning}) as (world, daemon):
        alice = Player(world, "alice")
        try:
            for index, name in enumerate(kinds):
                kind = KINDS[name]
                for number in range(1, exposures + 1):
                    course = place(list(KINDS).index(name), number - 1, wide=kind.wide)
                    try:
                        done = expose(world, daemon, alice, kind, course, number).as_dict()
                    except AssertionError as exc:  # a course that could not be set up
                        done = {"kind": name, "exposure": number, "died": False,
                                "arrived": False, "error": str(exc)[:300]}  # fmt: skip
                    rows.append({"arm": arm, **done})
                    print(f"[{arm}] {index + 1}/{len(kinds)} {name} #{number}: "
                          f"{'died' if done['died'] else 'arrived' if done['arrived'] else 'alive'}"
                          f"{' (' + done['error'] + ')' if 'error' in done else ''}",
                          flush=True)  # fmt: skip
            lessons = [line for line in daemon.lines if "lesson (" in line or "near-miss" in line]
        finally:
            alice.close()
    rows.append({"arm": arm, "lessons": lessons[-60:]})
    return rows


def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Deaths per kind, per exposure number, per arm; the target's verdict."""
    table: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for row in rows:
        if "kind" not in row:
            continue
        deaths = table[row["arm"]].setdefault(row["kind"], [])
        deaths.append(1 if row["died"] else 0)
    kinds = [k for k in KINDS if any(k in by_kind for by_kind in table.values())]
    width = max((len(k) for k in kinds), default=4)
    for arm in sorted(table, reverse=True):
        print(f"\nlearning {arm}: deaths per exposure (1 = died)")
        print(f"{'kind':<{width}}  by exposure   total")
        for kind in kinds:
            got = table[arm].get(kind)
            if got is not None:
                print(f"{kind:<{width}}  {' '.join(map(str, got)):<12}  {sum(got)}/{len(got)}")
    on = table.get("on", {})
    met = bool(on) and all(sum(got) <= TARGET for got in on.values())
    if on:
        print(f"\ntarget (learning on, at most {TARGET} death per kind): "
              f"{'met' if met else 'not met'}")  # fmt: skip
    return {"deaths": {arm: dict(by_kind) for arm, by_kind in table.items()},
            "target_met": met if on else None}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arm", action="append", choices=("on", "off"))
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--exposures", type=int, default=5)
    parser.add_argument("--report", nargs="+", type=Path, help="report these result files")
    args = parser.parse_args()
    if args.report:
        rows = [row for path in args.report for row in json.loads(path.read_text())["rows"]]
        report(rows)
        return 0
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kinds {unknown}: choose from {', '.join(KINDS)}")
    RESULTS.mkdir(exist_ok=True)
    for arm in args.arm or ["on", "off"]:
        rows = run_arm(arm, kinds, args.exposures)
        at = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        out = RESULTS / f"hazard-gauntlet-{arm}-{at}.json"
        out.write_text(json.dumps({"rows": rows, "summary": report(rows)}, indent=1))
        print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
