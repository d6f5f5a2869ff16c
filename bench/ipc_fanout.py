"""Benchmark the IPC fan-out: events/s delivered to each reading client.

Run from the repository root::

    python bench/ipc_fanout.py

An in-process IpcServer broadcasts ~300-byte ``log`` events from the main
thread, as an actor would. Reading clients are separate processes reading with
raw sockets and counting newlines. Every configuration runs with 1 and 10
readers, without and with one extra client that gets its hello and then never
reads again (it must be dropped without slowing the readers).

* throughput: the producer broadcasts as fast as the slowest *reader* keeps up
  (it pauses while that reader is more than ``WINDOW`` events behind, so
  readers are never dropped for lagging; the stalled client is not waited
  for). A reader's rate is events received / time from the first broadcast to
  its last event. Median over ``REPEATS`` runs.
* latency: the producer is paced at ``LATENCY_RATE`` events/s; each reader
  samples the oldest event completed by every read against a CLOCK_MONOTONIC
  stamp taken just before ``broadcast`` (so this is the worst event of a read).
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import re
import shutil
import socket
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pepa.ipc import IpcServer, protocol

THROUGHPUT_EVENTS = 100_000
WINDOW = 10_000  # events the slowest reader may lag (3 MB, under the 8 MB drop limit)
LATENCY_RATE = 20_000  # events/s
LATENCY_SECONDS = 1.0
REPEATS = 3
CLIENT_COUNTS = (1, 10)
_STAMP = re.compile(rb'"t":(\d+)')


def reader(conn: Connection, path: str, progress: Any, slot: int) -> None:
    """A client process: on each request, connect, read ``expected`` events, report."""
    while (request := conn.recv()) is not None:
        expected, timeout = request
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        sock.settimeout(timeout)
        data = b""
        while b"\n" not in data:  # the hello
            data += sock.recv(65536)
        tail = data.split(b"\n", 1)[1]
        count, samples, last = tail.count(b"\n"), [], time.monotonic()
        progress[slot] = count
        conn.send("ready")
        try:
            while count < expected:
                data = sock.recv(1 << 20)
                if not data:
                    break
                now = time.monotonic_ns()
                newline = data.find(b"\n")
                if newline < 0:
                    tail += data
                    continue
                stamp = _STAMP.search(tail + data[:newline])  # the oldest event in this read
                if stamp:
                    samples.append((now - int(stamp.group(1))) / 1e6)
                tail = data[data.rfind(b"\n") + 1 :]
                count += data.count(b"\n")
                progress[slot] = count
                last = time.monotonic()
        except TimeoutError:
            pass
        sock.close()
        conn.send((count, last, samples))


def event(seq: int, padding: str) -> dict[str, Any]:
    details = {"seq": seq, "t": time.monotonic_ns()}
    return protocol.log(time.time(), "info", "bench", padding, details)


class Bench:
    """One server and a pool of reader processes reused across runs."""

    def __init__(self, path: Path, workers: int) -> None:
        self.server = IpcServer(path, on_command=lambda cid, cmd: None, on_connect=self._greet)
        self.server.start()
        ctx = mp.get_context("spawn")
        self.progress = ctx.Array("q", workers, lock=False)
        self.pipes: list[Connection] = []
        self.procs = []
        for slot in range(workers):
            ours, theirs = ctx.Pipe()
            args = (theirs, str(path), self.progress, slot)
            proc = ctx.Process(target=reader, args=args, daemon=True)
            proc.start()
            self.pipes.append(ours)
            self.procs.append(proc)
        self.padding = "x" * max(0, 300 - len(protocol.encode(event(0, ""))))

    def _greet(self, client_id: int) -> None:
        self.server.send(client_id, protocol.hello({"hp": 20}, []))

    def run(self, clients: int, stalled: bool, events: int, rate: float | None) -> dict[str, Any]:
        dropped_before = self.server.stats().clients_dropped
        pipes = self.pipes[:clients]
        for pipe in pipes:
            pipe.send((events, 10.0))
        for pipe in pipes:
            assert pipe.recv() == "ready"
        stall = None
        if stalled:  # connects, gets its hello, never reads again
            sent = self.server.stats().events_sent
            stall = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            stall.connect(str(self.server.path))
            deadline = time.monotonic() + 5
            while self.server.stats().events_sent == sent and time.monotonic() < deadline:
                time.sleep(0.001)
        start = time.monotonic()
        for seq in range(events):
            if seq % 20 == 0:
                if rate is not None:
                    delay = start + seq / rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                else:
                    while seq - min(self.progress[:clients]) > WINDOW:
                        time.sleep(0.0002)
            self.server.broadcast(event(seq, self.padding))
        results = [pipe.recv() for pipe in pipes]
        if stall is not None:
            stall.close()
        rates = [count / max(last - start, 1e-9) for count, last, _ in results]
        samples = sorted(s for _, _, lat in results for s in lat)
        return {
            "rate": statistics.median(rates),
            "min_rate": min(rates),
            "complete": all(count >= events for count, _, _ in results),
            "p50": samples[len(samples) // 2] if samples else float("nan"),
            "p99": samples[int(len(samples) * 0.99)] if samples else float("nan"),
            "dropped": self.server.stats().clients_dropped - dropped_before,
        }

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(None)
        for proc in self.procs:
            proc.join(5)
        self.server.stop()


def main() -> None:
    logging.getLogger("pepa.ipc").setLevel(logging.ERROR)  # the drops are counted instead
    directory = Path(tempfile.mkdtemp(prefix="pepa-bench-", dir="/tmp"))
    started = time.monotonic()
    bench = Bench(directory / "bot.sock", max(CLIENT_COUNTS))
    rows = []
    try:
        for clients in CLIENT_COUNTS:
            for stalled in (False, True):
                runs = [
                    bench.run(clients, stalled, THROUGHPUT_EVENTS, None) for _ in range(REPEATS)
                ]
                paced = bench.run(
                    clients, stalled, int(LATENCY_RATE * LATENCY_SECONDS), LATENCY_RATE
                )
                rows.append((clients, stalled, runs, paced))
    finally:
        bench.close()
        shutil.rmtree(directory, ignore_errors=True)
    print(f"IPC fan-out: ~300-byte events, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print(f"throughput: {THROUGHPUT_EVENTS:,} events x {REPEATS} runs (median);", end=" ")
    print(f"latency: paced at {LATENCY_RATE:,} events/s for {LATENCY_SECONDS:g} s")
    header = ("readers", "stalled", "events/s/reader", "slowest", "p50 ms", "p99 ms", "complete")
    print("{:>7} {:>7} {:>15} {:>9} {:>7} {:>7} {:>8} {:>7}".format(*header, "dropped"))
    base: dict[int, float] = {}
    for clients, stalled, runs, paced in rows:
        rate = statistics.median(r["rate"] for r in runs)
        slowest = min(r["min_rate"] for r in runs)
        complete = all(r["complete"] for r in runs) and paced["complete"]
        dropped = sum(r["dropped"] for r in runs) + paced["dropped"]
        cells = [clients, "yes" if stalled else "no", f"{rate:,.0f}", f"{slowest:,.0f}"]
        cells += [f"{paced['p50']:.2f}", f"{paced['p99']:.2f}", "yes" if complete else "NO"]
        print("{:>7} {:>7} {:>15} {:>9} {:>7} {:>7} {:>8} {:>7}".format(*cells, dropped))
        if stalled:
            print(f"{'':>16}stalled / not stalled: {rate / base[clients]:.2f}")
        else:
            base[clients] = rate
    print(
        f"(dropped counts stalled clients over all runs; total {time.monotonic() - started:.1f} s)"
    )


if __name__ == "__main__":
    main()
