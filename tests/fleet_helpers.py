"""What the fleet tests share: a running fleet's folder, roster and ``pepa`` commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from tests.daemon_harness import Daemon

JOINED = "pepa.actors.perception: in the world at"


def server_root(fleet: Daemon) -> Path:
    return fleet.state / f"127.0.0.1_{fleet.port}"


def roster(fleet: Daemon) -> dict[str, Any]:
    data = orjson.loads((server_root(fleet) / "fleet.json").read_bytes())
    assert isinstance(data, dict)
    return data


def joins(fleet: Daemon, bot: str, start: int = 0) -> int:
    """How many times ``bot`` joined the world since line ``start``."""
    return fleet.count(f"[{bot}] {JOINED}", start=start)


def pepa(fleet: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    """A ``pepa`` command on the fleet's server and state folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    where = ["--state-dir", str(fleet.state), "--port", str(fleet.port), "--host", "127.0.0.1"]
    return subprocess.run(
        [sys.executable, "-m", "pepa", *args, *where],
        cwd=fleet.root, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
