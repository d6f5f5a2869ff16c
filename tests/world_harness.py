"""Scenario harness: a real flying-squid world with the scenario plugin, and human stand-ins.

The world is :class:`pepa.worldserver.process.EmbeddedWorld` with its control
channel on: tests drive the server side through ``world.op(...)`` (spawn a
mob, set hp and food, give items, set the time, kill, build walls and pits,
teleport, kick). :class:`Player` is a second mineflayer client — an operator
or a stranger — that chats and reads replies; :class:`HelperBot` drives the bot's
own JS module (bot_helper.js) with no daemon; :func:`own_sandbox` and
:func:`own_daemon` give a module its world (and a ``pepa start`` daemon in it).
Everything waits on events.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from pepa.base.node import compile_cache_env, node_binary, node_modules
from pepa.link.actions import checked
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon
from tests.waiting import eventually

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


@contextmanager
def own_daemon(
    *,
    sandbox: bool = True,
    time: int | None = 6000,
    version: str | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    """A world in a folder of its own and one ``pepa start`` daemon in it (operator alice), for
    a module's fixture; both are stopped and the folder removed afterwards.

    ``sandbox``: the seeded survival sandbox, natural spawning off, the clock stopped at
    ``time`` (None: running); else the plain test world as it starts, at ``version`` (None:
    the embedded world's own). ``env``: more of the daemon's environment.
    """
    root = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))  # short: AF_UNIX paths
    if sandbox:
        world = EmbeddedWorld(
            root / "world", port=free_port(), control=True, sandbox=True, seed=SANDBOX_SEED
        ).start()
        world.op("spawning", on=False)
        if time is not None:
            world.op("set_time", time=time, cycle=False)
    else:
        at = {"version": version} if version else {}
        world = EmbeddedWorld(root / "world", port=free_port(), control=True, **at).start()
    daemon = Daemon(root, "--operators", "alice", host="127.0.0.1", port=world.port, env=env)
    try:
        daemon.in_world()
        yield world, daemon
    finally:
        daemon.close()
        world.stop()
        shutil.rmtree(root, ignore_errors=True)


class Player:
    """A scripted Minecraft client (tests/js/operator.js) in its own Node process."""

    def __init__(
        self, world: EmbeddedWorld, username: str, *, script: Path = OPERATOR_JS,
        version: str | None = None,
    ) -> None:  # fmt: skip
        self.username = username
        protocol = [version] if version else []  # the script's own default: 1.16.5
        # the client's stderr, shown when it ends unexpectedly (beside the world's folder)
        with tempfile.NamedTemporaryFile(
            dir=world.world_dir.parent, prefix=f"player-{username}-", suffix=".err", delete=False
        ) as stderr:
            self.stderr_path = Path(stderr.name)
            self.proc = subprocess.Popen(
                [
                    str(node_binary()),
                    str(script),
                    "127.0.0.1",
                    str(world.port),
                    username,
                    *protocol,
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env={
                    "PEPA_NODE_MODULES": str(node_modules()),
                    "PATH": "/usr/bin:/bin",
                    **compile_cache_env(),
                },
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

    def since(self, start: int) -> list[dict[str, Any]]:
        """The events from index ``start`` (a :meth:`mark`) on, as they stand now."""
        with self._cond:
            return self.events[start:]

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


# --- the bot's own JS module, driven directly, and the blocks around it -------------------

HELPER_JS = Path(__file__).parent / "js" / "helper_bot.js"
SOLID_NOT = ("air", "cave_air", "void_air", "water", "lava", "torch")
SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))
HELPER = "smelter_bot"
"""The helper bot's name in the modules that drive bot_helper.js directly."""


class HelperBot(Player):
    """bot_helper.js in its own node process (tests/js/helper_bot.js)."""

    def __init__(self, world: EmbeddedWorld, username: str) -> None:
        self._ids = 0
        super().__init__(world, username, script=HELPER_JS)
        self.started(lambda: self.wait_for(lambda e: e["type"] == "ready", timeout=30))

    def _ask(self, op: str, **fields: Any) -> Any:
        self._ids += 1
        ask, mark = self._ids, self.mark()
        self._send({"id": ask, "op": op, **fields})
        return self.wait_for(lambda e: e["type"] == op and e["id"] == ask, 10, mark)["value"]

    def snapshot(self) -> dict[str, Any]:
        return dict(self._ask("snapshot"))

    def digging(self) -> bool:
        """Whether the bot is digging a block now (mineflayer's ``bot.targetDigBlock``)."""
        return bool(self._ask("digging"))

    def block(self, x: int, y: int, z: int) -> str | None:
        """The block at a cell as the bot's client knows it (None: its chunk is not loaded)."""
        value = self._ask("block", x=x, y=y, z=z)
        return str(value) if value else None

    def sees(self, cells: Iterable[tuple[int, int, int]], name: str, timeout: float = 20.0) -> None:
        """Wait until the bot's client knows ``name`` at every cell: a block the world's op set
        reaches the client on its own socket, after the op has returned (an action started at
        once searched a world without it)."""
        cells = list(cells)
        eventually(
            lambda: all(self.block(*c) == name for c in cells), timeout, f"the bot sees {name}"
        )

    def toss(self, name: str) -> None:
        """Throw a stack of ``name`` from the inventory on the ground, as a player's Q does."""
        done = self._ask("toss", name=name)
        assert done is True, f"{self.username} could not toss {name}: {done}"

    def use(self, x: float, y: float, z: float) -> None:
        """Look at a point, then use the held item (use_item, mineflayer's ``activateItem``)."""
        done = self._ask("use", x=x, y=y, z=z)
        assert done is True, f"{self.username} could not use its item: {done}"

    def click(self, x: int, y: int, z: int, face: tuple[int, int, int], *, use: bool) -> None:
        """Click on a face of the block at a cell with the held item (block_place, mineflayer's
        ``activateBlock``); ``use``: then use_item at once, as a vanilla client sends both."""
        done = self._ask("click", x=x, y=y, z=z, face=list(face), use=use)
        assert done is True, f"{self.username} could not click the block: {done}"

    def place(self, item: str, x: int, y: int, z: int, face: tuple[int, int, int]) -> str | bool:
        """Hold ``item`` and place it against a face of the block at a cell (mineflayer's
        ``placeBlock``, which looks at that face first): True, or the client's error."""
        done = self._ask("place", item=item, x=x, y=y, z=z, face=list(face))
        return True if done is True else str(done)

    def state(self, x: int, y: int, z: int) -> dict[str, Any] | None:
        """The properties of the block's state at a cell as the bot's client knows them (None:
        its chunk is not loaded)."""
        value = self._ask("state", x=x, y=y, z=z)
        return dict(value) if value is not None else None

    def dig(self, x: int, y: int, z: int, item: str | None = None) -> None:
        """Dig the block at a cell (mineflayer's ``dig``), holding ``item`` first if named."""
        done = self._ask("dig", x=x, y=y, z=z, **({"item": item} if item else {}))
        assert done is True, f"{self.username} could not dig {x} {y} {z}: {done}"

    def walk(self, x: float, z: float, ms: int) -> dict[str, float]:
        """Look level toward (x, z) and hold forward until the feet are within 0.2 of it or
        ``ms`` have passed (the client's own physics: what stops it, stops it); where the feet
        ended."""
        self._ids += 1
        ask, mark = self._ids, self.mark()
        self._send({"id": ask, "op": "walk", "x": x, "z": z, "ms": ms})
        event = self.wait_for(
            lambda e: e["type"] == "walk" and e["id"] == ask, ms / 1000 + 10, mark
        )
        return dict(event["value"])

    def interact(self, entity: int) -> None:
        """Right-click an entity with the held item (use_entity: ``activateEntity``)."""
        done = self._ask("interact", entity=entity)
        assert done is True, f"{self.username} could not click entity {entity}: {done}"

    def watch(self) -> None:
        """From now on an event ``{"type": "seen", "entity": {...}}`` for every entity the
        bot's client is told of, whatever bot_helper.js makes of it."""
        self._ask("watch")

    def goal(self) -> dict[str, Any] | None:
        """The pathfinder's goal now: ``{"name": its class, "pos": its block or None}``."""
        value = self._ask("goal")
        return dict(value) if value else None

    def think(self, ms: int) -> None:
        """Set the pathfinder's time limit for one search (``thinkTimeout``)."""
        self._send({"op": "think", "ms": ms})

    def start(self, action: str, **args: Any) -> tuple[str, int]:
        """Start a catalogue action (:mod:`pepa.link.actions`, its arguments checked and sent as
        the link sends them) without waiting for it: its id and mark, for :meth:`finished`."""
        row, values = checked(action, args, instant=False)
        self._ids += 1
        action_id, mark = str(self._ids), self.mark()
        self._send({"id": action_id, "op": row.js, "args": row.to_js(values)})
        return action_id, mark

    def call(self, action: str, **args: Any) -> None:
        """Make an instant catalogue call (``stop``) without waiting for its answer."""
        row, values = checked(action, args, instant=True)
        self._send({"op": row.js, "args": row.to_js(values)})

    def finished(self, started: tuple[str, int], timeout: float) -> dict[str, Any]:
        """The ``actionDone`` event of an action :meth:`start` began."""
        action, mark = started
        return self.wait_for(
            lambda e: e["type"] == "actionDone" and e.get("id") == action, timeout, mark
        )

    def act(self, action: str, *, timeout: float = 60.0, **args: Any) -> dict[str, Any]:
        """Run one catalogue action to its end: its ``actionDone`` event."""
        return self.finished(self.start(action, **args), timeout)


def give(world: EmbeddedWorld, helper: HelperBot, kit: dict[str, int]) -> None:
    """Exactly ``kit`` in the helper bot's inventory, once its client knows."""
    world.op("clear_inventory", player=helper.username)
    for item, count in kit.items():
        world.op("give", player=helper.username, item=item, count=count)
    eventually(lambda: helper.snapshot()["inventory"]["counts"] == kit, 20, "the kit held")


def feet(world: EmbeddedWorld, name: str) -> tuple[int, int, int]:
    player = server_player(world, name)
    assert player is not None, f"{name} is not on the server"
    return tuple(math.floor(player["position"][k]) for k in "xyz")  # type: ignore[return-value]


def block(world: EmbeddedWorld, x: int, y: int, z: int) -> str:
    return str(world.op("block_at", x=x, y=y, z=z)["name"])


def solid(world: EmbeddedWorld, x: int, y: int, z: int) -> bool:
    return block(world, x, y, z) not in SOLID_NOT


def closed_in(world: EmbeddedWorld, spot: tuple[int, int, int]) -> bool:
    """Every side at feet and head level and the block above the head solid, on the server."""
    x, y, z = spot
    cells = [(x + dx, y + dy, z + dz) for dx, dz in SIDES for dy in (0, 1)] + [(x, y + 2, z)]
    return all(solid(world, *cell) for cell in cells)


CRAFTER_JS = Path(__file__).resolve().parent / "js" / "crafter.js"
CRAFTER = "crafty"
"""The crafter's name."""


class Crafter(Player):
    """A survival player (tests/js/crafter.js): crafts, digs and places through mineflayer."""

    def __init__(self, world: EmbeddedWorld, username: str = CRAFTER) -> None:
        self._ids = 0
        super().__init__(world, username, script=CRAFTER_JS)  # waits for the spawn
        self.spawned_at = self.wait_for(lambda e: e["type"] == "spawn", timeout=30)["position"]
        # crafter.js says `ready` once the server has ended the login
        self.started(lambda: self.wait_for(lambda e: e["type"] == "ready", timeout=30))

    def do(self, op: str, /, timeout: float = 30.0, **args: Any) -> Any:
        """Run one crafter operation; its result, or AssertionError with the client's error."""
        self._ids += 1
        request = self._ids
        mark = self.mark()
        self._send({**args, "id": request, "op": op})
        done = self.wait_for(
            lambda e: e["type"] == "done" and e.get("id") == request, timeout, start=mark
        )
        if not done["ok"]:
            raise AssertionError(f"{op} {args}: {done['error']}")
        return done["result"]

    def has(self, name: str, total: int, *, start: int = 0, timeout: float = 20.0) -> None:
        """Wait until the server has told the client it holds ``total`` of ``name``."""
        self.wait_for(
            lambda e: e["type"] == "slot" and e["name"] == name and e["total"] == total,
            timeout,
            start,
        )

    def count(self, name: str) -> int:
        return sum(it["count"] for it in self.do("inventory") if it["name"] == name)


def free_spot(world: EmbeddedWorld, crafter: Crafter) -> tuple[int, int, int]:
    """A block of air on grass next to the player, within reach, to put a table in."""
    x, y, z = (math.floor(crafter.spawned_at[k]) for k in ("x", "y", "z"))
    # the player stands on the corner of a 2x2 patch of columns x-1..x, z-1..z
    for sx, sz in ((x + 1, z), (x + 1, z - 1), (x - 2, z), (x - 2, z - 1), (x, z + 1), (x, z - 2)):
        names = [world.op("block_at", x=sx, y=sy, z=sz)["name"] for sy in (y - 1, y, y + 1)]
        if names == ["grass_block", "air", "air"]:
            return sx, y, sz
    raise AssertionError("no free spot beside the spawn")


def zombies(world: EmbeddedWorld) -> list[dict[str, Any]]:
    return list(world.op("entities", name="zombie"))


def zombie_health(world: EmbeddedWorld, ids: list[int]) -> dict[int, float]:
    """The health of each of these zombies still in the world; a dead or removed one is
    missing (never counted as hit, nor as spared)."""
    return {z["id"]: z["health"] for z in zombies(world) if z["id"] in ids}


def zombie_hit(world: EmbeddedWorld, zombie: int) -> bool:
    """This zombie is in the world and has lost health (one gone was never seen hit)."""
    return zombie_health(world, [zombie]).get(zombie, 20) < 20
