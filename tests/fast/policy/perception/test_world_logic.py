"""Pure logic of the world layer: chat commands, the world model, memory files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.actors.persona import describe_status
from pepa.policy.perception.model import WorldModel
from pepa.policy.persona.commands import parse
from pepa.runtime.events import (
    DawnBroke,
    DuskFell,
    HealthChanged,
    HostileGone,
    HostileSpotted,
    PlayerSpotted,
)
from pepa.state.memory import TaskFile
from pepa.world.view import Vec3, WorldView

OPS = ("alice", "Bob")


@pytest.mark.parametrize(
    ("text", "verb", "args"),
    [
        ("pepa_bot come", "come", ()),
        ("pepa_bot, status", "status", ()),
        ("@pepa_bot follow", "follow", ()),
        ("PEPA_BOT Stay!", "stay", ()),
        ("pepa_bot", "help", ()),
        ("pepa_bot dance now", "dance", ("now",)),
    ],
)
def test_lines_addressed_to_the_bot_are_commands(
    text: str, verb: str, args: tuple[str, ...]
) -> None:
    command = parse("pepa_bot", OPS, "alice", text)
    assert command is not None
    assert (command.verb, command.args, command.authorized) == (verb, args, True)


@pytest.mark.parametrize("text", ["hello pepa_bot", "pepa_botx come", "", "   ", "come pepa_bot"])
def test_other_lines_are_not_commands(text: str) -> None:
    assert parse("pepa_bot", OPS, "alice", text) is None


def test_operator_names_match_case_insensitively_but_strangers_are_not_authorized() -> None:
    assert parse("pepa_bot", OPS, "bob", "pepa_bot stop").authorized  # type: ignore[union-attr]
    stranger = parse("pepa_bot", OPS, "mallory", "pepa_bot stop")
    assert stranger is not None and not stranger.authorized and stranger.known


def test_a_quoted_operator_name_does_not_make_the_sender_an_operator() -> None:
    assert parse("pepa_bot", OPS, "mallory", "<alice> pepa_bot stop") is None


def test_a_whisper_to_the_bot_is_addressed_to_it_with_or_without_its_name() -> None:
    bare = parse("pepa_bot", OPS, "alice", "come", whispered=True)
    named = parse("pepa_bot", OPS, "alice", "pepa_bot come", whispered=True)
    assert bare == named and bare is not None and (bare.verb, bare.authorized) == ("come", True)
    told = parse("pepa_bot", OPS, "alice", "goal get iron", whispered=True)
    assert told is not None and (told.verb, told.args) == ("goal", ("get", "iron"))
    assert parse("pepa_bot", OPS, "alice", "come") is None  # said aloud: it must name the bot
    assert parse("pepa_bot", OPS, "mallory", "hi there", whispered=True) is None  # small talk
    stranger = parse("pepa_bot", OPS, "mallory", "stop", whispered=True)
    assert stranger is not None and not stranger.authorized


def test_system_lines_and_the_bots_own_lines_are_never_commands() -> None:
    assert parse("pepa_bot", OPS, None, "pepa_bot stop") is None
    assert parse("pepa_bot", ("pepa_bot",), "pepa_bot", "pepa_bot stop") is None


def snap(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"connected": True, "hp": 20, "food": 20, "timeOfDay": 1000}
    base.update(fields)
    return base


def zombie(entity_id: int, distance: float) -> dict[str, object]:
    return {"id": entity_id, "name": "zombie", "type": "mob", "kind": "Hostile mobs",
            "distance": distance}  # fmt: skip


def test_first_snapshot_reports_health_then_changes_only() -> None:
    model = WorldModel()
    assert model.apply(snap()) == [HealthChanged(hp=20, food=20, previous_hp=None)]
    assert model.apply(snap()) == []
    assert model.apply(snap(hp=15)) == [HealthChanged(hp=15, food=20, previous_hp=20)]


def test_a_hostile_is_spotted_once_while_it_stays_in_range() -> None:
    model = WorldModel()
    model.apply(snap())
    events = model.apply(snap(entities=[zombie(7, 3.0)]))
    assert events == [HostileSpotted(name="zombie", distance=3.0, entity_id=7)]
    assert model.apply(snap(entities=[zombie(7, 2.0)])) == []
    assert model.apply(snap(entities=[zombie(7, 30.0)])) == []  # out of threat range
    assert model.apply(snap(entities=[zombie(7, 5.0)])) == [
        HostileSpotted(name="zombie", distance=5.0, entity_id=7)
    ]
    assert [(t.name, t.distance, t.id) for t in model.view.threats] == [("zombie", 5.0, 7)]
    assert model.view.to_wire()["threats"] == [
        {"name": "zombie", "distance": 5.0, "id": 7, "position": None}
    ]


def test_a_hostile_told_of_is_said_gone_once_when_no_snapshot_shows_it() -> None:
    model = WorldModel()
    model.apply(snap())
    assert model.spotted([{"id": 7, "name": "zombie", "distance": 2.0, "kind": "Hostile mobs"}])
    assert model.apply(snap()) == [HostileGone(entity_id=7)]  # gone before any view showed it
    assert model.apply(snap()) == []
    model.apply(snap(entities=[zombie(8, 3.0)]))
    assert model.apply(snap(entities=[zombie(8, 30.0)])) == []  # far, but still in the view
    assert model.gone([8, 9, "8"]) == [HostileGone(entity_id=8)]  # the entities event's ids
    assert model.apply(snap()) == []  # said once


def test_players_are_spotted_by_name() -> None:
    model = WorldModel()
    alice = {"id": 2, "type": "player", "username": "alice", "distance": 12.0}
    assert PlayerSpotted(name="alice", distance=12.0) in model.apply(snap(entities=[alice]))
    seen = model.view.player("alice")
    assert seen is not None and (seen.id, seen.distance) == (2, 12.0)
    assert model.view.player("bob") is None


def test_dusk_and_dawn_are_crossings_not_states() -> None:
    model = WorldModel()
    model.apply(snap(timeOfDay=12000))
    assert model.apply(snap(timeOfDay=13500)) == [DuskFell()]
    assert model.apply(snap(timeOfDay=18000)) == []
    assert model.apply(snap(timeOfDay=23500)) == [DawnBroke()]


def test_view_has_the_snapshot_fields_and_counts_deaths() -> None:
    model = WorldModel()
    model.apply(snap(position={"x": 1, "y": 5, "z": 2}, inventory={"counts": {"bread": 3}}))
    model.died({"x": 1, "y": 5, "z": 2})
    assert model.view.deaths == 1
    assert model.last_death == Vec3(1.0, 5.0, 2.0)
    view = model.view.to_wire()
    assert view["deaths"] == 1
    assert view["inventory"]["items"] == {"bread": 3}
    assert {"hp", "food", "position", "dimension", "timeOfDay", "threats"} <= set(view)


@pytest.mark.parametrize(
    ("raw_type", "kind", "animal"),
    [
        ("mob", "Passive mobs", True),  # 1.16: every creature is a mob
        ("animal", "Passive mobs", True),
        ("water_creature", "Passive mobs", True),
        ("ambient", "Passive mobs", True),
        ("mob", "Hostile mobs", False),
        ("animal", "Hostile mobs", False),  # a hoglin
        ("player", None, False),
        ("mob", "Drops", False),  # an item on the ground (1.16)
        ("mob", "Projectiles", False),
        ("other", "Vehicles", False),
        ("orb", None, False),
    ],
)
def test_an_animal_is_a_creature_neither_hostile_nor_a_player_nor_a_thing(
    raw_type: str, kind: str | None, animal: bool
) -> None:
    raw = {"id": 9, "name": "x", "distance": 3.0, "type": raw_type, "kind": kind}
    view = WorldView.parse({"entities": [raw]})
    assert [e.animal for e in view.entities] == [animal]
    assert len(view.animals) == int(animal)


def test_describe_status_is_one_line_with_threats() -> None:
    world = WorldView.from_wire(
        {"connected": True, "hp": 12, "food": 6, "position": {"x": 1.2, "y": 5, "z": -3.7},
         "threats": [{"name": "zombie", "distance": 3.4, "id": 7}]}
    )  # fmt: skip
    line = describe_status(world, "nav.follow alice", paused=True)
    assert line == (
        "HP 12/20, food 6/20 at 1 5 -4; threats: zombie 3m; doing: nav.follow alice (paused)"
    )
    assert describe_status(WorldView(), None, paused=False) == (
        "HP ?/20, food ?/20 at ?; threats: none; doing: idle"
    )


def test_task_file_round_trips_and_survives_corruption(tmp_path: Path) -> None:
    tasks = TaskFile(tmp_path / "current-task.json")
    assert tasks.read() is None
    tasks.write({"kind": "follow", "operator": "alice"})
    assert tasks.read() == {"kind": "follow", "operator": "alice"}
    (tmp_path / "current-task.json").write_text("{not json")
    assert tasks.read() is None
    (tmp_path / "current-task.json").write_text('["no", "kind"]')
    assert tasks.read() is None
    tasks.clear()
    tasks.clear()
    assert not (tmp_path / "current-task.json").exists()
    # no temp files left behind; the two bad files were moved aside (pepa.state.files)
    assert sorted(p.name.split(".bad-")[0] for p in tmp_path.iterdir()) == [
        "current-task.json",
        "current-task.json",
    ]


def test_a_hostile_right_on_the_bot_is_a_threat() -> None:
    model = WorldModel()
    model.apply(snap(entities=[zombie(7, 0.0)]))
    assert model.view.threats[0].distance == 0.0
