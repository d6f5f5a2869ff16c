"""The vanilla world's cost: chunk generation time, and the server's tick time with 1, 8 and 32
bots playing in it.

Run: ``.venv/bin/python bench/vanilla_world.py [--sizes 1,8,32] [--chunks 400] [--settle 30]
[--window 60] [--seed 20261207]``; ``--sizes ''`` times the chunks only.

- **chunks**: in one Node process, the vanilla generator (``pepa/worldserver/js/vanilla/``)
  makes ``--chunks`` new chunks spread over the world, after 32 to warm up: the time of each,
  prismarine chunk, biomes and sky light included; median and p99.
- **ticks**: for each N, a vanilla sandbox (``--profile vanilla``, its clock running, mobs
  spawning) and ``pepa fleet --bots N`` (the curriculum on: the bots play), one loopback
  PostgreSQL for the fleet's knowledge; once every bot is in the world and ``--settle``
  seconds more, the world's ``tick_stats`` over ``--window`` seconds: each tick's work (every
  tick listener of flying-squid's 50 ms interval) and the gap between ticks (over 50 ms: the
  event loop was busy with chunks, packets or moves); median and p99.

Targets: chunk generation p99 under 20 ms; tick p99 under 50 ms with 32 bots.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fleet import Arm
from pepa.base.node import node_binary, node_modules
from pepa.fleet.postgres import find_bin_dir
from pepa.worldserver.process import SERVER_JS, EmbeddedWorld, free_port
from tests.pg_server import PostgresServer

CHUNKS_JS = r"""
const { performance } = require('perf_hooks')
const registry = require('prismarine-registry')('1.16.5')
const generation = require(process.env.VANILLA)
const make = generation({ seed: Number(process.argv[1]), registry })
const n = Number(process.argv[2])
for (let i = 0; i < 32; i++) make(1000 + i, 1000)
const times = []
for (let i = 0; i < n; i++) {
  const cx = ((i * 7919) % 800) - 400
  const cz = ((i * 104729) % 800) - 400
  const t0 = performance.now()
  make(cx, cz)
  times.push(performance.now() - t0)
}
times.sort((a, b) => a - b)
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))]
console.log(JSON.stringify({ n, median: at(0.5), p99: at(0.99), max: times[times.length - 1] }))
"""


def chunk_times(seed: int, chunks: int) -> dict[str, float]:
    result = subprocess.run(
        [str(node_binary()), "-e", CHUNKS_JS, str(seed), str(chunks)],
        capture_output=True, text=True, timeout=600, check=True,
        env={"NODE_PATH": str(node_modules()), "PATH": "/usr/bin:/bin",
             "VANILLA": str(SERVER_JS / "vanilla" / "index.js")},
    )  # fmt: skip
    times: dict[str, float] = json.loads(result.stdout)
    return times


def ticks(n: int, args: argparse.Namespace, pg: PostgresServer, root: Path) -> dict[str, object]:
    world = EmbeddedWorld(root / f"world{n}", port=free_port(), control=True, sandbox=True,
                          seed=args.seed, profile="vanilla").start()  # fmt: skip
    try:
        db = pg.create_database(f"vanilla{n}")
        arm = Arm("fleet", n, 8, 0, world, db, root / f"fleet-{n}", True)
        try:
            missing = arm.wait_all("in the world at", 120 + 5 * n)
            time.sleep(args.settle)
            world.op("tick_stats", reset=True)
            time.sleep(args.window)
            stats: dict[str, object] = world.op("tick_stats")
            stats.update(n=n, joined=n - len(missing), mobs=world.op("life_stats")["mobs"])
            return stats
        finally:
            arm.close()
    finally:
        world.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,8,32")
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--settle", type=float, default=30.0)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    c = chunk_times(args.seed, args.chunks)
    print(f"chunk generation ({c['n']:.0f} chunks): median {c['median']:.2f} ms, "
          f"p99 {c['p99']:.2f} ms, max {c['max']:.2f} ms (target: p99 < 20 ms)",
          flush=True)  # fmt: skip
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if not sizes:
        return
    bin_dir = find_bin_dir()
    if bin_dir is None:
        sys.exit(
            "bench/vanilla_world.py needs PostgreSQL's server binaries (apt install postgresql)"
        )
    root = Path(tempfile.mkdtemp(prefix="pepa-vanilla-bench-", dir="/tmp"))
    pg = PostgresServer(bin_dir).start()
    try:
        for n in sizes:
            row = ticks(n, args, pg, root)
            work, gap = row["work"], row["gap"]
            assert isinstance(work, dict) and isinstance(gap, dict)
            print(f"N={n:3d} joined {row['joined']}/{n}: {row['ticks']} ticks, "
                  f"work median {work['median']} ms p99 {work['p99']} ms max {work['max']} ms; "
                  f"gap median {gap['median']} ms p99 {gap['p99']} ms max {gap['max']} ms; "
                  f"mobs {row['mobs']}", flush=True)  # fmt: skip
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)
    print("target: tick p99 (work) < 50 ms with 32 bots")


if __name__ == "__main__":
    main()
