"""The gauntlet: the bot alone in a fixed-seed sandbox for N game days, learning on and off.

Run: ``.venv/bin/python bench/gauntlet.py [--days 3] [--seeds 20261130,777] [--time-scale 24]
[--profile gentle|hard] [--arms on,off]``.

Each run starts a fresh sandbox world (same seed and sandbox profile: ``vanilla``, the
default, vanilla's terrain and monsters; ``gentle``, a friendly plain; or ``hard``, the plain
with dusk at the start, hard difficulty, denser spawns and hazards near spawn;
docs/sandbox.md "Profiles") with game time accelerated
(``time_scale``: at 24 a 20-minute Minecraft day lasts 50 s; mobs and hunger
keep real time), a fresh state folder and knowledge base, and ``pepa start``
with the curriculum on. For each seed, the first run has lessons and advice on, the
second off (``PEPA_LEARNING=0``: lessons are still written, never consulted);
``--arms off`` runs only the baseline. Once a game day at noon a zombie that does not
move is spawned 3 blocks from the bot to sample the reaction latency (server-side:
spawn → first attack packet); once the first hit lands (or after 5 s) it is removed,
so the sample does not cost the bot a fight.

Reported per run: deaths per game day and by cause (the sandbox's death message
keys: ``mob by zombie`` for ``death.attack.mob`` by a zombie, ``fell.accident.generic``
…), the share of deaths whose cause was already seen earlier in the same run
(``repeat_cause_rate``), mean real and game time alive between deaths, stuck events
(the watchdog's verdicts, also counted by cause, its numbers as ``N``: ``no progress
N s on nav.goto``, ``path failed: <error>``), reaction latency, gathering/crafting runs that
succeeded, items held at the end, plan milestones reached, and the game day each tool
tier's pickaxe (wooden, stone, iron, diamond) was first held (``tier_days``); with several
seeds, per arm the mean deaths per game day with a 95 % interval over seeds (Student's t).
``run`` can start from a given knowledge base and keep the one it ends with
(``knowledge``, ``keep``): ``bench/gauntlet2.py`` trains and evaluates with them.
Results are appended to ``bench/results/gauntlet.jsonl`` and ``gauntlet.csv`` so
versions can be compared.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pepa.state.plans import parse_plan
from pepa.worldserver.process import EmbeddedWorld, free_port
from pepa.worldserver.profiles import PROFILES
from tests.daemon_harness import Daemon

BOT = "pepa_bot"
RESULTS = Path(__file__).resolve().parent / "results"
STUCK = re.compile(r"pepa\.actors\.watchdog: stuck: (?P<cause>.+) → \S+ \(")
"""The watchdog's log line for a verdict: ``stuck: <cause> → <step> (<goal>)``."""


def _cause(cause: str) -> str:
    """A cause with its numbers as ``N`` (``stopped 4.2 blocks short`` → ``stopped N blocks
    short``): the same failure counts as one cause whatever its distances and times."""
    return re.sub(r"\d+(\.\d+)?", "N", cause)


def run(
    mode: str,
    *,
    days: int,
    seed: int,
    time_scale: float,
    profile: str,
    knowledge: Path | None = None,
    keep: Path | None = None,
) -> dict[str, Any]:
    """One gauntlet run; ``mode`` is ``on`` or ``off`` (lessons and advice).

    ``knowledge``: a ``knowledge.db`` the run starts from instead of an empty one (a
    copy: the file itself is not touched); ``keep``: where to copy the knowledge base the
    run ends with, so the next run (or an evaluation) can start from what this one learnt.
    Deaths and making runs are counted for this run alone, not those the base brought.
    """
    root = Path(tempfile.mkdtemp(prefix=f"pepa-gauntlet-{mode}-", dir="/tmp"))
    port = free_port()
    # the daemon keeps its knowledge base in state/<host>_<port>/ (Daemon(host=127.0.0.1))
    server = root / "state" / f"127.0.0.1_{port}"
    if knowledge is not None:
        server.parent.mkdir(mode=0o700)
        server.mkdir(mode=0o700)
        copy_knowledge(knowledge, server / "knowledge.db")
    deaths_before = _query(server / "knowledge.db", "select count(*) from deaths")[0][0]
    made_before = _made(server / "knowledge.db")
    world = EmbeddedWorld(
        root / "world", port=port, control=True, sandbox=True, seed=seed, profile=profile
    ).start()
    daemon = Daemon(
        root, host="127.0.0.1", port=world.port, curriculum=True,
        env={"PEPA_LEARNING": "1" if mode == "on" else "0", "PEPA_REFLECT_EVERY": "0"},
    )  # fmt: skip
    reactions: list[float] = []
    try:
        daemon.in_world(timeout=90)
        world.op("time_scale", factor=time_scale)
        started = time.monotonic()
        first_tick = _game_tick(world.op("life_stats"))
        sampled: set[int] = set()
        tiers: dict[str, float] = {}
        pause = threading.Event()
        while True:
            stats = world.op("life_stats")
            day = (_game_tick(stats) - first_tick) // 24000  # whole days, from any start time
            if day >= days:
                break
            ticks = _game_tick(stats) - first_tick
            if _alive(world) and len(tiers) < len(TIERS) + len(HOMESTEAD):
                _reached(tiers, world.op("inventory", player=BOT), ticks)
            if "home" not in tiers and _home(server) is not None:
                tiers["home"] = round(ticks / 24000, 2)
            noon = 5000 <= int(stats["time"]) % 24000 <= 7000
            if noon and day not in sampled and _alive(world):
                sampled.add(day)
                reactions += _reaction(world)
            print(
                f"\r[{mode}] day {day + 1}/{days}  time {int(stats['time']) % 24000:5d}  "
                f"mobs {stats['mobs']}".ljust(100), end="", flush=True,
            )  # fmt: skip
            pause.wait(1.0)
        elapsed = time.monotonic() - started
        inventory = world.op("inventory", player=BOT) if _alive(world) else {}
        house = _house(world, _home(server))
        order = [_death_cause(d) for d in world.op("life_stats")["deaths"] if d["player"] == BOT]
    finally:
        print()
        daemon.close()
        world.stop()
    state = daemon.socket.parent
    if keep is not None and (state / "knowledge.db").exists():
        copy_knowledge(state / "knowledge.db", keep)
    deaths = _query(state / "knowledge.db", "select count(*) from deaths")[0][0] - deaths_before
    plan = parse_plan((state / "plan.md").read_text()) if (state / "plan.md").exists() else []
    gathered = _made(state / "knowledge.db") - made_before
    causes = Counter(order)
    repeats = repeat_deaths(order)
    stuck = Counter(_cause(m["cause"]) for m in map(STUCK.search, daemon.lines) if m)
    return {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "mode": f"learning {mode}",
        "profile": profile,
        "seed": seed,
        "game_days": days,
        "time_scale": time_scale,
        "real_seconds": round(elapsed, 1),
        "deaths": deaths,
        "deaths_per_game_day": round(deaths / days, 2),
        "deaths_by_cause": "; ".join(f"{n} {cause}" for cause, n in causes.most_common()),
        "repeat_deaths": repeats,
        "repeat_cause_rate": round(repeats / len(order), 2) if order else None,
        "knowledge": "carried" if knowledge is not None else "fresh",
        "mean_alive_real_s": round(elapsed / (deaths + 1), 1),
        "mean_alive_game_days": round(days / (deaths + 1), 2),
        "stuck_events": sum(stuck.values()),
        "stuck_by_cause": "; ".join(f"{n} {cause}" for cause, n in stuck.most_common()),
        "reaction_ms_median": round(statistics.median(reactions), 1) if reactions else None,
        "reaction_samples": len(reactions),
        "making_runs_ok": gathered,
        "items_held_at_end": sum(int(n) for n in inventory.values()),
        "milestones": f"{sum(m.done for m in plan)}/{len(plan)}",
        "tier_days": "; ".join(f"{tier} {tiers[tier]}" for tier, _ in TIERS if tier in tiers),
        "home_day": tiers.get("home"),
        "house": house,
        "wheat_day": tiers.get("wheat"),
        "bread_day": tiers.get("bread"),
        "diamonds_held_at_end": int(inventory.get("diamond", 0)),
    }


TIERS = (("wood", "wooden_pickaxe"), ("stone", "stone_pickaxe"), ("iron", "iron_pickaxe"),
         ("diamond", "diamond_pickaxe"))  # fmt: skip
"""The tool tiers, each reached when its pickaxe is first held (``tier_days``)."""
HOMESTEAD = (("wheat", "wheat"), ("bread", "bread"))
"""A farm harvested (wheat first held: only a farm grows it) and bread baked from it."""


def _reached(tiers: dict[str, float], inventory: dict[str, Any], ticks: int) -> None:
    """Note the game day (fractional, from the run's start) at which each tier's pickaxe, and
    the farm's wheat and bread, are first seen in the bot's inventory (sampled once a second)."""
    for tier, pickaxe in (*TIERS, *HOMESTEAD):
        if tier not in tiers and int(inventory.get(pickaxe, 0)) > 0:
            tiers[tier] = round(ticks / 24000, 2)


def _home(server: Path) -> dict[str, float] | None:
    """The home the bot built (``locations.json``: the cell inside its door), or None."""
    try:
        places = json.loads((server / "locations.json").read_text())
    except (OSError, ValueError):
        return None
    home = places.get("home") if isinstance(places, dict) else None
    return home if isinstance(home, dict) else None


def _house(world: EmbeddedWorld, home: dict[str, float] | None) -> str:
    """What stands round the home at the end (beds, chests, doors, furnaces, tables within 4
    blocks of the cell inside its door), read from the world: ``bed 1, chest 2, door 1 …``."""
    if home is None:
        return ""
    x, y, z = (int(home[k] // 1) for k in "xyz")
    kinds: Counter[str] = Counter()
    for dx in range(-4, 5):
        for dz in range(-4, 5):
            for dy in (0, 1):
                name = str(world.op("block_at", x=x + dx, y=y + dy, z=z + dz)["name"])
                kind = next((k for k in HOUSE_PARTS if name == k or name.endswith("_" + k)), None)
                if kind is not None and not (kind in ("bed", "door") and dy == 1):
                    kinds[kind] += 1
    kinds["bed"] //= 2  # a bed is two blocks
    return ", ".join(f"{k} {kinds[k]}" for k in HOUSE_PARTS if kinds[k])


HOUSE_PARTS = ("bed", "chest", "door", "furnace", "crafting_table", "torch")


def repeat_deaths(causes: list[str]) -> int:
    """How many of a run's deaths (in order) had a cause already seen earlier in that run:
    what lessons should prevent (``repeat_cause_rate`` is this over the run's deaths)."""
    return sum(cause in causes[:index] for index, cause in enumerate(causes))


def copy_knowledge(source: Path, target: Path) -> None:
    """Copy a SQLite knowledge base through the backup API: it reads through the WAL, so
    writes still in ``knowledge.db-wal`` are copied too, which a file copy would miss."""
    if not source.exists():
        raise FileNotFoundError(f"no knowledge base at {source}")
    target.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    target.chmod(0o600)


def _made(db: Path) -> int:
    """Gathering and crafting runs that succeeded, over the knowledge base's life."""
    if not db.exists():
        return 0
    metrics = _query(db, "select skill, ok, failed from skill_metrics")
    return sum(ok for skill, ok, _ in metrics if skill.startswith(("gather.", "craft.")))


def _game_tick(stats: dict[str, Any]) -> int:
    """Game ticks since the world's clock started (the hard profile starts at dusk)."""
    return int(stats["day"]) * 24000 + int(stats["time"]) % 24000


def _death_cause(death: dict[str, Any]) -> str:
    """``mob by zombie`` for ``death.attack.mob`` by a zombie, ``fell.accident.generic`` …"""
    key = str(death["key"]).removeprefix("death.attack.").removeprefix("death.")
    by = str(death.get("by") or "").removeprefix("entity.minecraft.")
    return f"{key} by {by}" if by else key


def _alive(world: EmbeddedWorld) -> bool:
    return any(p["username"] == BOT and p["health"] > 0 for p in world.op("players"))


def _reaction(world: EmbeddedWorld) -> list[float]:
    mob = world.op("spawn_mob", player=BOT, name="zombie", dx=3, ai=False)["ids"][0]
    deadline = time.monotonic() + 5
    pause = threading.Event()
    try:
        while time.monotonic() < deadline:
            result = world.op("reaction", mob=mob)
            if result.get("hit"):
                return [float(result["ms"])]
            pause.wait(0.05)
        return []
    finally:
        world.op("remove_mob", mob=mob)


def _query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not db.exists():
        return [(0,)]
    with closing(sqlite3.connect(db)) as raw:
        return list(raw.execute(sql))


def _add_columns(path: Path, keys: list[str]) -> list[str]:
    """The columns to append rows to ``path`` with: its own, then those of ``keys`` it lacks.

    An older file lacking some of ``keys`` is rewritten with them (empty; rows from
    before profiles: ``default``) into a temporary file beside it, renamed over it: no
    old row or column is lost, and a failure leaves the old file as it was.
    """
    if not path.exists():
        return keys
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        old = list(reader.fieldnames or [])
        rows = list(reader)
    header = old + [key for key in keys if key not in old]
    if header == old:
        return old
    fill = {"profile": "default"} if "profile" in header else {}
    with tempfile.NamedTemporaryFile(
        "w", newline="", dir=path.parent, prefix=f".{path.name}.", delete=False
    ) as handle:
        temporary = Path(handle.name)
        try:
            writer = csv.DictWriter(handle, fieldnames=header, restval="")
            writer.writeheader()
            writer.writerows({**fill, **row} for row in rows)
        except BaseException:
            handle.close()
            temporary.unlink()
            raise
    temporary.replace(path)
    return header


T95 = (12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23)
"""Student's t for a two-sided 95 % interval, 1 … 10 degrees of freedom (1.96 beyond)."""


def interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval (0 for a single value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, 0.0
    t = T95[len(values) - 2] if len(values) - 1 <= len(T95) else 1.96
    return mean, t * statistics.stdev(values) / len(values) ** 0.5


def _summary(results: list[dict[str, Any]]) -> None:
    """Per arm over its seeds: deaths per game day (mean ± 95 %), deaths by cause, milestones."""
    for mode in dict.fromkeys(row["mode"] for row in results):
        rows = [row for row in results if row["mode"] == mode]
        mean, half = interval([float(row["deaths_per_game_day"]) for row in rows])
        causes: Counter[str] = Counter()
        for row in rows:
            for part in filter(None, row["deaths_by_cause"].split("; ")):
                n, cause = part.split(" ", 1)
                causes[cause] += int(n)
        milestones = statistics.fmean(int(row["milestones"].split("/")[0]) for row in rows)
        print(
            f"{mode}, {len(rows)} seeds: {mean:.2f} ± {half:.2f} deaths per game day (95 %); "
            f"by cause: {', '.join(f'{n} {c}' for c, n in causes.most_common()) or 'none'}; "
            f"milestones {milestones:.1f} on average"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=3, help="game days per run")
    parser.add_argument(
        "--seeds", "--seed", default="20261130", help="world seeds, comma-separated"
    )
    parser.add_argument("--time-scale", type=float, default=24.0, help="game time speed-up")
    parser.add_argument(
        "--profile", choices=PROFILES, default="vanilla", help="the sandbox's profile"
    )
    parser.add_argument(
        "--arms", default="on,off", help="learning on, off or both (comma-separated)"
    )
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",") if seed.strip()]
    arms = [arm.strip() for arm in args.arms.split(",") if arm.strip()]
    if not seeds or not arms or any(arm not in ("on", "off") for arm in arms):
        parser.error("--seeds needs at least one number and --arms is on, off or on,off")
    results = [
        run(mode, days=args.days, seed=seed, time_scale=args.time_scale, profile=args.profile)
        for seed in seeds
        for mode in arms
    ]
    keys = list(results[0])
    width = max(len(k) for k in keys)
    print(
        f"{'':{width}}"
        + "".join(f"  {row['mode'] + ' ' + str(row['seed']):>24}" for row in results)
    )
    for key in keys[2:]:
        print(f"{key:{width}}" + "".join(f"  {row[key]!s:>24}" for row in results))
    _summary(results)
    RESULTS.mkdir(parents=True, exist_ok=True)
    with (RESULTS / "gauntlet.jsonl").open("a") as handle:
        for row in results:
            handle.write(json.dumps(row) + "\n")
    header = _add_columns(RESULTS / "gauntlet.csv", keys)
    new = not (RESULTS / "gauntlet.csv").exists()
    with (RESULTS / "gauntlet.csv").open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header, restval="")
        if new:
            writer.writeheader()
        writer.writerows(results)
    print(f"results appended to {RESULTS / 'gauntlet.jsonl'} and gauntlet.csv")


if __name__ == "__main__":
    main()
