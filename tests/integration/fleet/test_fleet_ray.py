"""``pepa fleet --ray`` on a local Ray cluster of two nodes, against a real flying-squid world.

Runs when Ray is installed (the ``pepa[fleet]`` extra; ``.ci/run`` installs it).
The cluster is Ray's own two-node test cluster on this machine (two raylets,
each its own node with its own node id); ``pepa fleet --ray ADDRESS`` joins it
as a driver and places its two groups of two bots, one group per node. The
tests check what the Ray path promises: the groups spread over the nodes,
``pepa status`` (through the fleet's socket) shows every bot wherever it runs,
a group whose process is lost comes back by itself while the other group never
notices, a group whose node is gone moves to the node left, and SIGTERM ends
the fleet with its Ray actors.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pepa.fleet.postgres import cluster_home
from pepa.ipc import protocol
from pepa.ipc.client import IpcClient
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon
from tests.fleet_helpers import JOINED, joins, pepa, roster, server_root
from tests.waiting import eventually

ray_cluster_utils = pytest.importorskip(
    "ray.cluster_utils", reason="Ray: pip install 'pepa[fleet]'"
)

pytestmark = [
    pytest.mark.integration, pytest.mark.timeout(240), pytest.mark.xdist_group("fleet")
]  # fmt: skip

BOTS = ["pepa_bot_1", "pepa_bot_2", "pepa_bot_3", "pepa_bot_4"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two Ray nodes on this machine, one CPU each, no dashboard.

    Ray's node objects put SIGTERM and SIGINT handlers of their own into this process (the
    test process): they are taken out again, or the signal tests that run later in this
    worker find them."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    c = ray_cluster_utils.Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        c.add_node(num_cpus=1)
        c.wait_for_nodes()
        _restore(saved)
        yield c
    finally:
        c.shutdown()
        _restore(saved)


def _restore(handlers: dict[int, Any]) -> None:
    for signum, handler in handlers.items():
        signal.signal(signum, handler)


@pytest.fixture(scope="module")
def colony(cluster: Any) -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    root = Path(tempfile.mkdtemp(prefix="pepa-ray-", dir="/tmp"))  # short: socket paths
    world = EmbeddedWorld(root / "world", port=free_port(), control=True).start()
    d = Daemon(
        root, "--bots", "4", "--group", "2", "--ray", cluster.address, "--console", "info",
        command="fleet", host="127.0.0.1", port=world.port,
        env={"RAY_DEDUP_LOGS": "0"},  # every group's line reaches the driver's terminal
    )  # fmt: skip
    try:
        for bot in BOTS:
            d.wait_line(f"[{bot}] {JOINED}", 120)
        yield world, d
    finally:
        d.close()
        world.stop()
        shutil.rmtree(cluster_home(server_root(d) / "postgres"), ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fleet(colony: tuple[EmbeddedWorld, Daemon]) -> Daemon:
    return colony[1]


def all_back(bots: dict[str, dict[str, Any]]) -> bool:
    """Every bot of the fleet listed and connected (an empty list is not "all back")."""
    return sorted(bots) == sorted(BOTS) and all(connected(bot) for bot in bots.values())


def status(fleet: Daemon) -> dict[str, dict[str, Any]]:
    result = pepa(fleet, "status", "--json")
    assert result.returncode == 0, result.stderr
    return {b["name"]: b for b in orjson.loads(result.stdout)["bots"]}


def connected(bot: dict[str, Any]) -> bool:
    return bool(bot["snapshot"] and bot["snapshot"].get("connected"))


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1:1", "cannot reach the Ray cluster at 127.0.0.1:1"),
        ("nowhere", "expected the cluster's address as host:port"),
        ("ray://127.0.0.1:10001", "Ray Client addresses are not supported"),
    ],
)
def test_a_wrong_cluster_address_gets_one_clear_line(
    address: str, said: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_"))}
    result = subprocess.run(
        [sys.executable, "-m", "pepa", "fleet", "--bots", "1", "--ray", address,
         "--state-dir", str(tmp_path / "state"), "--host", "127.0.0.1", "--port", "1"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip() == f"pepa: error: {said}" or said in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_the_groups_run_on_both_nodes_and_status_shows_every_bot(fleet: Daemon) -> None:
    groups = roster(fleet)["groups"]
    assert [g["bots"] for g in groups] == [BOTS[:2], BOTS[2:]]
    nodes = {g["where"].rsplit("node ", 1)[1] for g in groups}
    said = [line for line in fleet.lines if line.startswith("pepa: ")]
    assert len(nodes) == 2, (groups, said)  # one group per node
    assert roster(fleet)["socket"] == "fleet.sock"
    bots = eventually(
        lambda: (b := status(fleet)) and all(connected(bot) for bot in b.values()) and b,
        60,
        "every bot connected in the status",
    )
    assert list(bots) == BOTS
    assert [b["group"] for b in bots.values()] == [0, 0, 1, 1]
    text = pepa(fleet, "status").stdout
    assert text.startswith(f"fleet      127.0.0.1:{fleet.port}: 4 bots, 4 answering"), text
    assert text.count("  group ") == 2 and "on the Ray cluster at" in text, text


def test_a_lost_group_comes_back_and_the_other_group_never_notices(fleet: Daemon) -> None:
    killed = roster(fleet)["groups"][0]["pid"]
    other = roster(fleet)["groups"][1]["pid"]
    mark = len(fleet.lines)
    sock = server_root(fleet) / "pepa_bot_3" / "bot.sock"
    with IpcClient.connect(sock, timeout=10.0) as bystander:
        bystander.wait_for("hello", timeout=10.0)
        os.kill(killed, signal.SIGKILL)
        fleet.wait_line("group 0 (pepa_bot_1, pepa_bot_2) runs again in pid", 90, start=mark)
        for bot in BOTS[:2]:
            fleet.wait_line(f"[{bot}] {JOINED}", 120, start=mark)
        said = [line for line in fleet.lines[mark:] if line.startswith("pepa: ")]
        assert roster(fleet)["groups"][0]["pid"] != killed, (roster(fleet), said)
        assert roster(fleet)["groups"][0]["restarts"] == 1, said
        # group 1 never noticed: the same process, no new join, its socket still answers
        assert roster(fleet)["groups"][1]["pid"] == other
        assert joins(fleet, "pepa_bot_3", mark) == 0
        assert joins(fleet, "pepa_bot_4", mark) == 0
        bystander.send(protocol.Snapshot())
        assert bystander.wait_for("status", timeout=15)["connected"] is True
    eventually(lambda: all_back(status(fleet)), 60, "all four bots back")


def test_a_group_whose_node_is_gone_moves_to_a_node_alive(
    colony: tuple[EmbeddedWorld, Daemon], cluster: Any
) -> None:
    fleet = colony[1]
    head = str(cluster.head_node.node_id)[:8]
    groups = roster(fleet)["groups"]
    gone = next(g for g in groups if not g["where"].endswith(f"node {head})"))
    stays = next(g for g in groups if g is not gone)
    name = f"group {gone['group']} ({', '.join(gone['bots'])})"
    mark = len(fleet.lines)
    cluster.remove_node(next(n for n in cluster.worker_nodes))
    fleet.wait_line(f"{name} cannot come back where it ran", 90, start=mark)
    for bot in gone["bots"]:
        fleet.wait_line(f"[{bot}] {JOINED}", 120, start=mark)
    moved = roster(fleet)["groups"][gone["group"]]
    assert moved["where"].endswith(f"node {head})"), moved  # on the node left
    # the group on the node that stayed never noticed
    assert roster(fleet)["groups"][stays["group"]]["pid"] == stays["pid"]
    for bot in stays["bots"]:
        assert joins(fleet, bot, mark) == 0
    eventually(lambda: all_back(status(fleet)), 60, "all four bots back")


def test_sigterm_stops_the_fleet_and_its_ray_actors(fleet: Daemon) -> None:
    pids: list[int] = [g["pid"] for g in roster(fleet)["groups"]]
    fleet.signal(signal.SIGTERM)
    assert fleet.wait(90) == 0
    assert not (server_root(fleet) / "fleet.json").exists()
    assert not (server_root(fleet) / "fleet.sock").exists()
    gone = [Path(f"/proc/{pid}") for pid in pids]
    eventually(lambda: not any(p.exists() for p in gone), 30, f"the groups {pids} gone")
