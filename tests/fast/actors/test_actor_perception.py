"""Perception through a fake link: raw JS snapshots and events in, typed events and views out."""

from __future__ import annotations

from typing import Any

import pytest

from pepa.actors.perception import (
    CLOCK_SLACK,
    DRIFT_EVERY,
    OBSERVE_INTERVAL,
    QUIET_AFTER,
    QUIET_EVERY,
    SETTLE,
    Perception,
    WorldEvent,
)
from pepa.runtime.events import (
    ActionFinished,
    ChatReceived,
    Connected,
    Died,
    Disconnected,
    ErrorRaised,
    HealthChanged,
    HostileGone,
    HostileSpotted,
    Kicked,
    PlayersListed,
    Respawned,
    WorldObserved,
)
from pepa.testing import ActorHarness, FakeLink, entity, raw_snapshot
from pepa.world.view import Vec3, WorldView
from tests.actor_builders import perception

pytestmark = pytest.mark.timeout(30)


def views(h: ActorHarness[Perception]) -> list[WorldView]:
    return [e.view for e in h.events(WorldObserved)]


def kinds(events: list[object]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_the_first_snapshot_publishes_health_and_the_view() -> None:
    link = FakeLink(world=raw_snapshot(hp=18, food=15, position=(1.0, 64.0, -2.0)))
    h = perception(link)
    assert kinds(h.published) == ["HealthChanged", "WorldObserved"]
    assert h.last(HealthChanged) == HealthChanged(hp=18.0, food=15, previous_hp=None)
    view = h.last(WorldObserved).view
    assert (view.connected, view.hp, view.food, view.position) == (
        True, 18.0, 15, Vec3(1.0, 64.0, -2.0),
    )  # fmt: skip


def test_the_observe_timer_publishes_only_what_changed() -> None:
    link = FakeLink()
    h = perception(link)
    # five ticks of the same world, then half an interval (under QUIET_AFTER: still 5 a second)
    h.advance(5.5 * OBSERVE_INTERVAL)
    assert len(h.events(WorldObserved)) == 1
    link.world = raw_snapshot(position=(5.0, 64.0, 0.5))
    h.advance(OBSERVE_INTERVAL / 4)
    assert len(h.events(WorldObserved)) == 1  # not yet: the next tick sees it
    h.advance(OBSERVE_INTERVAL / 2)
    assert len(h.events(WorldObserved)) == 2
    assert h.last(WorldObserved).view.position == Vec3(5.0, 64.0, 0.5)
    assert h.events(HealthChanged) == [HealthChanged(hp=20.0, food=20, previous_hp=None)]
    link.play(raw_snapshot(hp=12, position=(5.0, 64.0, 0.5)))
    h.advance(OBSERVE_INTERVAL)
    assert h.last(HealthChanged) == HealthChanged(hp=12.0, food=20, previous_hp=20.0)
    assert len(h.events(WorldObserved)) == 3


def test_animals_walking_about_are_published_every_few_seconds_anything_else_at_once() -> None:
    def world(cow: float, *, zombie: float | None = None, sheep: bool = False) -> dict[str, Any]:
        herd = [entity(2, "cow", cow, kind="animal", position=(cow, 64.0, 0.5))]
        herd += [entity(3, "sheep", 9.0, kind="animal")] if sheep else []
        return raw_snapshot(entities=herd + ([entity(5, "zombie", zombie)] if zombie else []))

    link = FakeLink(world=world(6.0))
    h = perception(link)
    h.advance(OBSERVE_INTERVAL / 2)
    assert len(h.events(WorldObserved)) == 1
    for step in range(1, 4):  # the cow wanders: held back
        link.world = world(6.0 + step)
        h.advance(OBSERVE_INTERVAL)
    assert len(h.events(WorldObserved)) == 1
    link.world = world(9.5, zombie=12.0)  # a hostile comes: at the next tick, cow and all
    h.advance(OBSERVE_INTERVAL)
    assert [e.distance for e in h.last(WorldObserved).view.entities] == [9.5, 12.0]
    link.world = world(8.0, zombie=12.0, sheep=True)  # an animal comes into sight: at once
    h.advance(OBSERVE_INTERVAL)
    assert len(h.events(WorldObserved)) == 3
    link.world = world(7.0, zombie=12.0, sheep=True)
    h.advance(DRIFT_EVERY - 2 * OBSERVE_INTERVAL)
    assert len(h.events(WorldObserved)) == 3
    h.advance(QUIET_EVERY + 2 * OBSERVE_INTERVAL)  # DRIFT_EVERY on (at the next snapshot of a
    assert len(h.events(WorldObserved)) == 4  # quiet bot), the cow's last place goes out
    assert h.last(WorldObserved).view.entities[0].distance == 7.0
    link.world = world(7.0, zombie=12.0)  # an animal goes out of sight: at once
    h.send(WorldEvent({"type": "entities", "spawned": [], "gone": [3]}))
    h.advance(SETTLE)
    assert len(h.events(WorldObserved)) == 5


def test_the_clock_going_on_is_published_every_few_seconds_a_jump_or_dusk_at_once() -> None:
    clock = [1000]
    h = perception(link := FakeLink(world=raw_snapshot(time_of_day=1000)))

    def tick(seconds: float, **world: Any) -> None:  # the clock goes on as it goes
        clock[0] += round(20 * seconds)
        link.world = raw_snapshot(time_of_day=clock[0], **world)
        h.advance(seconds)

    def published() -> list[int | None]:
        return [view.time_of_day for view in views(h)]

    for _ in range(round(DRIFT_EVERY) - 1):  # (quiet after QUIET_AFTER: a snapshot a second)
        tick(1)
    assert published() == [1000]  # nothing but the clock: held back
    tick(2)  # DRIFT_EVERY on, at the next snapshot: the clock as it is now
    assert published() == [1000, 1000 + round(20 * (DRIFT_EVERY + 1))]
    clock[0] += 6000  # /time set: at the next snapshot
    tick(1)
    assert published()[-1] == clock[0]
    clock[0] -= 2000  # turned back
    tick(1)
    assert published()[-1] == clock[0]
    clock[0] += CLOCK_SLACK // 2  # a time packet early: still the clock going on
    tick(1)
    assert published()[-1] != clock[0]
    clock[0] = 12990 - 20  # (a jump: published)
    tick(1)
    assert published()[-1] == 12990 and views(h)[-1].is_day is True
    tick(1)  # 13010: day turns to night, at once
    assert published()[-1] == 13010 and views(h)[-1].is_day is False
    tick(1, hp=15)  # anything else at once, the clock with it
    assert published()[-1] == clock[0] == 13030


def test_an_animal_coming_into_sight_does_not_wake_a_quiet_bot() -> None:
    cow = entity(2, "cow", 6.0, kind="animal")
    link = FakeLink(world=raw_snapshot())
    h = perception(link)
    h.advance(QUIET_AFTER + OBSERVE_INTERVAL)  # nothing changed: quiet
    assert h.scheduler.next_in() > OBSERVE_INTERVAL
    link.world = raw_snapshot(entities=[cow])
    h.send(WorldEvent({"type": "entities", "spawned": [cow]}))
    h.advance(SETTLE)
    assert [e.name for e in views(h)[-1].entities] == ["cow"]  # published in the next snapshot
    assert h.scheduler.next_in() > OBSERVE_INTERVAL  # and still once a second
    link.world = raw_snapshot(entities=[entity(7, "zombie", 9.0)])
    h.send(WorldEvent({"type": "entities", "spawned": [entity(7, "zombie", 9.0)]}))
    h.advance(SETTLE)
    assert h.scheduler.next_in() == pytest.approx(OBSERVE_INTERVAL)  # a hostile wakes it


def test_an_idle_bot_is_polled_once_a_second_and_its_first_move_brings_five_back() -> None:
    def world(step: int, *, x: float = 0.5, hp: float = 20) -> dict[str, Any]:
        cow = entity(2, "cow", 6.0 + step / 10, kind="animal", position=(6.0 + step / 10, 64, 0.5))
        return raw_snapshot(entities=[cow], time_of_day=1000 + 4 * step, position=(x, 64, 0.5),
                            hp=hp)  # fmt: skip

    link = FakeLink(world=world(0))
    h = perception(link)
    h.advance(QUIET_AFTER + OBSERVE_INTERVAL / 2)  # nothing but the cow and the clock: quiet
    polled = link.snapshots
    for step in range(1, 11):  # two seconds of a cow walking and the clock going
        link.world = world(step)
        h.advance(OBSERVE_INTERVAL)
    assert link.snapshots - polled == round(2 / QUIET_EVERY)
    polled = link.snapshots
    link.world = world(11, x=1.5)  # the bot moves: seen within a second, then 5 a second
    h.advance(QUIET_EVERY)
    assert h.last(WorldObserved).view.position is not None
    assert h.last(WorldObserved).view.position.x == 1.5
    polled = link.snapshots
    for step in range(12, 17):
        link.world = world(step, x=1.5 + step / 10)
        h.advance(OBSERVE_INTERVAL)
    assert link.snapshots - polled == 5
    # a blow while quiet is seen at once, whatever the rate
    h.advance(QUIET_AFTER + OBSERVE_INTERVAL)
    link.world = world(30, x=3.0, hp=15)
    h.send(WorldEvent({"type": "health"}))
    assert h.last(WorldObserved).view.hp == 15


def test_a_quiet_bot_s_perception_wakes_once_a_second() -> None:
    link = FakeLink(world=raw_snapshot(position=(0.5, 64, 0.5)))
    h = perception(link)
    assert h.scheduler.next_in() == pytest.approx(OBSERVE_INTERVAL)
    h.advance(QUIET_AFTER + OBSERVE_INTERVAL)  # nothing changed: quiet
    assert h.scheduler.pending() == 1
    assert h.scheduler.next_in() > OBSERVE_INTERVAL
    h.advance(QUIET_EVERY)
    assert h.scheduler.pending() == 1
    assert h.scheduler.next_in() > OBSERVE_INTERVAL
    # a blow: its snapshot at once, and 5 a second from then on
    link.world = raw_snapshot(position=(0.5, 64, 0.5), hp=15)
    h.send(WorldEvent({"type": "health"}))
    assert h.scheduler.pending() == 1
    assert h.scheduler.next_in() == pytest.approx(OBSERVE_INTERVAL)


def test_a_health_event_takes_a_snapshot_at_once() -> None:
    link = FakeLink()
    h = perception(link)
    link.world = raw_snapshot(hp=9)
    h.send(WorldEvent({"type": "health"}))  # no timer tick needed
    assert h.last(WorldObserved).view.hp == 9.0


def test_an_entities_event_spots_the_hostile_before_the_snapshot() -> None:
    link = FakeLink()
    h = perception(link)
    zombie = entity(7, "zombie", 5.0)
    link.world = raw_snapshot(entities=[zombie])
    h.published.clear()
    h.send(WorldEvent({"type": "entities", "spawned": [zombie]}))
    assert kinds(h.published) == ["HostileSpotted"]  # at once, from the event alone
    assert h.last(HostileSpotted) == HostileSpotted(name="zombie", distance=5.0, entity_id=7)
    h.advance(SETTLE)  # the snapshot, after the swing had the bridge to itself
    assert kinds(h.published) == ["HostileSpotted", "WorldObserved"]
    assert [t.name for t in h.last(WorldObserved).view.threats] == ["zombie"]
    h.advance(1.0)
    assert len(h.events(HostileSpotted)) == 1  # still the same zombie


def test_a_burst_of_entities_events_is_one_snapshot_soon_after() -> None:
    link = FakeLink()
    h = perception(link)
    before = link.snapshots
    for i in range(5):  # five zombies, one entities event each
        h.send(WorldEvent({"type": "entities", "spawned": [entity(10 + i, "zombie", 4.0)]}))
    assert len(h.events(HostileSpotted)) == 5
    assert link.snapshots == before  # not one yet: the swings go first
    h.advance(SETTLE)
    assert link.snapshots == before + 1
    assert h.scheduler.next_in() == pytest.approx(OBSERVE_INTERVAL)  # then the usual rate


def test_a_hostile_that_came_and_went_between_two_snapshots_is_said_gone() -> None:
    link = FakeLink()
    h = perception(link)
    zombie = entity(7, "zombie", 5.0)
    h.published.clear()
    # killed by another player before this bot's snapshot: no view ever showed it
    h.send(WorldEvent({"type": "entities", "spawned": [zombie]}))
    h.send(WorldEvent({"type": "entities", "spawned": [], "gone": [7, 8]}))  # 8: never told of
    assert h.events(HostileGone) == [HostileGone(entity_id=7)]
    assert not any(v.view.threats for v in h.events(WorldObserved))
    h.send(WorldEvent({"type": "entities", "spawned": [], "gone": [7]}))
    assert len(h.events(HostileGone)) == 1  # said once
    h.send(WorldEvent({"type": "entities", "spawned": [zombie]}))
    assert len(h.events(HostileSpotted)) == 2  # the same id back: spotted again


def test_a_failed_snapshot_while_connected_keeps_the_last_view() -> None:
    link = FakeLink(world=raw_snapshot(entities=[entity(4, "zombie", 3.0)]))
    h = perception(link)
    link.world = None  # the bridge stalls: the call times out, the connection stays
    h.advance(OBSERVE_INTERVAL)
    assert [t.name for t in h.last(WorldObserved).view.threats] == ["zombie"]
    h.send(WorldEvent({"type": "death", "position": {"x": 1, "y": 64, "z": 2}}))
    assert h.last(Died).reason == "killed near zombie"
    link.connected = False  # gone for real: the view is forgotten
    h.advance(OBSERVE_INTERVAL)
    assert h.last(WorldObserved).view.connected is False


def test_a_far_or_peaceful_entity_is_no_threat() -> None:
    h = perception()
    h.send(WorldEvent({"type": "entities", "spawned": [
        entity(1, "zombie", 40.0), entity(2, "cow", 3.0, kind="animal"), "garbage",
    ]}))  # fmt: skip
    assert h.events(HostileSpotted) == []


def test_death_names_the_nearest_threat_and_is_counted_in_the_next_view() -> None:
    link = FakeLink(world=raw_snapshot(entities=[entity(3, "skeleton", 9.0),
                                                 entity(4, "creeper", 2.0)]))  # fmt: skip
    h = perception(link)
    link.world = raw_snapshot(hp=0, entities=[entity(4, "creeper", 2.0)])
    h.send(WorldEvent({"type": "death", "position": {"x": 1, "y": 64, "z": 2}}))
    died = h.last(Died)
    assert died == Died(reason="killed near creeper", position={"x": 1.0, "y": 64.0, "z": 2.0})
    after = h.published[h.published.index(died) + 1 :]
    observed = [e for e in after if isinstance(e, WorldObserved)]
    assert observed and observed[0].view.deaths == 1
    assert h.actor.model.last_death == Vec3(1.0, 64.0, 2.0)
    h.send(WorldEvent({"type": "respawn"}))
    assert h.last(Respawned) == Respawned()
    assert h.last(WorldObserved).view.deaths == 1  # still counted after the respawn


def test_the_view_handed_on_before_a_death_is_the_deaths_not_a_later_life() -> None:
    # the snapshot taken on the death may already show the next life (JS respawns as soon as
    # the death event is out; a busy machine answers late): the death's bundle must not end
    # with full health at the spawn point
    link = FakeLink(world=raw_snapshot(hp=20))
    h = perception(link)
    h.send(WorldEvent({"type": "death", "position": {"x": 1, "y": 64, "z": 2}}))
    died = h.last(Died)
    before = [e for e in h.published[: h.published.index(died)] if isinstance(e, WorldObserved)]
    assert before[-1].view.hp == 0 and before[-1].view.alive is False
    assert before[-1].view.deaths == 1


def test_a_death_with_no_threat_and_no_position() -> None:
    h = perception()
    h.send(WorldEvent({"type": "death", "position": "somewhere"}))
    assert h.last(Died) == Died(reason="died", position=None)


def test_end_publishes_disconnected_and_an_empty_view() -> None:
    link = FakeLink(world=raw_snapshot(entities=[entity(7, "zombie", 5.0)]))
    h = perception(link)
    h.send(WorldEvent({"type": "death", "position": None}))
    link.connected = False
    h.send(WorldEvent({"type": "end", "reason": "socketClosed"}))
    assert h.last(Disconnected) == Disconnected(reason="socketClosed")
    view = h.last(WorldObserved).view
    assert (view.connected, view.hp, view.position, view.entities) == (False, None, None, ())
    assert view.deaths == 1  # the count outlives the connection
    h.advance(1.0)
    assert h.last(WorldObserved) is h.events(WorldObserved)[-1]
    assert h.last(WorldObserved).view == view  # offline: nothing new to publish


def test_connected_carries_the_version_into_the_view() -> None:
    link = FakeLink(connected=False, world=None)
    h = perception(link)
    assert h.last(WorldObserved).view == WorldView()  # nothing seen yet
    link.connected, link.world = True, raw_snapshot()
    h.send(WorldEvent({"type": "connected", "version": "1.16.5"}))
    assert h.last(Connected) == Connected(server="localhost:25565", version="1.16.5")
    view = h.last(WorldObserved).view
    assert (view.connected, view.version) == (True, "1.16.5")
    assert view.to_wire()["version"] == "1.16.5"


def test_action_done_becomes_action_finished() -> None:
    link = FakeLink()
    h = perception(link)
    action_id = link.act("goto", x=10, y=64, z=10)
    h.send(WorldEvent(link.done(ok=False, error="No path")))
    assert h.last(ActionFinished) == ActionFinished(
        action_id=str(action_id), ok=False, action="goto", error="No path"
    )
    h.send(WorldEvent(link.done(ok=True)))
    assert h.last(ActionFinished).ok is True
    assert h.last(ActionFinished).error == ""


def test_chat_and_player_list_events_with_wrongly_typed_fields() -> None:
    h = perception()
    h.send(WorldEvent({"type": "chat", "from": ["alice"], "text": 5, "kind": "player",
                       "senderUuid": 12, "onList": "yes"}))  # fmt: skip
    assert h.last(ChatReceived) == ChatReceived(
        sender=None, text="5", kind="player", sender_uuid=None, on_list=False
    )
    h.send(WorldEvent({"type": "chat", "from": "bob", "text": "hi", "kind": "player",
                       "onList": True}))  # fmt: skip
    assert (h.last(ChatReceived).sender, h.last(ChatReceived).on_list) == ("bob", True)
    h.send(WorldEvent({"type": "players", "players": "everyone"}))
    assert h.last(PlayersListed) == PlayersListed(players=())
    h.send(WorldEvent({"type": "players", "players": [
        {"name": "alice", "uuid": 7}, {"uuid": "x"}, None, {"name": "bob", "uuid": "u"},
    ]}))  # fmt: skip
    assert h.last(PlayersListed) == PlayersListed(players=(("alice", None), ("bob", "u")))


def test_kicked_and_unknown_events() -> None:
    h = perception()
    before = len(h.published)
    h.send(WorldEvent({"type": "somethingNew"}), WorldEvent({}))
    assert len(h.published) == before
    h.send(WorldEvent({"type": "kicked", "reason": "spam"}))
    assert h.last(Kicked) == Kicked(reason="spam")


def test_microsofts_sign_in_prompt_goes_to_the_dashboard() -> None:
    h = perception()
    h.send(WorldEvent({"type": "signIn", "uri": "https://www.microsoft.com/link",
                       "code": "AB12CD34", "expiresIn": 900}))  # fmt: skip
    prompt = h.last(ErrorRaised)
    assert prompt.source == "auth"
    assert prompt.text == (
        "sign in to Microsoft: open https://www.microsoft.com/link and enter the code AB12CD34"
    )


def test_without_a_link_the_view_is_empty() -> None:
    h = ActorHarness(Perception, link=None)
    assert h.last(WorldObserved).view == WorldView()
    h.advance(1.0)
    assert len(h.events(WorldObserved)) == 1
