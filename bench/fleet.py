"""A fleet on one machine: per-bot memory and CPU, reaction, lesson spread; fleet vs daemons.

Run: ``.venv/bin/python bench/fleet.py [--sizes 1,8,16,32,64] [--separate 1,8,16]
[--group 8] [--nice 0] [--trials 3] [--settle 30] [--window 30] [--idle] [--no-first-blow]
[--stalls] [--keep]``.

For each N, in one survival sandbox (seeded, with the scenario plugin) and one
loopback PostgreSQL shared by every bot of both arms:

- **fleet**: ``pepa fleet --bots N --group G [--nice K]``;
- **separate**: N ``pepa start`` daemons side by side, each with its own
  state folder (for the sizes in ``--separate``).

The arms differ only in the hosting: the same world, the same knowledge base
(``PEPA_DB_URL``: lessons spread by LISTEN/NOTIFY in both), the curriculum on
(``--idle``: off), the bridge's first blow on (``--no-first-blow``: off, in both
arms: ``PEPA_FIRST_BLOW=0``) and the same code. After every bot is in the world and
``--settle`` seconds more, it measures:

- memory: the PSS (``/proc/<pid>/smaps_rollup``: shared pages split among
  the processes that share them) of every process of the arm (supervisors,
  workers, Node bridges; not the world, not PostgreSQL), total and per bot;
- CPU: the processes' user+system time over ``--window`` seconds, as % of
  one core, total and per bot (printed split into Node, the bridges, and
  Python); and the world's (flying-squid's) own, which shares the machine;
- reaction: for each of ``--trials`` rounds, a zombie spawned 2 blocks from
  each bot in turn; the server's time from the spawn to the bot's first
  attack packet (the same measure as reaction_latency.py), p50 and p99 over
  all bots and rounds, the misses (no attack within 5 s), the first blows
  the bridges struck in the round (a bot near another's zombie strikes it
  too) and the zombies none of them struck first (their first swing came
  from a reflex actor in Python; a ``p`` after each such reaction over 50 ms). The p99 of
  fewer than 100 reactions is their maximum (said so): ``--trials 10`` gives 320 at N = 32;
  ``--stalls``: the Node processes' event-loop stalls in the round, and what was off the CPU
  during each reaction over 50 ms (``_stalls.py``, ``loop_stalls.js``);
- lesson spread: the first bot is killed by a zombie; from its ``death N
  recorded`` line to each other bot's ``lesson from <bot>`` line (log
  timestamps, one clock): p50, p99 and max (the time to reach every bot).

Marginal memory per bot is (PSS at N - PSS at 1) / (N - 1), arm by arm.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _stalls
from bench._common import first_hit
from pepa.base.node import WorldError
from pepa.fleet.postgres import find_bin_dir
from pepa.ipc.fleet import read_roster
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.pg_server import PostgresServer

SEED = 424242
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")


class Arm:
    """A running fleet, or N running daemons; their output lines, their process trees."""

    def __init__(self, kind: str, n: int, group: int, nice: int, world: EmbeddedWorld, db: str,
                 root: Path, curriculum: bool, first_blow: bool = True) -> None:  # fmt: skip
        self.kind, self.n, self.port = kind, n, world.port
        self.names = [f"bot_{i}" for i in range(1, n + 1)]  # as `pepa fleet --username bot` does
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
        env.update(PEPA_DB_URL=db, PEPA_CURRICULUM="1" if curriculum else "0",
                   PEPA_FIRST_BLOW="1" if first_blow else "0")  # fmt: skip
        where = ["--host", "127.0.0.1", "--port", str(world.port)]
        root.mkdir(parents=True, exist_ok=True)
        self.root = root
        self.procs: list[subprocess.Popen[str]] = []
        self.states: list[Path] = []
        """Each daemon's state folder (separate daemons)."""
        self.lines: list[str] = []
        self._lock = threading.Lock()
        if kind == "fleet":
            argv = [sys.executable, "-m", "pepa", "fleet", "--bots", str(n), "--group",
                    str(group), "--nice", str(nice), "--username", "bot", "--console", "info",
                    "--state-dir", str(root / "state"), *where]  # fmt: skip
            self._spawn(argv, env, root)
        else:
            for name in self.names:
                self.states.append(root / name)
                argv = [sys.executable, "-m", "pepa", "start", "--username", name,
                        "--state-dir", str(root / name), *where]  # fmt: skip
                self._spawn(argv, env, root)

    def _spawn(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        proc = subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.procs.append(proc)
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        # kept beside the state too (a bridge's last words are only in its terminal)
        with (self.root / f"terminal-{proc.pid}.log").open("a") as kept:
            for line in proc.stdout:
                kept.write(line)
                with self._lock:
                    self.lines.append(line.rstrip("\n"))

    def bot_lines(self, name: str, text: str) -> list[str]:
        """Lines of bot ``name`` containing ``text``: a fleet's terminal tags them; a daemon's
        are read from its own log (the daemons' terminals interleave untagged)."""
        if self.kind == "fleet":
            with self._lock:
                lines = list(self.lines)
            return [line for line in lines if f"[{name}]" in line and text in line]
        state = self.states[self.names.index(name)]
        found: list[str] = []
        for path in sorted(state.glob("*/logs/*.log")):
            found += path.read_text(errors="replace").splitlines()
        return [line for line in found if text in line]

    def wait_all(self, text: str, timeout: float) -> list[str]:
        """Until every bot said ``text`` or ``timeout``; the bots that did not (the table
        says how many joined, and the rest is measured on those that did)."""
        deadline = time.monotonic() + timeout
        pause = threading.Event()
        while True:
            missing = [n for n in self.names if not self.bot_lines(n, text)]
            if not missing or time.monotonic() > deadline:
                return missing
            pause.wait(0.5)

    def pids(self) -> list[int]:
        """Every process of the arm: each top process and all its descendants."""
        return self._tree([p.pid for p in self.procs])

    def owners(self) -> dict[str, set[int]]:
        """Each bot's processes that may have started its bridge: its group's worker (a
        fleet's roster says which), or its own daemon's tree."""
        if self.kind != "fleet":
            mine = zip(self.names, self.procs, strict=True)
            return {name: set(self._tree([proc.pid])) for name, proc in mine}
        roster = read_roster(self.root / "state" / f"127.0.0.1_{self.port}")
        if roster is None:
            print("  no roster to tell the bots' bridges apart", flush=True)
            return {}
        return {bot: {g["pid"]} for g in roster["groups"] for bot in g["bots"]}

    @staticmethod
    def _tree(tops: list[int]) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
        found, todo = [], list(tops)
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo += children.get(pid, [])
        return found

    def close(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)


def pss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    return sum(cpu_by_program(pids).values())


def cpu_by_program(pids: list[int]) -> dict[str, float]:
    """CPU seconds (user + system) of the processes, summed by program: ``node`` (the
    bridges) and ``python`` (supervisors and workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total: dict[str, float] = {}
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            program = "node" if "node" in os.readlink(f"/proc/{pid}/exe") else "python"
            total[program] = total.get(program, 0.0) + (int(fields[11]) + int(fields[12])) / ticks
    return total


def reactions(
    world: EmbeddedWorld,
    names: list[str],
    trials: int,
    zombies: list[int] | None = None,
    times: list[tuple[str, float]] | None = None,
) -> tuple[list[float], int]:
    """The reactions (ms) and misses; ``zombies``: each sample's zombie id, in order;
    ``times``: each sample's bot and when its zombie was spawned (epoch seconds)."""
    pause = threading.Event()
    samples: list[float] = []
    misses = 0
    for _ in range(trials):
        for name in names:
            try:
                world.op("remove_mobs")
            except TimeoutError:  # 64 idle bots: the world server stalled past the op's timeout
                print("  reactions cut short: the world server did not answer", flush=True)
                return samples, misses + 1
            pause.wait(0.7)  # past the swing cooldown of the last round
            spawned: list[int] = []
            at = time.time()
            try:
                ms = first_hit(world, name, 2, spawned=spawned)
            except WorldError as exc:  # the bot is not on the server now (reconnecting)
                print(f"  {name}: no zombie spawned: {exc}", flush=True)
                ms = None
            if ms is None:
                misses += 1
            else:
                samples.append(ms)
                if zombies is not None:
                    zombies.extend(spawned)
                if times is not None:
                    times.append((name, at))
    world.op("remove_mobs")
    return samples, misses


def stamp(line: str) -> float | None:
    found = STAMP.match(line)
    if found is None:
        return None
    return datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()


def lesson_spread(world: EmbeddedWorld, arm: Arm) -> list[float] | None:
    """ms from the first bot's death record to each other bot's ``lesson from`` line."""
    first, others = arm.names[0], arm.names[1:]
    if not others:
        return None
    world.op("remove_mobs")
    try:
        world.op("spawn_mob", player=first, name="zombie", dx=2)
        time.sleep(1.0)  # it takes the zombie on (the lesson is about a lost fight)
        world.op("damage", player=first, amount=40)
    except WorldError as exc:  # the first bot is off the server (a saturated machine)
        print(f"  lesson spread not measured: {exc}")
        return None
    deadline = time.monotonic() + 30
    pause = threading.Event()
    recorded: list[str] = []
    while time.monotonic() < deadline and not recorded:
        recorded = arm.bot_lines(first, "recorded:")
        pause.wait(0.2)
    if not recorded:
        return None
    t0 = stamp(recorded[-1])
    heard: dict[str, float] = {}
    while time.monotonic() < deadline and len(heard) < len(others):
        for name in others:
            if name not in heard:
                lines = arm.bot_lines(name, f"lesson from {first}")
                if lines and (t := stamp(lines[0])) is not None:
                    heard[name] = t
        pause.wait(0.2)
    world.op("remove_mobs")
    if t0 is None:
        return None
    return [(heard[n] - t0) * 1000 if n in heard else float("inf") for n in others]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure(kind: str, n: int, args: argparse.Namespace, world: EmbeddedWorld, db: str,
            root: Path) -> dict[str, object]:  # fmt: skip
    arm = Arm(kind, n, args.group, args.nice, world, db, root / f"{kind}-{n}", not args.idle,
              not args.no_first_blow)  # fmt: skip
    try:
        started = time.monotonic()
        missing = arm.wait_all("in the world at", 120 + 5 * n)
        joined = time.monotonic() - started
        if missing:
            print(f"{kind} N={n}: {len(missing)} bots never joined: {', '.join(missing[:8])}")
            arm.names = [name for name in arm.names if name not in missing]
        time.sleep(args.settle)
        pids = arm.pids()
        server = [world.proc.pid] if world.proc is not None else []
        before, world_before = cpu_by_program(pids), cpu_seconds(server)
        time.sleep(args.window)
        pids = arm.pids()
        after = cpu_by_program(pids)
        split = {k: (v - before.get(k, 0.0)) / args.window * 100 for k, v in after.items()}
        cpu = sum(split.values())
        world_cpu = (cpu_seconds(server) - world_before) / args.window * 100
        memory = pss_mib(pids)
        print(  # before the reactions, which a stalled world server can cut short
            f"  {kind} N={n}: joined {n - len(missing)} in {joined:.1f}s, PSS {memory:.0f} MiB, "
            f"CPU {cpu:.1f}% (" + ", ".join(f"{k} {v:.1f}%" for k, v in sorted(split.items()))
            + f"; world {world_cpu:.1f}%)", flush=True,
        )  # fmt: skip
        mark = len(arm.lines)
        zombies: list[int] = []
        times: list[tuple[str, float]] = []
        samples, misses = reactions(world, arm.names, args.trials, zombies, times)
        stalls = _stalls.report(
            root / "stalls", world.proc.pid if world.proc else None, arm.owners(),
            [(bot, at, ms) for (bot, at), ms in zip(times, samples, strict=True)],
        ) if args.stalls else []  # fmt: skip
        spread = lesson_spread(world, arm)  # (meanwhile the round's log lines are all in)
        # the bridges' first blows in the round (one near another bot's zombie strikes it too),
        # and the zombies struck first by none: their first swing came from a reflex actor
        blown = [line for line in arm.lines[mark:] if "first blow, in the bridge" in line]
        unstruck = {z for z in zombies if not any(f"zombie {z} at " in line for line in blown)}
        slow_ms = [(ms, z in unstruck) for ms, z in zip(samples, zombies, strict=True) if ms > 50]
        # the target is each bot's p99: with 10 samples a bot, whose reactions went over at all
        late_bots = {bot for (bot, _), ms in zip(times, samples, strict=True) if ms > 50}
        return {
            "arm": kind, "n": n, "joined": n - len(missing), "processes": len(pids),
            "join_s": joined,
            "pss_mib": memory, "cpu_pct": cpu, "world_cpu_pct": world_cpu,
            "react_p50": pct(samples, 0.5), "react_p99": pct(samples, 0.99),
            "react_p90": pct(samples, 0.9), "react_slow": sorted(slow_ms),
            "late_bots": len(late_bots),
            "react_n": len(samples), "misses": misses, "spread": spread,
            "first_blows": len(blown), "from_python": len(unstruck), "stalls": stalls,
        }  # fmt: skip
    finally:
        arm.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,8,16,32,64")
    parser.add_argument("--separate", default="1,8,16", help="sizes for N pepa start daemons")
    parser.add_argument("--group", type=int, default=8)
    parser.add_argument(
        "--nice", type=int, default=0,
        help="the fleet's workers this far below the world's CPU priority (the fleet arm "
        "only: run it with --separate '')",
    )  # fmt: skip
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--settle", type=float, default=30.0)
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--idle", action="store_true", help="curriculum off: idle bots")
    parser.add_argument(
        "--no-first-blow", action="store_true",
        help="every swing decided in Python (PEPA_FIRST_BLOW=0, both arms)",
    )  # fmt: skip
    parser.add_argument(
        "--stalls", action="store_true",
        help="record the Node processes' event-loop stalls (bench/loop_stalls.js) and say what "
        "was off the CPU during each slow reaction",
    )  # fmt: skip
    parser.add_argument(
        "--keep", action="store_true",
        help="keep the worlds, state and logs (kept anyway after bots that never joined or "
        "reactions missed)",
    )  # fmt: skip
    args = parser.parse_args()
    # a SIGTERM (a timeout, ^C's cousin) unwinds like an exit, so the finally clauses below stop
    # the fleets, the worlds and the PostgreSQL server instead of leaving them running
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    if args.nice and args.separate:  # the arms would differ in more than the hosting
        sys.exit("--nice applies to pepa fleet only: run it with --separate ''")
    bin_dir = find_bin_dir()
    if bin_dir is None:
        sys.exit("bench/fleet.py needs PostgreSQL's server binaries (apt install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="pepa-fleet-bench-", dir="/tmp"))
    if args.nice:
        print(f"the fleet's workers at nice {args.nice} (the world at 0)", flush=True)
    if args.no_first_blow:
        print("no first blow in the bridges: every swing decided in Python", flush=True)
    if args.stalls:  # before the first Node process
        _stalls.enable(root / "stalls")
    pg = PostgresServer(bin_dir).start()
    rows = []
    try:
        plan = [("fleet", int(n)) for n in args.sizes.split(",") if n]
        plan += [("separate", int(n)) for n in args.separate.split(",") if n]
        for number, (kind, n) in enumerate(plan):
            db = pg.create_database(f"bench{number}")
            world = EmbeddedWorld(root / f"world{number}", port=free_port(), control=True,
                                  sandbox=True, seed=SEED).start()  # fmt: skip
            try:
                row = measure(kind, n, args, world, db, root)
            finally:
                world.stop()
            rows.append(row)
            print(render(row), flush=True)
            for line in row["stalls"]:  # type: ignore[attr-defined]
                print(line, flush=True)
    finally:
        pg.stop()
        # a run where bots never joined or zombies went unanswered keeps what tells why
        trouble = [f"{r['arm']} N={r['n']}" for r in rows if r["misses"] or r["joined"] != r["n"]]
        if args.keep or trouble:
            why = f" ({', '.join(trouble)}: bots not joined or reactions missed)" if trouble else ""
            print(f"worlds, state folders and logs kept in {root}{why}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print()
    print(table(rows))


def render(row: dict[str, object]) -> str:
    spread = row["spread"]
    n = int(row["n"])  # type: ignore[call-overload]
    if isinstance(spread, list) and spread:
        lost = sum(1 for s in spread if s == float("inf"))
        heard = [s for s in spread if s != float("inf")]
        said = (f"lesson p50 {pct(heard, 0.5):.0f} ms p99 {pct(heard, 0.99):.0f} ms "
                f"all {max(spread):.0f} ms" + (f" ({lost} never)" if lost else ""))  # fmt: skip
    else:
        said = "lesson -"
    return (
        f"{row['arm']:8s} N={n:3d}  procs {row['processes']:3d}  "
        f"joined {row['joined']}/{n} in {row['join_s']:5.1f}s  "
        f"PSS {row['pss_mib']:7.0f} MiB ({float(row['pss_mib']) / n:5.0f}/bot)  "  # type: ignore[arg-type]
        f"CPU {row['cpu_pct']:5.1f}% ({float(row['cpu_pct']) / n:4.2f}%/bot, "  # type: ignore[arg-type]
        f"world {row['world_cpu_pct']:4.1f}%)  "
        f"react p50 {row['react_p50']:.1f} p90 {row['react_p90']:.1f} "
        f"p99{'' if int(row['react_n']) >= 100 else ' (max)'} {row['react_p99']:.1f} "  # type: ignore[call-overload]
        f"ms (n={row['react_n']}, {row['misses']} missed, {row['first_blows']} first blows, "
        f"{row['from_python']} zombies struck first from Python; over 50 ms: {slow(row)})  {said}"
    )


def slow(row: dict[str, object]) -> str:
    """The reactions over 50 ms, each: the tail that p99 alone hides (``p``: no bridge struck
    that zombie first, the swing came from a reflex actor in Python)."""
    values = row.get("react_slow")
    if not isinstance(values, list) or not values:
        return "none"
    bots = f" at {row.get('late_bots')} of {row['joined']} bots" if row.get("late_bots") else ""
    return " ".join(f"{ms:.0f}{'p' if python else ''}" for ms, python in values) + bots


def table(rows: list[dict[str, object]]) -> str:
    out = ["arm       N  PSS MiB/bot  marginal MiB  CPU %/bot  react p50/p99 ms  lesson all ms"]
    if any(int(r["react_n"]) < 100 for r in rows):  # type: ignore[call-overload]
        out.insert(0, "(a p99 of fewer than 100 reactions is their maximum: --trials for more)")
    base = {r["arm"]: float(r["pss_mib"]) for r in rows if r["n"] == 1}  # type: ignore[arg-type]
    for r in rows:
        n = int(r["n"])  # type: ignore[call-overload]
        pss = float(r["pss_mib"])  # type: ignore[arg-type]
        marginal = (pss - base[r["arm"]]) / (n - 1) if n > 1 and r["arm"] in base else float("nan")
        spread = r["spread"]
        everyone = f"{max(spread):.0f}" if isinstance(spread, list) and spread else "-"
        out.append(
            f"{r['arm']:8s} {n:3d}  {pss / n:11.0f}  {marginal:12.0f}  "
            f"{float(r['cpu_pct']) / n:9.2f}  {r['react_p50']:7.1f}/{r['react_p99']:<7.1f}  "  # type: ignore[arg-type]
            f"{everyone:>13s}"
        )
    return "\n".join(out)


if __name__ == "__main__":
    main()
