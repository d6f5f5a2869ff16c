"""Deep mining on the real sandbox server (``pepa/link/js/actions/mining.js``, docs/mining.md):
with every rule on, the miner gets the diamond past each scenario's danger (tests/mining_courses.py)
and comes back to where it began; ``test_mining_rules_off.py`` runs the same scenarios with the
rule left out, and the danger gets it."""

from __future__ import annotations

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.mining_courses import COURSES, LEVEL, RULE_OF, build, flowing, health
from tests.mining_courses import SANDBOX as MINING_SANDBOX
from tests.world_harness import HelperBot, block, feet, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(240),
    pytest.mark.xdist_group("mining"),
]

SANDBOX = MINING_SANDBOX
"""The module's sandbox (the ``sandbox`` fixture)."""
HELPER = "miner_bot"


@pytest.fixture(scope="module", autouse=True)
def fluids(sandbox: EmbeddedWorld) -> None:
    flowing(sandbox)


@pytest.mark.parametrize("course", list(COURSES))
def test_the_miner_gets_the_ore_past_the_danger(
    sandbox: EmbeddedWorld, helper: HelperBot, course: str
) -> None:
    made = COURSES[course](sandbox, helper, list(COURSES).index(course))
    done = made.run()

    assert not made.harmed(done), (
        f"{course}: the danger got the miner ({RULE_OF[course]} rule on): {done} {made.site.notes}"
    )
    if course != "retreat":
        assert done["ok"], f"{course}: {done}"
        assert sandbox.op("inventory", player=helper.username).get("diamond") == 1
        x, y, z = feet(sandbox, helper.username)
        start = (made.site.x, LEVEL, made.site.z)
        if course == "lava_in":  # the hardened lava closes the tunnel: the way back digs round
            assert max(abs(x - start[0]), abs(y - start[1]), abs(z - start[2])) <= 1, repr(done)
        else:
            assert (x, y, z) == start, repr(done)


def test_a_staircase_goes_down_and_brings_the_miner_back_up(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    site = build(sandbox, helper, 10)
    top = (site.x, LEVEL + 5, site.z)
    sandbox.op("fill", x1=site.x, y1=LEVEL, z1=site.z, x2=site.x, y2=LEVEL + 1, z2=site.z)
    sandbox.op("fill", x1=site.x - 3, y1=LEVEL + 5, z1=site.z - 3, x2=site.x + 9, y2=LEVEL + 6,
               z2=site.z + 3, block="air")  # fmt: skip
    teleport(sandbox, helper.username, site.x + 0.5, LEVEL + 5, site.z + 0.5)
    started = helper.start("mine", names=["diamond_ore"], count=1, level=LEVEL,
                           drops=["diamond"], radius=16.0)  # fmt: skip
    done = helper.finished(started, 150)

    assert done["ok"], done
    assert sandbox.op("inventory", player=helper.username).get("diamond") == 1
    assert feet(sandbox, helper.username) == top, done
    assert health(site) == 20, done
    # the way down is a staircase: never a shaft the miner dropped down
    assert block(sandbox, site.x, LEVEL + 4, site.z) != "air", "dug straight down from the top"
