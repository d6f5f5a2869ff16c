"""Probe, in its own process (one JS bridge per process): a createBot call that times out on
a busy machine is retried, not taken for a dead bridge, and the bot it made anyway is replaced.

The first createBot really runs in the bridge (its bot starts joining) and then fails here as
JSPyBridge's timeout does. With the argument ``crossed``, the link's first handle on
bot_helper.js is instead what a crossed answer gave a fleet worker: a list, on
which every createBot fails; the link must load the module again. Prints one JSON line:
{"joined": bool, "dead": [...], "connects": int, "players": int, "still": bool, "loads": int}.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import orjson

from pepa.link.bridge import shutdown_bridge
from pepa.link.minecraft import LinkSettings, MinecraftLink
from pepa.worldserver.process import EmbeddedWorld, free_port

NAME = "busy_bot"


class SlowOnce:
    """bot_helper.js, whose first createBot answers too late."""

    def __init__(self, helper: Any) -> None:
        self.helper = helper
        self.calls = 0

    def createBot(self, *args: Any, **kwargs: Any) -> Any:  # the JS name
        self.calls += 1
        api = self.helper.createBot(*args, **kwargs)
        if self.calls == 1:
            raise Exception("Execution timed out")  # what JSPyBridge raises
        return api


class BusyLink(MinecraftLink):
    loads = 0

    @staticmethod
    def _load_helper() -> Any:
        BusyLink.loads += 1
        return SlowOnce(MinecraftLink._load_helper())


class CrossedLink(MinecraftLink):
    loads = 0

    @staticmethod
    def _load_helper() -> Any:
        CrossedLink.loads += 1
        helper = MinecraftLink._load_helper()  # the bridge starts and loads the module
        if CrossedLink.loads == 1:
            return [[12], None]  # but the answer was another call's (JS's arguments to a request)
        return helper


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="pepa-probe-"))
    world = EmbeddedWorld(root / "world", port=free_port(), control=True).start()
    dead: list[str] = []
    ended = threading.Event()

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") in ("end", "kicked"):
            ended.set()

    kind = CrossedLink if sys.argv[1:] == ["crossed"] else BusyLink
    link = kind(
        LinkSettings(host="127.0.0.1", port=world.port, username=NAME, server_dir=root),
        on_event=on_event,
        on_bridge_dead=dead.append,
        max_backoff=1.0,
    )
    try:
        link.start()
        joined = link.wait_connected(60)
        # the replaced bot's own end (or a duplicate login's kick) must not reach this link
        quiet = not ended.wait(5.0)
        players = [p for p in world.op("players") if p["username"] == NAME]
        outcome = {
            "joined": joined, "dead": dead, "connects": link.connects,
            "players": len(players), "still": link.connected and quiet, "loads": kind.loads,
        }  # fmt: skip
        sys.stdout.write(orjson.dumps(outcome).decode() + "\n")
    finally:
        link.close()
        shutdown_bridge()
        world.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
