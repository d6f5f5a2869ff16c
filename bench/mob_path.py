"""The sandbox mobs' A* (``pepa/worldserver/js/life/path.js``): CPU time of one search.

Run: ``.venv/bin/python bench/mob_path.py [--rounds 200]``. On the small worlds of
``tests/integration/worldserver/test_sandbox_paths.py`` (a stone floor, real block names): a
typical search, a zombie round a wall, and one that spends its whole budget of 400 nodes (the
goal walled off). Prints the CPU milliseconds of each, as the mean over ``--rounds`` searches
after 20 to warm up; the test of the same module counts what the cheapness comes from (nodes
expanded, blocks read once).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pepa.base.node import node_binary, node_modules
from pepa.worldserver.process import SERVER_JS

PATH_JS = SERVER_JS / "life" / "path.js"

TIMES = r"""
const path = require(process.env.PATH_JS)
const registry = require('prismarine-registry')('1.16.5')
const kindOf = (name) => path.classify(registry.blocksByName[name])
const rounds = Number(process.argv[1])
const stone = kindOf('stone'); const air = kindOf('air')
// a stone floor at y = 0 for |x|, |z| <= 20, plus `blocks` {"x,y,z": name}
function world (blocks) {
  const set = new Map(Object.entries(blocks).map(([k, n]) => [k, kindOf(n)]))
  return (x, y, z) => {
    const k = set.get(x + ',' + y + ',' + z)
    if (k !== undefined) return k
    return y === 0 && Math.abs(x) <= 20 && Math.abs(z) <= 20 ? stone : air
  }
}
function box (name, [x0, y0, z0], [x1, y1, z1], into = {}) {
  for (let x = x0; x <= x1; x++) {
    for (let y = y0; y <= y1; y++) for (let z = z0; z <= z1; z++) into[x + ',' + y + ',' + z] = name
  }
  return into
}
const ZOMBIE = { width: 0.6, height: 1.95 }
const run = (w) => path.findPath(w, { x: -5, y: 1, z: 0 }, { x: 5, y: 1, z: 0 }, ZOMBIE)
const walls = box('stone', [3, 1, -2], [7, 3, 2])
Object.assign(walls, box('air', [4, 1, -1], [6, 3, 1]))
function time (w) {
  for (let i = 0; i < 20; i++) run(w)
  const t = process.cpuUsage()
  for (let i = 0; i < rounds; i++) run(w)
  const { user, system } = process.cpuUsage(t)
  return (user + system) / rounds / 1e3
}
console.log(JSON.stringify({
  typical: time(world(box('stone', [0, 1, -5], [0, 2, 5])), rounds),
  full: time(world(walls), rounds)
}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    result = subprocess.run(
        [str(node_binary()), "-e", TIMES, str(args.rounds)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"NODE_PATH": str(node_modules()), "PATH": "/usr/bin:/bin", "PATH_JS": str(PATH_JS)},
        check=False,
    )
    if result.returncode != 0:
        sys.exit(f"node failed: {result.stderr.strip()}")
    ms = orjson.loads(result.stdout)
    print(f"path.js A*, CPU ms a search over {args.rounds}: round a wall {ms['typical']:.3f}, "
          f"a full budget of 400 nodes {ms['full']:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
