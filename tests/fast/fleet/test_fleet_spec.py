"""The fleet file and ``--bots N``: what a fleet is, and one clear line for every mistake."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from pepa.base import logs
from pepa.base.errors import ConfigError
from pepa.base.threads import bot_of, thread_name
from pepa.daemon.config import Config
from pepa.fleet.onray import RayFleetSupervisor
from pepa.fleet.spec import EMBEDDED_NICE, BotSpec, FleetSpec, fleet_of_count, read_fleet_file
from pepa.fleet.supervisor import FleetSupervisor, bot_configs, path_budget
from pepa.link.login import LinkSettings, bot_options
from pepa.policy.persona.voice import moment_of
from pepa.runtime.events import PlayerSpotted

FILE = """
group = 2
operators = ["alice"]

[server]
host = "mc.example.org"
port = 25570

[bots]
count = 3
prefix = "wood"

[[bot]]
name = "miner"
goal = "an iron pickaxe\\u0007 and   a furnace"
operators = ["bob"]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_fleet_file_names_bots_goals_operators_and_the_server(tmp_path: Path) -> None:
    spec = read_fleet_file(write(tmp_path, FILE))
    assert [b.name for b in spec.bots] == ["miner", "wood1", "wood2", "wood3"]
    assert spec.bots[0] == BotSpec(
        name="miner", goal="an iron pickaxe and a furnace", operators=("bob",)
    )
    assert spec.operators == ("alice",)
    assert spec.server == {"host": "mc.example.org", "port": 25570}
    assert [[b.name for b in g] for g in spec.groups()] == [["miner", "wood1"], ["wood2", "wood3"]]


def test_group_from_the_command_line_wins_over_the_file(tmp_path: Path) -> None:
    assert read_fleet_file(write(tmp_path, FILE), group=3).group == 3


def test_nice_from_the_file_and_the_command_line_which_wins(tmp_path: Path) -> None:
    assert read_fleet_file(write(tmp_path, FILE)).nice is None
    assert read_fleet_file(write(tmp_path, "nice = 10\n" + FILE)).nice == 10
    assert read_fleet_file(write(tmp_path, "nice = 10\n" + FILE), nice=3).nice == 3
    assert read_fleet_file(write(tmp_path, "nice = 10\n" + FILE), nice=0).nice == 0
    assert fleet_of_count(2, "pepa_", nice=19).nice == 19


def test_the_workers_yield_to_the_embedded_world_unless_told_otherwise() -> None:
    unset = fleet_of_count(2, "pepa_")
    assert unset.worker_nice(embedded=True) == EMBEDDED_NICE > 0
    assert unset.worker_nice(embedded=False) == 0  # another server's machine: not ours to judge
    assert fleet_of_count(2, "pepa_", nice=0).worker_nice(embedded=True) == 0
    assert fleet_of_count(2, "pepa_", nice=4).worker_nice(embedded=False) == 4


def test_bots_n_names_them_by_number() -> None:
    spec = fleet_of_count(3, "pepa_bot_")
    assert [b.name for b in spec.bots] == ["pepa_bot_1", "pepa_bot_2", "pepa_bot_3"]
    assert len(spec.groups()) == 1


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "at least one bot"),
        ("group = 2\n[bots]\ncount = 0\n", "between 1 and 256"),
        ("[bots]\ncount = 300\n", "between 1 and 256"),
        ("[bots]\ncount = '3'\n", "count must be a whole number"),
        ("[bots]\ncount = 2\nprefix = 'a name too long'\n", "prefix"),
        ("[bots]\ncount = 2\nprefix = 'abcdefghijklmn'\ngroup = 1\n", "unknown key 'group'"),
        ("[bots]\ncount = 10\nprefix = 'abcdefghijklmno'\n", "prefix"),
        ("[[bot]]\nname = 'x'\n", "not a Minecraft name"),
        ("[[bot]]\nname = 'a;rm -rf'\n", "not a Minecraft name"),
        ("[[bot]]\nname = 'same'\n[[bot]]\nname = 'SAME'\n", "appears twice"),
        ("[[bot]]\nname = 'abc'\ngoal = 3\n", "goal must be a string"),
        ("[[bot]]\nname = 'abc'\noperators = 'bob'\n", "must be a list of names"),
        ("[[bot]]\nname = 'abc'\ncolour = 'red'\n", "unknown key 'colour'"),
        ("group = 0\n[[bot]]\nname = 'abc'\n", "group must be between 1 and 64"),
        ("group = 65\n[[bot]]\nname = 'abc'\n", "group must be between 1 and 64"),
        ("nice = -5\n[[bot]]\nname = 'abc'\n", "nice must be between 0 and 19"),
        ("nice = 20\n[[bot]]\nname = 'abc'\n", "nice must be between 0 and 19"),
        ("nice = 'low'\n[[bot]]\nname = 'abc'\n", "nice must be a whole number"),
        ("server = 3\n[[bot]]\nname = 'abc'\n", "must be a table"),
        ("[server]\npassword = 'x'\n[[bot]]\nname = 'abc'\n", "unknown key 'password'"),
        ("bots = [\n", "not valid TOML"),
        ("operators = ['x y']\n[[bot]]\nname = 'abc'\n", "not a Minecraft name"),
    ],
)
def test_a_bad_fleet_file_is_one_clear_line(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(ConfigError, match=said) as caught:
        read_fleet_file(write(tmp_path, text))
    assert "\n" not in str(caught.value)


def test_an_unreadable_fleet_file_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the fleet file"):
        read_fleet_file(tmp_path / "missing.toml")
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not valid TOML"):
        read_fleet_file(path)


def test_each_bot_gets_its_own_folder_name_and_every_operator(tmp_path: Path) -> None:
    spec = read_fleet_file(write(tmp_path, FILE))
    base = Config(state_dir=tmp_path / "state", port=25570, operators=("carol",))
    groups = bot_configs(base, spec)
    assert [[c.username for c in g] for g in groups] == [["miner", "wood1"], ["wood2", "wood3"]]
    miner, wood1 = groups[0]
    assert miner.server_dir == tmp_path / "state" / "127.0.0.1_25570" / "miner"
    assert miner.socket_path == miner.server_dir / "bot.sock"
    assert miner.server_root == base.server_dir  # the world and the roster stay the server's
    assert miner.operators == ("carol", "alice", "bob")
    assert wood1.operators == ("carol", "alice")


def test_the_groups_on_one_machine_share_its_path_search() -> None:
    # 40 % of each core for path search, among the groups; never more than a bridge's own
    # 20 ms per tick, never under 2
    assert [path_budget(n, cores=2) for n in (1, 2, 4, 8, 64)] == [20.0, 20.0, 10.0, 5.0, 2.0]
    assert path_budget(4, cores=8) == 20.0


def test_each_bot_of_a_fleet_carries_its_groups_path_budget_to_create_bot(tmp_path: Path) -> None:
    base = Config(state_dir=tmp_path / "state", port=25570)
    fleet = FleetSupervisor(base, fleet_of_count(8, "bot", group=2), worker_argv=["true"])
    budget = path_budget(4)
    assert {c.path_budget_ms for g in fleet.groups for c in g.configs} == {budget}
    config = fleet.groups[0].configs[0]
    where = {"host": "127.0.0.1", "port": 25570, "server_dir": config.server_dir}
    options = bot_options(LinkSettings(username="bot1", path_budget_ms=budget, **where))
    assert options["pathBudgetMs"] == budget
    assert "pathBudgetMs" not in bot_options(LinkSettings(username="bot1", **where))  # pepa start
    # on Ray the groups are spread over machines: each bridge keeps its own
    spread = RayFleetSupervisor(base, fleet_of_count(8, "bot", group=2), address="127.0.0.1:1")
    assert {c.path_budget_ms for g in spread.groups for c in g.configs} == {0.0}


def test_a_fleet_spec_refuses_a_bad_group_from_the_command_line() -> None:
    with pytest.raises(ConfigError, match="group must be between"):
        fleet_of_count(2, "pepa_", group=0)
    assert isinstance(fleet_of_count(2, "pepa_", group=64), FleetSpec)
    with pytest.raises(ConfigError, match="nice must be between"):
        fleet_of_count(2, "pepa_", nice=-1)


def test_thread_names_carry_the_bot_and_its_records_reach_only_its_handlers() -> None:
    assert thread_name("knowledge", "miner") == "knowledge@miner"
    assert bot_of("knowledge@miner") == "miner" and bot_of("pepa-ipc") == ""
    seen: dict[str, list[str]] = {"miner": [], "w1": [], "": []}

    class Keep(logging.Handler):
        def __init__(self, bot: str) -> None:
            super().__init__()
            self.addFilter(logs.BotFilter(bot))
            self.bot = bot

        def emit(self, record: logging.LogRecord) -> None:
            seen[self.bot].append(record.getMessage())

    log = logging.getLogger("tests.fleet.threads")
    handlers = [Keep(bot) for bot in seen]
    for handler in handlers:
        log.addHandler(handler)
    try:

        def work(bot: str) -> None:
            log.warning("from %s", bot or "the process")
            inner = threading.Thread(
                target=log.warning, args=(f"inner {bot}",), name=thread_name("x")
            )
            inner.start()  # a thread started by a bot's thread is that bot's too
            inner.join()

        for bot in ("miner", "w1"):
            thread = threading.Thread(target=work, args=(bot,), name=thread_name("t", bot))
            thread.start()
            thread.join()
        log.warning("from the process")
    finally:
        for handler in handlers:
            log.removeHandler(handler)
    assert seen == {
        "miner": ["from miner", "inner miner"],
        "w1": ["from w1", "inner w1"],
        "": ["from the process"],
    }


def test_a_fleet_bot_greets_players_but_not_its_fellows(tmp_path: Path) -> None:
    spec = read_fleet_file(write(tmp_path, FILE))
    miner = bot_configs(Config(state_dir=tmp_path), spec)[0][0]
    assert miner.fellows == ("wood1", "wood2", "wood3")
    fellows = frozenset(miner.fellows)
    assert moment_of(PlayerSpotted(name="Wood2", distance=3.0), "miner", fellows) is None
    assert moment_of(PlayerSpotted(name="alice", distance=3.0), "miner", fellows) == (
        "player", "alice",
    )  # fmt: skip
