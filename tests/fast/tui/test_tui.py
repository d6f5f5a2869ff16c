"""The dashboard's pure parts: the reducer and the renderer, no threads, no terminal I/O."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pepa.ipc.protocol import AskPi, Chat, Pause, ProposalDecision, Resume, Snapshot, Stop
from tests.tui_helpers import (
    ACTORS,
    BACKSPACE,
    ENTER,
    ESC,
    TERM,
    connected,
    feed,
    keys,
    log,
    screen,
    snapshot,
)
from tui import (
    CommandFailed,
    Connected,
    Disconnected,
    Key,
    State,
    render,
    visible_logs,
)
from tui.state import MAX_LOGS

# --------------------------------------------------------------------------- daemon events


def test_hello_fills_the_snapshot_the_actors_and_the_log() -> None:
    state = connected()
    assert state.connected and state.connections == 1
    assert [a.name for a in state.actors] == ACTORS
    assert [line.text for line in state.logs] == ["in the world", "connected to /tmp/s/bot.sock"]
    text = screen(state)
    assert "● connected" in text and "pepa_bot @ 127.0.0.1:25565" in text
    assert "up 1m05s" in text


def test_a_status_event_updates_the_hp_bar() -> None:
    state = connected()
    assert "hp      ██████████ 20/20" in screen(state)
    state, _ = feed(state, {"type": "status", **snapshot(hp=6, food=13.5)})
    text = screen(state)
    assert "hp      ███░░░░░░░  6/20" in text
    assert "food    ███████░░░ 13.5/20" in text
    bar = next(line for line in render(state, 120, 40, TERM) if "6/20" in TERM.strip_seqs(line))
    assert TERM.red("███") in bar  # low hp is red


def test_the_last_deaths_cause_shows_beside_the_count() -> None:
    state = connected()
    assert " last " not in screen(state).split("deaths", 1)[1].split("│", 1)[0]
    state, _ = feed(state, {"type": "status", **snapshot(deaths=2, lastDeath="fell 31 blocks")})
    assert "deaths 2 last fell 31 blocks" in screen(state)


def test_e_opens_what_the_bot_has_learned_and_any_key_closes_it() -> None:
    learning = {
        "deaths": 3, "deathsByCause": {"mob": 2, "fall": 1}, "lessonsInForce": 4,
        "recentDeaths": ["12:03 slain by zombie", "11:58 fell 31 blocks\x1b[2J"],
        "recentLessons": ["12:04 held: avoid combat.attack-nearest vs zombie → 0.75"],
        "lessonsBySubject": {"block": 2, "mob": 1, "action": 1, "place": 3},
        "hazards": ["magma_block: standing on 0.85", "ravager: keep away 0.75"],
        "nearMisses": 2, "recentNearMisses": ["12:01 lost 9 to contact from cactus (touching)"],
    }  # fmt: skip
    state, _ = feed(connected(), {"type": "status", **snapshot(learning=learning)}, Key(char="e"))
    text = screen(state)
    assert "near-misses       2" in text
    assert "about           2 block, 1 mob, 1 action, 3 place" in text
    assert "  magma_block: standing on 0.85" in text and "  ravager: keep away 0.75" in text
    assert "  12:01 lost 9 to contact from cactus (touching)" in text
    assert "deaths            3: 2 mob, 1 fall" in text
    assert "lessons in force  4" in text
    assert "  12:03 slain by zombie" in text and "\x1b[2J" not in text
    assert "  12:04 held: avoid combat.attack-nearest vs zombie → 0.75" in text
    state, _ = feed(state, Key(char="x"))
    assert state.mode == "normal" and "lessons in force" not in screen(state)
    empty, _ = feed(connected(), Key(char="e"))  # an older daemon sends no learning
    assert "deaths            0" in screen(empty) and "none yet" in screen(empty)


def test_status_shows_position_time_threats_activity_and_paused() -> None:
    state = connected()
    threats = [{"name": "skeleton", "distance": 9.25}, {"name": "zombie", "distance": 2.5}]
    state, _ = feed(
        state,
        {
            "type": "status",
            **snapshot(
                threats=threats,
                activeReflex="defend",
                currentSkill="flee",
                paused=True,
                timeOfDay=18000,
                dimension="the_nether",
            ),
        },
    )
    text = screen(state)
    assert "pos     9.0 5.0 -3.5  the_nether" in text
    assert "time    00:00 night" in text
    assert "threats zombie 2.5m, skeleton 9.2m" in text  # nearest first
    assert "reflex  defend   skill flee" in text
    assert "PAUSED" in text.splitlines()[0]


def test_an_actor_event_updates_the_actors_table() -> None:
    state = connected()
    event = {"type": "actor", "name": "perception", "state": "restarting", "restarts": 2}
    state, _ = feed(state, {**event, "reason": "injected crash"})
    row = next(a for a in state.actors if a.name == "perception")
    assert (row.state, row.restarts, row.reason, row.supervisor) == (
        "restarting",
        2,
        "injected crash",
        "root",
    )
    line = next(line for line in screen(state).splitlines() if "perception" in line)
    assert "perception  restarting   2  injected crash" in line
    small = screen(state, 60, 20)
    assert "perception:restarting↻2" in small
    assert "perception: injected crash" in small


def test_an_actor_event_for_a_new_actor_adds_a_row() -> None:
    state, _ = feed(connected(), {"type": "actor", "name": "miner", "state": "starting"})
    assert state.actors[-1].name == "miner" and state.actors[-1].restarts == 0


def test_chat_events_of_each_kind_are_shown_in_the_chat_panel() -> None:
    state, _ = feed(
        connected(),
        {"type": "chat", "from": "alice", "text": "hi bot", "kind": "player"},
        {"type": "chat", "from": "", "text": "alice joined the game", "kind": "system"},
        {"type": "chat", "from": "pepa_bot", "text": "hello alice", "kind": "self"},
    )
    text = screen(state)
    assert "<alice> hi bot" in text
    assert "* alice joined the game" in text
    assert "<pepa_bot> hello alice" in text
    said = next(line for line in render(state, 120, 40, TERM) if "hello alice" in line)
    assert TERM.green("<pepa_bot> hello alice") in said


def test_death_and_error_events_are_logged_and_flashed() -> None:
    death = {"type": "death", "reason": "zombie", "position": {"x": 1, "y": 64, "z": 2}}
    state, _ = feed(connected(), death)
    assert state.logs[-1].text == "the bot died: zombie at 1 64 2"
    told = {**death, "reason": "slain by zombie", "cause": {"text": "pepa_bot was slain\x1b[2J"}}
    state, _ = feed(state, told)
    assert state.logs[-1].text == "the bot died: slain by zombie (pepa_bot was slain [2J) at 1 64 2"
    state, _ = feed(state, {"type": "error", "source": "ipc", "text": "unknown command"})
    assert state.flash == "error from ipc: unknown command"
    assert state.logs[-1].level == "error"


def test_control_characters_from_the_daemon_never_reach_the_terminal() -> None:
    nasty = "\x1b[2J\x1b]0;owned\x07\rhi\x9b31m"
    state, _ = feed(
        connected(),
        {"type": "chat", "from": "mallory\x1b[5m", "text": nasty, "kind": "player"},
        log(nasty),
    )
    for line in render(state, 120, 40, TERM):
        for bad in ("\x1b[2J", "\x1b]0", "\x07", "\r", "\x9b", "\x1b[5m"):
            assert bad not in line


def test_a_new_hello_does_not_repeat_log_lines_already_shown() -> None:
    state = connected()
    hello = {
        "type": "hello",
        "snapshot": snapshot(),
        "recentLogs": [log("in the world"), log("new line", ts=3.0)],
    }
    state, _ = feed(state, Disconnected(reason="gone", ts=2.5), hello)
    assert [line.text for line in state.logs].count("in the world") == 1
    assert state.logs[-1].text == "new line"


def test_the_llm_answer_streams_into_its_panel() -> None:
    state, commands = feed(connected(), Key(char="a"), *keys("why did I die?"), ENTER)
    assert commands == [AskPi(prompt="why did I die?")]
    assert state.llm_running
    state, _ = feed(
        state,
        {"type": "ask-pi-chunk", "stream": "stdout", "text": "you stood "},
        {"type": "ask-pi-chunk", "stream": "stdout", "text": "in lava\n"},
        {"type": "ask-pi-chunk", "stream": "stderr", "text": "warning: offline\n"},
    )
    text = screen(state)
    assert "LLM · answering…" in text
    assert "> why did I die?" in text and "you stood in lava" in text
    state, _ = feed(state, {"type": "ask-pi-done", "code": 0, "durationMs": 1234})
    assert not state.llm_running
    assert "LLM · exit 0 in 1.2s" in screen(state)


def test_pseudo_events_of_the_connection_drive_the_header() -> None:
    state = State()
    assert "connecting…" in screen(state)
    state, _ = feed(state, Disconnected(reason="no daemon socket at /x", ts=1.0, retry_in=0.4))
    assert state.link == "connecting" and not state.logs  # never connected: nothing to log
    text = screen(state)
    assert "retry in 0.4s" in text and "no daemon socket at /x" in text
    state = connected()
    state, _ = feed(state, Disconnected(reason="closed", ts=5.0))
    state, _ = feed(state, Disconnected(reason="refused", ts=5.2, retry_in=0.2))
    assert state.link == "reconnecting"
    assert [line.text for line in state.logs if "lost" in line.text] == [
        "connection lost, reconnecting: closed"
    ]
    assert "reconnecting…" in screen(state).splitlines()[0]
    state, _ = feed(state, Connected(path="/tmp/s/bot.sock", ts=6.0))
    assert "● connected (reconnects 1)" in screen(state)


def test_a_command_that_could_not_be_sent_is_flashed() -> None:
    state, _ = feed(connected(), CommandFailed(command="cmd:pause", reason="broken pipe"))
    assert state.flash == "cmd:pause not sent: broken pipe"


FIELDS = "snapshot recentLogs hp food position threats actors name ts text level from kind"
FIELDS += " restarts reason proposals pendingProposals timeOfDay uptime paused stream code"


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["hello", "status", "log", "chat", "death", "error", "actor", "ask-pi-chunk"]),
    st.dictionaries(
        st.sampled_from(FIELDS.split()),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=8,
        ),
    ),
)
@example("log", {"ts": 6.8e16})
@example("status", {"timeOfDay": 1e308, "hp": -1e308, "uptime": 1e300})
def test_malformed_events_never_break_the_reducer_or_the_renderer(
    kind: str, body: dict[str, Any]
) -> None:
    state, _ = feed(connected(), {**body, "type": kind})
    lines = render(state, 80, 24, TERM)
    assert len(lines) == 24 and all(TERM.length(line) == 80 for line in lines)


def test_the_log_keeps_only_the_newest_lines() -> None:
    state, _ = feed(State(), *(log(f"line {i}", ts=i) for i in range(MAX_LOGS + 5)))
    assert len(state.logs) == MAX_LOGS and state.logs[-1].text == f"line {MAX_LOGS + 4}"


# --------------------------------------------------------------------------- hotkeys


def test_p_sends_pause_when_running_and_resume_when_paused() -> None:
    state, commands = feed(connected(), Key(char="p"))
    assert commands == [Pause()]
    assert state.flash == "pause sent"
    state, commands = feed(state, {"type": "status", **snapshot(paused=True)}, Key(char="p"))
    assert commands == [Resume()]
    assert "p resume" in screen(state)


def test_hotkeys_send_nothing_while_disconnected() -> None:
    state, commands = feed(State(), Key(char="p"), Key(char="r"))
    assert commands == []
    assert "not connected" in state.flash


def test_s_asks_for_confirmation_before_sending_stop() -> None:
    state, commands = feed(connected(), Key(char="s"))
    assert (state.mode, commands) == ("confirm-stop", [])
    assert "Stop the bot?" in screen(state)
    cancelled, commands = feed(state, Key(char="n"))
    assert (cancelled.mode, commands, cancelled.flash) == ("normal", [], "stop cancelled")
    state, commands = feed(state, Key(char="y"))
    assert (state.mode, commands) == ("normal", [Stop()])


def test_r_asks_for_a_snapshot() -> None:
    assert feed(connected(), Key(char="r"))[1] == [Snapshot()]


def test_q_quits_the_dashboard_only() -> None:
    state, commands = feed(connected(), Key(char="q"))
    assert state.quit and commands == []


def test_question_mark_opens_the_help_and_any_key_closes_it() -> None:
    state, _ = feed(connected(), Key(char="?"))
    assert state.mode == "help"
    assert "quit the dashboard only" in screen(state)
    state, commands = feed(state, Key(char="p"))
    assert (state.mode, commands) == ("normal", [])


# --------------------------------------------------------------------------- input modes


def test_chat_mode_edits_a_line_and_enter_says_it() -> None:
    state, _ = feed(connected(), Key(char="c"), *keys("helo"), BACKSPACE, BACKSPACE, *keys("llo"))
    assert (state.mode, state.input) == ("chat", "hello")
    assert "say> hello" in screen(state)
    assert "Enter say it" in screen(state)
    state, _ = feed(state, Key(char="\x15", name="KEY_CTRL_U"), *keys("hi all"))
    state, commands = feed(state, Key(name="KEY_UP", char="\x1b[A"), ENTER)
    assert commands == [Chat(text="hi all")]
    assert (state.mode, state.input) == ("normal", "")


@pytest.mark.parametrize("mode_key", ["c", "a"])
def test_an_empty_submit_or_escape_cancels_an_input_mode(mode_key: str) -> None:
    state, commands = feed(connected(), Key(char=mode_key), *keys("   "), ENTER)
    assert (state.mode, commands) == ("normal", [])
    assert "cancelled" in state.flash
    state, commands = feed(state, Key(char=mode_key), *keys("text"), ESC)
    assert (state.mode, state.input, commands) == ("normal", "", [])


def test_hotkeys_are_text_while_typing() -> None:
    state, commands = feed(connected(), Key(char="c"), *keys("pause and quit"))
    assert (state.mode, state.input, commands, state.quit) == ("chat", "pause and quit", [], False)


def test_a_line_typed_while_disconnected_is_kept_for_later() -> None:
    state, _ = feed(connected(), Key(char="c"), *keys("hi"), Disconnected(reason="x", ts=9.0))
    state, commands = feed(state, ENTER)
    assert (state.mode, state.input, commands) == ("chat", "hi", [])
    state, commands = feed(state, Connected(path="/s", ts=10.0), ENTER)
    assert commands == [Chat(text="hi")]


# --------------------------------------------------------------------------- the log panel


def test_the_log_filter_shows_matching_lines_only_and_live_while_typing() -> None:
    state, _ = feed(
        connected(),
        log("zombie spotted", level="warn"),
        log("ate bread"),
        log("fled from Zombie", source="reflex"),
    )
    state, _ = feed(state, Key(char="/"), *keys("zomb"))
    assert [line.text for line in visible_logs(state)] == ["zombie spotted", "fled from Zombie"]
    assert "filter 'zomb'" in screen(state)
    state, _ = feed(state, ENTER)
    assert (state.mode, state.log_filter) == ("normal", "zomb")
    text = screen(state)
    assert "zombie spotted" in text and "ate bread" not in text
    state, _ = feed(state, Key(char="/"), *keys("x"), ESC)  # Esc keeps the old filter
    assert state.log_filter == "zomb"
    state, _ = feed(state, Key(char="/"), Key(char="\x15"), ENTER)  # empty clears it
    assert state.log_filter == "" and "ate bread" in screen(state)


def test_l_cycles_the_minimum_log_level() -> None:
    state, _ = feed(
        connected(), log("d", level="debug"), log("w", level="warn"), log("e", level="error")
    )
    shown = []
    for _ in range(4):
        state, _ = feed(state, Key(char="l"))
        shown.append((state.log_level, [line.text for line in visible_logs(state)]))
    assert shown[1:3] == [("warn", ["w", "e"]), ("error", ["e"])]
    assert shown[3][0] == "debug" and "d" in shown[3][1]


def test_scrolling_the_log_and_new_lines_do_not_move_a_scrolled_view() -> None:
    state, _ = feed(State(), *(log(f"line {i:02d}", ts=i + 1) for i in range(40)))
    state, _ = feed(state, Key(char="\x1b[5~", name="KEY_PGUP"), Key(char="k"))
    assert state.log_scroll == 11
    text = screen(state, 60, 20)
    assert "line 28" in text and "line 29" not in text and "↑11" in text
    state, _ = feed(state, log("line 40", ts=41))
    assert state.log_scroll == 12 and "line 28" in screen(state, 60, 20)
    state, _ = feed(state, Key(char="g"))
    assert state.log_scroll == len(state.logs) - 1
    state, _ = feed(state, Key(char="\x1b[F", name="KEY_END"))
    assert state.log_scroll == 0 and "line 40" in screen(state, 60, 20)
    state, _ = feed(state, Key(char="\x1b[B", name="KEY_DOWN"))
    assert state.log_scroll == 0


def test_log_lines_are_coloured_by_level() -> None:
    state, _ = feed(State(), log("bad", level="error"), log("hmm", level="warn"))
    lines = render(state, 120, 40, TERM)
    assert any(TERM.bold_red("bad") in line for line in lines)
    assert any(TERM.yellow("hmm") in line for line in lines)


# --------------------------------------------------------------------------- proposals


def test_y_opens_the_latest_proposal_and_y_approves_it() -> None:
    ids = ["20260101-a.md", "20260102-b.md"]
    state = connected(pendingProposals=2, proposals=ids)
    assert "[proposals 2, press y]" in screen(state).splitlines()[0]
    state, commands = feed(state, Key(char="y"))
    assert (state.mode, state.proposal, commands) == ("proposal", "20260102-b.md", [])
    text = screen(state)
    assert "20260102-b.md" in text and "2 of 2 pending" in text
    state, commands = feed(state, Key(char="y"))
    assert commands == [ProposalDecision(id="20260102-b.md", decision="approve")]
    assert state.mode == "normal"


def test_the_proposal_view_closes_with_n_or_escape_and_x_rejects() -> None:
    state = connected(pendingProposals=1, proposals=["p.md"])
    for close in (Key(char="n"), ESC):
        closed, commands = feed(state, Key(char="y"), close)
        assert (closed.mode, commands) == ("normal", [])
    _, commands = feed(state, Key(char="y"), Key(char="x"))
    assert commands == [ProposalDecision(id="p.md", decision="reject")]


def test_y_without_proposals_says_so() -> None:
    state, commands = feed(connected(), Key(char="y"))
    assert (state.mode, commands, state.flash) == ("normal", [], "no pending proposals")


def test_a_proposal_decided_elsewhere_is_not_sent_again() -> None:
    state, _ = feed(connected(pendingProposals=1, proposals=["p.md"]), Key(char="y"))
    state, _ = feed(state, {"type": "status", **snapshot()})
    assert "no longer pending" in screen(state)
    state, commands = feed(state, Key(char="y"))
    assert commands == [] and state.mode == "normal"
