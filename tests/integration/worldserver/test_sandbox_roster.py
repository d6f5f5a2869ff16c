"""More of vanilla's monsters in the survival sandbox (``pepa/worldserver/js/plugins/mobs.js``,
``hazards.js``): the cave spider's poison, baby zombies and zombie villagers, with vanilla
1.16.5's numbers (docs/world-vanilla.md). One seeded sandbox and one player, ``alice``, on a
stone floor of her own for each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pepa.worldserver.process import EmbeddedWorld
from tests.integration.worldserver.sandbox_alice import (
    NAME,
    command,
    first_hurt,
    fresh_floor,
    hazards,
    me,
)
from tests.waiting import eventually
from tests.world_harness import Player

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(90),
    pytest.mark.xdist_group("sandbox_roster"),  # one world for the module, on one worker
]

SANDBOX = {"time": 6000}

_arenas = iter(range(100))


@pytest.fixture(scope="module")
def module_alice(sandbox: EmbeddedWorld) -> Iterator[Player]:
    player = Player(sandbox, NAME)
    yield player
    player.close()


@pytest.fixture
def alice(sandbox: EmbeddedWorld, module_alice: Player) -> Iterator[Player]:
    sandbox.op("set_difficulty", level=2)  # normal: a cave spider's bite poisons for 7 s
    yield fresh_floor(sandbox, module_alice, next(_arenas), poison=0, slowness=0, weakness=0)
    sandbox.op("remove_mobs")
    sandbox.op("set_difficulty", level=1)


@pytest.fixture
def night(sandbox: EmbeddedWorld) -> Iterator[None]:
    """Midnight: a spider (a cave spider is one) hunts only in the dark (vanilla
    SpiderTargetGoal: brightness under 0.5)."""
    sandbox.op("set_time", time=18000, cycle=False)
    yield
    sandbox.op("set_time", time=6000, cycle=False)


@pytest.mark.usefixtures("night")
def test_a_cave_spiders_bite_poisons_for_seven_seconds_on_normal(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="cave_spider", dx=2, ai=True)
    assert first_hurt(alice, mark) == 18  # its bite: 2 on normal
    poison = eventually(lambda: hazards(sandbox)["poison"], 5, "the poison")
    assert 100 < poison <= 140  # vanilla CaveSpider: 7 s on normal
    sandbox.op("remove_mobs")
    # poison hurts 1 every 25 ticks while it lasts
    low = me(sandbox)["health"]
    eventually(lambda: me(sandbox)["health"] <= low - 1, 5, "a poison tick")


def test_poison_never_kills(sandbox: EmbeddedWorld, alice: Player) -> None:
    sandbox.op("set_health", player=NAME, hp=3)
    hazards(sandbox, poison=200)
    eventually(lambda: me(sandbox)["health"] == 1, 10, "the poison to bring her to 1")
    eventually(lambda: hazards(sandbox)["poison"] == 0, 15, "the poison to wear off")
    assert me(sandbox)["health"] == 1  # never below 1: alive


@pytest.mark.usefixtures("night")
def test_a_cave_spiders_bite_on_easy_does_not_poison(sandbox: EmbeddedWorld, alice: Player) -> None:
    sandbox.op("set_difficulty", level=1)
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="cave_spider", dx=2, ai=True)
    first_hurt(alice, mark)
    assert hazards(sandbox)["poison"] == 0


def test_a_baby_zombie_is_half_again_as_fast(sandbox: EmbeddedWorld, alice: Player) -> None:
    (baby,) = sandbox.op("spawn_mob", player=NAME, name="zombie", dx=6, ai=True, baby=True)["ids"]
    (grown,) = sandbox.op("spawn_mob", player=NAME, name="zombie", dx=-6, ai=True, baby=False)[
        "ids"
    ]
    b = eventually(
        lambda: sandbox.op("life_mob", mob=baby).get("alive") and sandbox.op("life_mob", mob=baby),
        5,
        "the baby adopted",
    )
    g = eventually(
        lambda: (
            sandbox.op("life_mob", mob=grown).get("alive") and sandbox.op("life_mob", mob=grown)
        ),
        5,
        "the grown one adopted",
    )
    assert (b["name"], b.get("baby"), g.get("baby")) == ("zombie", True, False), (b, g)
    assert b["speed"] == pytest.approx(0.23 * 1.5)  # vanilla: + 50 %
    assert g["speed"] == pytest.approx(0.23)


def test_a_zombie_villager_hunts_like_a_zombie(sandbox: EmbeddedWorld, alice: Player) -> None:
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="zombie_villager", dx=4, ai=True)
    assert first_hurt(alice, mark, timeout=20) == 17  # a zombie's 3 on normal


def test_an_enderman_leaves_a_player_alone_until_she_stares_at_it(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = (int(v // 1) for v in me(sandbox)["position"].values())
    (enderman,) = sandbox.op("spawn_mob", player=NAME, name="enderman", dx=5, ai=True)["ids"]
    command(alice, "look", at={"x": x - 10, "y": y + 1.6, "z": z})  # away from it
    mark = alice.mark()
    alice.wait_for(lambda e: e["type"] == "looked", 10, mark)
    # it strolls; in 3 s of ticks it has not made her its target
    start = sandbox.op("life_mob", mob=enderman)["tick"]
    eventually(lambda: sandbox.op("life_mob", mob=enderman)["tick"] >= start + 60, 10, "3 s")
    assert sandbox.op("life_mob", mob=enderman)["target"] is None
    command(alice, "look", name="enderman")
    eventually(lambda: sandbox.op("life_mob", mob=enderman)["target"] == NAME, 10, "its anger")
    assert sandbox.op("life_mob", mob=enderman)["provoked"] == 1
    # stared at within 4 blocks it would teleport (vanilla): she looks away, it comes
    command(alice, "look", at={"x": x - 10, "y": y + 1.6, "z": z})
    assert first_hurt(alice, mark, timeout=20) == 13  # its 7 on normal


def test_a_witch_throws_slowness_from_afar_then_poison(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    sandbox.op("spawn_mob", player=NAME, name="witch", dx=9, ai=True)
    slowed = eventually(lambda: hazards(sandbox)["slowness"], 20, "a splash of slowness")
    assert 20 < slowed <= 1800  # vanilla: 1:30 at full strength, less by where it broke
    assert hazards(sandbox)["poison"] == 0
    poisoned = eventually(lambda: hazards(sandbox)["poison"], 20, "a splash of poison")
    assert 20 < poisoned <= 900  # 45 s at full strength, less by where it broke


def test_a_witch_throws_harming_at_one_with_little_health(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    sandbox.op("set_health", player=NAME, hp=7)  # under 8: no poison for her
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="witch", dx=5, ai=True)  # under 8 blocks: no slowness
    event = alice.wait_for(lambda e: e["type"] == "health" and e["health"] < 7, 20, mark)
    assert 1 <= event["health"] <= 6  # up to 6 on a direct hit, through any armour
    assert hazards(sandbox)["lastDamage"]["type"] == "indirectMagic"
    assert hazards(sandbox)["poison"] == 0 and hazards(sandbox)["slowness"] == 0


def test_a_big_slime_hits_by_its_size_and_splits_when_killed(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    mark = alice.mark()
    (slime,) = sandbox.op("spawn_mob", player=NAME, name="slime", dx=3, ai=True, size=4)["ids"]
    big = eventually(lambda: sandbox.op("life_mob", mob=slime).get("size"), 5, "the slime")
    assert big == 4 and sandbox.op("life_mob", mob=slime)["health"] == 16  # size squared
    assert first_hurt(alice, mark, timeout=20) == 16  # a blow of its size, 4 on normal
    before = {e["id"] for e in sandbox.op("entities", name="slime")}
    assert sandbox.op("hurt_mob", mob=slime, damage=20)["dead"] is True
    young = eventually(
        lambda: [e for e in sandbox.op("entities", name="slime") if e["id"] not in before],
        5, "the slime's young",
    )  # fmt: skip
    assert 2 <= len(young) <= 4  # vanilla: 2 + random(3)
    sizes = {sandbox.op("life_mob", mob=e["id"]).get("size") for e in young}
    assert sizes == {2}


def test_the_smallest_slime_does_no_harm(sandbox: EmbeddedWorld, alice: Player) -> None:
    (slime,) = sandbox.op("spawn_mob", player=NAME, name="slime", dx=1, ai=True, size=1)["ids"]
    eventually(lambda: sandbox.op("life_mob", mob=slime).get("size") == 1, 5, "the slime")
    start = sandbox.op("life_mob", mob=slime)["tick"]
    eventually(lambda: sandbox.op("life_mob", mob=slime)["tick"] >= start + 60, 10, "3 s by her")
    assert me(sandbox)["health"] == 20


@pytest.mark.usefixtures("night")
def test_a_phantom_circles_then_swoops_and_strikes(sandbox: EmbeddedWorld, alice: Player) -> None:
    mark = alice.mark()
    (phantom,) = sandbox.op("spawn_mob", player=NAME, name="phantom", dx=4, dy=12, ai=True)["ids"]
    start = eventually(lambda: sandbox.op("life_mob", mob=phantom).get("position"), 5, "it")
    assert first_hurt(alice, mark, timeout=30) == 14  # a blow of 6 on normal
    after = sandbox.op("life_mob", mob=phantom)
    assert after["position"]["y"] > alice_feet_y(sandbox) - 1  # it came down to her...
    assert start["y"] > alice_feet_y(sandbox) + 8  # ...from the sky, flying (no fall, no damage)
    assert after["health"] == 20


def alice_feet_y(sandbox: EmbeddedWorld) -> float:
    return float(me(sandbox)["position"]["y"])


def test_an_enderman_hurt_by_no_living_thing_teleports_away(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    (enderman,) = sandbox.op("spawn_mob", player=NAME, name="enderman", dx=5, ai=True)["ids"]
    where = eventually(lambda: sandbox.op("life_mob", mob=enderman).get("position"), 5, "it")
    for _ in range(6):  # vanilla: 9 times in 10 a blow from nothing living sends it away
        sandbox.op("hurt_mob", mob=enderman, damage=1)
        if sandbox.op("life_mob", mob=enderman)["teleported"]:
            break
    now = sandbox.op("life_mob", mob=enderman)
    assert now["teleported"] >= 1
    moved = max(abs(now["position"][k] - where[k]) for k in ("x", "z"))
    assert moved > 0.5 or abs(now["position"]["y"] - where["y"]) > 0.5


def test_a_drowned_leaves_her_alone_by_day_until_she_swims(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = (int(v // 1) for v in me(sandbox)["position"].values())
    # a pool three deep beside her, its floor below hers, and a drowned at its bottom
    sandbox.op("fill", x1=x + 2, y1=y - 4, z1=z - 3, x2=x + 8, y2=y - 4, z2=z + 3)
    sandbox.op("fill", x1=x + 2, y1=y - 3, z1=z - 3, x2=x + 8, y2=y - 1, z2=z + 3, block="water")
    (drowned,) = sandbox.op("spawn_mob", player=NAME, name="drowned", dx=5, dy=-3, ai=True)["ids"]
    start = eventually(lambda: sandbox.op("life_mob", mob=drowned).get("tick"), 5, "it")
    eventually(lambda: sandbox.op("life_mob", mob=drowned)["tick"] >= start + 60, 10, "3 s")
    assert sandbox.op("life_mob", mob=drowned)["target"] is None  # noon, she is dry
    mark = alice.mark()
    sandbox.op("teleport", player=NAME, x=x + 5.5, y=y - 2, z=z + 0.5)  # into the pool
    hurt = first_hurt(alice, mark, timeout=20)
    assert hurt == 17, hazards(sandbox)["lastDamage"]  # a zombie's 3 on normal
    assert sandbox.op("life_mob", mob=drowned)["target"] == NAME
