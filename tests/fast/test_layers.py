"""The import contracts of pyproject.toml hold on the tree, and each one breaks on a planted import.

``./pepa.sh lint`` (and so CI) runs ``lint-imports``; these tests run it on a copy of the
Python sources with one import added, and read which contract it reports broken: a contract
that a planted import cannot break would guard nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pepa.base.node import REPO_ROOT

pytestmark = pytest.mark.timeout(60)

ROOT = REPO_ROOT
LINT = Path(sys.executable).with_name("lint-imports")

LAYERS = "Each layer imports only the layers below it"
CYCLES = "No two modules or packages import each other"
DASHBOARD = "The dashboard imports only the IPC client and infrastructure"
PURE = "Policy is pure: no threads, clock, files, sockets, processes, actors or databases"
SEAM = "Only the test seam's users import it"
CONTRACTS = (LAYERS, CYCLES, DASHBOARD, PURE, SEAM)


def copy_sources(to: Path) -> None:
    """The Python packages and pyproject.toml, nothing else (no JS, no caches)."""
    shutil.copy(ROOT / "pyproject.toml", to / "pyproject.toml")
    for package in ("pepa", "skills", "tui"):
        shutil.copytree(
            ROOT / package, to / package, ignore=shutil.ignore_patterns("*.js", "__pycache__")
        )


def lint(tree: Path) -> dict[str, bool]:
    """Each contract's name → kept, as ``lint-imports`` reports it on ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}  # the copy, not the installed checkout
    done = subprocess.run(
        [str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=50
    )
    flat = " ".join(done.stdout.split())  # long names wrap in the report
    verdicts = {}
    for name in CONTRACTS:
        kept, broken = f"{name} KEPT" in flat, f"{name} BROKEN" in flat
        assert kept != broken, f"no verdict on {name!r} in:\n{done.stdout}\n{done.stderr}"
        verdicts[name] = kept
    assert done.returncode == (0 if all(verdicts.values()) else 1), done.stdout
    return verdicts


def test_every_contract_holds_on_the_tree(tmp_path: Path) -> None:
    copy_sources(tmp_path)
    assert lint(tmp_path) == dict.fromkeys(CONTRACTS, True)


@pytest.mark.parametrize(
    ("module", "planted", "broken"),
    [
        # infrastructure reaching up to the actors (which import it: a cycle too)
        ("pepa/base/threads.py", "import pepa.actors.tree", {LAYERS, CYCLES}),
        # the plan grammar and the memory files importing each other (the memory files read
        # plans.py's grammar already)
        ("pepa/state/plans.py", "import pepa.state.memory", {CYCLES}),
        # the dashboard loading the runtime (and through it, the world's values)
        ("tui/render.py", "import pepa.runtime", {DASHBOARD}),
        # a decision-maker reading the clock
        ("pepa/policy/reflex/food.py", "import time", {PURE}),
        # production code leaning on the test seam
        ("pepa/actors/watchdog.py", "import pepa.testing", {SEAM}),
    ],
)
def test_a_planted_import_breaks_its_contract(
    tmp_path: Path, module: str, planted: str, broken: set[str]
) -> None:
    copy_sources(tmp_path)
    path = tmp_path / module
    path.write_text(path.read_text() + f"\n{planted}  # planted by the test\n")
    verdicts = lint(tmp_path)
    assert {name for name, kept in verdicts.items() if not kept} == broken
