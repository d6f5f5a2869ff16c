"""Small parts with no threads: snapshot assembly, proposals, chat limiter, lock, bus."""

from __future__ import annotations

from pathlib import Path

import orjson
import pykka
import pytest

from pepa.actors.persona import ChatLimiter
from pepa.base.errors import LockError
from pepa.daemon.lock import StateLock
from pepa.policy.relay.snapshot import build_snapshot
from pepa.runtime import Bus, Registry
from pepa.state.proposals import ProposalError, ProposalStore
from pepa.testing import entity, view


def test_snapshot_carries_every_field_of_the_contract() -> None:
    snapshot = build_snapshot(
        world={"hp": 18, "food": 7, "threats": [{"name": "zombie", "distance": 3.2}]},
        paused=True,
        active_reflex="defend",
        current_skill=None,
        actors=[{"name": "reflex", "state": "running", "restarts": 2, "reason": "x"}],
        pending_proposals=["a.md"],
        uptime=12.34,
        server="127.0.0.1:25565",
        username="pepa_bot",
    )
    for field in (
        "hp",
        "food",
        "position",
        "dimension",
        "timeOfDay",
        "threats",
        "activeReflex",
        "currentSkill",
        "paused",
        "inventory",
        "actors",
        "pendingProposals",
        "deaths",
        "uptime",
    ):
        assert field in snapshot
    assert snapshot["hp"] == 18 and snapshot["paused"] is True
    assert snapshot["pendingProposals"] == 1 and snapshot["uptime"] == 12.3


def test_the_snapshot_carries_the_views_wire_form_and_its_version() -> None:
    world = view(hp=12, entities=[entity(3, "skeleton", 6.0)], items={"bread": 2})
    snapshot = build_snapshot(
        world=world.to_wire(),
        paused=False,
        active_reflex=None,
        current_skill="nav.explore",
        actors=[],
        pending_proposals=[],
        uptime=1.0,
        server="127.0.0.1:25565",
        username="pepa_bot",
    )
    assert snapshot["hp"] == 12 and snapshot["version"] == "1.20.4"
    assert snapshot["threats"] == [{"name": "skeleton", "distance": 6.0, "id": 3, "position": None}]
    assert snapshot["inventory"] == {"items": {"bread": 2}, "emptySlots": 35}
    assert snapshot["position"] == {"x": 0.5, "y": 64.0, "z": 0.5}
    assert orjson.loads(orjson.dumps(snapshot)) == snapshot  # plain JSON all the way


def test_the_snapshot_before_any_view_has_every_world_key_empty() -> None:
    snapshot = build_snapshot(
        world=None,
        paused=False,
        active_reflex=None,
        current_skill=None,
        actors=[],
        pending_proposals=[],
        uptime=0.0,
        server="s",
        username="u",
    )
    assert snapshot["connected"] is False and snapshot["hp"] is None
    assert snapshot["version"] is None and snapshot["threats"] == []


def test_proposals_move_on_decision_and_refuse_bad_ids(tmp_path: Path) -> None:
    store = ProposalStore(tmp_path / "proposals")
    assert store.pending() == []
    (tmp_path / "proposals").mkdir()
    (tmp_path / "proposals" / "2026-01-01-flee.md").write_text("# flee\n")
    (tmp_path / "proposals" / "2026-01-02-eat.md").write_text("# eat\n")
    assert store.pending() == ["2026-01-01-flee.md", "2026-01-02-eat.md"]
    moved = store.decide("2026-01-01-flee.md", "approve")
    assert moved == tmp_path / "proposals" / "approved" / "2026-01-01-flee.md"
    store.decide("2026-01-02-eat.md", "reject")
    assert store.pending() == []
    assert (tmp_path / "proposals" / "rejected" / "2026-01-02-eat.md").exists()
    with pytest.raises(ProposalError, match="no pending"):
        store.decide("2026-01-01-flee.md", "approve")
    with pytest.raises(ProposalError, match="not a proposal id"):
        store.decide("../../etc/passwd", "approve")
    with pytest.raises(ProposalError, match="approve or reject"):
        store.decide("x.md", "maybe")


def test_chat_limiter_allows_a_burst_then_one_line_per_interval() -> None:
    limiter = ChatLimiter(burst=3, interval=1.5)
    assert [limiter.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert limiter.allow(1.0) is False
    assert limiter.allow(1.6) is True
    assert limiter.allow(1.7) is False


def test_second_lock_on_a_state_directory_is_refused(tmp_path: Path) -> None:
    with (
        StateLock(tmp_path / "daemon.lock"),
        pytest.raises(LockError, match="another pepa daemon"),
    ):
        StateLock(tmp_path / "daemon.lock").acquire()
    StateLock(tmp_path / "daemon.lock").acquire().release()


def test_bus_listener_errors_never_reach_the_publisher() -> None:
    bus = Bus()
    seen: list[object] = []

    def broken(event: object) -> None:
        raise RuntimeError("listener bug")

    bus.listen(broken)
    bus.listen(seen.append)
    bus.publish("event")
    assert seen == ["event"]


class Inbox(pykka.ThreadingActor):
    """A real actor that keeps what it is told; asked anything, it answers that list."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[object] = []

    def on_receive(self, message: object) -> object:
        if message == "what were you told?":
            return list(self.told)
        self.told.append(message)
        return None


def test_bus_delivers_subclasses_and_skips_stopped_subscribers() -> None:
    class Base:
        pass

    class Child(Base):
        pass

    class Other:
        pass

    registry = Registry()
    bus = Bus()
    inboxes = {name: Inbox.start() for name in ("base", "child")}
    try:
        for name, ref in inboxes.items():
            registry.bind(name, ref)
        # the stopped one first: the subscribers after it must still get the event
        bus.subscribe(Base, registry.handle("gone"))
        registry.unbind("gone", None, "stopped")
        bus.subscribe(Base, registry.handle("base"))
        bus.subscribe(Child, registry.handle("child"))
        bus.subscribe(Other, registry.handle("child"))
        child, base = Child(), Base()
        bus.publish(child)  # a stopped subscriber is skipped, not an error
        bus.publish(base)  # not to the subscriber of the subclass only
        told = {name: ref.ask("what were you told?", timeout=5) for name, ref in inboxes.items()}
    finally:
        for ref in inboxes.values():
            ref.stop()
    assert told == {"base": [child, base], "child": [child]}
