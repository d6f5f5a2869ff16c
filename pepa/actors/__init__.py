"""The actors of the bot, one module each; ``tree`` wires them under supervisors."""

from __future__ import annotations

from pepa.actors.coach import Coach
from pepa.actors.ipc import Ipc
from pepa.actors.knowledge import Knowledge
from pepa.actors.perception import Perception
from pepa.actors.persona import Persona
from pepa.actors.reflex import Reflex
from pepa.actors.tree import build_tree
from pepa.actors.watchdog import Watchdog

__all__ = ["Coach", "Ipc", "Knowledge", "Perception", "Persona", "Reflex", "Watchdog", "build_tree"]
