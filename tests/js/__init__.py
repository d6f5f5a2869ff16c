"""Node scripts the tests run; each prints one JSON object (its report)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson

from pepa.base.node import node_binary, node_modules

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
