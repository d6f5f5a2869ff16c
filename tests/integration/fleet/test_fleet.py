"""``pepa fleet`` against a real flying-squid world: four bots in two worker processes.

One fleet serves the module (a flat world with the scenario plugin, fault injection on, the
fleet's own PostgreSQL as the shared knowledge base):
``pepa_bot_1`` and ``pepa_bot_2`` share group 0's process and its JS bridge,
``pepa_bot_3`` and ``pepa_bot_4`` group 1's. The tests check what a fleet
promises: each bot's own folder, lock, socket and log; ``pepa status`` with a
line per bot, and the dashboard's fleet view; a lesson one bot paid for with a
death changing another's next fight; and isolation — a crashed actor
restarted in its bot alone, a bot whose tree gives up restarted alone while
its process neighbour plays on, a killed worker bringing back only its own
bots, one bot stopped while the others play.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from pepa.fleet.postgres import cluster_home
from pepa.fleet.spec import EMBEDDED_NICE
from pepa.ipc import protocol
from pepa.ipc.client import IpcClient
from pepa.worldserver.process import EmbeddedWorld, free_port
from tests.daemon_harness import Daemon, take_on_a_zombie
from tests.fleet_helpers import joins, pepa, roster, server_root
from tests.tui_helpers import Tmux
from tests.waiting import eventually
from tests.world_harness import server_player, teleport

pytestmark = [
    pytest.mark.integration, pytest.mark.timeout(180), pytest.mark.xdist_group("fleet")
]  # fmt: skip

BOTS = ["pepa_bot_1", "pepa_bot_2", "pepa_bot_3", "pepa_bot_4"]
NICE = 1
"""The workers' CPU priority below normal (``--nice``): low, not to slow the tests."""


@pytest.fixture(scope="module")
def colony() -> Iterator[tuple[EmbeddedWorld, Daemon]]:
    root = Path(tempfile.mkdtemp(prefix="pepa-fleet-", dir="/tmp"))  # short: socket paths
    world = EmbeddedWorld(root / "world", port=free_port(), control=True).start()
    # a group log of long ago, which the fleet's retention removes at start
    old = root / "state" / f"127.0.0.1_{world.port}" / "fleet" / "group-0" / "logs"
    old.mkdir(mode=0o700, parents=True)
    for folder in (root / "state", *reversed(old.relative_to(root / "state").parents)):
        (root / "state" / folder).chmod(0o700)
    (old / "2020-01-01.log").write_text("2020-01-01 00:00:00,000 INFO    long ago\n")
    d = Daemon(
        root, "--bots", "4", "--group", "2", "--fault-injection", "--console", "info",
        "--nice", str(NICE), command="fleet", host="127.0.0.1", port=world.port,
    )  # fmt: skip
    try:
        for bot in BOTS:
            d.wait_line(f"[{bot}] pepa.actors.perception: in the world at", 90)
        yield world, d
    finally:
        d.close()
        world.stop()
        shutil.rmtree(cluster_home(server_root(d) / "postgres"), ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fleet(colony: tuple[EmbeddedWorld, Daemon]) -> Daemon:
    return colony[1]


def client(fleet: Daemon, bot: str) -> IpcClient:
    c = IpcClient.connect(server_root(fleet) / bot / "bot.sock", timeout=10.0)
    c.wait_for("hello", timeout=10.0)
    return c


def group_pid(fleet: Daemon, group: int) -> int:
    pid = roster(fleet)["groups"][group]["pid"]
    assert isinstance(pid, int)
    return pid


def actor_restarts(c: IpcClient) -> dict[str, int]:
    c.send(protocol.Snapshot())
    status = c.wait_for("status", timeout=15)
    return {a["name"]: a.get("restarts", 0) for a in status["actors"]}


def test_each_bot_has_its_own_folder_lock_socket_and_log(fleet: Daemon) -> None:
    root = server_root(fleet)
    for bot in BOTS:
        folder = root / bot
        assert folder.stat().st_mode & 0o777 == 0o700
        assert (folder / "bot.sock").stat().st_mode & 0o777 == 0o600
        assert (folder / "daemon.lock").exists()
        assert not (folder / "knowledge.db").exists()  # the knowledge base is the fleet's
        assert (folder / "logs").is_dir()
    assert (root / "fleet").stat().st_mode & 0o777 == 0o700
    # the group's own log folder is pruned by the bots' retention, as each bot's is
    assert not (root / "fleet" / "group-0" / "logs" / "2020-01-01.log").exists()
    # group 0's process writes both its bots' lines to its own log, each tagged; each bot's
    # own log holds its own lines only (read first: the group's log is then a superset)
    # (the terminal's line comes before the files' lines of the same record: wait for them)
    mine = eventually(
        lambda: (
            (lines := records(root / "pepa_bot_1" / "logs"))
            and any("in the world at" in line for line in lines)
            and lines
        ),
        10,
        "pepa_bot_1's own log to hold its join",
    )
    group_log = records(root / "fleet" / "group-0" / "logs")
    tagged = {bot: Counter(untag(line, bot) for line in group_log if f" [{bot}] " in line)
              for bot in ("pepa_bot_1", "pepa_bot_2")}  # fmt: skip
    assert tagged["pepa_bot_2"]
    assert not Counter(mine) - tagged["pepa_bot_1"]  # every line of its log is its own


def records(folder: Path) -> list[str]:
    """The first lines of the log records in a log folder (a traceback's lines left out)."""
    text = "".join(p.read_text() for p in sorted(folder.iterdir()))
    return [line for line in text.splitlines() if re.match(r"\d{4}-\d\d-\d\d ", line)]


def untag(line: str, bot: str) -> str:
    return line.replace(f" [{bot}] ", " ", 1)


def nice_of(pid: int, tid: int | None = None) -> int:
    """A thread's nice (field 19 of its ``stat``; the name in field 2 may hold spaces)."""
    stat = Path(f"/proc/{pid}/task/{tid or pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[16])


def test_the_workers_and_their_bridges_run_below_normal_priority(fleet: Daemon) -> None:
    for group in (0, 1):
        pid = group_pid(fleet, group)
        assert nice_of(pid) == NICE  # the worker's main thread, which starts the bots' threads
        children = " ".join(p.read_text() for p in Path(f"/proc/{pid}/task").glob("*/children"))
        bridges = [int(c) for c in children.split()]
        assert bridges, f"group {group}: no bridge process under worker {pid}"
        for bridge in bridges:
            threads = [int(t.name) for t in Path(f"/proc/{bridge}/task").iterdir()]
            assert {nice_of(bridge, t) for t in threads} == {NICE}
        autogroup = Path(f"/proc/{pid}/autogroup")
        if autogroup.exists():  # Linux with autogroup: the worker's session, against the world's
            assert autogroup.read_text().split()[-1] == str(NICE)


def test_beside_its_own_embedded_world_a_fleet_yields_the_cpu_unless_told_otherwise() -> None:
    root = Path(tempfile.mkdtemp(prefix="pepa-fleet-", dir="/tmp"))
    d = Daemon(root, "--bots", "1", "--knowledge", "own", "--console", "info", command="fleet")
    try:
        d.wait_line("[pepa_bot_1] pepa.actors.perception: in the world at", 90)
        d.wait_line(f"(8 per process, at nice {EMBEDDED_NICE}: the server first)")  # told so
        pid = group_pid(d, 0)
        assert nice_of(pid) == EMBEDDED_NICE
        autogroup = Path(f"/proc/{pid}/autogroup")
        if autogroup.exists():
            assert autogroup.read_text().split()[-1] == str(EMBEDDED_NICE)
        world = next((p for p in Path("/proc").glob("[0-9]*") if _runs_world(p, d.port)), None)
        assert world is not None, f"no world server on port {d.port}"
        assert nice_of(int(world.name)) == 0  # the world itself at normal priority
    finally:
        d.close()
        shutil.rmtree(root, ignore_errors=True)


def _runs_world(proc: Path, port: int) -> bool:
    try:
        argv = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:  # gone meanwhile
        return False
    return any(a.endswith(b"server.js") for a in argv) and str(port).encode() in argv


def test_status_shows_one_line_per_bot_and_one_bots_full_view(fleet: Daemon) -> None:
    result = pepa(fleet, "status")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"fleet      127.0.0.1:{fleet.port}: 4 bots")
    for bot in BOTS:
        row = next(line for line in lines if line.startswith(bot))
        assert re.search(r"\s(connected|connecting)\s+\d+/\d+\s+\d+\s+\d+\s", row), row
    data = orjson.loads(pepa(fleet, "status", "--json").stdout)
    assert [b["name"] for b in data["bots"]] == BOTS
    assert [b["group"] for b in data["bots"]] == [0, 0, 1, 1]
    one = pepa(fleet, "status", "--bot", "pepa_bot_3")
    assert one.returncode == 0, one.stderr
    assert f"server     127.0.0.1:{fleet.port} as pepa_bot_3" in one.stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_the_dashboard_lists_the_bots_and_opens_one_bots_full_view(
    fleet: Daemon, short_tmp: Path
) -> None:
    tmux = Tmux(short_tmp)
    try:
        where = ["--state-dir", str(fleet.state), "--port", str(fleet.port), "--host", "127.0.0.1"]
        errors = tmux.pepa_tui("fleet", where, 120, 40)
        listed = tmux.wait_for(
            "fleet", lambda text: "4 bots" in text and all(f" {bot} " in text for bot in BOTS)
        )
        assert f"pepa fleet  127.0.0.1:{fleet.port}" in listed.splitlines()[0]
        assert "▸ pepa_bot_1 " in listed
        tmux.keys("fleet", "Down")
        tmux.wait_for("fleet", "▸ pepa_bot_2 ")
        tmux.keys("fleet", "Enter")
        bot = tmux.wait_for(
            "fleet",
            lambda text: "● connected" in text and "┌─ actors" in text
            and f"pepa_bot_2 @ 127.0.0.1:{fleet.port}" in text,
        )  # fmt: skip
        assert "Esc fleet" in bot.splitlines()[-1]
        tmux.keys("fleet", "Escape")
        back = tmux.wait_for("fleet", lambda text: "▸ pepa_bot_2 " in text and "4 bots" in text)
        assert "┌─ actors" not in back and all(f" {bot} " in back for bot in BOTS)
        tmux.keys("fleet", "q")
        tmux.wait_for("fleet", "EXIT:0")
        assert errors.read_text() == ""
    finally:
        tmux.kill()


def test_a_second_fleet_or_a_daemon_on_the_same_server_is_refused(fleet: Daemon) -> None:
    for command in (["fleet", "--bots", "1", "--no-sandbox"], ["start", "--no-sandbox"]):
        result = pepa(fleet, *command)
        assert result.returncode == 1
        assert "already using" in result.stderr, result.stderr


def test_a_lesson_one_bot_paid_for_changes_the_next_fight_of_a_bot_in_another_process(
    colony: tuple[EmbeddedWorld, Daemon],
) -> None:
    world, fleet = colony
    mark = len(fleet.lines)
    # pepa_bot_1 (group 0) takes on a zombie and dies in the fight (the server deals the blow)
    with client(fleet, "pepa_bot_1") as watching:  # the fight in its view, at full health
        take_on_a_zombie(
            world, fleet, watching, "pepa_bot_1",
            "[pepa_bot_1] pepa.actors.reflex: defend: combat.attack-nearest", start=mark,
        )  # fmt: skip
    world.op("damage", player="pepa_bot_1", amount=25)
    fleet.wait_line("[pepa_bot_1] pepa.actors.knowledge: death 1 recorded", 30, start=mark)
    world.op("remove_mobs")
    # pepa_bot_3 (group 1, another process) hears the lesson from the shared base
    heard = fleet.wait_line("[pepa_bot_3] pepa.actors.knowledge: lesson from pepa_bot_1", 30,
                            start=mark)  # fmt: skip
    assert "zombie" in fleet.lines[heard]
    # and its next fight with a zombie is a flight: it never fought one itself. Away from
    # the others first: a neighbour's first blow (pepa_bot_1 respawns beside it) is not its own
    here = server_player(world, "pepa_bot_3")
    assert here is not None
    x, y, z = (here["position"][k] for k in ("x", "y", "z"))
    teleport(world, "pepa_bot_3", x + 40, y, z)
    before = len(fleet.lines)
    mob = world.op("spawn_mob", player="pepa_bot_3", name="zombie", dx=3)["ids"][0]
    fleet.wait_line(
        "[pepa_bot_3] pepa.actors.reflex: defend: survive.flee (lesson: avoid fighting zombie)",
        30, start=before,
    )  # fmt: skip
    health = {m["id"]: m["health"] for m in world.op("entities", name="zombie")}
    assert (health.get(mob) or 0) >= 19  # at most the hot path's first swing
    world.op("remove_mobs")
    # the deaths are each bot's own; the lesson is everyone's
    bots = {b["name"]: b for b in orjson.loads(pepa(fleet, "status", "--json").stdout)["bots"]}
    assert bots["pepa_bot_1"]["snapshot"]["learning"]["deaths"] == 1
    assert bots["pepa_bot_3"]["snapshot"]["learning"]["deaths"] == 0
    assert bots["pepa_bot_3"]["snapshot"]["learning"]["lessonsInForce"] >= 1


def test_a_crashed_actor_is_restarted_in_its_bot_alone(fleet: Daemon) -> None:
    with client(fleet, "pepa_bot_1") as one, client(fleet, "pepa_bot_2") as two:
        before = actor_restarts(two)
        one.send(protocol.Fault(actor="reflex", kind="crash"))
        one.wait_for(
            lambda e: e["type"] == "actor" and e["name"] == "reflex" and e["state"] == "running"
            and e.get("restarts", 0) >= 1,
            timeout=20,
        )  # fmt: skip
        assert actor_restarts(one)["reflex"] >= 1
        assert actor_restarts(two) == before  # the same process, untouched


def test_a_bot_whose_tree_gives_up_comes_back_alone(fleet: Daemon) -> None:
    mark = len(fleet.lines)
    with client(fleet, "pepa_bot_1") as neighbour, client(fleet, "pepa_bot_2") as two:
        try:
            for _ in range(7):  # the root allows 5 restarts in 30 s: the tree gives up
                two.send(protocol.Fault(actor="knowledge", kind="crash"))
                for state in ("restarting", "running"):
                    two.wait_for(
                        lambda e, state=state: e["type"] == "actor"
                        and e["name"] == "knowledge" and e["state"] == state,
                        timeout=20,
                    )  # fmt: skip
        except (ConnectionError, OSError):
            pass  # its socket closed: the tree gave up
        fleet.wait_line("pepa_bot_2: its actor tree gave up", 30, start=mark)
        fleet.wait_line("[pepa_bot_2] pepa.actors.perception: in the world at", 60, start=mark)
        # its neighbour in the same process never left the server nor lost its socket
        assert joins(fleet, "pepa_bot_1", mark) == 0
        neighbour.send(protocol.Snapshot())
        assert neighbour.wait_for("status", timeout=15)["connected"] is True


def test_a_killed_worker_brings_back_only_its_own_bots(fleet: Daemon) -> None:
    killed = group_pid(fleet, 0)
    other = group_pid(fleet, 1)
    mark = len(fleet.lines)
    with client(fleet, "pepa_bot_3") as bystander:
        os.kill(killed, signal.SIGKILL)
        fleet.wait_line("group 0 (pepa_bot_1, pepa_bot_2) died (killed by SIGKILL)", 30, start=mark)
        for bot in ("pepa_bot_1", "pepa_bot_2"):
            fleet.wait_line(f"[{bot}] pepa.actors.perception: in the world at", 90, start=mark)
        assert group_pid(fleet, 0) != killed and group_pid(fleet, 1) == other
        # group 1 never noticed: no new join, and the connection opened before still answers
        assert joins(fleet, "pepa_bot_3", mark) == 0 and joins(fleet, "pepa_bot_4", mark) == 0
        bystander.send(protocol.Snapshot())
        assert bystander.wait_for("status", timeout=15)["connected"] is True


def test_stopping_one_bot_leaves_the_others_playing(fleet: Daemon) -> None:
    mark = len(fleet.lines)
    with client(fleet, "pepa_bot_4") as four:
        four.send(protocol.Stop())
    fleet.wait_line("pepa_bot_4 stopped: stop requested", 30, start=mark)
    status = eventually(
        lambda: (
            (r := pepa(fleet, "status")).returncode == 0
            and "stopped on request" in r.stdout
            and r.stdout
        ),
        30,
        "the status to show pepa_bot_4 stopped",
    )
    row = next(line for line in status.splitlines() if line.startswith("pepa_bot_4"))
    assert " down " in row and "stopped on request" in row
    with client(fleet, "pepa_bot_3") as three:  # its neighbour in group 1 plays on
        three.send(protocol.Snapshot())
        assert three.wait_for("status", timeout=15)["connected"] is True


def test_sigterm_stops_the_whole_fleet_and_leaves_no_process(fleet: Daemon) -> None:
    pids = [group_pid(fleet, 0), group_pid(fleet, 1)]
    fleet.signal(signal.SIGTERM)
    assert fleet.wait(60) == 0
    assert not (server_root(fleet) / "fleet.json").exists()
    for pid in pids:
        eventually(lambda pid=pid: not Path(f"/proc/{pid}").exists(), 10, f"worker {pid} gone")
    result = pepa(fleet, "status")
    assert result.returncode == 1 and "no daemon is running" in result.stderr
