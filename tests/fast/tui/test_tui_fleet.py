"""The dashboard's fleet view: its reducer and renderer (no threads, no server), and its poller."""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.ipc.protocol import Pause, Snapshot
from tests.tui_helpers import ENTER, ESC, TERM, keys, snapshot
from tui import (
    BotEvent,
    BotRow,
    CommandFailed,
    Connected,
    Disconnected,
    FleetGone,
    FleetPolled,
    FleetState,
    Key,
    LogLine,
    reduce_fleet,
    render_fleet,
)
from tui.fleet import CloseBot, FleetInput, OpenBot
from tui.fleetpoll import FleetPoller, poll_fleet

pytestmark = pytest.mark.timeout(60)

ROOT = "/tmp/s/127.0.0.1_25565"
UP = Key(name="KEY_UP")
DOWN = Key(name="KEY_DOWN")


def bot(name: str, group: int = 0, **changes: Any) -> BotRow:
    return BotRow(name=name, group=group, snapshot=snapshot(username=name, **changes))


def down(name: str, group: int = 1, why: str = "stopped on request") -> BotRow:
    return BotRow(name=name, group=group, snapshot=None, down=why)


def polled(*bots: BotRow, restarts: int = 0) -> FleetPolled:
    groups = len({row.group for row in bots}) or 1
    return FleetPolled(
        server="127.0.0.1:25565", groups=groups, restarts=restarts, bots=bots, ts=1.0
    )


FOUR = polled(
    bot("pepa_bot_1", 0),
    bot("pepa_bot_2", 0, hp=6, food=13.5, currentSkill="gather.wood", paused=True),
    bot("pepa_bot_3", 1, deaths=2, learning={"lessonsInForce": 3}, activeReflex="survive.flee"),
    down("pepa_bot_4", 1),
)


def feed(state: FleetState, *inputs: FleetInput) -> tuple[FleetState, list[Any]]:
    commands: list[Any] = []
    for item in inputs:
        state, out = reduce_fleet(state, item)
        commands.extend(out)
    return state, commands


def listing(*inputs: FleetInput) -> FleetState:
    state, commands = feed(FleetState(root=ROOT), FOUR, *inputs)
    assert not [c for c in commands if isinstance(c, OpenBot)] or state.bot is not None
    return state


def screen(state: FleetState, width: int = 120, height: int = 30) -> str:
    return "\n".join(TERM.strip_seqs(line) for line in render_fleet(state, width, height, TERM))


def row_of(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if name in line)


def opened(name: str = "pepa_bot_1", moves: int = 0) -> tuple[FleetState, OpenBot]:
    """The fleet view with ``name``'s dashboard open and connected."""
    state, commands = feed(listing(*[DOWN] * moves), ENTER)
    (command,) = commands
    assert isinstance(command, OpenBot) and command.name == name
    hello = {"type": "hello", "snapshot": snapshot(username=name), "recentLogs": []}
    state, _ = feed(
        state,
        BotEvent(session=command.session, event=hello),
        BotEvent(session=command.session, event=Connected(path=command.socket, ts=2.0)),
    )
    return state, command


# --------------------------------------------------------------------------- the list


def test_the_list_shows_one_line_per_bot_and_a_header_with_the_counts() -> None:
    text = screen(listing())
    header = text.splitlines()[0]
    assert "pepa fleet  127.0.0.1:25565  4 bots  3 answering" in header
    assert "2 worker processes  0 restarts" in header
    assert "  bot              grp  state       hp/food  deaths  lessons  doing" in text
    assert "▸ pepa_bot_1         0  connected     20/20       0        0  idle" in text
    assert "  pepa_bot_2         0  connected      6/14       0        0  gather.wood (paused)" in (
        row_of(text, "pepa_bot_2")
    )
    assert row_of(text, "pepa_bot_3").rstrip().endswith("20/20       2        3  survive.flee")
    assert "  pepa_bot_4         1  down              -       -        -  stopped on request" in (
        row_of(text, "pepa_bot_4")
    )
    assert text.splitlines()[-1].startswith("↑↓ select  Enter open its dashboard  q quit")


def test_before_the_first_round_it_says_it_is_asking() -> None:
    text = screen(FleetState(root=ROOT))
    assert "◌ asking the bots…" in text.splitlines()[0]
    assert f"asking every bot's socket under {ROOT}" in text
    state, commands = feed(FleetState(root=ROOT), ENTER)
    assert not commands and "no bot to open: no answer from the fleet yet" in screen(state)


def test_arrows_and_j_k_select_and_stop_at_the_ends() -> None:
    state = listing()
    assert state.selected == 0
    state, _ = feed(state, UP)
    assert state.selected == 0
    state, _ = feed(state, DOWN, *keys("j"))
    assert state.selected == 2 and "▸ pepa_bot_3" in screen(state)
    state, _ = feed(state, *keys("jjj"))
    assert state.selected == 3
    state, _ = feed(state, *keys("k"), UP)
    assert state.selected == 1
    state, _ = feed(state, *keys("G"))
    assert state.selected == 3
    state, _ = feed(state, Key(name="KEY_HOME"))
    assert state.selected == 0
    assert screen(state).count("▸") == 1


def test_a_round_with_fewer_bots_keeps_the_selection_in_range() -> None:
    state = listing(*keys("G"))
    state, _ = feed(state, polled(bot("pepa_bot_1"), bot("pepa_bot_2")))
    assert state.selected == 1 and state.current is not None
    assert state.current.name == "pepa_bot_2"


def test_the_selection_scrolls_into_sight_in_a_short_terminal() -> None:
    many = polled(*(bot(f"bot_{i:02d}", i // 8) for i in range(40)))
    state, _ = feed(FleetState(root=ROOT), many, *keys("G"))
    text = screen(state, 80, 12)
    assert "▸ bot_39" in text and "bot_00" not in text
    state, _ = feed(state, *keys("g"))
    text = screen(state, 80, 12)
    assert "▸ bot_00" in text and "bot_39" not in text


# --------------------------------------------------------------------------- opening a bot


def test_enter_opens_the_selected_bots_full_dashboard_on_its_socket() -> None:
    state, command = opened("pepa_bot_2", moves=1)
    assert command == OpenBot(name="pepa_bot_2", socket=f"{ROOT}/pepa_bot_2/bot.sock", session=1)
    assert state.bot is not None and state.bot.connected and state.bot.fleet
    text = screen(state, 120, 40)
    assert "● connected" in text and "pepa_bot_2 @ 127.0.0.1:25565" in text
    assert "┌─ status" in text and "┌─ actors" in text  # the single bot's panels
    assert text.splitlines()[-1].startswith("Esc fleet  p pause  s stop  c chat")


def test_the_open_dashboard_gets_the_keys_and_sends_its_commands() -> None:
    state, _ = opened()
    state, commands = feed(state, Key(char="p"))
    assert commands == [Pause()]
    state, commands = feed(state, Key(char="r"))  # r still works, though the key line drops it
    assert commands == [Snapshot()]
    failed = BotEvent(session=state.session, event=CommandFailed(command="cmd:pause", reason="x"))
    state, _ = feed(state, failed)
    assert "cmd:pause not sent: x" in screen(state)


def test_esc_or_f_goes_back_to_the_list_and_enter_opens_again_a_new_session() -> None:
    for back in (ESC, Key(char="f")):
        state, _ = opened()
        state, commands = feed(state, back)
        assert commands == [CloseBot()] and state.bot is None
        text = screen(state)
        assert "▸ pepa_bot_1" in text and "back from pepa_bot_1" in text
        state, commands = feed(state, ENTER)
        again = OpenBot(name="pepa_bot_1", socket=f"{ROOT}/pepa_bot_1/bot.sock", session=2)
        assert commands == [again]


def test_esc_in_an_input_mode_cancels_it_and_stays_in_the_bot() -> None:
    state, _ = opened()
    state, commands = feed(state, *keys("c"), *keys("hi f"))
    assert state.bot is not None and state.bot.input == "hi f"  # f is typed, not "back"
    state, commands = feed(state, ESC)
    assert not commands and state.bot is not None and state.bot.mode == "normal"
    state, _ = feed(state, *keys("?"))
    assert "Esc f" in screen(state, 120, 40) and "back to the fleet's list" in screen(
        state, 120, 40
    )
    state, _ = feed(state, ESC)  # closes the help
    assert state.bot is not None
    state, commands = feed(state, ESC)
    assert commands == [CloseBot()] and state.bot is None


def test_events_of_a_closed_dashboard_are_dropped() -> None:
    state, command = opened()
    state, _ = feed(state, ESC, ENTER)  # session 2 now
    stale = {"type": "hello", "snapshot": snapshot(username="ghost"), "recentLogs": []}
    state, _ = feed(
        state,
        BotEvent(session=command.session, event=stale),
        BotEvent(session=command.session, event=Disconnected(reason="closed", ts=3.0)),
    )
    assert state.bot is not None and not state.bot.snapshot and state.bot.link == "connecting"
    state, _ = feed(state, ESC, BotEvent(session=2, event=stale))
    assert state.bot is None and "ghost" not in screen(state)


def test_enter_on_a_bot_that_is_down_says_so_in_one_line() -> None:
    state, commands = feed(listing(*keys("G")), ENTER)
    assert not commands and state.bot is None
    message = screen(state).splitlines()[-2]
    assert message.startswith(
        "pepa_bot_4 is down (stopped on request): no dashboard to open until it answers"
    )


def test_q_quits_from_the_list_and_from_a_bots_dashboard() -> None:
    state, _ = feed(listing(), *keys("q"))
    assert state.quit
    state, _ = opened()
    state, _ = feed(state, *keys("q"))
    assert state.quit


def test_rounds_go_on_while_a_bot_is_open_and_show_after_back() -> None:
    state, _ = opened()
    state, _ = feed(state, polled(bot("pepa_bot_1", deaths=7), down("pepa_bot_2", 0)))
    assert "deaths 7" not in screen(state, 120, 40)
    state, _ = feed(state, ESC)
    text = screen(state)
    assert row_of(text, "pepa_bot_1").split()[5] == "7" and "1 answering" in text


# --------------------------------------------------------------------------- the fleet ends


def test_when_the_fleet_ends_it_says_so_and_comes_back_with_it() -> None:
    state, _ = feed(listing(), FleetGone(reason="no fleet runs on this server", ts=5.0))
    text = screen(state)
    assert "◌ the fleet ended" in text.splitlines()[0] and "0 answering" in text
    assert "no fleet runs on this server; looking again every second…" in text
    assert row_of(text, "pepa_bot_1").split()[3] == "down" and "the fleet ended" in text
    state, commands = feed(state, ENTER)
    assert not commands and "pepa_bot_1 is down (the fleet ended)" in screen(state)
    state, _ = feed(state, FleetGone(reason="still none", ts=6.0), FOUR)
    text = screen(state)
    assert "the fleet ended" not in text.splitlines()[0] and "3 answering" in text
    assert "the fleet is back" in text


def test_the_dashboards_own_warnings_show_in_the_list_and_in_an_open_bot() -> None:
    warning = LogLine(ts=1.0, level="warn", source="tui", text="cannot read fleet.json")
    state, _ = feed(listing(), warning)
    assert "tui: cannot read fleet.json" in screen(state)
    state, _ = opened()
    state, _ = feed(state, warning)
    assert state.bot is not None and state.bot.logs[-1].text == "cannot read fleet.json"


# --------------------------------------------------------------------------- sizes


SIZES = [(120, 40), (80, 24), (60, 20), (40, 12), (10, 4), (5, 3), (2, 2), (1, 1)]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("view", ["asking", "list", "gone", "bot"])
def test_every_view_fills_exactly_the_screen(width: int, height: int, view: str) -> None:
    state = {
        "asking": FleetState(root=ROOT),
        "list": listing(*keys("j")),
        "gone": feed(listing(), FleetGone(reason="gone", ts=1.0))[0],
        "bot": opened()[0],
    }[view]
    lines = render_fleet(state, width, height, TERM)
    assert len(lines) == height
    assert [TERM.length(line) for line in lines] == [width] * height


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(max_size=30), max_size=12),
    st.dictionaries(
        st.sampled_from(["hp", "food", "deaths", "learning", "currentSkill", "connected"]),
        st.one_of(st.none(), st.booleans(), st.floats(), st.integers(), st.text(max_size=20)),
    ),
    st.integers(1, 160),
    st.integers(1, 50),
)
def test_odd_names_and_snapshots_never_break_the_list(
    names: list[str], snap: dict[str, Any], width: int, height: int
) -> None:
    rows = tuple(
        BotRow(name=n, group=i, snapshot=snap if i % 2 else None) for i, n in enumerate(names)
    )
    state, _ = feed(FleetState(root=ROOT), polled(*rows), DOWN, ENTER)
    lines = render_fleet(state, width, height, TERM)
    assert len(lines) == height and all(TERM.length(line) == width for line in lines)
    assert not any("\x1b[2J" in line for line in lines)


# --------------------------------------------------------------------------- the poller


def test_the_poller_posts_rounds_pauses_and_resumes_at_once() -> None:
    calls = threading.Semaphore(0)
    posted: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def poll() -> FleetPolled:
        calls.release()
        return FOUR

    poller = FleetPoller(poll, posted.put, interval=60.0).start()
    try:
        assert posted.get(timeout=10) is FOUR  # the first round at once
        poller.pause()
        poller.resume()  # ... and again at once, not 60 s later
        assert posted.get(timeout=10) is FOUR
    finally:
        poller.stop(timeout=10)


def test_a_failing_round_is_logged_and_polling_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    results: list[Any] = [OSError("the roster vanished"), FOUR]
    posted: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def poll() -> FleetPolled:
        result = results.pop(0) if results else FOUR
        if isinstance(result, Exception):
            raise result
        return result

    with FleetPoller(poll, posted.put, interval=0.01):
        assert posted.get(timeout=10) is FOUR
    assert "asking the fleet failed" in caplog.text


def test_poll_fleet_without_a_fleet_says_none_runs(tmp_path: Path) -> None:
    result = poll_fleet(tmp_path, clock=lambda: 7.0)
    assert isinstance(result, FleetGone) and result.ts == 7.0
    assert "no fleet runs on this server" in result.reason
