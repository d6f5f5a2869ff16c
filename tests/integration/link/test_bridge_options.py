"""The bridge's Node starts with pepa's options (a young generation for a loaded bridge), added
to the user's own ``NODE_OPTIONS``, which the worker's environment keeps as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pepa.base.node import REPO_ROOT
from pepa.link.bridge import BRIDGE_NODE_OPTIONS

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

PROBE = """
import json, os
from pepa.link import bridge
js = bridge.bridge()
pid = js.connection.proc.pid
with open(f"/proc/{pid}/environ", "rb") as f:
    env = dict(e.split(b"=", 1) for e in f.read().split(b"\\0") if b"=" in e)
seen = {"bridge": env.get(b"NODE_OPTIONS", b"").decode(), "after": os.environ.get("NODE_OPTIONS")}
bridge.shutdown_bridge()
print(json.dumps(seen))
"""


@pytest.mark.parametrize("own", [None, "--no-warnings"])
def test_the_bridge_gets_its_options_and_the_worker_keeps_its_own(own: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NODE_OPTIONS"}
    if own is not None:
        env["NODE_OPTIONS"] = own
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=50,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["bridge"] == (f"{own} {BRIDGE_NODE_OPTIONS}" if own else BRIDGE_NODE_OPTIONS)
    assert seen["after"] == own
