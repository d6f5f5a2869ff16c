"""Reaction latency on a real server: hostile spawned → first attack packet, pepa vs polling.

Run: ``.venv/bin/python bench/reaction_latency.py [trials]`` (default 50).
One embedded world; the daemon plays in it three times: as pepa runs (the
bridge strikes the first blow the reflex armed it for, docs/survival.md), with
``PEPA_FIRST_BLOW=0`` (the reflex reacts to the hostile the moment perception
spots it, and the swing goes back through the bridge), then with
``PEPA_REFLEX_POLL=0.3`` (the reflex only decides every 300 ms, as polling
bots such as Mindcraft do; no first blow either). The server measures both
ends itself: the time it spawned the zombie 3 blocks from the bot and the
time the bot's first attack packet on it arrived.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import describe, first_hit
from pepa.worldserver.process import EmbeddedWorld, free_port

BOT = "pepa_bot"


def run_daemon(
    world: EmbeddedWorld, root: Path, env_extra: dict[str, str]
) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    # a bot that stands still: one working its plan may walk off before the zombie
    # is within the 4 blocks that make it attack, and that is not reaction time
    env["PEPA_CURRICULUM"] = "0"
    env.update(env_extra)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pepa", "start", "--state-dir", str(root / "state"),
         "--host", "127.0.0.1", "--port", str(world.port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=root,
    )  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:
        if "in the world at" in line:
            threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
            return proc
    raise RuntimeError("the daemon never joined the world")


def trials(world: EmbeddedWorld, count: int) -> list[float]:
    pause = threading.Event()
    samples = []
    pause.wait(1.0)  # let the bot settle after joining
    for _ in range(count):
        ms = first_hit(world, BOT, 3)
        if ms is None:
            raise RuntimeError(f"the bot never attacked its zombie (trial {len(samples) + 1})")
        samples.append(ms)
        world.op("remove_mobs")
        pause.wait(2.0)  # past the 0.6 s swing cooldown: measure reaction, not cooldown
    return samples


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    root = Path(tempfile.mkdtemp(prefix="pepa-bench-"))
    world = EmbeddedWorld(root / "world", port=free_port(), control=True).start()
    results: dict[str, list[float]] = {}
    try:
        for label, env in (
            ("pepa", {}),
            ("pepa, no first blow", {"PEPA_FIRST_BLOW": "0"}),
            ("300 ms polling", {"PEPA_REFLEX_POLL": "0.3"}),
        ):
            proc = run_daemon(world, root, env)
            try:
                results[label] = trials(world, count)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
    finally:
        world.stop()
    for label, samples in results.items():
        print(f"{label:22s} {describe(samples)}")
    ours, in_python, polling = (statistics.median(v) for v in results.values())
    print(f"no first blow / pepa (medians): x{in_python / ours:.1f}")
    print(f"polling / pepa (medians): x{polling / ours:.0f}")


if __name__ == "__main__":
    main()
