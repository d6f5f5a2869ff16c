"""Probe, in its own process (one JS bridge per process): does a danger area bend a walk?

Prints one JSON line: {"ok": bool, "max_dz": float} for a walk of 10 blocks
along x with a danger area of radius 2.5 centred on the straight line.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from pepa.link.bridge import shutdown_bridge
from pepa.link.minecraft import LinkSettings, MinecraftLink
from pepa.worldserver.process import EmbeddedWorld, free_port


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="pepa-probe-"))
    world = EmbeddedWorld(root / "world", port=free_port(), control=True).start()
    done = threading.Event()
    finished: list[dict[str, Any]] = []

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "actionDone":
            finished.append(event)
            done.set()

    link = MinecraftLink(
        LinkSettings(host="127.0.0.1", port=world.port, username="probe_bot", server_dir=root),
        on_event=on_event,
        on_bridge_dead=lambda reason: done.set(),
    )
    try:
        link.start()
        assert link.wait_connected(30), "no spawn"
        start = link.snapshot()["position"]  # type: ignore[index]
        link.call("set_danger", areas=[(start["x"] + 5, start["z"], 2.5)])
        link.act("goto", x=start["x"] + 10, y=start["y"], z=start["z"], reach=1.0)
        max_dz = 0.0
        deadline = time.monotonic() + 30
        while not done.wait(0.05) and time.monotonic() < deadline:
            here = link.snapshot()
            if here and here.get("position"):
                max_dz = max(max_dz, abs(here["position"]["z"] - start["z"]))
        ok = bool(finished and finished[0].get("ok"))
        sys.stdout.write(orjson.dumps({"ok": ok, "max_dz": max_dz}).decode() + "\n")
    finally:
        link.close()
        shutdown_bridge()
        world.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
