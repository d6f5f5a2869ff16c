"""The ``pepa`` command installed by ``pip install`` (pyproject.toml's console script) runs.

The suite starts daemons with ``python -m pepa``; ``./pepa.sh start`` and a user's ``pepa``
run the console script, so it is run here as installed."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from pepa.cli import main

pytestmark = pytest.mark.timeout(60)


def test_the_console_script_is_pepa_cli_main() -> None:
    (script,) = entry_points(group="console_scripts", name="pepa")
    assert script.load() is main


def test_the_installed_pepa_command_runs_and_lists_its_commands() -> None:
    pepa = Path(sys.executable).with_name("pepa")
    done = subprocess.run(
        [str(pepa), "--help"], capture_output=True, text=True, timeout=50, check=False
    )
    assert done.returncode == 0, done.stderr
    assert all(command in done.stdout for command in ("start", "status", "tui", "world", "fleet"))
