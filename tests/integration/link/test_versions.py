"""The short version matrix: at the oldest version pepa plays, at 1.16.5 and at the
newest, a real flying-squid world and a real ``pepa start``: the bot joins, answers
``status``, comes and stops when its operator says so, fights a zombie, digs a block and
crafts planks (tests/version_matrix.py says how each is checked; ``bench/versions.py`` runs
every version and prints the table docs/world.md carries).

One world and daemon per version (a module fixture per parameter, each on an xdist worker of
its own): the checks run in it one after the other, and each test asserts one check's outcome.
"""

from __future__ import annotations

import pytest

from tests.version_matrix import CHECKS, QUICK, Outcome, run_version

pytestmark = [pytest.mark.integration]


@pytest.fixture(
    scope="module",
    params=[pytest.param(v, id=v, marks=pytest.mark.xdist_group(f"versions_{v}")) for v in QUICK],
)
def outcomes(request: pytest.FixtureRequest) -> dict[str, Outcome]:
    """Every check's outcome at one version (about 20 s; each check bounded)."""
    return run_version(request.param)


@pytest.mark.timeout(240)  # the version's whole run, in the first test's set-up, then nothing
@pytest.mark.parametrize("check", CHECKS)
def test_the_bot_plays_at_this_version(outcomes: dict[str, Outcome], check: str) -> None:
    outcome = outcomes[check]
    assert outcome.ok, f"{check}: {outcome.cell()}"
