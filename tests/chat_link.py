"""A Minecraft link's chat end that records what an actor says (for persona tests)."""

from __future__ import annotations

import threading

__all__ = ["ChatLink"]


class ChatLink:
    """Connected, on 1.16.5; ``chat`` records each line it is handed."""

    def __init__(self) -> None:
        self.connected = True
        self.version = "1.16.5"
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def chat(self, text: str) -> bool:
        with self._lock:
            self.lines.append(text)
        return True
