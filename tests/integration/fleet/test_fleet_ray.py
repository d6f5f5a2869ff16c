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

The cluster enforces Ray's token authentication, as ``pepa fleet --ray``
demands: a cluster without it, or a wrong token, is refused before anything
joins. The fleet runs with a marker password and OpenAI key, and the fleet's
own PostgreSQL gives each bot a password: none of them is in the memory of
Ray's control store (the GCS) or of a raylet, while the bots, on their nodes,
register with the world's AuthMe and share the fleet's knowledge base.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
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

from pepa.fleet.postgres import cluster_home, find_bin_dir
from pepa.ipc import protocol
from pepa.ipc.client import IpcClient
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon
from tests.fleet_helpers import JOINED, joins, pepa, roster, server_root
from tests.waiting import eventually

ray_cluster_utils = pytest.importorskip(
    "ray.cluster_utils", reason="Ray: pip install 'pepa[fleet]'"
)
from ray._private import ray_constants  # noqa: E402 (Ray is optional: after the skip)
from ray._raylet import GcsClient  # noqa: E402

pytestmark = [
    pytest.mark.integration, pytest.mark.timeout(240), pytest.mark.xdist_group("fleet")
]  # fmt: skip

BOTS = ["pepa_bot_1", "pepa_bot_2", "pepa_bot_3", "pepa_bot_4"]
TOKEN = secrets.token_hex(32)
"""The test cluster's token."""
PASSWORD = f"pw-marker-{secrets.token_hex(8)}"
"""The bots' AuthMe password (MC_PASSWORD): it must reach every node, never Ray's stores."""
OPENAI_KEY = f"sk-marker-{secrets.token_hex(8)}"
ACTOR_NAME = re.compile(r"pepa-group-[0-9]+-[0-9a-f]{32}")


@contextlib.contextmanager
def ray_auth(mode: str, token: str | None = None) -> Iterator[dict[str, str]]:
    """This process (and the Ray nodes it starts) in Ray's authentication ``mode``; the
    variables to give a ``pepa`` command for the same. Ray reads them once per process, so its
    configuration is read again on the way in and out."""
    from ray._raylet import AuthenticationTokenLoader, Config

    wanted = {"RAY_AUTH_MODE": mode, **({"RAY_AUTH_TOKEN": token} if token else {})}
    saved = {name: os.environ.get(name) for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    os.environ.pop("RAY_AUTH_TOKEN", None)
    os.environ.update(wanted)
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()
    try:
        yield wanted
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        Config.initialize("")
        AuthenticationTokenLoader.instance().reset_cache()


@contextlib.contextmanager
def local_cluster(nodes: int) -> Iterator[Any]:
    """Ray's test cluster of ``nodes`` nodes on this machine, one CPU each, no dashboard.

    Ray's node objects put SIGTERM and SIGINT handlers of their own into this process (the
    test process): they are taken out again, or the signal tests that run later in this
    worker find them."""
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    c = ray_cluster_utils.Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        for _ in range(nodes - 1):
            c.add_node(num_cpus=1)
        c.wait_for_nodes()
        _restore(saved)
        yield c
    finally:
        c.shutdown()
        _restore(saved)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two Ray nodes with token authentication (every node has the token from its
    environment, as ``ray start`` under ``RAY_AUTH_TOKEN`` has)."""
    with ray_auth("token", TOKEN), local_cluster(2) as c:
        yield c


@pytest.fixture
def open_cluster() -> Iterator[Any]:
    """One Ray node that lets in any client: no token authentication."""
    with ray_auth("disabled"), local_cluster(1) as c:
        yield c


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
        env={
            "RAY_DEDUP_LOGS": "0",  # every group's line reaches the driver's terminal
            "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN,
            "MC_PASSWORD": PASSWORD, "OPENAI_API_KEY": OPENAI_KEY,
        },
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


def fleet_command(
    address: str, tmp_path: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``pepa fleet --ray address`` with one bot, against a server that is not there."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_", "RAY_"))}
    return subprocess.run(
        [sys.executable, "-m", "pepa", "fleet", "--bots", "1", "--ray", address,
         "--state-dir", str(tmp_path / "state"), "--host", "127.0.0.1", "--port", "1"],
        env={**clean, **env}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


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
    result = fleet_command(address, tmp_path, {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN})
    assert result.returncode == 1
    assert result.stderr.strip() == f"pepa: error: {said}" or said in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


@pytest.mark.timeout(120)
def test_a_cluster_without_token_authentication_is_refused_and_nothing_joins(
    open_cluster: Any, tmp_path: Path
) -> None:
    address = open_cluster.address
    result = fleet_command(address, tmp_path, {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN})
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        f"pepa: error: the Ray cluster at {address} accepts clients without a token: anyone "
        f"who reaches its ports can run code on its nodes. Start every node with "
        f"RAY_AUTH_MODE=token and the cluster's token (docs/fleet.md, 'Token authentication')\n"
    )
    gcs = GcsClient(address=address)
    assert gcs.get_all_job_info() == {}  # no driver ever joined
    assert actor_names(gcs) == []


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({}, "pepa fleet --ray joins only a Ray cluster with token authentication: set "
             "RAY_AUTH_MODE=token here and on every node"),
        ({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64},
         "refuses this machine's Ray token"),
    ],
    ids=["no-token-mode", "wrong-token"],
)  # fmt: skip
def test_pepa_without_the_clusters_token_is_refused_with_one_line(
    cluster: Any, tmp_path: Path, env: dict[str, str], said: str
) -> None:
    result = fleet_command(cluster.address, tmp_path, {"HOME": str(tmp_path), **env})
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("pepa: error: ") and said in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def actor_names(gcs: Any) -> list[str]:
    """The names of every actor the cluster's GCS knows, alive or dead."""

    async def ask() -> Any:
        return await gcs.async_get_all_actor_info()

    return sorted(str(actor.name) for actor in asyncio.run(ask()).values())


def ray_pids(cluster: Any) -> dict[str, int]:
    """The pid of the GCS and of every raylet of the cluster."""
    pids = {"gcs": cluster.head_node.all_processes[ray_constants.PROCESS_TYPE_GCS_SERVER][0]}
    for n, node in enumerate([cluster.head_node, *cluster.worker_nodes]):
        pids[f"raylet {n}"] = node.all_processes[ray_constants.PROCESS_TYPE_RAYLET][0]
    return {name: info.process.pid for name, info in pids.items()}


def memory_holds(pid: int, needles: list[bytes]) -> set[bytes]:
    """Which of ``needles`` are anywhere in the process's private memory (heap and anonymous
    mappings: where a process keeps what it received), read through ``/proc/<pid>/mem``."""
    found: set[bytes] = set()
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            fields = line.split()
            low, high = (int(edge, 16) for edge in fields[0].split("-"))
            where = fields[5] if len(fields) > 5 else ""
            if not fields[1].startswith("r") or (where and where != "[heap]"):
                continue
            try:
                mem.seek(low)
                chunk = mem.read(high - low)
            except OSError:  # a guard page, a mapping gone since maps was read
                continue
            found.update(needle for needle in needles if needle in chunk)
    return found


def db_passwords(root: Path) -> list[str]:
    """Every bot's password on the fleet's own PostgreSQL (``postgres/roles.json``)."""
    roles = orjson.loads((root / "postgres" / "roles.json").read_bytes())
    return [str(password) for password in roles.values()]


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


def test_no_secret_reaches_rays_stores_and_each_node_reads_them_to_log_in(
    colony: tuple[EmbeddedWorld, Daemon], cluster: Any
) -> None:
    world, fleet = colony
    root = server_root(fleet)

    def registered() -> set[str]:
        log = world.op("auth_log")
        return {e["player"] for e in log if e["command"] == "register" and e["ok"]}

    # each bot got its secrets on its node: the AuthMe password, its database URL
    eventually(lambda: registered() == set(BOTS), 60, "every bot registered with AuthMe")
    shared = find_bin_dir() is not None  # the fleet's own PostgreSQL: a password for each bot
    if shared:
        assert not [bot for bot in BOTS if (root / bot / "knowledge.db").exists()]
    assert not (root / "fleet-secrets.json").is_symlink()
    assert oct((root / "fleet-secrets.json").stat().st_mode & 0o777) == oct(0o600)
    # what Ray keeps has none: not in the GCS's memory, nor in a raylet's
    hidden = [s.encode() for s in (PASSWORD, OPENAI_KEY, *(db_passwords(root) if shared else ()))]
    shown = str(root / "fleet-secrets.json").encode()  # in the payload: the scan finds it
    assert len(hidden) == 2 + len(BOTS) * shared
    held = {name: memory_holds(pid, [*hidden, shown]) for name, pid in ray_pids(cluster).items()}
    assert shown in held["gcs"], "the scan does not see the actors' arguments"
    assert {name: found - {shown} for name, found in held.items()} == {n: set() for n in held}
    assert not any(PASSWORD in line or OPENAI_KEY in line for line in fleet.lines)
    # the actors' names carry this run's random part, not the server's folder
    names = [n for n in actor_names(GcsClient(address=cluster.address)) if n]
    assert len(names) >= 2 and all(ACTOR_NAME.fullmatch(n) for n in names), names


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
    assert not (server_root(fleet) / "fleet-secrets.json").exists()
    gone = [Path(f"/proc/{pid}") for pid in pids]
    eventually(lambda: not any(p.exists() for p in gone), 30, f"the groups {pids} gone")
