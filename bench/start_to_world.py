"""``pepa start`` → in the world: seconds from launching the daemon to the bot's first spawn.

Run: ``.venv/bin/python bench/start_to_world.py``. Each round launches
``pepa start`` on a fresh state folder (embedded world, free port), waits for
the "in the world at" log line, then stops it with SIGTERM.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import describe
from pepa.worldserver.process import free_port

ROUNDS = 5


def one_round() -> float:
    root = Path(tempfile.mkdtemp(prefix="pepa-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pepa", "start", "--state-dir", str(root / "state"),
         "--port", str(free_port())],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=root,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if "in the world at" in line:
                return time.perf_counter() - started
        raise RuntimeError("pepa start ended before the bot was in the world")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        proc.stdout.close()


def main() -> None:
    samples = [one_round() * 1000 for _ in range(ROUNDS)]
    print(f"pepa start -> in the world   {describe(samples)}")


if __name__ == "__main__":
    main()
