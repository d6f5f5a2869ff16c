"""Shared pieces of the dashboard tests: a terminal on a StringIO, snapshots, key feeding."""

from __future__ import annotations

import io
from collections.abc import Iterator
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
