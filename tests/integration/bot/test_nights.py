"""Nights and iron on the real sandbox server (docs/survival.md "Nights").

A real ``pepa start`` bot at dusk with 8 dirt, a torch and no bed digs in,
roofs itself over and lights the hole (the server sees solid blocks all
round it and the torch), is not "rescued"
by the escape reflex while it shelters, and digs its way out when the
morning comes; the bot's own JS module (tests/js/helper_bot.js drives
bot_helper.js) places a furnace, smelts iron ore with coal and takes the
furnace back, and from its shelter mines stone down under its roof without
opening the way to a cave beside it. One quiet sandbox world for the module.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import (
    HELPER,
    HelperBot,
    block,
    closed_in,
    feet,
    give,
    server_player,
    solid,
    teleport,
)

# one worker runs the module: its tests share one world
pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(120),
    pytest.mark.xdist_group("nights"),
]

BOT = "pepa_bot"


SANDBOX = {"time": 6000, "remove_mobs": True}
"""The module's sandbox (the ``sandbox`` fixture): noon, the clock stopped, no mobs."""


def test_at_dusk_with_dirt_and_no_bed_the_bot_shelters_and_leaves_in_the_morning(
    sandbox: EmbeddedWorld,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))
    bot = Daemon(root, host="127.0.0.1", port=sandbox.port)
    try:
        bot.in_world()
        eventually(lambda: server_player(sandbox, BOT) is not None, 30, "the bot on the server")
        # a plain patch of dirt with open air above it: the same ground on every run
        x, y, z = feet(sandbox, BOT)
        sandbox.op("fill", x1=x - 2, y1=y - 4, z1=z - 2, x2=x + 2, y2=y - 1, z2=z + 2, block="dirt")
        sandbox.op("fill", x1=x - 2, y1=y, z1=z - 2, x2=x + 2, y2=y + 3, z2=z + 2, block="air")
        teleport(sandbox, BOT, x + 0.5, y, z + 0.5)
        sandbox.op("clear_inventory", player=BOT)
        sandbox.op("give", player=BOT, item="dirt", count=8)
        sandbox.op("give", player=BOT, item="torch", count=1)
        start = len(bot.lines)
        sandbox.op("set_time", time=12100, cycle=False)  # dusk

        bot.wait_line("night: survive.shelter", 30, start=start)
        eventually(lambda: closed_in(sandbox, feet(sandbox, BOT)), 40, "the bot walled in")
        spot = feet(sandbox, BOT)
        assert spot[1] == y - 2  # two blocks into the ground, roofed over
        head = (spot[0], spot[1] + 1, spot[2])
        lit = ("torch", "wall_torch")
        eventually(lambda: block(sandbox, *head) in lit, 10, "a torch on the shelter's wall")
        # dawn (23500, no longer night) at 10x: 500 ticks, 2.5 s still walled in, then full
        # day (0) and out
        sandbox.op("time_scale", factor=10)
        sandbox.op("set_time", time=23500, cycle=True)
        bot.wait_line("night: survive.escape (morning)", 40, start=start)

        def out() -> bool:
            here = feet(sandbox, BOT)
            return math.dist(here, spot) >= 2.0

        eventually(out, 40, "the bot out of its shelter")
        assert bot.count("no way out on foot") == 0  # the escape reflex never ran at night
    finally:
        sandbox.op("time_scale", factor=1)
        sandbox.op("set_time", time=6000, cycle=False)
        bot.close()
        shutil.rmtree(root, ignore_errors=True)


def test_the_bot_smelts_iron_ore_with_coal_in_a_furnace_it_places_and_takes_back(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    sandbox.op("furnace_scale", factor=10)  # 20 ticks of cooking a second is vanilla
    try:
        give(sandbox, helper, {"furnace": 1, "coal": 1, "iron_ore": 2, "stone_pickaxe": 1})
        done = helper.act("smelt", item="iron_ore", count=2, fuel="coal")
        assert done["ok"], done
        assert done["made"] == 2
        held = sandbox.op("inventory", player=HELPER)
        assert held == {"iron_ingot": 2, "furnace": 1, "stone_pickaxe": 1}  # coal burnt, ore gone
        x, y, z = feet(sandbox, HELPER)
        around = range(-3, 4)
        near = [(x + i, y + j, z + k) for i in around for j in (-1, 0, 1) for k in around]
        assert not any(
            sandbox.op("block_at", x=a, y=b, z=c)["name"] == "furnace" for a, b, c in near
        )
    finally:
        sandbox.op("furnace_scale", factor=1)


def test_the_bot_wears_the_armour_it_crafts_and_a_shield_in_the_off_hand(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    give(sandbox, helper, {"iron_ingot": 8, "crafting_table": 1})
    done = helper.act("craft", item="iron_chestplate", times=1)
    assert done["ok"], done
    eventually(lambda: helper.snapshot()["worn"] == ["iron_chestplate"], 10, "the chestplate on")
    sandbox.op("give", player=HELPER, item="leather_helmet", count=1)
    sandbox.op("give", player=HELPER, item="shield", count=1)
    eventually(lambda: len(helper.snapshot()["inventory"]["counts"]) == 4, 10, "the rest held")
    done = helper.act("wear")
    assert done["ok"] and done["worn"] == 2, done
    # out of the server's main inventory, into the armour and off-hand slots; the table it
    # placed for the craft is back in the bag
    table = {"crafting_table": 1}
    eventually(lambda: sandbox.op("inventory", player=HELPER) == table, 10, "the kit worn")
    snap = helper.snapshot()
    assert snap["worn"] == ["leather_helmet", "iron_chestplate", "shield"]
    worn = {"iron_chestplate": 1, "leather_helmet": 1, "shield": 1}
    assert snap["inventory"]["counts"] == {**worn, **table}


def test_the_bot_mines_iron_ore_below_with_a_stone_pickaxe(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    give(sandbox, helper, {"stone_pickaxe": 1})
    above = feet(sandbox, HELPER)[1]
    done = helper.act(
        "gather", names=["iron_ore"], count=2, radius=32.0, drops=["iron_ore"], timeout=90
    )
    assert done["ok"], done
    assert sandbox.op("inventory", player=HELPER)["iron_ore"] >= 2
    assert feet(sandbox, HELPER)[1] < above  # dug down to it: iron ore lies below y 64


def test_down_a_mine_shaft_the_furnace_goes_above_the_bots_head(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    sandbox.op("furnace_scale", factor=10)
    try:
        bottom = sandbox.op("pit", player=HELPER, depth=3)["bottom"]
        eventually(lambda: feet(sandbox, HELPER)[1] == bottom["y"], 10, "the bot down the shaft")
        give(sandbox, helper, {"furnace": 1, "coal": 1, "iron_ore": 1, "stone_pickaxe": 1})
        done = helper.act("smelt", item="iron_ore", count=1, fuel="coal")
        assert done["ok"], done
        assert sandbox.op("inventory", player=HELPER) == {
            "iron_ingot": 1, "furnace": 1, "stone_pickaxe": 1,
        }  # fmt: skip
    finally:
        sandbox.op("furnace_scale", factor=1)


def test_by_night_the_bot_mines_stone_down_from_its_shelter_and_climbs_back_in_the_morning(
    sandbox: EmbeddedWorld, helper: HelperBot
) -> None:
    # 3 dirt over stone; 3 below the shelter's floor a cave beside the shaft, open to the sky
    hx, _, hz = feet(sandbox, HELPER)
    x, y, z = hx + 12, 70, hz
    sandbox.op("fill", x1=x - 3, y1=y - 9, z1=z - 3, x2=x + 3, y2=y - 4, z2=z + 3, block="stone")
    sandbox.op("fill", x1=x - 3, y1=y - 3, z1=z - 3, x2=x + 3, y2=y - 1, z2=z + 3, block="dirt")
    sandbox.op("fill", x1=x - 3, y1=y, z1=z - 3, x2=x + 3, y2=y + 3, z2=z + 3, block="air")
    sandbox.op("fill", x1=x + 1, y1=y - 6, z1=z, x2=x + 1, y2=y - 5, z2=z, block="air")
    sandbox.op("fill", x1=x + 2, y1=y - 6, z1=z, x2=x + 2, y2=y - 1, z2=z, block="air")
    teleport(sandbox, HELPER, x + 0.5, y, z + 0.5)
    give(sandbox, helper, {"dirt": 8, "wooden_pickaxe": 1})
    assert helper.act("shelter")["ok"]
    spot = feet(sandbox, HELPER)
    assert spot == (x, y - 2, z) and closed_in(sandbox, spot)
    done = helper.act(
        "gather",
        names=["stone", "cobblestone"],
        count=3,
        radius=8.0,
        drops=["cobblestone"],
        under_cover=True,
    )
    assert done["ok"], done
    assert sandbox.op("inventory", player=HELPER).get("cobblestone", 0) >= 3
    assert feet(sandbox, HELPER)[1] < spot[1]  # dug down, under the roof
    assert closed_in(sandbox, spot)  # the shelter's walls and roof stand
    # the blocks between the dug pocket and the cave stand: no way in from the sky
    assert solid(sandbox, x, y - 5, z) and solid(sandbox, x + 1, y - 4, z)
    # the morning's way out goes up to the level of the roof, not 3 blocks along the mine
    done = helper.act("escape", reach=3.0, mode="surface")
    assert done["ok"], done
    assert done["way"] in ("path up", "climb"), done  # not 3 blocks off, wherever that is
    assert done["position"]["y"] >= y, done
    # the server has it when the bot's next move comes in, which can follow the action's end
    eventually(lambda: feet(sandbox, HELPER)[1] >= y, 10, "the server's bot at the roof's level")


@pytest.mark.parametrize("off", [0.15, 0.85])
def test_a_bot_standing_over_a_blocks_edge_steps_to_its_middle_and_digs_in(
    sandbox: EmbeddedWorld, helper: HelperBot, off: float
) -> None:
    hx, _, hz = feet(sandbox, HELPER)
    x, y, z = hx - 12, 70, hz + (0 if off < 0.5 else 8)
    sandbox.op("fill", x1=x - 3, y1=y - 4, z1=z - 3, x2=x + 3, y2=y - 1, z2=z + 3, block="dirt")
    if off > 0.5:  # stone under the feet: 7.5 s a block bare-handed, too slow to dig in
        sandbox.op("fill", x1=x, y1=y - 2, z1=z, x2=x, y2=y - 1, z2=z, block="stone")
    sandbox.op("fill", x1=x - 3, y1=y, z1=z - 3, x2=x + 3, y2=y + 3, z2=z + 3, block="air")
    teleport(sandbox, HELPER, x + off, y, z + off)  # its hitbox over the next blocks too
    give(sandbox, helper, {"dirt": 12})
    eventually(lambda: feet(sandbox, HELPER)[1] == y, 10, "the bot on the ground")
    done = helper.act("shelter")
    assert done["ok"], done
    depth = 2 if off < 0.5 else 0  # dropped into the hole it dug; on stone walled in where it is
    assert feet(sandbox, HELPER) == (x, y - depth, z)
    assert closed_in(sandbox, (x, y - depth, z))


def test_stop_ends_a_dig_under_way_at_once(sandbox: EmbeddedWorld, helper: HelperBot) -> None:
    hx, _, hz = feet(sandbox, HELPER)
    x, y, z = hx + 20, 70, hz
    sandbox.op("fill", x1=x - 2, y1=y - 2, z1=z - 2, x2=x + 2, y2=y - 1, z2=z + 2, block="bedrock")
    sandbox.op("fill", x1=x - 2, y1=y, z1=z - 2, x2=x + 2, y2=y + 3, z2=z + 2, block="air")
    sandbox.op("fill", x1=x + 1, y1=y, z1=z, x2=x + 1, y2=y, z2=z, block="obsidian")
    teleport(sandbox, HELPER, x + 0.5, y, z + 0.5)
    give(sandbox, helper, {"diamond_pickaxe": 1})  # 9.4 s of digging (vanilla hardness 50)
    eventually(lambda: feet(sandbox, HELPER)[1] == y, 10, "the bot on the ground")
    dig = helper.start("gather", names=["obsidian"], count=1, radius=6.0, drops=["obsidian"])
    eventually(lambda: helper.digging(), 20, "the dig under way")
    helper.call("stop")
    done = helper.finished(dig, 30)
    assert done["error"] == "stopped", done
    assert block(sandbox, x + 1, y, z) == "obsidian"  # the dig ended before the block broke
    assert not helper.digging()
