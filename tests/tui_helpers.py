"""Shared pieces of the dashboard tests: a terminal on a StringIO, snapshots, key feeding,
and :class:`Tmux`, a real terminal for ``pepa tui`` (tests/integration/tui/test_tui_terminal.py,
the fleet's)."""

from __future__ import annotations

import io
import os
import secrets
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from blessed import Terminal

from pepa.ipc.protocol import Command
from tui import Connected, Input, Key, State, reduce, render

TERM = Terminal(kind="xterm-256color", stream=io.StringIO(), force_styling=True)

ACTORS = [
    "knowledge", "ipc", "brain", "perception", "reflex", "watchdog", "curriculum", "coach",
    "persona",
]  # fmt: skip


def snapshot(**changes: Any) -> dict[str, Any]:
    """A snapshot like the daemon's (docs/ipc.md)."""
    snap: dict[str, Any] = {
        "connected": True,
        "server": "127.0.0.1:25565",
        "username": "pepa_bot",
        "hp": 20,
        "food": 20,
        "position": {"x": 9.0, "y": 5.0, "z": -3.5},
        "dimension": "overworld",
        "timeOfDay": 1000,
        "threats": [],
        "inventory": {"items": {"bread": 3}, "emptySlots": 35},
        "deaths": 0,
        "activeReflex": None,
        "currentSkill": None,
        "paused": False,
        "actors": [
            {"name": n, "state": "running", "restarts": 0, "reason": "", "supervisor": "root"}
            for n in ACTORS
        ],
        "pendingProposals": 0,
        "proposals": [],
        "uptime": 65.0,
    }
    snap.update(changes)
    return snap


def log(text: str, level: str = "info", source: str = "perception", ts: float = 1.0) -> dict:
    return {"type": "log", "ts": ts, "level": level, "source": source, "text": text}


def feed(state: State, *inputs: Input) -> tuple[State, list[Command]]:
    """Apply ``inputs`` in order; return the final state and every command asked for."""
    commands: list[Command] = []
    for item in inputs:
        state, out = reduce(state, item)
        commands.extend(out)
    return state, commands


def keys(text: str) -> Iterator[Key]:
    """One :class:`Key` per character, as typed."""
    return (Key(char=ch) for ch in text)


ENTER = Key(char="\r", name="KEY_ENTER")
ESC = Key(char="\x1b", name="KEY_ESCAPE")
BACKSPACE = Key(char="\x7f", name="KEY_BACKSPACE")


def connected(**changes: Any) -> State:
    """A dashboard connected to a daemon that sent ``snapshot(**changes)``."""
    state, _ = feed(
        State(),
        {"type": "hello", "snapshot": snapshot(**changes), "recentLogs": [log("in the world")]},
        Connected(path="/tmp/s/bot.sock", ts=2.0),
    )
    return state


def screen(state: State, width: int = 120, height: int = 40) -> str:
    """The rendered screen as plain text."""
    return "\n".join(TERM.strip_seqs(line) for line in render(state, width, height, TERM))


DEADLINE = 20.0
"""Seconds a tmux pane gets to show what a test waits for."""


class Tmux:
    """A tmux server of our own (``-L pepa-test-<random>``, no user config)."""

    def __init__(self, cwd: Path) -> None:
        self.name = f"pepa-test-{secrets.token_hex(4)}"
        self.cwd = cwd

    def __call__(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return result.stdout

    def dashboard(self, session: str, socket: Path, width: int, height: int) -> Path:
        """Start ``pepa tui --socket SOCKET`` in a new session; return its stderr's file."""
        return self.pepa_tui(session, ["--socket", str(socket)], width, height)

    def pepa_tui(self, session: str, args: Sequence[str], width: int, height: int) -> Path:
        """Start ``pepa tui ARGS`` in a new session; return the file its stderr goes to."""
        errors = self.cwd / f"{session}.err"
        words = " ".join(shlex.quote(arg) for arg in args)
        command = f"{sys.executable} -m pepa tui {words} 2>{errors}; echo EXIT:$?; sleep 600"
        self("new-session", "-d", "-s", session, "-x", str(width), "-y", str(height),
             "-c", str(self.cwd), command)  # fmt: skip
        return errors

    def keys(self, session: str, *keys: str, literal: bool = False) -> None:
        self("send-keys", "-t", session, *(["-l"] if literal else []), *keys)

    def screen(self, session: str) -> str:
        return self("capture-pane", "-p", "-t", session)

    def wait_for(
        self, session: str, check: str | Callable[[str], bool], timeout: float = DEADLINE
    ) -> str:
        """Poll the pane until it contains ``check`` (or satisfies it); return the screen."""
        predicate = (lambda text: check in text) if isinstance(check, str) else check
        deadline = time.monotonic() + timeout
        tick = threading.Event()
        while True:
            text = self.screen(session)
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"the pane never showed {check!r}; it shows:\n{text}")
            tick.wait(0.1)

    def kill(self) -> None:
        """Kill our server (never another) and remove its socket file."""
        subprocess.run(
            ["tmux", "-L", self.name, "kill-server"], capture_output=True, timeout=10, check=False
        )
        folder = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (folder / self.name).unlink(missing_ok=True)
