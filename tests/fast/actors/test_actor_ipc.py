"""The IPC actor without a socket: bus events and commands in, protocol events out.

The actor runs in :class:`ActorHarness` on a fake clock; its socket server is a
small recording stand-in (``Sockets``) with the three calls the actor makes.
The real server, with real clients, is tested in tests/integration/ipc/test_ipc_server.py and
tests/integration/ipc/test_ipc_limits.py; the pure translations are :mod:`pepa.policy.relay.wire`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

from pepa.actors.ipc import STATUS_INTERVAL, STATUS_MIN_GAP, Ipc
from pepa.base.errors import AskTimeout
from pepa.base.logs import RingBuffer
from pepa.cli.status import format_snapshot
from pepa.ipc import protocol
from pepa.runtime import ActorStateChanged
from pepa.runtime.events import (
    ActivityChanged,
    AskLlm,
    ChatReceived,
    ChatSent,
    ClientConnected,
    CommandReceived,
    DecideProposal,
    Died,
    ErrorRaised,
    GoalSet,
    LearningChanged,
    LlmChunkReceived,
    LlmFinished,
    Pause,
    PausedChanged,
    PlanChanged,
    ProposalsChanged,
    Resume,
    SayInChat,
    WorldObserved,
)
from pepa.runtime.events.queries import Learning, LearningSummary, ProposalIds, Proposals
from pepa.testing import ActorHarness, entity, view
from pepa.world.death import DeathCause

pytestmark = pytest.mark.timeout(30)

TOKEN = "reload-token-1"


@dataclass
class Sockets:
    """Stands in for :class:`pepa.ipc.server.IpcServer`: records what the actor queues."""

    broadcasts: list[dict[str, Any]] = field(default_factory=list)
    sent: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    clients: bool = True
    """Whether a client listens (the broadcasts are recorded either way)."""

    def send(self, client_id: int, event: Any) -> None:
        self.sent.append((client_id, dict(event)))

    def broadcast(self, event: Any) -> None:
        self.broadcasts.append(dict(event))

    def command_done(self, client_id: int) -> None:
        self.done.append(client_id)

    def listening(self) -> bool:
        return self.clients

    def statuses(self) -> list[dict[str, Any]]:
        return [e for e in self.broadcasts if e["type"] == "status"]

    def to(self, client_id: int) -> list[dict[str, Any]]:
        return [event for client, event in self.sent if client == client_id]


def knowledge(
    pending: tuple[str, ...] = (), approved: tuple[str, ...] = (), learned: int = 0
) -> Any:
    """A knowledge stand-in that answers the Proposals and Learning queries."""

    def answer(message: Any) -> Any:
        if isinstance(message, Learning):
            return LearningSummary(lessons_in_force=learned)
        assert isinstance(message, Proposals), message
        return ProposalIds(pending=pending, approved=approved)

    return answer


@dataclass
class Setup:
    h: ActorHarness[Ipc]
    sockets: Sockets
    ring: RingBuffer
    stops: list[str]


def ipc(*, knows: Callable[[Any], Any] | None = None, **kwargs: Any) -> Setup:
    """The IPC actor on a fake clock; its tells to its own handle reach its mailbox."""
    sockets, ring, stops = Sockets(), RingBuffer(), []
    built: list[ActorHarness[Ipc]] = []
    peers: dict[str, Callable[[Any], Any]] = {
        "ipc": lambda message: built[0].actor.actor_ref.tell(message)
    }
    if knows is not None:
        peers["knowledge"] = knows
    options: dict[str, Any] = {
        "server": sockets,
        "ring": ring,
        "started_at": time.time(),
        "server_label": "127.0.0.1:25565",
        "username": "pepa_bot",
        "request_stop": lambda: stops.append("stop"),
        "reload_token": TOKEN,
    }
    options.update(kwargs)
    h = ActorHarness(Ipc, peers=peers, **options)
    built.append(h)
    return Setup(h, sockets, ring, stops)


def command(s: Setup, cmd: Any, client_id: int = 1) -> None:
    s.h.send(CommandReceived(client_id=client_id, command=cmd))


# -- status ------------------------------------------------------------------------------------


def test_a_world_observation_is_broadcast_as_a_status_in_the_wire_shape() -> None:
    s = ipc(knows=knowledge())
    world = view(hp=14, entities=[entity(5, "zombie", 3.5)], items={"bread": 4})
    s.h.send(WorldObserved(view=world))
    (status,) = s.sockets.statuses()
    world_keys = {
        "connected", "alive", "hp", "food", "saturation", "position", "dimension", "timeOfDay",
        "isDay", "moving", "heldItem", "sleeping", "enclosure", "beds", "threats", "players",
        "animals", "inventory", "deaths", "version",
    }  # fmt: skip
    assert world_keys <= set(status)  # the status snapshot's world fields (docs/ipc.md)
    assert status["inventory"] == {"items": {"bread": 4}, "emptySlots": 35}
    assert status["position"] == {"x": 0.5, "y": 64.0, "z": 0.5}
    assert status["enclosure"] == {"openSides": 4, "ceiling": None}
    assert status["version"] == "1.20.4" and status["hp"] == 14
    assert status["threats"] == [{"name": "zombie", "distance": 3.5, "id": 5, "position": None}]
    assert status["username"] == "pepa_bot" and status["server"] == "127.0.0.1:25565"
    assert status["paused"] is False and status["proposals"] == []
    assert orjson.loads(protocol.encode(status)) == status  # plain JSON, encodable as is


def test_world_changes_are_broadcast_at_most_ten_times_a_second() -> None:
    s = ipc(knows=knowledge())
    s.h.send(WorldObserved(view=view(hp=20)), WorldObserved(view=view(hp=19)))
    assert [e["hp"] for e in s.sockets.statuses()] == [20]
    s.h.advance(STATUS_MIN_GAP)
    s.h.send(WorldObserved(view=view(hp=18)))
    assert [e["hp"] for e in s.sockets.statuses()] == [20, 18]


def test_a_heartbeat_status_goes_out_when_nothing_changes() -> None:
    s = ipc(knows=knowledge())
    s.h.advance(STATUS_INTERVAL)
    (status,) = s.sockets.statuses()
    assert status["connected"] is False and status["version"] is None and status["hp"] is None
    s.h.advance(STATUS_INTERVAL * 3)
    assert len(s.sockets.statuses()) == 4


def test_no_status_is_built_while_no_client_listens_and_a_new_one_gets_the_latest() -> None:
    s = ipc(knows=knowledge())
    s.sockets.clients = False
    s.h.send(WorldObserved(view=view(hp=20)))
    s.h.advance(STATUS_INTERVAL * 3)
    s.h.send(WorldObserved(view=view(hp=17)))
    assert s.sockets.statuses() == []  # an idle bot nobody watches builds none
    s.sockets.clients = True
    s.h.send(ClientConnected(client_id=1))
    ((_, hello),) = s.sockets.sent
    assert hello["type"] == "hello" and hello["snapshot"]["hp"] == 17
    s.h.advance(STATUS_MIN_GAP)
    s.h.send(WorldObserved(view=view(hp=16)))
    assert [e["hp"] for e in s.sockets.statuses()] == [16]


def test_what_was_learned_shows_in_the_status_from_the_start_and_as_it_changes() -> None:
    s = ipc(knows=knowledge(learned=3))
    s.h.advance(STATUS_INTERVAL)
    assert s.sockets.statuses()[-1]["learning"]["lessonsInForce"] == 3
    summary = LearningSummary(
        deaths=2, deaths_by_cause=(("fall", 1), ("mob", 1)), recent_deaths=("12:03 fell",),
        lessons_in_force=4, recent_lessons=("12:04 held: avoid x → 0.75",),
        lessons_by_subject=(("block", 1), ("action", 3), ("place", 2)),
        hazards=("magma_block: standing on 0.75",), near_misses=1,
        recent_near_misses=("12:02 lost 9 to contact from cactus (touching) while walking",),
    )  # fmt: skip
    s.h.send(LearningChanged(summary=summary))
    assert s.sockets.statuses()[-1]["learning"] == {
        "deaths": 2, "deathsByCause": {"fall": 1, "mob": 1}, "recentDeaths": ["12:03 fell"],
        "lessonsInForce": 4, "recentLessons": ["12:04 held: avoid x → 0.75"],
        "lessonsBySubject": {"block": 1, "action": 3, "place": 2},
        "hazards": ["magma_block: standing on 0.75"], "nearMisses": 1,
        "recentNearMisses": ["12:02 lost 9 to contact from cactus (touching) while walking"],
    }  # fmt: skip


def test_activity_pause_plan_and_proposals_show_in_the_status() -> None:
    s = ipc(knows=knowledge())
    s.h.send(
        ActivityChanged(reflex="defend", skill="survive.flee"),
        PausedChanged(paused=True),
        PlanChanged(goal="a house", done=1, total=3, next="4 oak_log (gather.wood)"),
        ProposalsChanged(pending=("p.md",), approved=("a.md",)),
    )
    last = s.sockets.statuses()[-1]
    assert (last["activeReflex"], last["currentSkill"], last["paused"]) == (
        "defend",
        "survive.flee",
        True,
    )
    assert last["goal"] == "a house" and last["plan"]["next"] == "4 oak_log (gather.wood)"
    assert last["proposals"] == ["p.md"] and last["pendingProposals"] == 1
    assert last["approvedProposals"] == ["a.md"]


def test_bus_events_are_relayed_to_every_client() -> None:
    s = ipc(knows=knowledge())
    s.h.send(
        ChatReceived(sender="alice", text="hi", kind="chat"),
        ChatSent(text="hello alice"),
        ErrorRaised(source="coach", text="pi next action: reply rejected"),
        LlmChunkReceived(stream="stdout", text="flee"),
        LlmFinished(code=0, duration_ms=12),
        ActorStateChanged(name="reflex", state="restarting", restarts=1, reason="crash"),
        Died(
            reason="slain by zombie", position={"x": 1.0, "y": 64.0, "z": 2.0},
            cause=DeathCause(kind="mob", key="death.attack.mob", killer="zombie"),
        ),
    )  # fmt: skip
    kinds = [e["type"] for e in s.sockets.broadcasts]
    assert kinds == [
        "chat",
        "chat",
        "error",
        "ask-pi-chunk",
        "ask-pi-done",
        "actor",
        "death",
        "status",
    ]
    assert s.sockets.broadcasts[0] == {
        "type": "chat",
        "from": "alice",
        "text": "hi",
        "kind": "chat",
    }
    assert (
        s.sockets.broadcasts[1]["from"] == "pepa_bot" and s.sockets.broadcasts[1]["kind"] == "self"
    )
    assert s.sockets.broadcasts[4] == {"type": "ask-pi-done", "code": 0, "durationMs": 12}
    assert s.sockets.broadcasts[5]["name"] == "reflex"
    death = s.sockets.broadcasts[6]
    assert (death["reason"], death["cause"]["key"], death["cause"]["killer"]) == (
        "slain by zombie", "death.attack.mob", "zombie",
    )  # fmt: skip
    assert s.sockets.broadcasts[7]["lastDeath"] == "slain by zombie"


# -- connections and proposals -----------------------------------------------------------------


def test_a_new_client_gets_hello_with_the_snapshot_and_the_recent_logs() -> None:
    s = ipc(knows=knowledge(pending=("2026-01-01-flee.md",), approved=("b.md",)))
    records = [
        logging.makeLogRecord(
            {"name": "pepa.actors.reflex", "levelname": "WARNING", "levelno": 30, "msg": "fled"}
        ),
        logging.makeLogRecord(
            {"name": "pepa.coach", "levelname": "INFO", "levelno": 20, "msg": "asked pi"}
        ),
    ]
    for record in records:
        s.ring.emit(record)
    s.h.send(WorldObserved(view=view(food=9)), ClientConnected(client_id=7))
    (hello,) = s.sockets.to(7)
    assert hello["type"] == "hello"
    assert hello["snapshot"]["food"] == 9
    assert hello["snapshot"]["proposals"] == ["2026-01-01-flee.md"]
    assert hello["snapshot"]["approvedProposals"] == ["b.md"]
    logs = hello["recentLogs"]
    assert [(e["level"], e["source"], e["text"]) for e in logs] == [
        ("warn", "reflex", "fled"),
        ("info", "coach", "asked pi"),
    ]


def test_without_knowledge_the_proposals_are_empty_and_it_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s = ipc(knows=None)
    s.h.send(ClientConnected(client_id=1))
    (hello,) = s.sockets.to(1)
    assert hello["snapshot"]["proposals"] == [] and hello["snapshot"]["pendingProposals"] == 0
    (line,) = [r.getMessage() for r in caplog.records if r.name == "pepa.actors.ipc"]
    assert "cannot read the pending proposals and what was learned yet" in line
    assert "knowledge" in line


def test_a_knowledge_actor_that_does_not_answer_is_no_crash(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def slow(message: Any) -> Any:
        raise AskTimeout("knowledge did not answer Proposals within 2s")

    s = ipc(knows=slow)
    s.h.send(ProposalsChanged(pending=("late.md",)))  # the bus brings them later
    assert s.sockets.statuses()[-1]["proposals"] == ["late.md"]
    assert any("did not answer" in r.getMessage() for r in caplog.records)


# -- commands ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cmd", "event"),
    [
        (protocol.Pause(), Pause()),
        (protocol.Resume(), Resume()),
        (protocol.Chat(text="/time set day"), SayInChat(text="/time set day", raw=True)),
        (protocol.AskPi(prompt="why?"), AskLlm(prompt="why?")),
        (protocol.Goal(text="a house"), GoalSet(text="a house", by="socket client 3")),
        (
            protocol.ProposalDecision(id="p.md", decision="approve"),
            DecideProposal(id="p.md", decision="approve"),
        ),
    ],
)
def test_a_command_becomes_its_bus_event(cmd: Any, event: Any) -> None:
    s = ipc(knows=knowledge())
    command(s, cmd, client_id=3)
    assert s.h.published == [event]
    assert s.sockets.done == [3] and s.sockets.sent == []


def test_stop_asks_the_worker_to_stop() -> None:
    s = ipc(knows=knowledge())
    command(s, protocol.Stop())
    assert s.stops == ["stop"] and s.h.published == []


def test_a_snapshot_is_answered_to_the_asker_only() -> None:
    s = ipc(knows=knowledge())
    command(s, protocol.Snapshot(), client_id=4)
    (status,) = s.sockets.to(4)
    assert status["type"] == "status" and s.sockets.broadcasts == []


@dataclass(frozen=True, slots=True, kw_only=True)
class Dance:
    """A command the protocol might grow that this actor does not know."""


def test_an_unknown_command_gets_one_clear_error_and_the_actor_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s = ipc(knows=knowledge())
    command(s, Dance(), client_id=2)
    (error,) = s.sockets.to(2)
    assert error == {"type": "error", "source": "ipc", "text": "unhandled command Dance()"}
    assert [r.getMessage() for r in caplog.records if r.name == "pepa.actors.ipc"] == [
        "unhandled command Dance() (client 2)"
    ]
    command(s, protocol.Pause(), client_id=2)
    assert s.h.published == [Pause()] and s.sockets.done == [2, 2]


def test_a_flood_of_commands_is_cut_at_the_burst_and_reported_once_a_second() -> None:
    s = ipc(knows=knowledge(), command_rate=2.0, command_burst=3)
    for n in range(6):
        command(s, protocol.Chat(text=f"line {n}"), client_id=5)
    assert [e.text for e in s.h.events(SayInChat)] == ["line 0", "line 1", "line 2"]
    (first,) = s.sockets.to(5)
    assert first["text"].startswith("1 command(s) dropped: more than 2 a second (bursts of 3)")
    s.h.advance(STATUS_INTERVAL)  # the heartbeat reports the two dropped since
    errors = [e for e in s.sockets.to(5) if e["type"] == "error"]
    assert [e["text"].split(" ")[0] for e in errors] == ["1", "2"]
    command(s, protocol.Snapshot(), client_id=5)  # never limited
    assert s.sockets.to(5)[-1]["type"] == "status" and len(s.sockets.done) == 7


def test_fault_injection_is_refused_while_it_is_off() -> None:
    s = ipc(knows=knowledge())
    command(s, protocol.Fault(actor="reflex", kind="crash"))
    assert s.sockets.to(1) == [{"type": "error", "source": "ipc", "text": "fault injection is off"}]
    s.h.runtime.fault_injection = True
    command(s, protocol.Fault(actor="nobody", kind="crash"))
    assert "no running actor 'nobody'" in s.sockets.to(1)[-1]["text"]


def test_a_reload_failure_is_told_to_every_client_only_with_the_token() -> None:
    s = ipc(knows=knowledge())
    command(s, protocol.ReloadFailed(error="skills/nav.py: SyntaxError", token="guess"))
    assert "accepted only from pepa start --reload" in s.sockets.to(1)[0]["text"]
    assert s.h.events(ErrorRaised) == []
    command(s, protocol.ReloadFailed(error="skills/nav.py: SyntaxError", token=TOKEN))
    assert s.h.last(ErrorRaised) == ErrorRaised(source="reload", text="skills/nav.py: SyntaxError")
    assert s.sockets.broadcasts[-1] == {
        "type": "error",
        "source": "reload",
        "text": "skills/nav.py: SyntaxError",
    }


def test_a_waiting_microsoft_sign_in_is_in_every_status_until_the_bot_is_in() -> None:
    s = ipc(knows=knowledge())
    prompt = "sign in to Microsoft: open https://www.microsoft.com/link and enter the code AB12CD34"
    s.h.send(ErrorRaised(source="auth", text=prompt))
    assert s.sockets.statuses()[-1]["signIn"] == prompt
    assert {"type": "error", "source": "auth", "text": prompt} in s.sockets.broadcasts
    s.h.advance(STATUS_INTERVAL)
    assert s.sockets.statuses()[-1]["signIn"] == prompt  # still waiting
    s.h.advance(STATUS_MIN_GAP)
    s.h.send(WorldObserved(view=view(hp=20)))  # in the world: signed in
    assert s.sockets.statuses()[-1]["signIn"] is None
    assert format_snapshot({"signIn": prompt}).splitlines()[1] == f"sign-in    {prompt}"
    assert "sign-in" not in format_snapshot({"signIn": None})
