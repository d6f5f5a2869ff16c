"""The fight figures are written twice, once a language: ``pepa/game/items.py`` and ``mobs.py``
for the Python side, ``pepa/game/js/items.js`` and ``mobs.js`` for the JS (the world server's
damage, the bot's swings, cover and death causes). The two give the same numbers (the JS read
through node, no server)."""

from __future__ import annotations

import json
from pathlib import Path

from pepa.game import items, mobs
from pepa.link.minecraft import BOT_JS
from tests.js import run_node

ITEMS_JS = Path(items.__file__).parent / "js" / "items.js"

DUMP = r"""
const items = require(process.argv[1])
const names = JSON.parse(process.argv[2])
const pieces = {}
for (const name of names) {
  const i = items.PIECES.findIndex((kind) => name.endsWith('_' + kind))
  const piece = i < 0 ? null : items.armourPiece({ name }, i)
  pieces[name] = piece && piece.defense
}
process.stdout.write(JSON.stringify({ weapons: items.WEAPONS, fist: items.FIST, pieces }))
"""


def test_the_python_and_the_js_tables_give_the_same_figures() -> None:
    js = run_node(DUMP, str(ITEMS_JS), json.dumps(sorted(items.ARMOUR_POINTS)))
    assert {name: js["weapons"][name][0] for name in items.ATTACK_DAMAGE} == items.ATTACK_DAMAGE
    assert js["fist"][0] == items.FIST
    assert js["pieces"] == items.ARMOUR_POINTS


def test_the_bot_recharges_by_the_shared_attack_speeds() -> None:
    """melee.js takes its swords' and axes' speeds from items.js (an axe's 0.8: 25 ticks)."""
    out = run_node(
        "const m = require(process.argv[1]); process.stdout.write(JSON.stringify("
        "['wooden_axe', 'iron_axe', 'iron_sword', 'stick'].map(m.rechargeMs)))",
        str(BOT_JS / "melee.js"),
    )
    # the ticks of 50 ms rechargeMs counts at speeds 0.8, 0.9 and 1.6, and the fist's 4
    assert out == [1200, 1050, 600, 300]


MOBS_JS = Path(items.__file__).parent / "js" / "mobs.js"


def test_the_python_and_the_js_mob_tables_agree() -> None:
    """Which hostiles attack from afar, and with what: once a language (pepa/game/mobs.py and
    pepa/game/js/mobs.js); the bot's cover, guard and death causes read the JS one."""
    js = run_node(
        "const m = require(process.argv[1]); process.stdout.write(JSON.stringify({ranged: "
        "m.RANGED, arrows: [...m.rangedWith('bow', 'crossbow')], bows: [...m.rangedWith('bow')]}))",
        str(MOBS_JS),
    )
    assert js["ranged"] == dict(mobs.RANGED)
    assert sorted(js["arrows"]) == ["pillager", "skeleton", "stray"]
    assert sorted(js["bows"]) == ["skeleton", "stray"]
