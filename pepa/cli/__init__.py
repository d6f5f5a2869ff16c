"""The ``pepa`` command: its subcommands (:mod:`.commands`), their arguments (:mod:`.parser`),
``status`` and ``tui`` (:mod:`.status`) and ``pepa propose`` (:mod:`.propose`)."""

from __future__ import annotations

from pepa.cli.commands import main

__all__ = ["main"]
