"""The persona through a fake link on a fake clock: the chat queue, operators' commands, remarks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.actors.persona import QUEUE_LIMIT, REFUSAL_COOLDOWN, ChatLimiter, Persona
from pepa.policy.persona.commands import HELP
from pepa.policy.persona.voice import LINES, MIN_GAP, PER_HOUR
from pepa.runtime.events import (
    ActivityChanged,
    ChatReceived,
    ChatSent,
    DawnBroke,
    Died,
    DuskFell,
    ErrorRaised,
    GoalSet,
    HostileSpotted,
    OperatorOrder,
    Pause,
    PausedChanged,
    PlanAsked,
    PlayerSpotted,
    Respawned,
    Resume,
    SayInChat,
    TopicAsked,
    WorldObserved,
)
from pepa.testing import ActorHarness, FakeLink, entity, view

pytestmark = pytest.mark.timeout(30)

BOT = "pepa_bot"
DIED = Died(reason="died", position=None)


def persona(link: FakeLink | None = None, **kwargs: object) -> ActorHarness[Persona]:
    kwargs.setdefault("operators", ("alice",))
    return ActorHarness(Persona, link=link or FakeLink(), username=BOT, **kwargs)


def said(h: ActorHarness[Persona]) -> list[str]:
    link = h.actor.link
    assert isinstance(link, FakeLink)
    return link.said


def line(sender: str, text: str, *, on_list: bool = True) -> ChatReceived:
    return ChatReceived(sender=sender, text=text, kind="player", on_list=on_list)


# -- the chat queue ------------------------------------------------------------------------


def test_a_burst_of_three_then_one_line_per_one_and_a_half_seconds() -> None:
    h = persona()
    h.send(*(SayInChat(text=f"line {i}") for i in range(6)))
    assert said(h) == ["line 0", "line 1", "line 2"]
    h.advance(1.4)
    assert len(said(h)) == 3
    h.advance(0.2)
    assert said(h)[3:] == ["line 3"]  # at 1.5 s
    h.advance(1.3)
    assert len(said(h)) == 4
    h.advance(0.2)
    assert said(h)[4:] == ["line 4"]
    h.advance(10)
    assert said(h) == [f"line {i}" for i in range(6)]
    assert [e.text for e in h.events(ChatSent)] == said(h)


def test_the_limiter_refills_on_time_when_polled_in_small_steps() -> None:
    limiter = ChatLimiter(burst=3, interval=1.5)
    assert [limiter.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert [limiter.allow(0.25 * tick) for tick in range(1, 7)] == [False] * 5 + [True]


def test_nothing_is_lost_up_to_the_queue_limit() -> None:
    h = persona()
    lines = [f"line {i}" for i in range(3 + QUEUE_LIMIT)]
    h.send(*(SayInChat(text=text) for text in lines))
    h.advance(2 * 1.5 * QUEUE_LIMIT)
    assert said(h) == lines


def test_beyond_the_queue_limit_the_oldest_waiting_lines_are_dropped() -> None:
    h = persona()
    lines = [f"line {i}" for i in range(3 + QUEUE_LIMIT + 5)]
    h.send(*(SayInChat(text=text) for text in lines))
    h.advance(2 * 1.5 * QUEUE_LIMIT)
    assert said(h) == lines[:3] + lines[8:]


def test_lines_wait_while_the_link_is_down() -> None:
    link = FakeLink(connected=False)
    h = persona(link)
    h.send(SayInChat(text="hello"), SayInChat(text="again"))
    h.advance(5)
    assert said(h) == []
    link.connected = True
    h.advance(0.25)
    assert said(h) == ["hello", "again"]


def test_only_waiting_lines_keep_a_timer() -> None:
    # an idle bot's persona wakes for nothing: no look at an empty outbox
    h = persona()
    assert h.scheduler.pending() == 0
    h.send(*(SayInChat(text=f"line {i}") for i in range(5)))
    assert h.scheduler.pending() == 1  # two lines paced
    h.advance(10)
    assert len(said(h)) == 5
    assert h.scheduler.pending() == 0
    assert len(h.actor._laters) <= 1  # the spent handles are let go of


def test_a_line_the_link_refuses_is_not_reported_as_said() -> None:
    link = FakeLink(refuse={"chat"})
    h = persona(link)
    h.send(SayInChat(text="hello"))
    assert link.calls("chat") and h.events(ChatSent) == []


def test_say_without_a_link_raises_an_error_event() -> None:
    h = ActorHarness(Persona, link=None, username=BOT, operators=("alice",))
    h.send(SayInChat(text="hello"))
    assert h.last(ErrorRaised) == ErrorRaised(
        source="persona", text="not connected to a Minecraft server"
    )
    h.send(line("alice", f"{BOT} come"))  # the order still goes out; only the reply fails
    assert h.last(OperatorOrder) == OperatorOrder(verb="come", operator="alice")
    assert len(h.events(ErrorRaised)) == 2
    h.send(DIED)  # no remark and no error for a moment nobody can hear
    assert len(h.events(ErrorRaised)) == 2


# -- what is said is safe to say ---------------------------------------------------------


def test_lines_are_made_safe_except_the_daemon_users_own() -> None:
    h = persona()
    h.send(
        SayInChat(text="/op mallory"),
        SayInChat(text="§4Creeper§r: explodes\n/kill @e\u202e"),
        SayInChat(text="\u200b"),  # nothing left: nothing said
        SayInChat(text="/time set day", raw=True),
    )
    assert said(h) == ["op mallory", "Creeper: explodes /kill @e", "/time set day"]


def test_echoed_names_and_verbs_are_made_safe_too() -> None:
    h = persona()
    h.send(line("§kmallory", f"{BOT} /op"))  # a refusal echoes the sender's name
    h.send(line("alice", f"{BOT} §4/op"))  # an unknown verb is echoed back
    h.advance(2)
    assert len(said(h)) == 2
    assert all("§" not in text and not text.startswith("/") for text in said(h))


def test_an_old_server_gets_short_lines() -> None:
    h = persona(FakeLink(version="1.8.9"))
    h.send(SayInChat(text="x" * 300))
    assert said(h) == ["x" * 100]


# -- operators' commands -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "events", "reply"),
    [
        ("come", [OperatorOrder(verb="come", operator="alice")], "On my way, alice."),
        ("follow", [OperatorOrder(verb="follow", operator="alice")], "Following you, alice."),
        ("stay", [OperatorOrder(verb="stay", operator="alice")], "Staying here."),
        ("pause", [Pause()], "Paused. My connection stays; say resume to go on."),
        ("resume!", [Resume()], "Resumed."),
        ("goal build a house", [GoalSet(text="build a house", by="alice")], None),
        ("plan", [PlanAsked(by="alice")], None),
        ("what is a creeper?", [TopicAsked(topic="creeper", by="alice")], None),
        ("what", [], f"What about, alice? Say: {BOT} what creeper"),
        ("help", [], HELP),
        ("", [], HELP),
        ("dance", [], f"Sorry alice, I don't know 'dance'. {HELP}."),
    ],
)
def test_an_operators_command_becomes_events_and_a_reply(
    text: str, events: list[object], reply: str | None
) -> None:
    h = persona()
    h.published.clear()
    h.send(line("alice", f"@{BOT}, {text}".rstrip()))
    orders = [e for e in h.published if not isinstance(e, ChatSent)]
    assert orders == events
    assert said(h) == ([reply] if reply else [])


def test_status_describes_the_latest_view() -> None:
    h = persona()
    zombie = entity(7, "zombie", 3.4)
    h.send(
        WorldObserved(view=view(hp=12, food=6, position=(1.2, 5.0, -3.7), entities=[zombie])),
        ActivityChanged(reflex="task", skill="nav.follow alice"),
        PausedChanged(paused=True),
        line("alice", f"{BOT} status"),
    )
    assert said(h) == [
        "HP 12/20, food 6/20 at 1 5 -4; threats: zombie 3m; doing: nav.follow alice (paused)"
    ]


def test_stop_says_goodbye_then_asks_the_worker_to_stop() -> None:
    stops: list[list[str]] = []
    link = FakeLink()
    h = persona(link, request_stop=lambda: stops.append(list(link.said)))
    h.send(line("alice", f"{BOT} stop"))
    assert stops == [["Stopping, as alice asked. Bye!"]]


def test_lines_not_for_the_bot_are_ignored() -> None:
    h = persona()
    h.published.clear()
    h.send(
        line("alice", "hello everyone"),
        line("alice", "<alice> pepa_bot come"),
        ChatReceived(sender=None, text=f"{BOT} come", kind="system"),
        line(BOT, f"{BOT} come"),  # its own line
    )
    assert h.published == [] and said(h) == []


def test_a_non_operator_gets_one_refusal_per_cooldown() -> None:
    h = persona()
    refusal = "Sorry mallory, I only take orders from my operators."
    h.send(line("mallory", f"{BOT} come"), line("mallory", f"{BOT} stop"))
    assert said(h) == [refusal]
    h.advance(REFUSAL_COOLDOWN - 1)
    h.send(line("mallory", f"{BOT} follow"))
    h.send(line("bob", f"{BOT} come"))  # another sender has a cooldown of its own
    assert said(h) == [refusal, "Sorry bob, I only take orders from my operators."]
    h.advance(1)
    h.send(line("mallory", f"{BOT} come"))
    assert said(h)[-1] == refusal and len(said(h)) == 3
    assert h.events(OperatorOrder) == []


def test_an_operator_off_the_player_list_is_refused(tmp_path: Path) -> None:
    h = persona(operators_path=tmp_path / "operators.json")
    h.send(line("alice", f"{BOT} come", on_list=False))
    assert h.events(OperatorOrder) == []
    assert said(h) == ["Sorry alice, I only take orders from my operators."]


# -- remarks -----------------------------------------------------------------------------


def test_at_most_one_remark_a_minute() -> None:
    h = persona()
    h.send(DIED)
    assert said(h) == [LINES["death"][0]]
    h.advance(MIN_GAP - 1)
    h.send(Respawned())
    assert len(said(h)) == 1
    h.advance(1)
    h.send(Respawned())
    assert said(h)[1] in LINES["respawn"]


def test_at_most_eight_remarks_an_hour() -> None:
    h = persona()
    for number in range(20):
        h.send(PlayerSpotted(name=f"player{number}", distance=5.0))
        h.advance(MIN_GAP)
    assert len(said(h)) == PER_HOUR
    h.advance(3600 - 20 * MIN_GAP + PER_HOUR * MIN_GAP)  # the first ones aged out
    h.send(PlayerSpotted(name="late", distance=5.0))
    assert len(said(h)) == PER_HOUR + 1


@pytest.mark.parametrize(
    ("event", "moment"),
    [
        (ActivityChanged(reflex="task", skill="gather.wood 3"), "skill:gather.wood"),
        (
            ActivityChanged(reflex="defend", skill="combat.attack-nearest"),
            "skill:combat.attack-nearest",
        ),
        (HostileSpotted(name="creeper", distance=6.0, entity_id=3), "threat:creeper"),
        (HostileSpotted(name="zombie", distance=6.0, entity_id=4), "threat"),
        (DuskFell(), "dusk"),
        (DawnBroke(), "dawn"),
        (PlayerSpotted(name="alice", distance=9.0), "player"),
    ],
)
def test_moments_of_the_bots_life_get_a_remark(event: object, moment: str) -> None:
    h = persona()
    h.send(event)
    assert len(said(h)) == 1
    first = said(h)[0]
    assert any(first.startswith(choice.split("{")[0]) for choice in LINES[moment])


@pytest.mark.parametrize(
    "event",
    [
        ActivityChanged(reflex="task", skill="nav.goto 1 2 3"),
        ActivityChanged(reflex="idle", skill=None),
        HostileSpotted(name="zombie", distance=30.0, entity_id=4),
        PlayerSpotted(name=BOT, distance=0.0),
    ],
)
def test_small_things_get_no_remark(event: object) -> None:
    h = persona()
    h.send(event)
    assert said(h) == []


def test_no_remarks_while_paused() -> None:
    h = persona()
    h.send(PausedChanged(paused=True), DIED)
    assert said(h) == []
    h.send(PausedChanged(paused=False), Respawned())
    assert said(h) == [LINES["respawn"][0]]


def test_the_remark_cooldowns_outlive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "persona.json"
    first = persona(voice_path=path)
    first.send(DIED)
    assert len(said(first)) == 1
    again = persona(voice_path=path)  # a restarted worker, moments later
    again.send(Respawned())
    assert said(again) == []
    again.advance(MIN_GAP)
    again.send(Respawned())
    assert len(said(again)) == 1
