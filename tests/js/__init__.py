"""Node scripts the tests run; each prints one JSON object (its report)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson

from pepa.base.node import node_binary, node_modules
from pepa.worldserver.process import SERVER_JS

HERE = Path(__file__).resolve().parent


def run_script(name: str, *args: object, timeout: float) -> dict[str, Any]:
    """Run ``tests/js/<name>`` with ``args``; its JSON report (a failed run fails the caller)."""
    result = subprocess.run(
        [str(node_binary()), str(HERE / name), *map(str, args)],
        capture_output=True, text=True, timeout=timeout, check=False,
        env={"PEPA_NODE_MODULES": str(node_modules()), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report: dict[str, Any] = orjson.loads(result.stdout)
    return report


def run_node(script: str, *args: str) -> Any:
    """Run an inline node script with the project's modules (``SANDBOX``: the world server's JS
    folder); its stdout as JSON (a failed run fails the caller)."""
    result = subprocess.run(
        [str(node_binary()), "-e", script, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"NODE_PATH": str(node_modules()), "PATH": "/usr/bin:/bin", "SANDBOX": str(SERVER_JS)},
    )
    assert result.returncode == 0, result.stderr
    return orjson.loads(result.stdout)


def find_blocks(version: str, seeds: int, queries: int) -> dict[str, Any]:
    """Run ``find_blocks.js`` (mineflayer's block searches against ``find.js``); its report."""
    return run_script("find_blocks.js", version, seeds, queries, timeout=110)


def path_searches(seeds: int, searches: int, rounds: int, radius: int = 24) -> dict[str, Any]:
    """Run ``path_search.js`` (path searches plain and with ``pathcache.js``); its report."""
    return run_script("path_search.js", seeds, searches, rounds, radius, timeout=170)


def physics_reads(seeds: int, runs: int, rounds: int) -> dict[str, Any]:
    """Run ``physics_reads.js`` (the pathfinder's movement checks, plain and cached)."""
    return run_script("physics_reads.js", seeds, runs, rounds, timeout=170)


def minecraft_data() -> Path:
    """minecraft-data's data folder (from ``npm ci``): what the knowledge base is seeded from."""
    return node_modules() / "minecraft-data" / "minecraft-data" / "data"
