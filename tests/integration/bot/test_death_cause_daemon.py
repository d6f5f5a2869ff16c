"""A death's cause end to end: the real sandbox's death message, through ``pepa start``, into
the knowledge base, the IPC ``death`` event, the status snapshot, the post-mortem and the diary.

The capture itself (``death_cause.js``) is tested in ``tests/fast/link/test_death_cause.py``; what
Python makes of it, pure, in ``tests/fast/policy/learning/test_death_cause_model.py``.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from pepa.ipc import protocol
from tests.waiting import eventually
from tests.world_harness import feet, own_daemon

BOT = "pepa_bot"


@pytest.mark.integration
@pytest.mark.xdist_group("death_cause_daemon")
@pytest.mark.timeout(180)
def test_a_fall_is_stored_sent_shown_and_written_down_as_a_fall() -> None:
    with own_daemon(time=6000) as (world, daemon), daemon.client() as client:
        x, y, z = feet(world, BOT)
        world.op("teleport", player=BOT, x=x + 0.5, y=y + 40, z=z + 0.5)
        death = client.wait_for("death", timeout=90)
        cause = death["cause"]
        assert (cause["kind"], cause["key"]) == ("fall", "death.fell.accident.generic")
        assert cause["text"] == f"{BOT} fell from a high place"
        assert cause["sources"][-1]["kind"] == "fall" and cause["sources"][-1]["fall"] > 30
        assert death["reason"].startswith("fell ") and death["reason"].endswith(" blocks")

        def learned() -> dict[str, object] | None:
            client.send(protocol.Snapshot())
            status = client.wait_for("status", timeout=30)
            return status if status["learning"]["deaths"] == 1 else None

        status = eventually(learned, 60, "the status to count the death")
        assert status["learning"]["deathsByCause"] == {"fall": 1}
        assert status["lastDeath"] == death["reason"]
        db = daemon.socket.parent / "knowledge.db"
        with closing(sqlite3.connect(db)) as raw:
            kind, stored, hp = raw.execute("select cause_kind, cause, hp from deaths").fetchone()
            (found,) = raw.execute("select cause from postmortems").fetchone()
        assert kind == "fall" and json.loads(stored)["key"] == "death.fell.accident.generic"
        # the bot respawns only once the death is out: the bundle ends with this life, not
        # the next one's full health at the spawn point
        assert hp is not None and hp <= 0
        assert found.startswith(f"{death['reason']} while doing")
        diary = "".join(p.read_text() for p in (daemon.socket.parent / "diary").glob("*.md"))
        assert f": {death['reason']} (the server: {BOT} fell from a high place)" in diary
