"""Why the bot died: death_cause.js (required by bot_helper.js), with no server.

The classification of a health drop and the reading of a death message are pure (node); the
watch itself runs on a fake mineflayer bot for the order of its events (death before
respawn, the message before or after 'death', the wait when none comes). The real sandbox:
tests/integration/link/test_death_cause.py.
"""

from __future__ import annotations

import json
from typing import Any

from pepa.link.minecraft import BOT_JS
from tests.js import run_node

DEATH_CAUSE = BOT_JS / "death_cause.js"

DECIDE = r"""
const m = require(process.argv[1])
const cases = JSON.parse(process.argv[2])
process.stdout.write(JSON.stringify(cases.map(([fn, args]) => m[fn](...args))))
"""


def decide(*cases: tuple[str, list[Any]]) -> list[Any]:
    """Each (function, arguments) of death_cause.js's pure functions, in one node run."""
    return list(run_node(DECIDE, str(DEATH_CAUSE), json.dumps(cases)))


def kinds(*contexts: dict[str, Any]) -> list[dict[str, Any]]:
    return decide(*(("classify", [c]) for c in contexts))


ZOMBIE = {"name": "zombie", "distance": 1.5}


def test_each_drop_is_put_down_to_what_was_around_the_bot() -> None:
    found = kinds(
        {"inLava": True, "onFire": True},
        {"onFire": True},
        {"inFire": True},
        {"headInWater": True, "air": 0},
        {"headInWater": True, "air": -1},  # vanilla: air runs to -20 before the blow
        {"food": 0},
        {"explosion": {"ago": 0.2, "distance": 3, "creeper": "creeper"}},
        {"landed": {"ago": 0.1, "fall": 23.46}},
        {"arrow": {"ago": 0.1, "distance": 1}, "archer": {"name": "skeleton", "distance": 12}},
        {"headInSolid": True},
        {"y": -70, "minY": 0},
        {"contact": True},
        {"mob": ZOMBIE},
        {"player": {"name": "alice", "distance": 3}},
        {},
    )
    assert found == [
        {"kind": "lava", "by": None},
        {"kind": "fire", "by": None},
        {"kind": "fire", "by": None},
        {"kind": "drowning", "by": None},
        {"kind": "drowning", "by": None},
        {"kind": "starvation", "by": None},
        {"kind": "explosion", "by": "creeper"},
        {"kind": "fall", "by": None, "fall": 23.5},
        {"kind": "arrow", "by": "skeleton"},
        {"kind": "suffocation", "by": None},
        {"kind": "void", "by": None},
        {"kind": "contact", "by": None},
        {"kind": "mob", "by": "zombie"},
        {"kind": "player", "by": "alice"},
        {"kind": "generic", "by": None},
    ]


def test_only_near_and_recent_evidence_counts() -> None:
    found = kinds(
        {"explosion": {"ago": 0.2, "distance": 9, "creeper": "creeper"}},  # too far
        {"explosion": {"ago": 0.8, "distance": 3, "creeper": None}},  # too long ago
        {"landed": {"ago": 0.1, "fall": 3}},  # a fall of 3 does not hurt
        {"landed": {"ago": 2, "fall": 10}},
        {"arrow": {"ago": 0.1, "distance": 4}},
        {"arrow": {"ago": 0.1, "distance": 2}, "archer": {"name": "stray", "distance": 30}},
        {"headInWater": True, "air": 3},  # air left: not drowning
        {"air": 0},  # head out of the water
        {"mob": {"name": "zombie", "distance": 5}},
        {"player": {"name": "alice", "distance": 5}},
        {"y": -60, "minY": 0},
    )
    assert [f["kind"] for f in found] == [
        "generic", "generic", "generic", "generic", "generic",
        "arrow", "generic", "generic", "generic", "generic", "generic",
    ]  # fmt: skip
    assert found[5]["by"] is None  # the stray is beyond 24 blocks


def test_a_hostile_in_reach_is_blamed_before_hunger_and_a_blow_signal_before_a_state() -> None:
    found = kinds(
        {"food": 0, "mob": ZOMBIE},
        {"food": 0, "mob": {"name": "zombie", "distance": 6}},
        {"onFire": True, "landed": {"ago": 0.1, "fall": 9}},
        {"onFire": True, "explosion": {"ago": 0.1, "distance": 2, "creeper": None}},
        {"headInWater": True, "air": 0, "arrow": {"ago": 0.1, "distance": 1}},
        {"onFire": True, "mob": ZOMBIE},
    )
    assert [f["kind"] for f in found] == ["mob", "starvation", "fall", "explosion", "arrow", "fire"]


LANG = {
    "death.attack.mob": "%1$s was slain by %2$s",
    "death.attack.lava": "%1$s tried to swim in lava",
    "death.fell.accident.generic": "%1$s fell from a high place",
    "entity.minecraft.zombie": "Zombie",
}


def message(key: str, *args: dict[str, Any]) -> dict[str, Any]:
    return {"translate": key, "with": list(args)}


def test_a_death_message_counts_only_when_it_is_the_bots_own() -> None:
    zombie = {"translate": "entity.minecraft.zombie", "hoverEvent": {}, "insertion": "x"}
    own, other, chat, alive = decide(
        ("ownDeath", [message("death.attack.mob", {"text": "pepa_bot"}, zombie), "pepa_bot", LANG]),
        ("ownDeath", [message("death.attack.lava", {"text": "alice"}), "pepa_bot", LANG]),
        ("ownDeath", [message("chat.type.text", {"text": "pepa_bot"}), "pepa_bot", LANG]),
        ("ownDeath", [{"text": "pepa_bot fell"}, "pepa_bot", LANG]),
    )
    assert own == {
        "key": "death.attack.mob",
        "args": ["pepa_bot", "zombie"],
        "text": "pepa_bot was slain by Zombie",
    }
    assert other is None and chat is None and alive is None


def test_a_team_prefix_still_names_the_bot_and_a_malformed_message_is_none() -> None:
    team = {"text": "[Red] pepa_bot", "insertion": "pepa_bot"}  # vanilla: the display name
    prefixed, shaped, impostor = decide(
        ("ownDeath", [message("death.attack.lava", team), "pepa_bot", LANG]),
        ("ownDeath", [{"translate": "death.attack.lava", "with": "pepa_bot"}, "pepa_bot", LANG]),
        ("ownDeath", [message("death.attack.lava", {"text": "[Red] pepa_bot"}), "pepa_bot", LANG]),
    )
    assert prefixed is not None and prefixed["args"] == ["pepa_bot"]
    assert prefixed["key"] == "death.attack.lava"
    assert shaped is None  # ``with`` not a list (tellraw can send anything): no throw, no death
    assert impostor is None  # a look-alike display name with no insertion is not the bot


def test_the_cause_names_the_killer_from_the_message_else_from_the_last_blow() -> None:
    blows = [
        {"kind": "generic", "by": None, "amount": 18, "at": 1000},
        {"kind": "mob", "by": "zombie", "amount": 2.456, "at": 9200},
    ]
    said = {"key": "death.attack.mob", "args": ["pepa_bot", "husk"], "text": "t"}
    with_message, without = decide(
        ("causeOf", [said, blows, 10000]), ("causeOf", [None, blows, 10000])
    )
    assert with_message["killer"] == "husk"
    assert without == {
        "key": None,
        "text": None,
        "args": [],
        "killer": "zombie",
        "sources": [
            {"kind": "generic", "by": None, "amount": 18, "ago": 9.0},
            {"kind": "mob", "by": "zombie", "amount": 2.46, "ago": 0.8},
        ],
    }


WATCH = r"""
const { EventEmitter } = require('events')
const { Vec3 } = require('vec3')
const { createDeathWatch, MESSAGE_WAIT_MS } = require(process.argv[1])
const scenario = process.argv[2]
const LANG = {
  'death.attack.mob': '%1$s was slain by %2$s',
  'death.attack.explosion.player': '%1$s was blown up by %2$s',
  'entity.minecraft.zombie': 'Zombie',
  'entity.minecraft.creeper': 'Creeper'
}
const bot = new EventEmitter()
bot._client = new EventEmitter()
bot.username = 'pepa_bot'
bot.registry = { language: LANG }
bot.game = { minY: 0 }
bot.entity = { id: 7, position: new Vec3(0.5, 100, 0.5), metadata: {}, onGround: true }
bot.entities = { 7: bot.entity }
bot.blockAt = () => null
bot.food = 20
const out = []
const t0 = Date.now()
const emit = (ev) => out.push({ ...ev, ms: Date.now() - t0 })
createDeathWatch(bot, { emit, Vec3, hostile: (e) => e.type === 'hostile' })
const arg = (n) => (n.startsWith('entity.') ? { translate: n } : { text: n })
const json = (key, ...names) => ({ translate: key, with: names.map(arg) })
const say = (key, ...names) => bot.emit('message', {
  json: json(key, ...names), toString: () => 'as mineflayer shows it'
})
const packet = (playerId, key, ...names) => bot._client.emit('combat_event', {
  event: 2, playerId, entityId: -1, message: JSON.stringify(json(key, ...names))
})
const mob = (id, name, x) => {
  bot.entities[id] = { id, type: 'hostile', name, position: new Vec3(x, 100, 0.5) }
}
// a drop the server shows as a hurt (entity event 2), unless `shown` is false
const hp = (v, shown = true) => {
  bot.health = v; bot.emit('health'); if (shown) bot.emit('entityHurt', bot.entity)
}
const dies = () => { hp(0); bot.emit('death') }
const print = () => { process.stdout.write(JSON.stringify(out)); process.exit(0) }
setTimeout(print, MESSAGE_WAIT_MS + 300)
hp(20, false) // the first reading: no drop
if (scenario === 'sandbox') { // the message after 'death', another player's between
  mob(9, 'zombie', 1.5)
  hp(14); dies(); bot.emit('respawn')
  say('death.attack.lava', 'alice')
  say('death.attack.mob', 'pepa_bot', 'entity.minecraft.zombie')
} else if (scenario === 'vanilla') { // the message before the health update
  mob(9, 'zombie', 1.5)
  packet(7, 'death.attack.mob', 'pepa_bot', 'entity.minecraft.zombie')
  dies(); bot.emit('respawn')
} else if (scenario === 'silent') { // no message of the bot's own
  dies(); bot.emit('respawn')
  say('death.attack.lava', 'alice')
  packet(8, 'death.attack.lava', 'pepa_bot') // another entity's packet
} else if (scenario === 'magma') { // hurt standing on a block, nothing near
  bot.blockAt = (p) => ({ name: p.y < 100 ? 'magma_block' : 'air' })
  hp(19)
} else if (scenario === 'set') { // the health set lower, no hurt shown: no blow
  hp(3, false)
} else if (scenario === 'bitten') { // a blow survived
  mob(9, 'zombie', 1.5)
  hp(14)
} else if (scenario === 'killed') { // blows, then a kill that shows no hurt (a plugin's)
  mob(9, 'zombie', 1.5)
  hp(15); hp(0, false); bot.emit('death')
} else if (scenario === 'explosion') { // the sandbox: blow, message, explosion packet
  mob(11, 'creeper', 6.5)
  dies()
  say('death.attack.explosion.player', 'pepa_bot', 'entity.minecraft.creeper')
  bot._client.emit('explosion', { x: 4.5, y: 100, z: 0.5 })
}
"""


def watch(scenario: str, *, damage: bool = False) -> list[dict[str, Any]]:
    """The events the watch emits in ``scenario`` (WATCH), with ``ms`` since it began; the
    ``damage`` events only when asked for."""
    events = run_node(WATCH, str(DEATH_CAUSE), scenario)
    return [e for e in events if damage or e["type"] != "damage"]


def test_every_blow_goes_out_with_the_blocks_the_bot_touched() -> None:
    events = watch("magma", damage=True)
    assert [e["type"] for e in events] == ["damage"]
    (blow,) = events
    assert blow["hp"] == 19 and blow["source"]["amount"] == 1
    assert blow["source"]["kind"] == "generic"  # nothing near: the block tells what hurt
    assert blow["source"]["contact"] == {"below": ["magma_block"], "inside": [], "touching": []}


def test_health_set_lower_with_no_hurt_shown_is_no_blow() -> None:
    assert watch("set", damage=True) == []


def test_a_death_keeps_its_blows_and_its_last_drop_and_no_blow_comes_after_it() -> None:
    events = watch("killed", damage=True)
    assert [e["type"] for e in events] == ["death"]  # the blow before it is the death's own
    sources = events[0]["cause"]["sources"]
    assert [(s["kind"], s["amount"]) for s in sources] == [("mob", 5), ("mob", 15)]


def test_a_blow_in_a_fight_survived_goes_out_with_its_mob() -> None:
    (blow,) = watch("bitten", damage=True)
    assert (blow["hp"], blow["source"]["kind"], blow["source"]["by"]) == (14, "mob", "zombie")


def test_the_death_waits_for_its_message_and_the_respawn_waits_for_the_death() -> None:
    events = watch("sandbox")
    assert [e["type"] for e in events] == ["death", "respawn"]
    death = events[0]
    assert death["position"] == {"x": 0.5, "y": 100, "z": 0.5}
    assert death["ms"] < 1000  # on the message, not after the whole wait
    cause = death["cause"]
    assert cause["key"] == "death.attack.mob"
    assert cause["args"] == ["pepa_bot", "zombie"]  # alice's lava death was not the bot's
    assert cause["text"] == "as mineflayer shows it"
    assert cause["killer"] == "zombie"
    assert [(s["kind"], s["by"], s["amount"]) for s in cause["sources"]] == [
        ("mob", "zombie", 6),
        ("mob", "zombie", 14),
    ]


def test_a_message_before_the_death_is_the_deaths_as_vanilla_sends_it() -> None:
    events = watch("vanilla")
    assert [e["type"] for e in events] == ["death", "respawn"]
    assert events[0]["ms"] < 1000
    assert events[0]["cause"]["key"] == "death.attack.mob"
    assert events[0]["cause"]["text"] == "pepa_bot was slain by Zombie"


def test_with_no_message_of_its_own_the_death_goes_out_after_the_wait() -> None:
    events = watch("silent")
    assert [e["type"] for e in events] == ["death", "respawn"]
    assert events[0]["ms"] >= 1500
    cause = events[0]["cause"]
    assert (cause["key"], cause["text"], cause["args"], cause["killer"]) == (None, None, [], None)
    assert [s["kind"] for s in cause["sources"]] == ["generic"]


def test_an_explosion_packet_after_the_blow_still_explains_it() -> None:
    (death,) = watch("explosion")
    assert death["cause"]["sources"][-1]["kind"] == "explosion"
    assert death["cause"]["sources"][-1]["by"] == "creeper"
    assert death["cause"]["killer"] == "creeper"
