"""The deep-mining rules' scenarios (``pepa/link/js/actions/mining.js``, docs/mining.md), each
built in a block of stone high over the sandbox's terrain, away from anything the world made.

A scenario puts the helper bot in a 1x2 pocket at :data:`LEVEL` inside the stone with an
iron pickaxe, and a diamond ore a few blocks along +x, with the danger its rule is about on
the way: lava behind a wall of the tunnel, water over its ceiling, a cave beside it, a shaft
under its floor, a long dark tunnel, a blow half-way. :func:`run` mines to the ore and back;
each scenario's ``harmed`` says whether the danger got the miner, so the same scenario proves
the rule with it on (``tests/integration/bot/test_mining.py``: not harmed) and shows the harm
with it off (``test_mining_rules_off.py``: harmed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pepa.worldserver.process import EmbeddedWorld
from tests.waiting import eventually, poll
from tests.world_harness import HelperBot, block, feet, give, server_player, teleport

LEVEL = 120
"""The feet's y of the tunnel in every scenario."""
ORE = 6
"""Blocks along +x from the pocket to the ore."""
KIT = {"iron_pickaxe": 1, "cobblestone": 16}
SANDBOX = {"time": 6000, "remove_mobs": True}
"""The mining modules' sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""


def flowing(world: EmbeddedWorld) -> None:
    """Water and lava flow and sand and gravel fall, as in vanilla (a test world is gentle)."""
    world.op("fluids", on=True)
    world.op("falling", on=True)


@dataclass
class Site:
    """One scenario's place: the pocket at (x, LEVEL, z), the ore at (x + ore, LEVEL, z)."""

    world: EmbeddedWorld
    helper: HelperBot
    x: int
    z: int
    ore: int = ORE
    notes: dict[str, Any] = field(default_factory=dict)
    """What a check read, for a failure's message."""

    def tunnel(self) -> list[tuple[int, int, int]]:
        """The straight tunnel's cells from the pocket to the ore, feet and head."""
        return [(self.x + i, LEVEL + dy, self.z) for i in range(self.ore) for dy in (0, 1)]

    def names(self, cells: list[tuple[int, int, int]]) -> list[str]:
        return [block(self.world, *c) for c in cells]


_ORIGINS: dict[int, tuple[int, int]] = {}


def _origin(world: EmbeddedWorld, helper: HelperBot) -> tuple[int, int]:
    """Where the helper first stood in this world: the scenarios are built near it, in chunks
    its client has."""
    if id(world) not in _ORIGINS:
        x, _, z = feet(world, helper.username)
        _ORIGINS[id(world)] = (x, z)
    return _ORIGINS[id(world)]


def build(
    world: EmbeddedWorld,
    helper: HelperBot,
    n: int,
    *,
    ore: int = ORE,
    kit: dict[str, int] | None = None,
    food: int = 20,
    rock: str = "stone",
) -> Site:
    """Scenario ``n``'s block of ``rock``, the pocket with the bot in it, the ore, the kit."""
    x0, z0 = _origin(world, helper)
    x, z = x0 + 24 + 48 * n, z0 + 24  # apart by more than a long course and the radius
    world.op("fill", x1=x - 3, y1=LEVEL - 10, z1=z - 4, x2=x + ore + 3, y2=LEVEL + 4, z2=z + 4,
             block=rock)  # fmt: skip
    world.op("fill", x1=x, y1=LEVEL, z1=z, x2=x, y2=LEVEL + 1, z2=z, block="air")
    world.op("set_block", x=x + ore, y=LEVEL, z=z, block="diamond_ore")
    teleport(world, helper.username, x + 0.5, LEVEL, z + 0.5)
    helper.sees([(x + ore, LEVEL, z)], "diamond_ore", timeout=30)
    world.op("set_health", player=helper.username, hp=20)
    world.op("set_food", player=helper.username, food=food)
    give(world, helper, kit or KIT)
    # the client knows it is whole again before a run (the last course may have left it at 6)
    eventually(lambda: helper.snapshot()["hp"] == 20, 20, "the miner's health back to 20")
    return Site(world, helper, x, z, ore)


@dataclass
class Course:
    """A scenario built: its site, whether its danger got the miner (from the run's
    ``actionDone``), and what the world does while the miner is at work."""

    site: Site
    harmed: Callable[[dict[str, Any]], bool]
    """Whether the danger got the miner, from the run's ``actionDone`` (empty while it runs)
    and the world."""
    during: Callable[[], None] | None = None

    def run(self, off: tuple[str, ...] = (), timeout: float = 150.0) -> dict[str, Any]:
        """Mine the scenario's diamond with the rules ``off`` left out; the ``actionDone``.
        With a rule off, a run the danger has got is stopped there (a miner down a shaft
        may wander for minutes before it gives up)."""
        site = self.site
        started = site.helper.start("mine", names=["diamond_ore"], count=1, level=LEVEL,
                                    drops=["diamond"], radius=16.0, off=list(off))  # fmt: skip
        self.mark = started[1]
        if self.during is not None:
            self.during()

        def ended() -> dict[str, Any] | None:
            for event in site.helper.since(started[1]):
                if event["type"] == "actionDone" and event.get("id") == started[0]:
                    return event
            if off and self.harmed({}):
                site.helper.call("stop")
            return None

        done = poll(ended, timeout, every=0.5)
        assert done is not None, f"the mine did not end within {timeout:g} s"
        return done

    def events(self, kind: str) -> list[dict[str, Any]]:
        """The helper's events of ``kind`` since the run began."""
        return [e for e in self.site.helper.since(self.mark) if e["type"] == kind]

    mark: int = 0


COURSES: dict[str, Callable[[EmbeddedWorld, HelperBot, int], Course]] = {}
"""Each rule's scenario, by the rule's name (filled below)."""


def health(site: Site) -> float:
    player = server_player(site.world, site.helper.username)
    assert player is not None
    return float(player["health"])


# -- the scenarios: build(), then a danger; each returns whether the danger got the miner --


def lava_behind_a_wall(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """A lava source behind the tunnel's south wall, half-way to the ore: opening that wall
    lets the lava into the tunnel."""
    site = build(world, helper, n)
    world.op("set_block", x=site.x + 3, y=LEVEL, z=site.z + 1, block="lava")
    return Course(site, lambda done: any(name == "lava" for name in site.names(site.tunnel())))


def water_above(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """A water source over the tunnel's ceiling, half-way to the ore: digging the head's cell
    under it floods the tunnel."""
    site = build(world, helper, n)
    world.op("set_block", x=site.x + 3, y=LEVEL + 2, z=site.z, block="water")
    return Course(site, lambda done: any(name == "water" for name in site.names(site.tunnel())))


CAVE = [(dx, dy, 1) for dx in (2, 3, 4) for dy in (0, 1)]
"""The cave's cells beside the tunnel (x + dx, LEVEL + dy, z + 1)."""


def cave_beside(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """A dark cave (3x3x3) beside the tunnel's south wall: the tunnel breaks into it. Harmed:
    the tunnel and the cave are one space when the run ends (a cell of the cave beside the
    tunnel is open and so is the tunnel's cell next to it)."""
    site = build(world, helper, n)
    x, z = site.x, site.z
    world.op("fill", x1=x + 2, y1=LEVEL, z1=z + 1, x2=x + 4, y2=LEVEL + 2, z2=z + 3, block="air")

    def joined(done: dict[str, Any]) -> bool:
        return any(
            block(world, x + dx, LEVEL + dy, z + dz) == "air"
            and block(world, x + dx, LEVEL + dy, z) == "air"
            for dx, dy, dz in CAVE
        )

    return Course(site, joined)


def shaft_below(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """An 8-deep shaft under the tunnel's floor half-way to the ore, hidden in glass, with no
    block to put over it: the rock drops nothing, the kit has none, so the cave rule cannot
    close the shaft and only the fall rule keeps the miner off it. Food at 17 keeps the health
    from coming back (vanilla heals from 18), so a fall shows after the run."""
    site = build(world, helper, n, food=17, rock="glass", kit={"iron_pickaxe": 1})
    x, z = site.x, site.z
    world.op("fill", x1=x + 3, y1=LEVEL - 8, z1=z, x2=x + 3, y2=LEVEL - 1, z2=z, block="air")
    course = Course(site, lambda done: False)
    course.harmed = lambda done: (
        health(site) < 20 or any(e["source"]["kind"] == "fall" for e in course.events("damage"))
    )
    return course


def dark_tunnel(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """A long way to the ore (20 blocks) with torches held: harmed when a floor cell of the
    tunnel is dark enough for a monster to spawn (block light 7 or less, vanilla 1.16.5)."""
    site = build(world, helper, n, ore=20, kit={**KIT, "torch": 16})

    def dark(done: dict[str, Any]) -> bool:
        if not done:
            return False  # judged on the finished tunnel
        lights = [world.op("light_at", x=x, y=y, z=z)["block"]
                  for (x, y, z) in site.tunnel() if y == LEVEL]  # fmt: skip
        site.notes["lights"] = lights
        return min(lights) <= 7

    return Course(site, dark)


def blow_half_way(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """A long way to the ore; half-way there the miner's health drops to 6 (set by the world).
    Harmed: it went on mining instead of coming back to the pocket."""
    site = build(world, helper, n, ore=16, food=17)

    def blow() -> None:
        eventually(lambda: feet(world, helper.username)[0] >= site.x + 5, 90, "the miner 5 along")
        world.op("set_health", player=helper.username, hp=6)

    def harmed(done: dict[str, Any]) -> bool:
        if not done:
            return False  # judged at the end: where the miner went
        back = poll(lambda: feet(world, helper.username) == (site.x, LEVEL, site.z), 5)
        return not (done.get("retreated") and back)

    return Course(site, harmed, blow)


def lava_flows_in(world: EmbeddedWorld, helper: HelperBot, n: int) -> Course:
    """Lava let into the tunnel behind the miner once it is 3 along: a source in the ceiling 2
    cells back (a lake breaking through) runs down into the tunnel and along it. A water bucket
    held. Harmed: lava is still in the tunnel 10 s after the run."""
    site = build(world, helper, n, kit={**KIT, "water_bucket": 1})
    x, z = site.x, site.z

    def let_in() -> None:
        eventually(lambda: feet(world, helper.username)[0] >= x + 3, 90, "the miner 3 along")
        world.op("set_block", x=x + 1, y=LEVEL + 2, z=z, block="lava")

    def lava_left(done: dict[str, Any]) -> bool:
        if not done:
            return False  # judged at the end: what the miner did about it
        cells = [(x + i, LEVEL + dy, z) for i in range(site.ore) for dy in (0, 1)]
        # flowing lava cut off from its source dries up in a few seconds: only lava that stays
        return poll(lambda: "lava" not in site.names(cells), 10, 0.5) is None

    return Course(site, lava_left, let_in)


COURSES.update(  # lava last: a miner that walked into it burns on into the next course
    water=water_above,
    cave=cave_beside,
    fall=shaft_below,
    torch=dark_tunnel,
    retreat=blow_half_way,
    lava_in=lava_flows_in,
    lava=lava_behind_a_wall,
)
RULE_OF = {"lava": "liquid", "lava_in": "water", "water": "liquid", "cave": "cave", "fall": "fall",
           "torch": "torch", "retreat": "retreat"}  # fmt: skip
"""The mining rule each scenario is about."""
