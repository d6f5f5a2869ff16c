"""Damage and hazards in the survival sandbox, through a real mineflayer client.

One funnel (``life/combat.js`` hurtPlayer) with vanilla 1.16 armour, shields
and death messages; falls, lava, fire, drowning and suffocation from
``pepa/worldserver/js/plugins/hazards.js`` (docs/sandbox-life.md "Damage and hazards").
One seeded sandbox and one player, ``alice`` (``tests/js/late_move.js``:
operator.js whose client, teleported down, sends one more move from where it
was before it confirms), for the module; each test plays on its own stone
floor high above the terrain.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pepa.base.node import WorldError
from pepa.worldserver.process import EmbeddedWorld
from tests.integration.worldserver.sandbox_alice import (
    FLOOR_Y,
    NAME,
    command,
    feet,
    first_hurt,
    fresh_floor,
    hazards,
    me,
    unhurt,
)
from tests.js import HERE as TEST_JS
from tests.js import run_node
from tests.waiting import eventually
from tests.world_harness import Player, distance, teleport

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(60),
    pytest.mark.xdist_group("sandbox_damage"),  # one world for the module, on one worker
]

LATE_MOVE_JS = TEST_JS / "late_move.js"


SANDBOX = {"time": 18000}
"""The module's sandbox (the ``sandbox`` fixture): night, skeletons and zombies do not burn."""


@pytest.fixture(scope="module")
def module_alice(sandbox: EmbeddedWorld) -> Iterator[Player]:
    player = Player(sandbox, NAME, script=LATE_MOVE_JS)
    yield player
    player.close()


_arenas = iter(range(100))


@pytest.fixture
def alice(sandbox: EmbeddedWorld, module_alice: Player) -> Player:
    """Alice alive, healthy, empty-handed, alone and standing on a fresh floor of her own."""
    return fresh_floor(sandbox, module_alice, next(_arenas))


def death_message(player: Player, start: int, timeout: float = 15) -> str:
    """The text of the first system chat line after ``start`` that says alice died."""
    event = player.wait_for(
        lambda e: e["type"] == "chat" and e.get("from") is None and e["text"].startswith(NAME),
        timeout,
        start,
    )
    return str(event["text"])


def drop(sandbox: EmbeddedWorld, player: Player, height: float) -> None:
    """Let ``player`` fall ``height`` blocks onto the spot below where it stands."""
    x, y, z = feet(sandbox)
    teleport(sandbox, player, x + 0.5, y + height, z + 0.5)


def test_a_fall_hurts_by_its_height_water_softens_it_and_a_high_one_kills(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    # vanilla checkFallDamage counts the moves in the air, not the landing one: 9.67 of a
    # 10.5-block drop; causeFallDamage: ceil(9.67 - 3) = 7
    mark = alice.mark()
    drop(sandbox, alice, 10.5)
    assert first_hurt(alice, mark) == 13
    assert hazards(sandbox)["lastDamage"]["type"] == "fall"

    x, y, z = feet(sandbox)
    sandbox.op("set_block", x=x, y=y, z=z, block="water")
    sandbox.op("set_health", player=NAME, hp=20)
    mark = alice.mark()
    drop(sandbox, alice, 10.5)
    eventually(
        lambda: me(sandbox)["position"]["y"] < y + 1 and hazards(sandbox)["fall"] == 0,
        10,
        "a splash",
    )
    assert me(sandbox)["health"] == 20
    assert not [e for e in alice.events[mark:] if e["type"] == "health" and e["health"] < 20]

    sandbox.op("set_block", x=x, y=y, z=z, block="air")
    sandbox.op("set_health", player=NAME, hp=10)
    mark = alice.mark()
    drop(sandbox, alice, 20)
    assert death_message(alice, mark) == "alice fell from a high place"


def test_a_teleport_down_is_no_fall_and_a_fall_of_5_blocks_does_2(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    # a platform beside alice, its top 6 blocks above her floor; alice jumps all along, so
    # her client sends moves in the air and landings (an idle one sends none)
    x, y, z = feet(sandbox)
    sandbox.op("fill", x1=x + 3, y1=y + 5, z1=z - 1, x2=x + 5, y2=y + 5, z2=z + 1)
    command(alice, "control", state="jump", on=True)
    mark = alice.mark()
    for _ in range(2):
        teleport(sandbox, alice, x + 4.5, y + 6, z + 0.5)
        # late_move.js sends a move from half a block above where it was before it confirms:
        # vanilla ignores the moves before the confirm and measures from where it was sent
        moved = alice.mark()
        sandbox.op("teleport", player=NAME, x=x + 0.5, y=y, z=z + 0.5)
        alice.wait_for(lambda e: e["type"] == "moved" and e["position"]["y"] == y, 10, moved)
        eventually(lambda: me(sandbox)["position"]["y"] < y + 1.5, 5, "alice jumping on the floor")
    command(alice, "control", state="jump", on=False)
    eventually(lambda: me(sandbox)["position"]["y"] == y, 5, "alice still on the floor")
    # a real fall: the moves in the air add up to 4.76 of its 5 blocks; ceil(4.76 - 3) = 2
    drop(sandbox, alice, 5)
    assert first_hurt(alice, mark) == 18
    last = hazards(sandbox)["lastDamage"]
    assert last["type"] == "fall"


def test_lava_sets_on_fire_until_water_and_kills_with_its_message(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y, z=z, block="lava")
    # vanilla lavaHurt: 4 a hit, once per 10 ticks of hurt immunity, and 15 s on fire
    assert first_hurt(alice, mark) == 16
    sandbox.op("set_block", x=x, y=y, z=z, block="air")

    # out of the lava the fire goes on: 1 every 20 ticks, until water puts it out
    eventually(lambda: hazards(sandbox)["lastDamage"]["type"] == "onFire", 5, "a burn")
    sandbox.op("set_block", x=x, y=y, z=z, block="water")
    eventually(lambda: hazards(sandbox)["fire"] <= 0, 5, "the water to put the fire out")
    sandbox.op("set_block", x=x, y=y, z=z, block="air")

    eventually(lambda: unhurt(sandbox), 5, "the 10 ticks of hurt immunity to pass")
    sandbox.op("set_health", player=NAME, hp=4)
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y, z=z, block="lava")
    assert death_message(alice, mark) == "alice tried to swim in lava"
    sandbox.op("set_block", x=x, y=y, z=z, block="air")


def test_under_water_the_air_runs_out_and_the_player_drowns(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    x, y, z = feet(sandbox)
    sandbox.op("set_health", player=NAME, hp=4)
    sandbox.op("fill", x1=x, y1=y, z1=z, x2=x, y2=y + 2, z2=z, block="water")
    eventually(lambda: hazards(sandbox)["air"] < 290, 5, "the air to go down")
    mark = alice.mark()
    sandbox.op("hazards", player=NAME, air=20)  # 1 s of air left (vanilla: 300 ticks)
    # vanilla: at -20 air, 2 drowning damage and the air back to 0
    assert death_message(alice, mark) == "alice drowned"
    breaths = [e["oxygen"] for e in alice.events[mark:] if e["type"] == "breath"]
    assert 0 in breaths, breaths
    sandbox.op("fill", x1=x, y1=y, z1=z, x2=x, y2=y + 2, z2=z, block="air")


def test_a_burning_player_keeps_its_crouch_bit(sandbox: EmbeddedWorld, alice: Player) -> None:
    # shared flags (metadata index 0): 0x01 on fire, 0x02 crouching, sent to everybody
    command(alice, "control", state="sneak", on=True)
    eventually(lambda: hazards(sandbox)["flags"] == 0x02, 5, "alice crouching")
    sandbox.op("hazards", player=NAME, fire=100)
    eventually(lambda: hazards(sandbox)["flags"] == 0x03, 5, "alice crouching on fire")
    command(alice, "control", state="sneak", on=False)
    eventually(lambda: hazards(sandbox)["flags"] == 0x01, 5, "alice standing on fire")
    sandbox.op("hazards", player=NAME, fire=-20)
    eventually(lambda: hazards(sandbox)["flags"] == 0, 5, "alice out")


def test_a_block_at_the_head_suffocates(sandbox: EmbeddedWorld, alice: Player) -> None:
    x, y, z = feet(sandbox)
    mark = alice.mark()
    sandbox.op("set_block", x=x, y=y + 1, z=z, block="stone")
    assert first_hurt(alice, mark) == 19
    assert hazards(sandbox)["lastDamage"]["type"] == "inWall"
    sandbox.op("set_block", x=x, y=y + 1, z=z, block="air")


def test_iron_armour_absorbs_a_zombie_hit_as_vanilla_and_the_zombie_kills(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="zombie", dx=2, damage=10)
    assert first_hurt(alice, mark) == 10
    sandbox.op("remove_mobs")

    for slot, piece in enumerate(("helmet", "chestplate", "leggings", "boots"), start=5):
        sandbox.op("give", player=NAME, item=f"iron_{piece}", slot=slot)
    assert hazards(sandbox)["armour"] == 15  # 2 + 6 + 5 + 2
    sandbox.op("set_health", player=NAME, hp=20)
    eventually(lambda: me(sandbox)["health"] == 20, 5, "full health")
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="zombie", dx=2, damage=10)
    # CombatRules: 10 * (1 - min(20, max(15 / 5, 15 - 10 / 2)) / 25) = 6
    assert first_hurt(alice, mark) == pytest.approx(14)
    sandbox.op("remove_mobs")
    # each piece wears by max(1, 10 / 4) = 2 a hit (a slow test may have let the zombie hit twice)
    hits = round((20 - me(sandbox)["health"]) / 6)
    assert [w["durabilityUsed"] for w in hazards(sandbox)["worn"]] == [2 * hits] * 4

    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="zombie", dx=2, damage=40)
    assert death_message(alice, mark) == "alice was slain by Zombie"


def test_a_skeleton_shoots_from_range_and_a_raised_shield_blocks_its_arrows(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    sandbox.op("give", player=NAME, item="shield", slot=45)  # the off hand
    skeleton = sandbox.op("spawn_mob", player=NAME, name="skeleton", dx=9)["ids"][0]
    mark = alice.mark()
    command(alice, "shield", name="skeleton")
    alice.wait_for(lambda e: e["type"] in ("shield", "failed"), 10, mark)
    eventually(lambda: hazards(sandbox)["blocking"], 5, "the shield up")
    blocked = hazards(sandbox)["shieldBlocks"]
    eventually(lambda: hazards(sandbox)["shieldBlocks"] > blocked, 20, "an arrow on the shield")
    assert me(sandbox)["health"] == 20
    assert not [e for e in alice.events[mark:] if e["type"] == "health" and e["health"] < 20]
    # a blocked arrow falls and stays stuck in the floor (vanilla: 1200 ticks)
    eventually(
        lambda: any(
            a["stuck"] and a["position"]["y"] < FLOOR_Y + 0.5 for a in sandbox.op("arrows")
        ),
        5,
        "a stuck arrow",
    )

    mark = alice.mark()
    command(alice, "unshield")
    # ceil(~1.5 blocks a tick * (2 + N(0, 0.25) + 0.11 * easy)): 3 to 5 and not scaled by the
    # difficulty (easy would make an odd one a half: min(d / 2 + 1, d))
    assert 20 - first_hurt(alice, mark, timeout=20) in (3, 4, 5)
    last = hazards(sandbox)["lastDamage"]
    assert (last["type"], last["attacker"]) == ("arrow", "skeleton")
    far = sandbox.op("life_mob", mob=skeleton)["position"]
    assert distance(far, me(sandbox)["position"]) > 7.5  # vanilla: backs off inside 7.5 blocks


def test_a_creeper_hurts_the_near_player_more_than_the_far_one(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    sandbox.op("explosions", breakBlocks=False)
    bob = Player(sandbox, "bob")
    try:
        here = me(sandbox)["position"]
        teleport(sandbox, bob, here["x"] - 2.5, FLOOR_Y, here["z"])
        sandbox.op("set_food", player="bob", food=17, saturation=0)
        alice_mark, bob_mark = alice.mark(), bob.mark()
        sandbox.op("spawn_mob", player=NAME, name="creeper", dx=7)
        near = first_hurt(alice, alice_mark, timeout=20)
        far = bob.wait_for(lambda e: e["type"] == "health" and e["health"] < 20, 5, bob_mark)
        # vanilla: (1 - distance / 6) * exposure = impact; floor((impact² + impact) / 2 * 42 + 1)
        assert 20 - near > 20 - far["health"] > 0
        x, y, z = feet(sandbox)
        assert all(
            sandbox.op("block_at", x=x + dx, y=y - 1, z=z)["name"] == "stone" for dx in range(-5, 8)
        )
    finally:
        sandbox.op("explosions", breakBlocks=True)
        bob.close()


def test_a_respawned_player_cannot_be_hurt_for_60_ticks(
    sandbox: EmbeddedWorld, alice: Player
) -> None:
    mark = alice.mark()
    sandbox.op("kill", player=NAME)
    alice.wait_for(lambda e: e["type"] == "death", 10, mark)
    eventually(lambda: me(sandbox)["health"] > 0, 15, "alice to respawn")
    state = hazards(sandbox)
    assert state["invulnerable"] > 0
    ends = state["tick"] + state["invulnerable"]  # vanilla ServerPlayer.spawnInvulnerableTime: 60
    sandbox.op("set_food", player=NAME, food=17, saturation=0)
    mark = alice.mark()
    sandbox.op("spawn_mob", player=NAME, name="zombie", dx=1, damage=4)
    assert first_hurt(alice, mark) == 16
    hit = hazards(sandbox)["lastDamage"]
    assert (hit["type"], hit["tick"] >= ends) == ("mob", True), (hit, ends)
    sandbox.op("remove_mobs")


HURT = r"""
const path = require('path')
const combat = require(path.join(process.env.SANDBOX, 'life', 'combat'))
// a survival player nobody sees, at full health, on easy
const player = () => ({
  gameMode: 0, health: 20, position: { x: 0, y: 0, z: 0 }, inventory: { slots: [] },
  updateHealth (h) { this.health = h }, _client: { write () {} }, _writeOthersNearby () {},
  sendVelocity () {}
})
const serv = { difficulty: 1, players: [], registry: {} }
const life = { tick: 1000 }
const hurt = (type, p = player()) =>
  combat.hurtPlayer(serv, life, p, 4, { strength: 0, cause: { type } }).damage
// one spawned a tick ago: still spawn invulnerable
const spawned = () => Object.assign(player(), { _lifeInvulnerableUntil: life.tick + 59 })
console.log(JSON.stringify({
  arrow: hurt('arrow'), mob: hurt('mob'), explosion: hurt('explosion'),
  invulnerable: {
    mob: hurt('mob', spawned()),
    fall: hurt('fall', spawned()),
    outOfWorld: hurt('outOfWorld', spawned())
  }
}))
"""


def test_arrows_are_not_scaled_by_difficulty_and_spawn_invulnerability_spares_only_falls() -> None:
    hurt = run_node(HURT)
    # vanilla EntityDamageSource.scalesWithDifficulty: a living non-player direct entity; an
    # arrow's is the arrow. Easy: min(4 / 2 + 1, 4) = 3
    assert hurt == {
        "arrow": 4,
        "mob": 3,
        "explosion": 3,
        "invulnerable": {"mob": 0, "fall": 4, "outOfWorld": 4},
    }


SPAWN_INVULNERABLE = r"""
const path = require('path')
const { EventEmitter } = require('events')
const combat = require(path.join(process.env.SANDBOX, 'life', 'combat'))
const serv = { difficulty: 1, players: [], registry: {} }
const life = { tick: 1000 }
// a survival player nobody sees, at full health, on easy, watched as the sandbox watches a
// joining player (watchPlayer starts the spawn invulnerability at the join)
function joined () {
  const p = Object.assign(new EventEmitter(), {
    gameMode: 0, health: 20, position: { x: 0, y: 0, z: 0 }, inventory: { slots: [] },
    updateHealth (h) { this.health = h }, _writeOthersNearby () {}, sendVelocity () {},
    _client: Object.assign(new EventEmitter(), { write () {} })
  })
  combat.watchPlayer(p, life)
  return p
}
// one that joined long ago and respawns now
function respawned () {
  const p = joined()
  life.tick += 1000
  p.emit('requestRespawn')
  return p
}
// the damage of a blow of 4 `after` ticks after the spawn, to a fresh player each time
function blow (spawn, after, type = 'mob') {
  const p = spawn()
  life.tick += after
  return combat.hurtPlayer(serv, life, p, 4, { strength: 0, cause: { type } }).damage
}
const AFTER = [0, 1, 58, 59, 60, 61, 200]
const round = (spawn) => Object.fromEntries(AFTER.map(t => [t, blow(spawn, t)]))
console.log(JSON.stringify({
  join: round(joined), respawn: round(respawned),
  fall: blow(respawned, 0, 'fall'), outOfWorld: blow(respawned, 0, 'outOfWorld')
}))
"""


def test_the_spawn_invulnerability_refuses_a_blow_until_tick_59_and_not_from_tick_60() -> None:
    """Vanilla ServerPlayer.spawnInvulnerableTime: 60 at a join or a respawn, one less each
    tick, and hurt refused while it is above 0: a blow 59 ticks after the spawn does nothing,
    one 60 ticks after it lands (a mob's 4, on easy: 3). Falls and the void hurt anyway."""
    hurt = run_node(SPAWN_INVULNERABLE)
    spared = {"0": 0, "1": 0, "58": 0, "59": 0, "60": 3, "61": 3, "200": 3}
    assert hurt == {"join": spared, "respawn": spared, "fall": 4, "outOfWorld": 4}


def test_bad_numbers_in_the_hazards_and_furnace_scale_ops_are_errors(
    sandbox: EmbeddedWorld, module_alice: Player
) -> None:
    for bad in ("lots", None, float("inf"), True):
        with pytest.raises(WorldError, match="finite number"):
            sandbox.op("hazards", player=NAME, air=bad)
        with pytest.raises(WorldError, match="finite number"):
            sandbox.op("furnace_scale", factor=bad)
    state = hazards(sandbox)
    assert (state["air"], state["fire"]) == (300, -20)  # untouched
    # clamped to vanilla's ranges: air -20..300, fire ticks -20..32767; furnaces 0..1000 x
    state = sandbox.op("hazards", player=NAME, air=1e9, fire=-1e9)
    assert (state["air"], state["fire"]) == (300, -20)
    state = sandbox.op("hazards", player=NAME, air=-1e9, fire=1e9)
    assert (state["air"], state["fire"]) == (-20, 32767)
    sandbox.op("hazards", player=NAME, air=300, fire=-20)
    assert sandbox.op("furnace_scale", factor=1e9)["factor"] == 1000
    assert sandbox.op("furnace_scale", factor=1)["factor"] == 1
