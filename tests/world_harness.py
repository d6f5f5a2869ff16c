"""Scenario harness: a real flying-squid world with the test plugin, and human stand-ins.

The world is :class:`pepa.world.embedded.EmbeddedWorld` with its control
channel on: tests drive the server side through ``world.op(...)`` (spawn a
mob, set hp and food, give items, set the time, kill, build walls and pits,
teleport, kick). :class:`Player` is a second mineflayer client — an operator
or a stranger — that chats and reads replies. Everything waits on events.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from pepa.world.embedded import EmbeddedWorld, free_port
from pepa.world.node import node_binary, node_modules

OPERATOR_JS = Path(__file__).resolve().parent / "js" / "operator.js"
SANDBOX_SEED = 20261130
"""The seed of the tests' sandbox worlds (its spawn: (0, 70, 0), an oak 13 blocks away)."""


@contextmanager
def own_sandbox(*, time: int | None = None, remove_mobs: bool = False) -> Iterator[EmbeddedWorld]:
    """A seeded sandbox world in a folder of its own, for a module's fixture.

    Natural spawning is off; ``time``: the clock stopped at that time of day;
    ``remove_mobs``: the animals placed at the first join are gone too. The
    world is stopped and its folder removed afterwards.
    """
    folder = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))
    world = EmbeddedWorld(
        folder / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED
    ).start()
    try:
        world.op("spawning", on=False)
        if remove_mobs:
            world.op("remove_mobs")
        if time is not None:
            world.op("set_time", time=time, cycle=False)
        yield world
    finally:
        world.stop()
        shutil.rmtree(folder, ignore_errors=True)


class Player:
    """A scripted Minecraft client (tests/js/operator.js) in its own Node process."""

    def __init__(self, world: EmbeddedWorld, username: str, *, script: Path = OPERATOR_JS) -> None:
        self.username = username
        # the client's stderr, shown when it ends unexpectedly (beside the world's folder)
        with tempfile.NamedTemporaryFile(
            dir=world.world_dir.parent, prefix=f"player-{username}-", suffix=".err", delete=False
        ) as stderr:
            self.stderr_path = Path(stderr.name)
            self.proc = subprocess.Popen(
                [str(node_binary()), str(script), "127.0.0.1", str(world.port), username],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env={"PEPA_NODE_MODULES": str(node_modules()), "PATH": "/usr/bin:/bin"},
            )
        self.events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, name=f"player-{username}", daemon=True)
        self._reader.start()
        self.started(lambda: self.wait_for(lambda e: e["type"] == "spawn", timeout=30))

    def started(self, wait: Callable[[], object]) -> None:
        """Run ``wait``; if it fails, end the client before raising (no process left behind)."""
        try:
            wait()
        except BaseException:
            self.close()
            raise

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            with self._cond:
                self.events.append(event)
                self._cond.notify_all()
        with self._cond:
            self.events.append({"type": "eof"})
            self._cond.notify_all()

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 20.0, start: int = 0
    ) -> dict[str, Any]:
        """The first event at or after index ``start`` matching ``predicate``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events[start:]:
                    if predicate(event):
                        return event
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"{self.username}: no matching event; last: {self.events[-10:]}"
                        + self._ended()
                    )
                self._cond.wait(remaining)

    def _ended(self) -> str:
        """How the client ended (exit code and the end of its stderr), if it has."""
        if not self.events or self.events[-1]["type"] != "eof":
            return ""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        try:
            tail = self.stderr_path.read_bytes()[-2000:].decode(errors="replace")
        except OSError as exc:
            tail = f"(cannot read {self.stderr_path}: {exc})"
        return f"\nthe client ended (exit code {code}); its stderr ends:\n{tail}"

    def mark(self) -> int:
        """An index to pass as ``start`` so that only later events count."""
        with self._cond:
            return len(self.events)

    def say(self, text: str) -> None:
        """Type ``text`` in chat."""
        self._send({"op": "chat", "text": text})

    def reply_from(self, bot: str, contains: str, *, start: int, timeout: float = 20.0) -> str:
        """Wait for a chat line from ``bot`` containing ``contains``; return its text."""
        event = self.wait_for(
            lambda e: (
                e["type"] == "chat" and e.get("from") == bot and contains in e.get("text", "")
            ),
            timeout,
            start,
        )
        return str(event["text"])

    def _send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(orjson.dumps(command) + b"\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._send({"op": "quit"})
                self.proc.stdin.close()  # type: ignore[union-attr]
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        else:
            self.proc.wait()
        self._reader.join(10)
        for pipe in (self.proc.stdin, self.proc.stdout):  # also when the client had ended
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass  # a quit that could not be flushed to a client gone meanwhile


def server_player(world: EmbeddedWorld, name: str) -> dict[str, Any] | None:
    """The server's view of player ``name`` (position, health, food), or None."""
    for player in world.op("players"):
        if player["username"] == name:
            return dict(player)
    return None


def teleport(world: EmbeddedWorld, who: str | Player, x: float, y: float, z: float) -> None:
    """Move a player and wait until it is there.

    For a :class:`Player` the client itself must report the move (one that
    joined a moment ago may still drop a teleport while it loads), and then
    the server must have taken the client's next position: only then have
    the other players been told where it is. Repeated, bounded.
    """
    target = {"x": x, "y": y, "z": z}
    name = who.username if isinstance(who, Player) else who
    pause = threading.Event()
    for _ in range(20):
        mark = who.mark() if isinstance(who, Player) else 0
        world.op("teleport", player=name, **target)
        if isinstance(who, Player):
            try:
                who.wait_for(
                    lambda e: e["type"] == "moved" and distance(e["position"], target) < 1.0,
                    timeout=1.0,
                    start=mark,
                )
            except AssertionError:
                continue
        for _ in range(5):
            pause.wait(0.1)
            now = server_player(world, name)
            if now is not None and distance(now["position"], target) < 1.0:
                return
    raise AssertionError(f"{name} never arrived at {target}")


def wait_near(world: EmbeddedWorld, a: str, b: str, blocks: float, timeout: float = 30.0) -> None:
    """Wait until players ``a`` and ``b`` stand within ``blocks`` of each other."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while time.monotonic() < deadline:
        pa, pb = server_player(world, a), server_player(world, b)
        if pa and pb and distance(pa["position"], pb["position"]) <= blocks:
            return
        pause.wait(0.2)
    raise AssertionError(f"{a} never came within {blocks} blocks of {b}")


def distance(a: dict[str, float], b: dict[str, float]) -> float:
    return math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"]))
