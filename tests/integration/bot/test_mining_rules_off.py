"""Each deep-mining rule matters: the scenarios of ``test_mining.py`` (tests/mining_courses.py),
run with the rule each is about left out (``mine``'s ``off``), and the danger gets the miner."""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.mining_courses import COURSES, RULE_OF, flowing
from tests.mining_courses import SANDBOX as MINING_SANDBOX
from tests.world_harness import HelperBot

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(240),
    pytest.mark.xdist_group("mining_off"),
]

SANDBOX = MINING_SANDBOX
"""The module's sandbox (the ``sandbox`` fixture)."""
HELPER = "reckless_bot"


@pytest.fixture(scope="module", autouse=True)
def fluids(sandbox: EmbeddedWorld) -> None:
    flowing(sandbox)


@pytest.mark.parametrize("course", list(COURSES))
def test_without_its_rule_the_danger_gets_the_miner(
    sandbox: EmbeddedWorld, helper: HelperBot, course: str
) -> None:
    made = COURSES[course](sandbox, helper, list(COURSES).index(course))
    done = made.run(off=(RULE_OF[course],))

    assert made.harmed(done), (
        f"{course} with the {RULE_OF[course]} rule off: {done} {made.site.notes}"
    )
