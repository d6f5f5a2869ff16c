"""A Minecraft link's chat end that records what an actor says (for persona tests)."""

from __future__ import annotations

import threading
from typing import Any

from pepa.link.actions import checked

__all__ = ["ChatLink"]


class ChatLink:
    """Connected, on 1.16.5; a ``chat`` call (checked against the catalogue, as the real link
    checks it) records each line it is handed. The persona makes no other call."""

    def __init__(self) -> None:
        self.connected = True
        self.version = "1.16.5"
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def call(self, action: str, /, **args: Any) -> bool:
        _, values = checked(action, args, instant=True)
        assert action == "chat", f"the persona called {action}"
        with self._lock:
            self.lines.append(values["text"])
        return True
