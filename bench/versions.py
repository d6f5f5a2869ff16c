"""The version matrix: at each game version, does the bot join, answer, come, stop,
fight, dig and craft?

Run: ``.venv/bin/python bench/versions.py [--versions 1.12.2,1.16.5 | --quick] [--logs DIR]``.
For each version (default: every one both mineflayer 4.39 and flying-squid 1.12 support,
from 1.12.2, :data:`pepa.game.versions.PLAYED`; ``--quick``: the three CI runs, the oldest,
1.16.5 and the newest; ``--versions`` also takes the older ones both support, 1.8.8 to
1.11.2, outside the matrix), one after the other: a fresh flat flying-squid world at that version
and one ``pepa start`` daemon in it, then the checks of ``tests/version_matrix.py`` (each
bounded; one failing never stops the others, nor a version the next). Prints a line per check
as it ends and, at the end, the markdown table docs/world.md carries ("Game versions"): a row
per version, a cell per check, "ok", "FAIL (reason)" or "n/a (reason)" with the time it took.
``--logs DIR`` keeps each version's world and daemon logs there.
"""

from __future__ import annotations

import argparse
import logging
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.version_matrix import CHECKS, MATRIX, OLDER, QUICK, Outcome, markdown_table, run_version

log = logging.getLogger("versions")


def commit() -> str:
    """The checkout's short commit, ``+`` when it has changes."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
            check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+" if dirty else "")


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for noisy in ("pepa", "tests.world_harness"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--versions", help="comma-separated, e.g. 1.12.2,1.16.5")
    chosen.add_argument("--quick", action="store_true", help=f"the CI matrix: {', '.join(QUICK)}")
    parser.add_argument("--logs", type=Path, help="keep each version's world and daemon logs")
    args = parser.parse_args()
    if args.quick:
        versions = list(QUICK)
    elif args.versions:
        versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    else:
        versions = list(MATRIX)
    unknown = [v for v in versions if v not in MATRIX + OLDER]
    if unknown:
        known = ", ".join(OLDER + MATRIX)
        parser.error(f"not a version both mineflayer and flying-squid support: {unknown} ({known})")
    rows: dict[str, dict[str, Outcome]] = {}
    began = time.monotonic()
    for version in versions:
        start = time.monotonic()
        log.info("%s: starting", version)
        try:
            rows[version] = run_version(version, keep=args.logs)
        except Exception as exc:  # the harness itself broke: this row only
            log.exception("%s: the run broke", version)
            rows[version] = {name: Outcome("FAIL", f"the run broke: {exc}") for name in CHECKS}
        passed = sum(outcome.ok for outcome in rows[version].values())
        log.info("%s: %d/%d ok in %.0f s", version, passed, len(CHECKS), time.monotonic() - start)
    print(f"\n{date.today().isoformat()}, commit {commit()}, {time.monotonic() - began:.0f} s\n")
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
