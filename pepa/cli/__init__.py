"""The ``pepa`` command: its subcommands (:mod:`.main`) and ``pepa propose`` (:mod:`.propose`)."""

from __future__ import annotations

from pepa.cli.main import main

__all__ = ["main"]
