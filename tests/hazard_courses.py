"""Hazard courses: a walk in the sky across a band of one vanilla danger, with a safe lane
beside it, for the hazard gauntlet (``bench/hazard_gauntlet.py``) and its short form in the
suite (``tests/integration/bot/test_hazard_transfer.py``).

A course is a stone platform at :data:`SKY`, :data:`LENGTH` blocks east-west. The bot starts
on its west end, the operator (alice, in creative mode: no mob hunts her) stands on its east
end and says ``come``. The straight way crosses the **band**, :data:`BAND` blocks wide on the
straight line and north of it; a lane of plain stone south of it is the way round, a few
blocks longer. Each kind of :data:`KINDS` fills the band with one danger, at a health that
makes crossing it deadly. Nothing of pepa names these dangers: what the bot does about them is
what it learnt (``docs/knowledge.md``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually, poll
from tests.world_harness import Player, server_player, teleport

__all__ = ["BOT", "KINDS", "SKY", "Course", "Exposure", "Kind", "expose", "place"]

BOT = "pepa_bot"
SKY = 150
"""The platform's height: above any terrain."""
LENGTH = 24
BAND = (6, 17)
"""The band's first and last x, from the platform's west end."""
NORTH, SOUTH = -4, 5
"""The platform's z extent round the straight line (z 0); the band covers NORTH..LANE-2."""
LANE = 3
"""The safe lane's first z (to SOUTH): the way round."""
HUNGER = 16
"""The bot's food on a course: too little to heal (vanilla: 18), enough not to eat (pepa: 16)."""
STILL = 8.0
"""Seconds after which a bot that has not set off is shown alice anew and told ``come`` again
(once)."""
TIMEOUT = 45.0
"""Seconds an exposure lasts at most: arrived, dead, or still alive then."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Course:
    """One course built at ``(x, z)``: its west end and straight line."""

    x: int
    z: int

    @property
    def start(self) -> tuple[float, float, float]:
        return (self.x + 1.5, SKY + 1.0, self.z + 0.5)

    @property
    def end(self) -> tuple[float, float, float]:
        return (self.x + LENGTH - 1.5, SKY + 1.0, self.z + 0.5)

    def band(self, world: EmbeddedWorld, y: int, block: str, *, rows: tuple[int, ...] = ()) -> None:
        """Fill the band at height ``y`` with ``block`` (``rows``: only these z offsets)."""
        x1, x2 = self.x + BAND[0], self.x + BAND[1]
        for dz in rows or (NORTH,):
            z1, z2 = (self.z + dz, self.z + dz) if rows else (self.z + NORTH, self.z + LANE - 2)
            world.op("fill", x1=x1, y1=y, z1=z1, x2=x2, y2=y, z2=z2, block=block)

    def cells(
        self, y: int, *, rows: tuple[int, ...], xs: tuple[int, ...]
    ) -> list[tuple[int, int, int]]:
        return [(self.x + dx, y, self.z + dz) for dx in xs for dz in rows]


@dataclass(frozen=True, slots=True, kw_only=True)
class Kind:
    """One kind of danger."""

    name: str
    what: str
    """What it is, for the report."""
    hp: float
    """The bot's health as it sets off: crossing the band unguarded kills it."""
    build: Callable[[EmbeddedWorld, Course], None]
    """Fills the band (and arms what must be armed)."""
    wide: bool = False
    """A larger platform round the course, walled (a flight from a mob runs off a narrow
    one)."""


def _magma(world: EmbeddedWorld, c: Course) -> None:
    c.band(world, SKY, "magma_block")


def _cactus(world: EmbeddedWorld, c: Course) -> None:
    # the tops of a stand of cacti, level with the floor: 1/16 below a full block, so one who
    # walks them is in their cells (vanilla CactusBlock.entityInside)
    c.band(world, SKY, "cactus")


def _berries(world: EmbeddedWorld, c: Course) -> None:
    c.band(world, SKY, "grass_block")
    for x, y, z in c.cells(SKY + 1, rows=tuple(range(NORTH, LANE - 1)),
                           xs=tuple(range(BAND[0], BAND[1] + 1))):  # fmt: skip
        world.op("set_block", x=x, y=y, z=z, block="sweet_berry_bush", properties={"age": 3})


def _campfires(world: EmbeddedWorld, c: Course) -> None:
    c.band(world, SKY, "campfire")


def _roses(world: EmbeddedWorld, c: Course) -> None:
    c.band(world, SKY, "grass_block")
    c.band(world, SKY + 1, "wither_rose")


def _traps(trigger: str, effect: str, depth: int = 0) -> Callable[[EmbeddedWorld, Course], None]:
    def build(world: EmbeddedWorld, c: Course) -> None:
        x = c.x + (BAND[0] + BAND[1]) // 2
        if effect == "pit":  # where the fall ends
            world.op("fill", x1=x - 2, y1=SKY - depth, z1=c.z + NORTH - 1, x2=x + 2,
                     y2=SKY - depth, z2=c.z + LANE - 1)  # fmt: skip
        for dz in range(NORTH, LANE - 1):
            world.op("set_block", x=x, y=SKY + 1, z=c.z + dz, block=trigger)
            extra = {"depth": depth} if effect == "pit" else {}
            world.op("trap", x=x, y=SKY + 1, z=c.z + dz, effect=effect, **extra)

    return build


def _brute(world: EmbeddedWorld, c: Course) -> None:
    # a hostile pepa has no rule for, two blows of which kill (a ravager bites 18 on hard); it
    # stands 4 blocks from the bot, on the straight way
    world.op("spawn_mob", player="alice", name="evoker", dx=-17, ai=True, damage=12)


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(name="magma", what="a floor of magma blocks (hurts what stands on it)", hp=3,
             build=_magma),
        Kind(name="cactus", what="a floor of cactus tops (hurts what touches them)", hp=3,
             build=_cactus),
        Kind(name="berry_bush", what="a thicket of ripe sweet berry bushes (hurts what moves "
             "in it)", hp=3, build=_berries),
        Kind(name="campfire", what="a floor of lit campfires (burns what stands in them)", hp=3,
             build=_campfires),
        Kind(name="wither_rose", what="a bed of wither roses (the wither effect: a poison "
             "that kills)", hp=2, build=_roses),
        Kind(name="plate_pit", what="a row of pressure plates that open a 30-block pit (a fall "
             "the bot cannot see coming)", hp=20, build=_traps("stone_pressure_plate", "pit", 30)),
        Kind(name="tripwire_gravel", what="a row of tripwires that bury the bot in gravel "
             "(a trap of falling blocks)", hp=6, build=_traps("tripwire", "gravel")),
        Kind(name="strange_mob", what="an evoker hitting for 12 with an axe (a hostile the bot has "
             "no rule for), on a walled platform 16 blocks round the course", hp=20,
             build=_brute, wide=True),
    )
}  # fmt: skip
"""The kinds of danger, in the order the gauntlet runs them. Add kinds here as they are
found; ``bench/README.md`` lists them."""


def place(kind: int, exposure: int, *, wide: bool = False) -> Course:
    """A new place for each kind and exposure, 64 blocks apart (a place of death is walked
    round within 4 blocks: it never covers the next course); a wide course's places are
    further apart, past the other kinds'."""
    if wide:
        return Course(x=200 + 3 * ROOM * exposure, z=-200 + 64 * len(KINDS) + ROOM)
    return Course(x=200 + 64 * exposure, z=-200 + 64 * kind)


@dataclass(frozen=True, slots=True, kw_only=True)
class Exposure:
    """How one exposure went."""

    kind: str
    number: int
    died: bool
    arrived: bool
    lowest_hp: float
    seconds: float
    last: tuple[float, float] | None = None
    """Where the bot was last seen, from the course's west end and straight line (x, z)."""
    nudged: bool = False
    """Shown alice anew and told ``come`` again: it had not set off after :data:`STILL`
    seconds."""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "exposure": self.number, "died": self.died,
                "arrived": self.arrived, "lowest_hp": self.lowest_hp,
                "seconds": round(self.seconds, 1), "last": self.last,
                "nudged": self.nudged}  # fmt: skip


def deaths(world: EmbeddedWorld) -> int:
    """The bot's deaths the server counted."""
    return sum(1 for d in world.op("life_stats")["deaths"] if d["player"] == BOT)


def _me(world: EmbeddedWorld) -> dict[str, Any] | None:
    return server_player(world, BOT)


def _settled(me: dict[str, Any] | None) -> bool:
    return me is not None and me["health"] > 0 and not me["sendingChunks"]


ROOM = 16
"""Blocks of platform round a wide course, walled: room to flee a mob and turn."""


def _platform(world: EmbeddedWorld, c: Course, wide: bool) -> None:
    grow = ROOM if wide else 0
    x1, z1, x2, z2 = c.x - grow, c.z + NORTH - grow, c.x + LENGTH - 1 + grow, c.z + SOUTH + grow
    world.op("fill", x1=x1, y1=SKY, z1=z1, x2=x2, y2=SKY, z2=z2)
    if wide:  # a wall round it, two high: a flight must not run off the edge
        for a, b in (((x1, z1), (x2, z1)), ((x1, z2), (x2, z2)), ((x1, z1), (x1, z2)),
                     ((x2, z1), (x2, z2))):  # fmt: skip
            world.op("fill", x1=a[0], y1=SKY + 1, z1=a[1], x2=b[0], y2=SKY + 2, z2=b[1])


def expose(
    world: EmbeddedWorld, daemon: Daemon, alice: Player, kind: Kind, course: Course, number: int
) -> Exposure:
    """One exposure: build the course, set the bot off to alice, and watch until it arrives,
    dies or :data:`TIMEOUT` passes."""
    # alive, and the chunks of its respawn all sent: a teleport while they go out left the
    # bot's client without those of the course (it stood still, a path into nothing)
    eventually(lambda: _settled(_me(world)), 60, "the bot alive and its chunks sent")
    mark = alice.mark()
    alice.say(f"{BOT} stay")  # no walk left from the last exposure
    alice.reply_from(BOT, "Staying here", start=mark, timeout=30)
    world.op("remove_mobs")
    _platform(world, course, kind.wide)
    world.op("gamemode", player="alice", mode=1)
    teleport(world, alice, *course.end)
    teleport(world, BOT, *course.start)
    world.op("set_health", player=BOT, hp=20)
    # no healing on the way (vanilla heals from 18 food), no meal either (the bot eats below 16)
    world.op("set_food", player=BOT, food=HUNGER, saturation=0)

    def in_place(event: dict[str, Any]) -> bool:
        if event["type"] != "status" or not event.get("position"):
            return False
        here = event["position"]
        seen = [p["distance"] for p in event.get("players", []) if p["name"] == "alice"]
        near = math.dist((here["x"], here["z"]), (course.start[0], course.start[2])) < 1
        # the bot's client has the course's chunks: it knows the floor it stands on
        floor = bool((event.get("contact") or {}).get("below"))
        far = math.dist(course.start, course.end)
        return near and floor and any(abs(d - far) < 1.5 for d in seen)

    with daemon.client() as client:
        for attempt in range(3):
            try:
                client.wait_for(in_place, timeout=10)
                break
            except TimeoutError:
                if attempt == 2:
                    raise
                # after a respawn the bot's client may lack the course's chunks, or alice:
                # both are sent again (a teleport sends the chunks round it; alice away out
                # of sight and back is shown to it anew)
                x, y, z = course.end
                teleport(world, alice, x, y, z + 160)
                teleport(world, BOT, *course.start)
                teleport(world, alice, x, y, z)
    kind.build(world, course)
    world.op("set_health", player=BOT, hp=kind.hp)
    before = deaths(world)
    started = time.monotonic()
    alice.say(f"{BOT} come")
    seen: dict[str, Any] = {"lowest": kind.hp, "last": None, "nudged": False}

    def look() -> str | None:
        """One look at the bot: ``died``, ``arrived``, or None (on its way)."""
        last = seen["last"]
        if not seen["nudged"] and time.monotonic() - started > STILL and last and last[0] < 3:
            # never set off: after a respawn the bot's client may lose sight of alice as it is
            # shown the course (its walk waits to see her); she is shown to it anew, and asks
            seen["nudged"] = True
            x, y, z = course.end
            teleport(world, alice, x, y, z + 160)
            teleport(world, alice, x, y, z)
            alice.say(f"{BOT} come")
        if deaths(world) > before:
            return "died"
        me = _me(world)
        if me is not None:
            seen["lowest"] = min(seen["lowest"], float(me["health"]))
            at = me["position"]
            seen["last"] = (round(at["x"] - course.x, 1), round(at["z"] - course.z, 1))
            up = at["y"] >= course.end[1] - 2  # not fallen off on the way
            if up and math.dist((at["x"], at["z"]), (course.end[0], course.end[2])) < 3:
                return "arrived"
        return None

    outcome = poll(look, TIMEOUT, every=0.2)  # None: still on its way after TIMEOUT s
    died, arrived = outcome == "died", outcome == "arrived"
    lowest, last, nudged = seen["lowest"], seen["last"], seen["nudged"]
    world.op("remove_mobs")
    return Exposure(kind=kind.name, number=number, died=died, arrived=arrived,
                    lowest_hp=0.0 if died else lowest, seconds=time.monotonic() - started,
                    last=last, nudged=nudged)  # fmt: skip
