"""Skeletons on a real flying-squid sandbox: the bot takes cover, and an unseen one is no reason
to run.

One seeded sandbox and one ``pepa start`` daemon for the module, at noon; each
scenario plays on a stone floor high above the terrain under a stone roof (the
skeleton does not burn), with a pillar or a wall of its own. Whether the
skeleton sees the bot is worked out here as the sandbox does it (``life/blocks.js``
lineOfSight: eyes to eyes, a sample every 0.25 block, blocks with a collision
box stop it), from the live positions and the blocks this module placed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pepa.ipc.client import IpcClient
from pepa.ipc.protocol import Pause, Resume, Snapshot
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import HelperBot, distance, own_daemon, server_player, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("skeleton_cover"),  # one world and one daemon for the module
]

BOT = "pepa_bot"
FLOOR_Y = 100
"""The bot stands at FLOOR_Y on a stone floor; the roof is at FLOOR_Y + 5."""
SKELETON_EYE = 1.74
"""Vanilla AbstractSkeletonEntity.getStandingEyeHeight, as the sandbox counts it (life/eyes.js)."""
BOT_EYE = 1.62

Box = tuple[int, int, int, int, int, int]
"""x1, y1, z1, x2, y2, z2 of a filled box of stone (inclusive)."""


@pytest.fixture(scope="module")
def arena() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    with own_daemon(time=6000) as both:  # day: no night plan for the bot
        yield both


_floors = iter(range(10))


def floor(world: EmbeddedWorld, *obstacles: Box) -> tuple[int, int, list[Box]]:
    """A fresh floor and roof of its own for a scenario, the bot on it at full health; the
    obstacles are given relative to the bot's feet. Returns the origin and every box placed."""
    world.op("remove_mobs")
    n = next(_floors)
    x0, z0 = 64 * (n % 3 - 1), 64 * (n // 3)
    boxes: list[Box] = [
        (x0 - 20, FLOOR_Y - 1, z0 - 12, x0 + 22, FLOOR_Y - 1, z0 + 12),
        (x0 - 20, FLOOR_Y + 5, z0 - 12, x0 + 22, FLOOR_Y + 5, z0 + 12),
    ]
    for x1, y1, z1, x2, y2, z2 in obstacles:
        boxes.append((x0 + x1, FLOOR_Y + y1, z0 + z1, x0 + x2, FLOOR_Y + y2, z0 + z2))
    for x1, y1, z1, x2, y2, z2 in boxes:
        world.op("fill", x1=x1, y1=y1, z1=z1, x2=x2, y2=y2, z2=z2)
    world.op("set_health", player=BOT, hp=20)
    world.op("set_food", player=BOT, food=20, saturation=5)
    teleport(world, BOT, x0 + 0.5, FLOOR_Y, z0 + 0.5)
    return x0, z0, boxes


def solid(boxes: list[Box]) -> Callable[[int, int, int], bool]:
    def inside(x: int, y: int, z: int) -> bool:
        return any(
            x1 <= x <= x2 and y1 <= y <= y2 and z1 <= z <= z2 for x1, y1, z1, x2, y2, z2 in boxes
        )

    return inside


def sees(
    a: dict[str, float], b: dict[str, float], blocked: Callable[[int, int, int], bool]
) -> bool:
    """The sandbox's lineOfSight from a skeleton's feet ``a`` to the bot's feet ``b`` (eyes)."""
    fx, fy, fz = a["x"], a["y"] + SKELETON_EYE, a["z"]
    dx, dy, dz = b["x"] - fx, b["y"] + BOT_EYE - fy, b["z"] - fz
    steps = math.ceil(math.sqrt(dx * dx + dy * dy + dz * dz) / 0.25)
    for i in range(1, steps):
        t = i / steps
        cell = (math.floor(fx + dx * t), math.floor(fy + dy * t), math.floor(fz + dz * t))
        if blocked(*cell):
            return False
    return True


def me(world: EmbeddedWorld) -> dict[str, Any]:
    player = server_player(world, BOT)
    assert player is not None
    return player


def skeleton_at(world: EmbeddedWorld, mob: int) -> dict[str, float]:
    state = world.op("life_mob", mob=mob)
    assert state["alive"], "the skeleton died"
    return dict(state["position"])


def test_a_skeleton_in_the_open_is_hidden_from_behind_a_pillar(
    arena: tuple[EmbeddedWorld, Daemon],
) -> None:
    """A skeleton 12 blocks east on open ground, a 3x3 pillar 2 blocks south-east of the bot:
    the bot walks behind the pillar, out of the skeleton's sight (it used to run 16 blocks
    west across the open floor, in sight all the way)."""
    world, daemon = arena
    pillar: Box = (2, 0, 2, 4, 2, 4)
    _, _, boxes = floor(world, pillar)
    blocked = solid(boxes)
    mark = len(daemon.lines)
    # still (ai false): out of its sight only by the bot's own move, never by the skeleton's
    skeleton = world.op("spawn_mob", player=BOT, name="skeleton", dx=12, ai=False)["ids"][0]
    assert sees(skeleton_at(world, skeleton), me(world)["position"], blocked)

    def hidden() -> bool:
        return not sees(skeleton_at(world, skeleton), me(world)["position"], blocked)

    try:
        eventually(hidden, 20, "the bot out of the skeleton's sight")
    finally:
        print("\n".join(daemon.lines[mark:]))
    cover = daemon.wait_line("defend: survive.cover", 5, start=mark)
    assert "take cover from the skeleton" in daemon.lines[cover]
    assert not any("survive.flee" in line for line in daemon.lines[mark:])


def status(client: IpcClient) -> dict[str, Any]:
    client.send(Snapshot())
    return client.wait_for(lambda e: e["type"] == "status", timeout=10)


def test_a_skeleton_behind_a_wall_is_no_reason_to_run(
    arena: tuple[EmbeddedWorld, Daemon],
) -> None:
    """A still skeleton 10 blocks east behind a wall: the bot marks it unseen and neither runs
    from it nor walks at it (the old policy fled it as from one in the open)."""
    world, daemon = arena
    wall: Box = (6, 0, -5, 6, 3, 5)
    floor(world, wall)
    start = me(world)["position"]
    mark = len(daemon.lines)
    with daemon.client() as client:
        # calm first: no cover kept from an earlier scenario's skeleton
        eventually(lambda: status(client)["activeReflex"] != "defend", 20, "a calm bot")
        skeleton = world.op("spawn_mob", player=BOT, name="skeleton", dx=10, ai=False)["ids"][0]

        def unseen(view: dict[str, Any]) -> bool:
            threats = view.get("threats") or []
            return any(t["id"] == skeleton and t.get("sight") is False for t in threats)

        def hidden_in_status() -> dict[str, Any] | None:
            now = status(client)
            return now if unseen(now) else None

        eventually(hidden_in_status, 20, "the bot to see that the skeleton is hidden")
        reflex_decided(client, daemon)
        later = status(client)
    assert unseen(later) and later["activeReflex"] != "defend", later["activeReflex"]
    moves = [line for line in daemon.lines[mark:] if "defend:" in line]
    assert moves == [], moves
    assert distance(me(world)["position"], start) < 1.0


def reflex_decided(client: IpcClient, daemon: Daemon) -> None:
    """Return once the reflex has decided on every view sent so far and logged what it
    started on it.

    The reflex takes its messages in order: a pause sent now comes after the views the
    last status showed, and a resume makes it decide at once on the latest of them. A
    second pause is taken only once that decision (and its log line, if it started
    anything) is done."""
    mark = len(daemon.lines)
    client.send(Pause())
    client.send(Resume())
    client.send(Pause())
    client.send(Resume())
    resumed = daemon.wait_line("reflex loop resumed", 10, start=mark)
    after = daemon.wait_line("reflex loop paused", 10, start=resumed)
    daemon.wait_line("reflex loop resumed", 10, start=after)


def test_cover_is_not_reported_reached_while_a_live_archer_sees_the_cell(
    arena: tuple[EmbeddedWorld, Daemon],
) -> None:
    """bot_helper.js's cover action on its own (no daemon): told of an archer 12 blocks east
    that is gone, it walks behind a pillar from there; a still skeleton 12 blocks west sees
    that cell, so the action fails instead of reporting the bot hidden (Python would then
    take it for hidden). Far from the daemon's bot, which never sees this skeleton."""
    world, _ = arena
    x0, z0 = 320, 0
    for x1, y1, z1, x2, y2, z2 in (
        (x0 - 16, FLOOR_Y - 1, z0 - 12, x0 + 16, FLOOR_Y - 1, z0 + 12),  # the floor
        (x0 - 16, FLOOR_Y + 5, z0 - 12, x0 + 16, FLOOR_Y + 5, z0 + 12),  # the roof: no burning
        (x0 + 2, FLOOR_Y, z0 + 2, x0 + 4, FLOOR_Y + 2, z0 + 4),  # the pillar
    ):
        world.op("fill", x1=x1, y1=y1, z1=z1, x2=x2, y2=y2, z2=z2)
    bot = HelperBot(world, "cover_bot")
    try:
        teleport(world, bot.username, x0 + 0.5, FLOOR_Y, z0 + 0.5)
        gone = [[x0 + 12.5, FLOOR_Y, z0 + 0.5]]
        world.op("spawn_mob", player=bot.username, name="skeleton", dx=-12, ai=False)
        eventually(
            lambda: any(e["name"] == "skeleton" for e in bot.snapshot().get("entities", [])),
            10,
            "the helper bot to see the skeleton",
        )
        # the search reads the blocks: wait for the chunks round the new spot (the roof seen)
        eventually(
            lambda: (bot.snapshot().get("enclosure") or {}).get("ceiling") == 5,
            15,
            "the helper bot's chunks (the roof 5 blocks over it)",
        )
        done = bot.act("cover", sources=gone, radius=6, avoid=[])
        assert not done["ok"] and done["error"] == "seen at the cover cell", done
    finally:
        bot.close()
