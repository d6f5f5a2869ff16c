"""Probes: scripts that need a JS bridge of their own (one per process), run by the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent


def run_probe(name: str, timeout: float, *args: str) -> dict[str, Any]:
    """Run ``tests/probes/<name>.py`` (with ``args``) in its own process; its last JSON line."""
    result = subprocess.run(
        [sys.executable, str(HERE / f"{name}.py"), *args], capture_output=True, text=True,
        timeout=timeout, cwd=HERE.parents[1],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert result.returncode == 0 and lines, result.stdout[-2000:] + result.stderr[-2000:]
    outcome: dict[str, Any] = orjson.loads(lines[-1])
    return outcome
