"""The survival sandbox with a real client (docs/sandbox.md): crafting in the 2x2 grid and at a
table the player placed, digging a log by hand and stone with and without a pickaxe, by a
real mineflayer client (tests/js/crafter.js), and ``pepa start`` in the sandbox by default.

The rules themselves, pure, are in tests/fast/worldserver/test_sandbox_rules.py.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.ipc.client import IpcClient
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.js import run_node
from tests.world_harness import CRAFTER, SANDBOX_SEED, Crafter, distance, free_spot, teleport

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.fixture
def crafter(sandbox_world: EmbeddedWorld) -> Iterator[Crafter]:
    """A player at the spawn of a quiet sandbox: noon, no mobs (sandbox-life.md has those)."""
    sandbox_world.op("spawning", on=False)
    sandbox_world.op("remove_mobs")
    sandbox_world.op("set_time", time=6000, cycle=False)
    player = Crafter(sandbox_world)
    yield player
    deaths = [e for e in player.events if e["type"] == "death"]
    player.close()
    assert not deaths, f"the player died: {deaths}"


def test_a_player_spawns_on_the_ground_and_sees_the_generated_tree(
    sandbox_world: EmbeddedWorld, crafter: Crafter, terrain: dict[str, Any]
) -> None:
    spawn = terrain["spawn"]
    assert crafter.spawned_at == spawn
    x, y, z = spawn["x"], spawn["y"], spawn["z"]
    assert crafter.do("block", x=x, y=y - 1, z=z) == "grass_block"
    assert sandbox_world.op("block_at", x=x, y=y - 1, z=z)["name"] == "grass_block"
    tree = terrain["nearestTree"]
    assert sandbox_world.op("block_at", x=tree["x"], y=tree["base"], z=tree["z"])["name"] == (
        "oak_log"
    )
    logs = crafter.do("find", block="oak_log", distance=30, count=1)
    assert logs, "no oak log within 30 blocks of spawn"


def test_planks_are_crafted_from_a_log_in_the_inventory_grid(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="oak_log", count=3)
    crafter.has("oak_log", 3, start=mark)
    crafter.do("craft", item="oak_planks", count=1)
    assert crafter.count("oak_planks") == 4
    assert crafter.count("oak_log") == 2


def test_a_wooden_pickaxe_is_crafted_at_a_crafting_table_the_player_placed(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="oak_log", count=3)
    crafter.has("oak_log", 3, start=mark)
    crafter.do("craft", item="oak_planks", count=3)
    crafter.do("craft", item="crafting_table", count=1)
    crafter.do("craft", item="stick", count=1)
    x, y, z = free_spot(sandbox_world, crafter)
    assert crafter.do("place", item="crafting_table", x=x, y=y - 1, z=z) == "crafting_table"
    assert sandbox_world.op("block_at", x=x, y=y, z=z)["name"] == "crafting_table"
    crafter.do("craft", item="wooden_pickaxe", count=1, table={"x": x, "y": y, "z": z})
    have = {it["name"]: it["count"] for it in crafter.do("inventory")}
    # 12 planks: 4 for the table, 2 for 4 sticks, 3 and 2 sticks for the pickaxe
    assert have == {"wooden_pickaxe": 1, "oak_planks": 3, "stick": 2}


def test_a_shift_click_crafts_all_it_can_and_closing_gives_the_grid_back(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    x, y, z = free_spot(sandbox_world, crafter)
    sandbox_world.op("set_block", x=x, y=y, z=z, block="crafting_table")
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="oak_log", count=3, slot=36)
    crafter.has("oak_log", 3, start=mark)
    window = crafter.do("open", x=x, y=y, z=z)
    assert window["type"] == "minecraft:crafting"
    logs = 37  # hotbar slot 0 in a crafting window
    assert window["slots"][logs] == {"name": "oak_log", "count": 3}
    crafter.do("click", slot=logs)  # pick the logs up
    window = crafter.do("click", slot=5)  # put them in the middle of the grid
    assert window["slots"][0] == {"name": "oak_planks", "count": 4}
    window = crafter.do("click", slot=0, mode=1)  # shift-click the result
    assert window["slots"][0] is None and window["slots"][5] is None
    assert sum(s["count"] for s in window["slots"][10:] if s and s["name"] == "oak_planks") == 12
    # one plank left in the grid comes back when the window closes
    planks = next(i for i, s in enumerate(window["slots"]) if i >= 10 and s)
    crafter.do("click", slot=planks)
    crafter.do("click", slot=1, button=1)
    window = crafter.do("click", slot=planks)
    assert window["slots"][1] == {"name": "oak_planks", "count": 1}
    assert window["slots"][0] == {"name": "oak_button", "count": 1}  # one plank's recipe
    mark = crafter.mark()
    crafter.do("close")
    crafter.has("oak_planks", 12, start=mark)
    again = crafter.do("open", x=x, y=y, z=z)
    assert again["slots"][:10] == [None] * 10
    crafter.do("close")


def test_a_log_dug_by_hand_ends_up_in_the_inventory(
    sandbox_world: EmbeddedWorld, crafter: Crafter, terrain: dict[str, Any]
) -> None:
    tree = terrain["nearestTree"]
    tx, base, tz = tree["x"], tree["base"], tree["z"]
    # stand on the ground beside the trunk (vanilla small oaks: leaves at head height)
    side = next(
        (tx + dx, tz + dz)
        for dx, dz in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if sandbox_world.op("block_at", x=tx + dx, y=base - 1, z=tz + dz)["name"]
        in ("grass_block", "dirt")
        and sandbox_world.op("block_at", x=tx + dx, y=base, z=tz + dz)["name"] == "air"
    )
    teleport(sandbox_world, crafter, side[0] + 0.5, base, side[1] + 0.5)
    mark = crafter.mark()
    assert crafter.do("dig", x=tx, y=base, z=tz) == {"dug": "oak_log", "now": "air"}
    crafter.wait_for(lambda e: e["type"] == "collected" and e["item"] == "oak_log", 10, mark)
    crafter.has("oak_log", 1, start=mark)


def test_stone_drops_cobblestone_only_to_a_pickaxe(
    sandbox_world: EmbeddedWorld, crafter: Crafter
) -> None:
    x, y, z = (math.floor(crafter.spawned_at[k]) for k in ("x", "y", "z"))
    teleport(sandbox_world, crafter, x + 0.5, y, z + 0.5)
    mark = crafter.mark()
    sandbox_world.op("give", player=CRAFTER, item="wooden_pickaxe", count=1, slot=9)  # not in hand
    crafter.has("wooden_pickaxe", 1, start=mark)
    # dig straight down by hand through the grass and the dirt, picking each one up
    level = y - 1
    while (found := crafter.do("block", x=x, y=level, z=z)) != "stone":
        assert found in ("grass_block", "dirt"), found
        mark = crafter.mark()
        crafter.do("dig", x=x, y=level, z=z)
        crafter.wait_for(lambda e: e["type"] == "collected" and e["item"] == "dirt", 10, mark)
        level -= 1
    assert y - 1 - level in (4, 5)  # grass and 3-4 dirt
    # stone by hand: it breaks (slowly), nothing drops
    assert crafter.do("dig", x=x, y=level, z=z, timeout=30) == {"dug": "stone", "now": "air"}
    shaft = (x + 0.5, z + 0.5)
    items = [  # item entities have no health
        e
        for e in sandbox_world.op("entities")
        if "health" not in e and math.dist(shaft, (e["position"]["x"], e["position"]["z"])) < 2
    ]
    assert items == []
    # stone with a wooden pickaxe: cobblestone, and the pickaxe wears by one use
    level -= 1
    assert crafter.do("block", x=x, y=level, z=z) == "stone"
    crafter.do("equip", item="wooden_pickaxe")
    before = sandbox_world.op("hunger", player=CRAFTER)["exhaustion"]
    mark = crafter.mark()
    crafter.do("dig", x=x, y=level, z=z)
    crafter.wait_for(lambda e: e["type"] == "collected" and e["item"] == "cobblestone", 10, mark)
    # vanilla: a block broken costs 0.005 exhaustion (the crafter stands still, unhurt)
    after = sandbox_world.op("hunger", player=CRAFTER)["exhaustion"]
    assert after - before == pytest.approx(0.005)
    have = {it["name"]: it for it in crafter.do("inventory")}
    assert have["cobblestone"]["count"] == 1  # none from the stone dug by hand
    assert have["wooden_pickaxe"]["durabilityUsed"] == 1


def test_pepa_start_plays_in_a_vanilla_world_by_default(short_tmp: Path) -> None:
    spawn = run_node(
        "const { vanillaTerrain } = require(require('path').join(process.env.SANDBOX, "
        "'vanilla', 'index.js'));"
        f"console.log(JSON.stringify(vanillaTerrain({SANDBOX_SEED}).spawn()))"
    )
    daemon = Daemon(short_tmp, "--seed", str(SANDBOX_SEED), sandbox=True)
    try:
        daemon.in_world(90)
        with IpcClient.connect(daemon.socket, timeout=10.0) as client:
            status = client.wait_for(
                lambda e: e["type"] == "status" and bool(e.get("position")), timeout=30
            )
        world = daemon.state / f"127.0.0.1_{daemon.port}" / "sandbox"
        assert (world / "level.dat").is_file()
        record = orjson.loads((world / "pepa_profile.json").read_bytes())
    finally:
        daemon.close()
    assert record == {"profile": "vanilla", "hazards": False, "terrain": "vanilla"}
    # the bot stands on the vanilla terrain's spawn, not on a flat world's y 5
    assert distance(status["position"], spawn) < 2.0, status["position"]
