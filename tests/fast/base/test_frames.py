"""frames.js: a bot's packets read past minecraft-protocol's streams, the same packets out.

``tests/js/frames.js`` gives two clients of mineflayer's minecraft-protocol the same bytes, as a
server sends them: one reads through its streams (the stock reading), the other with
``readDirect`` (no decompressor or deserializer stream). The bytes start in the login state,
where a packet switches compression on and the next switches to play (to configuration first
from 1.20.2; the client's own handlers switch, in mid-chunk), then come play packets of many
kinds, small and compressed, with frames that do not parse or inflate among them. Both clients
must emit the same packet events in the same order:

- ``check``: the bytes written into each client's splitter in chunks of random sizes;
- ``socket``: sent by a TCP server on loopback, the direct client connected by
  ``directConnect`` (its socket read with ``onread``, no stream);
- ``encrypted``: the same, both connections encrypted as online servers encrypt them.

Tried: a direct reader that kept the deserializer it started with reads 2 packets; a socket
read that is not copied out of the reused buffer reads 335 and then a broken length; reads of
an encrypted connection not sent through the decipher, a broken length. The speed is in
``bench/packet_read.py``.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from tests.js import run_script

pytestmark = pytest.mark.timeout(120)


@functools.cache
def reports(version: str) -> dict[str, Any]:
    """The three checks' reports at ``version``, from one run of the script."""
    return run_script("frames.js", "all", version, 1, timeout=110)


@pytest.mark.parametrize("version", ["1.8.8", "1.16.5", "1.21.4"])
@pytest.mark.parametrize("mode", ["check", "socket", "encrypted"])
def test_direct_reading_emits_what_the_streams_emit(mode: str, version: str) -> None:
    report = reports(version)[mode]
    assert report["same"], report["first_difference"]
    assert report["packets"] == report["direct_packets"] == report["sent"]  # the bad ones dropped
    names = set(report["names"])
    assert {"login.compress", "login.success", "play.rel_entity_move", "play.entity_look"} <= names
    assert names & {"play.chat", "play.system_chat"}  # a compressed one
    assert report["errors"] == report["direct_errors"]
