"""Waiting on a condition with a deadline: the one way tests wait (never a bare sleep)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["eventually"]


def eventually(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """Poll ``check`` every 0.1 s until it returns something truthy; return that."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what or check}")
        pause.wait(0.1)
