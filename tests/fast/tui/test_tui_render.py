"""The dashboard's renderer and app pieces: every size, every mode, no terminal I/O."""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path

import pytest
from blessed import Terminal
from blessed.keyboard import Keystroke
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.tui_helpers import (
    ENTER,
    TERM,
    connected,
    feed,
    keys,
    log,
    screen,
    snapshot,
)
from tui import (
    DashboardError,
    Input,
    Key,
    LogLine,
    Screen,
    State,
    key_of,
    render,
    run,
)
from tui.panels import clock

# --------------------------------------------------------------------------- rendering


def busy_state(mode_keys: Iterable[Key] = ()) -> State:
    """A state with every panel full, long lines and wide characters."""
    long = "a very long line that goes on and on " * 8
    actors = snapshot()["actors"]
    actors[3] = {"name": "perception", "state": "failed", "restarts": 7, "reason": long}
    events: list[Input] = [
        {
            "type": "status",
            **snapshot(
                actors=actors,
                threats=[{"name": f"zombie{i}", "distance": i} for i in range(12)],
                pendingProposals=3,
                proposals=["a.md", "b.md", "c.md"],
                paused=True,
            ),
        }
    ]
    events += [
        log(f"{i} {long} 漢字", level=["debug", "info", "warn", "error"][i % 4]) for i in range(60)
    ]
    events += [
        {"type": "chat", "from": "bob", "text": f"{i} {long} 🙂", "kind": "player"}
        for i in range(30)
    ]
    events += [{"type": "ask-pi-chunk", "stream": "stdout", "text": f"{long}\n"} for _ in range(30)]
    state, _ = feed(connected(), *events, *mode_keys)
    return state


SIZES = [(60, 20), (200, 50), (120, 40), (96, 26), (95, 25), (80, 24), (40, 12), (30, 8)]
SIZES += [(10, 4), (5, 3), (1, 1), (2, 2)]
MODES = {
    "normal": [],
    "chat": [Key(char="c"), *keys("x" * 300)],
    "help": [Key(char="?")],
    "proposal": [Key(char="y")],
    "confirm": [Key(char="s")],
}


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("mode", MODES)
def test_every_line_fills_exactly_the_screen_and_never_more(
    width: int, height: int, mode: str
) -> None:
    lines = render(busy_state(MODES[mode]), width, height, TERM)
    assert len(lines) == height
    assert [TERM.length(line) for line in lines] == [width] * height


BUSY = busy_state()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 250), st.integers(1, 80))
def test_any_size_fits(width: int, height: int) -> None:
    lines = render(BUSY, width, height, TERM)
    assert len(lines) == height
    assert all(TERM.length(line) == width for line in lines)


def test_a_wide_terminal_gets_framed_panels_side_by_side() -> None:
    text = screen(BUSY, 200, 50)
    top = text.splitlines()[1]
    assert "┌─ status · PAUSED" in top and "┌─ actors" in top
    assert any("┌─ log" in row and "┌─ chat" in row for row in text.splitlines())
    assert "┌─ LLM" in text


def test_a_small_terminal_stacks_the_panels_and_keeps_the_key_labels() -> None:
    text = screen(BUSY, 60, 20)
    rows = text.splitlines()
    assert rows[-1].startswith("p:resume s:stop r:snap c:chat a:ask y:prop ?:help q:quit")
    assert rows[1].startswith("hp ")
    assert any(row.startswith("── log") for row in rows)
    assert "[proposals 3, press y]" in rows[0]


def test_a_wide_key_line_is_used_when_it_fits() -> None:
    assert screen(connected(), 120, 40).splitlines()[-1].startswith("p pause  s stop  r snapshot")


@pytest.mark.parametrize(
    ("ticks", "expected"),
    [(0, "06:00 day"), (6000, "12:00 day"), (13000, "19:00 night"), (18000, "00:00 night")],
)
def test_minecraft_ticks_read_as_a_clock(ticks: int, expected: str) -> None:
    assert clock(ticks) == expected


# --------------------------------------------------------------------------- the app's pieces


def test_a_keystroke_becomes_a_key() -> None:
    assert key_of(Keystroke("p")) == Key(char="p")
    assert key_of(Keystroke("\r", code=343, name="KEY_ENTER")) == ENTER


def test_the_screen_repaints_only_the_lines_that_changed() -> None:
    out = io.StringIO()
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    painter = Screen(term)
    painter.paint(["aaa", "bbb", "ccc"], (3, 3))
    assert term.clear in out.getvalue()
    out.truncate(0)
    out.seek(0)
    painter.paint(["aaa", "BBB", "ccc"], (3, 3))
    written = out.getvalue()
    assert "BBB" in written and "aaa" not in written and "ccc" not in written
    assert term.clear not in written
    out.truncate(0)
    out.seek(0)
    painter.paint(["aaa", "BBB", "ccc"], (3, 3))
    assert out.getvalue() == ""
    painter.paint(["aaa", "BBB", "ccc"], (4, 3))  # resized: everything again
    assert term.clear in out.getvalue() and "aaa" in out.getvalue()


def test_the_dashboard_refuses_to_run_without_a_terminal() -> None:
    with pytest.raises(DashboardError, match="needs a terminal"):
        run(lambda: Path("/nonexistent"), term=TERM)


def test_a_log_line_of_the_dashboard_itself_goes_to_the_panel() -> None:
    state, _ = feed(State(), LogLine(ts=1.0, level="warn", source="tui", text="odd line skipped"))
    assert "odd line skipped" in screen(state)
