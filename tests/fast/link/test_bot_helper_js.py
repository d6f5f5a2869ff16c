"""bot_helper.js without a server: a world packet before the login never ends the bridge."""

from __future__ import annotations

import pytest

from pepa.link.minecraft import BOT_JS
from pepa.worldserver.process import free_port
from tests.js import run_node

pytestmark = pytest.mark.timeout(90)

EARLY_PACKET = r"""
const { createBot } = require(process.argv[1])
const api = createBot({ host: '127.0.0.1', port: Number(process.argv[2]), username: 'early',
  version: '1.16.5' }, () => {})
const bot = api.bot
// after the plugins are in (they are injected once the version is known, on a later turn)
setTimeout(() => {
  const injected = typeof bot.blockAt === 'function' && bot.world === undefined
  // flying-squid sends other players' dig animations to a player still logging in
  bot._client.emit('block_break_animation', { location: { x: 1, y: 64, z: 1 }, entityId: 9,
    destroyStage: 3 })
  const block = bot.blockAt({ x: 1, y: 64, z: 1 })
  // as minecraft-protocol emits a play packet: an entity status for a player not in yet
  const meta = { state: 'play', name: 'entity_status' }
  let heard = false
  bot._client.on('entity_status', () => { heard = true })
  for (const name of ['packet', 'entity_status']) {
    bot._client.emit(name, { entityId: 9, entityStatus: 9 }, meta)
  }
  process.stdout.write(JSON.stringify({ injected, survived: true, block, heard }))
  process.exit(0)
}, 200)
"""


def test_a_dig_animation_before_the_login_is_ignored_not_a_crash() -> None:
    # nothing listens on the port: the bot never logs in, its plugins are in all the same
    out = run_node(EARLY_PACKET, str(BOT_JS / "bot_helper.js"), str(free_port()))
    assert out == {"injected": True, "survived": True, "block": None, "heard": False}
