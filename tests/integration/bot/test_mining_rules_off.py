"""Each deep-mining rule matters: the scenarios of ``test_mining.py`` (tests/mining_courses.py),
run with the rule each is about left out (``mine``'s ``off``), and the danger gets the miner."""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.mining_courses import COURSES, RULE_OF
from tests.world_harness import HelperBot

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(240),
    pytest.mark.xdist_group("mining_off"),
]

HELPER = "reckless_bot"
SANDBOX = {"time": 6000, "remove_mobs": True}


@pytest.fixture(scope="module", autouse=True)
def fluids(sandbox: EmbeddedWorld) -> None:
    sandbox.op("fluids", on=True)
    sandbox.op("falling", on=True)


@pytest.mark.parametrize("course", list(COURSES))
def test_without_its_rule_the_danger_gets_the_miner(
    sandbox: EmbeddedWorld, helper: HelperBot, course: str
) -> None:
    made = COURSES[course](sandbox, helper, list(COURSES).index(course))
    done = made.run(off=(RULE_OF[course],))

    assert made.harmed(done), (
        f"{course} with the {RULE_OF[course]} rule off: {done} {made.site.notes}"
    )
