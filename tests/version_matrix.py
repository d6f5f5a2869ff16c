"""The version matrix: at one game version, a fresh flat flying-squid world, one real
``pepa start`` daemon in it and the checks of the issue, each bounded and timed.

Shared by ``tests/integration/link/test_versions.py`` (the short matrix, as assertions) and
``bench/versions.py`` (the whole matrix, as a table). At ``version``:

- ``joins``: the world starts (with the sandbox's crafting plugin loaded into it through the
  scenario plugin's ``load_plugin``), ``pepa start --host`` joins it and the server has the bot;
- ``status``: the operator alice, a real client at the version, says ``pepa_bot status``
  and gets the status line;
- ``come``: alice, teleported 8 blocks off, says ``come``; the bot answers and walks to
  within 3 blocks of her;
- ``fight``: a zombie of the scenario plugin (walks at the nearest player, hits once a second)
  spawned 3 blocks from the bot, alice 40 blocks away: the bot hits it (its health drops);
- ``dig``: three logs (the version's name: ``log`` before 1.13) were set 3 to 5 blocks from
  the bot as it came into the world; its own curriculum, whose plan at that version begins
  with ``3 oak_log (gather.wood)`` and a crafting table, digs them: the blocks are gone;
- ``craft``: the curriculum's next milestones, a crafting table and a wooden pickaxe, are
  crafted from planks of those logs (the sandbox's crafting plugin, loaded into the flat
  world): the server holds planks, a table or the pickaxe;
- ``stop``: alice says ``stop``; the bot answers, leaves the server and the daemon ends.

So the dig and the craft are the daemon's own work at that version: the plan derived from
that version's recipes, the logs its wood, the crafts its recipe book's.
Every check runs even when another failed, unless it cannot (no bot, no operator): then it
is ``n/a``. Nothing here sleeps for a fixed time: every wait is on an event, with a timeout.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pepa.base.node import WorldError
from pepa.game.versions import PLAYED
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import (
    Player,
    block,
    feet,
    server_player,
    teleport,
    wait_near,
    zombie_hit,
)

__all__ = [
    "BOT",
    "CHECKS",
    "HEADINGS",
    "MATRIX",
    "OLDER",
    "QUICK",
    "Outcome",
    "markdown_table",
    "run_version",
]

logger = logging.getLogger(__name__)

BOT = "pepa_bot"
OPERATOR = "alice"
MATRIX: tuple[str, ...] = PLAYED
"""Every version both mineflayer 4.39 and flying-squid 1.12 support, from 1.12.2."""
OLDER = ("1.8.8", "1.9.4", "1.10.2", "1.11.2")
"""Versions both support too, older than the project's oldest (1.12.2): outside the matrix,
``bench/versions.py --versions`` still runs them."""
QUICK = (MATRIX[0], "1.16.5", MATRIX[-1])
"""The short matrix CI runs: the oldest, the sandbox's version, the newest."""
CHECKS = ("joins", "status", "come", "stop", "fight", "dig", "craft")
"""The table's columns; they run in :data:`ORDER`."""
ORDER = ("joins", "status", "come", "fight", "dig", "craft", "stop")
HEADINGS = {
    "joins": "joins",
    "status": "status",
    "come": "come",
    "stop": "stop",
    "fight": "fights a zombie",
    "dig": "digs a block",
    "craft": "crafts planks",
}
TIMEOUTS = {
    "joins": 90.0, "status": 20.0, "come": 60.0, "fight": 20.0, "dig": 90.0, "craft": 60.0,
    "stop": 40.0,
}  # fmt: skip
"""Seconds each check may take at most (its waits are bounded by these)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One check at one version."""

    state: str
    """``ok``, ``FAIL`` or ``n/a``."""
    reason: str = ""
    seconds: float | None = None

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    def cell(self) -> str:
        took = f"{self.seconds:.1f} s" if self.seconds is not None else ""
        if self.state == "ok":
            return f"ok ({took})"
        inside = ", ".join(part for part in (self.reason, took) if part)
        return f"{self.state} ({inside})"


def item_names(version: str) -> tuple[str, str]:
    """The names of an oak log and oak planks at ``version`` (before 1.13: ``log``, ``planks``
    with oak as metadata 0)."""
    major, minor = (int(part) for part in version.split(".")[:2])
    return ("log", "planks") if (major, minor) < (1, 13) else ("oak_log", "oak_planks")


def _short(exc: BaseException, limit: int = 90) -> str:
    """The first line of an error, short enough for a table cell."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = text.replace("|", "/")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _run(name: str, check: Callable[[], None]) -> Outcome:
    start = time.monotonic()
    try:
        check()
    except Exception as exc:  # one check failing never stops the others
        logger.info("%s: FAIL: %s", name, exc)
        return Outcome("FAIL", _short(exc), time.monotonic() - start)
    took = time.monotonic() - start
    logger.info("%s: ok in %.1f s", name, took)
    return Outcome("ok", "", took)


class _Version:
    """The world, daemon and clients of one version's run, and its checks."""

    def __init__(self, version: str, root: Path) -> None:
        self.version = version
        self.root = root
        self.world: EmbeddedWorld | None = None
        self.daemon: Daemon | None = None
        self.alice: Player | None = None
        self.logs: list[tuple[int, int, int]] = []
        self.log, self.planks = item_names(version)
        self.no_crafting: str | None = None

    # -- the checks --------------------------------------------------------------------

    def joins(self) -> None:
        self.world = EmbeddedWorld(
            self.root / "world", port=free_port(), control=True, version=self.version
        ).start()
        try:
            self.world.op("load_plugin", name="crafting")
        except WorldError as exc:  # the world runs without it: only crafting cannot be checked
            self.no_crafting = f"the sandbox's crafting plugin does not load: {_short(exc, 60)}"
        self.daemon = Daemon(  # its curriculum on: it digs and crafts for its own plan
            self.root, "--operators", OPERATOR, host="127.0.0.1", port=self.world.port,
            curriculum=True,
        )  # fmt: skip
        self.daemon.in_world(TIMEOUTS["joins"])
        world = self.world
        eventually(lambda: server_player(world, BOT), 10, "the bot on the server's list")
        # at once: its curriculum looks for wood now (three failures rest the milestone)
        x, y, z = feet(world, BOT)
        self.logs = [(x + dx, y, z + 2) for dx in (3, 4, 5)]
        for lx, ly, lz in self.logs:
            world.op("set_block", x=lx, y=ly, z=lz, block=self.log)

    def operator(self) -> Player:
        if self.alice is None:
            assert self.world is not None
            self.alice = Player(self.world, OPERATOR, version=self.version)
        return self.alice

    def status(self) -> None:
        alice = self.operator()
        start = alice.mark()
        alice.say(f"{BOT} status")
        line = alice.reply_from(BOT, "HP", start=start, timeout=TIMEOUTS["status"])
        assert line.startswith("HP 20/20"), f"status line: {line!r}"

    def come(self) -> None:
        world, alice = self.world, self.operator()
        assert world is not None
        here = self.bot()["position"]
        teleport(world, alice, here["x"] + 8, here["y"], here["z"] + 3)
        start = alice.mark()
        alice.say(f"{BOT} come")
        alice.reply_from(BOT, "Here I am", start=start, timeout=TIMEOUTS["come"])
        wait_near(world, BOT, OPERATOR, 3.0, timeout=10)

    def fight(self) -> None:
        world = self.world
        assert world is not None
        here = self.bot()["position"]
        if self.alice is not None:  # the zombie walks at the nearest player: the bot
            teleport(world, self.alice, here["x"] - 40, here["y"], here["z"])
        world.op("remove_mobs")
        world.op("set_health", player=BOT, hp=20)
        (zombie,) = world.op("spawn_mob", player=BOT, name="zombie", dx=3, ai=True, damage=1)["ids"]

        try:
            eventually(
                lambda: zombie_hit(world, zombie), TIMEOUTS["fight"], "the bot to hit the zombie"
            )
        finally:
            world.op("remove_mobs")

    def dig(self) -> None:
        world = self.world
        assert world is not None and self.logs

        def dug() -> bool:
            return all(block(world, *spot) != self.log for spot in self.logs)

        try:
            eventually(dug, TIMEOUTS["dig"], "the bot's curriculum to dig the three logs")
        except AssertionError:
            left = [spot for spot in self.logs if block(world, *spot) == self.log]
            raise AssertionError(f"logs left at {left}; {self._said()}") from None

    def craft(self) -> None:
        world = self.world
        assert world is not None
        made = (self.planks, "crafting_table", "stick", "wooden_pickaxe")

        def crafted() -> bool:
            held = world.op("inventory", player=BOT)
            return any(held.get(item, 0) > 0 for item in made)

        try:
            eventually(crafted, TIMEOUTS["craft"], "planks, or what they make, in the bot's hands")
        except AssertionError:
            held = world.op("inventory", player=BOT)
            raise AssertionError(f"the server holds {held}; {self._said()}") from None

    def _said(self) -> str:
        """The daemon's last lines about its tasks, for a failure's message."""
        assert self.daemon is not None
        lines = [line for line in self.daemon.lines if "task" in line or "milestone" in line]
        return "the daemon said: " + " / ".join(line[24:] for line in lines[-4:])

    def stop(self) -> None:
        world, alice, daemon = self.world, self.operator(), self.daemon
        assert world is not None and daemon is not None
        start = alice.mark()
        alice.say(f"{BOT} stop")
        alice.reply_from(BOT, "Stopping", start=start, timeout=20)
        eventually(lambda: server_player(world, BOT) is None, 20, "the bot to leave")
        code = daemon.wait(TIMEOUTS["stop"])
        assert code == 0, f"the daemon ended with code {code}"

    # -- helpers -------------------------------------------------------------------------

    def bot(self) -> dict[str, Any]:
        assert self.world is not None
        player = server_player(self.world, BOT)
        assert player is not None, "the bot is not on the server"
        return player

    def close(self) -> None:
        if self.alice is not None:
            try:
                self.alice.close()
            except Exception as exc:
                logger.warning("closing the operator's client: %s", exc)
        if self.daemon is not None:
            self.daemon.close()
        if self.world is not None:
            self.world.stop()


def run_version(version: str, *, keep: Path | None = None) -> dict[str, Outcome]:
    """Every check of :data:`CHECKS` at ``version`` in a world and daemon of their own.

    ``keep``: copy the world's and daemon's logs there (``<version>-world.log``,
    ``<version>-daemon.log``) before the folder is removed.
    """
    root = Path(tempfile.mkdtemp(prefix="pepa-", dir="/tmp"))  # short: AF_UNIX paths
    run = _Version(version, root)
    results: dict[str, Outcome] = {}
    try:
        results["joins"] = _run("joins", run.joins)
        if not results["joins"].ok:
            return {
                name: results.get(name, Outcome("n/a", "the bot never joined")) for name in CHECKS
            }
        try:
            run.operator()
        except Exception as exc:
            lost = Outcome("n/a", f"the operator's client did not join: {_short(exc, 60)}")
            results.update(status=lost, come=lost, stop=lost)
        if run.no_crafting is not None:
            results["craft"] = Outcome("n/a", run.no_crafting)
        for name in ORDER[1:]:
            if name not in results:
                logger.info("%s: %s", version, name)
                results[name] = _run(name, getattr(run, name))
        return {name: results[name] for name in CHECKS}
    finally:
        if keep is not None and run.daemon is not None:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"{version}-daemon.log").write_text("\n".join(run.daemon.lines) + "\n")
        run.close()
        if keep is not None and (root / "world.log").exists():
            shutil.copyfile(root / "world.log", keep / f"{version}-world.log")
        shutil.rmtree(root, ignore_errors=True)


def markdown_table(rows: dict[str, dict[str, Outcome]]) -> str:
    """The matrix as a markdown table: a row per version, a column per check."""
    lines = [
        "| version | " + " | ".join(HEADINGS[name] for name in CHECKS) + " |",
        "|---|" + "---|" * len(CHECKS),
    ]
    for version, outcomes in rows.items():
        cells = [outcomes[name].cell() for name in CHECKS]
        lines.append(f"| {version} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
