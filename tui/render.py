"""Layout: ``render(state, width, height, term) -> list[str]``. Pure.

The screen is a header line, a body, a message line and a key line. The body
depends on the room:

- **wide** (at least :data:`WIDE_MIN_WIDTH` x :data:`WIDE_MIN_HEIGHT`): framed
  panels, status and actors on top, the log below on the left, chat over the
  LLM output on the right;
- **stacked** (anything smaller): a compact status, the actors on one or two
  lines, then log, chat and LLM sections under title rules, sized by weight,
  dropping the LLM and then chat when there is no room;
- the **help** and **proposal** views replace the body while open.

Every returned line is exactly ``width`` cells wide (padded, or cut with
``…``) and there are exactly ``height`` lines; the terminal is only used for
its formatting strings and to measure text with escape sequences in it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from blessed import Terminal

from tui.chrome import (
    header_line,
    help_lines,
    key_line,
    learning_lines,
    message_line,
    proposal_lines,
)
from tui.panels import (
    actor_lines,
    actor_summary,
    chat_lines,
    llm_lines,
    llm_title,
    log_lines,
    log_title,
    status_lines,
)
from tui.state import State

__all__ = ["WIDE_MIN_HEIGHT", "WIDE_MIN_WIDTH", "fit", "frame", "render"]

WIDE_MIN_WIDTH = 96
"""Columns from which the framed, side-by-side layout is used."""
WIDE_MIN_HEIGHT = 26
"""Rows from which the framed, side-by-side layout is used."""

_SIDE_BY_SIDE_MIN_WIDTH = 80  # stacked layout: chat and LLM share a band from here


def render(state: State, width: int, height: int, term: Terminal) -> list[str]:
    """The whole screen for ``state`` as ``height`` lines of ``width`` cells."""
    if width <= 0 or height <= 0:
        return []
    header = fit(term, header_line(state, term), width)
    message = fit(term, message_line(state, term, width), width)
    keys = fit(term, key_line(state, term, width), width)
    if height < 4:
        return [header, message, keys][3 - height :] if height > 1 else [keys]
    body_height = height - 3
    if state.mode == "help":
        body = frame(term, "help", help_lines(term, fleet=state.fleet), width, body_height)
    elif state.mode == "learning":
        body = frame(term, "learning", learning_lines(state, term), width, body_height)
    elif state.mode == "proposal":
        body = frame(term, "proposal", proposal_lines(state, term), width, body_height)
    elif width >= WIDE_MIN_WIDTH and height >= WIDE_MIN_HEIGHT:
        body = _wide(state, term, width, body_height)
    else:
        body = _stacked(state, term, width, body_height)
    return [header, *body, message, keys]


# --------------------------------------------------------------------------- layouts


def _wide(state: State, term: Terminal, width: int, height: int) -> list[str]:
    status = status_lines(state, term, compact=False)
    actors = actor_lines(state, term)
    left = max(40, min(58, width * 45 // 100))
    top_height = min(max(len(status), len(actors)) + 2, height // 2)
    status_title = "status · PAUSED" if state.paused else "status"
    top = _beside(
        frame(term, status_title, status, left, top_height),
        frame(term, "actors", actors, width - left, top_height),
    )
    rest = height - top_height
    log_width = width * 3 // 5
    side = width - log_width
    chat_height = rest // 2
    llm_height = rest - chat_height
    log = frame(term, log_title(state), log_lines(state, term, rest - 2), log_width, rest)
    chat = chat_lines(state, term, side - 3, chat_height - 2)
    llm = llm_lines(state, term, side - 3, llm_height - 2)
    right = frame(term, "chat", chat, side, chat_height) + frame(
        term, llm_title(state), llm, side, llm_height
    )
    return top + _beside(log, right)


_Band = Callable[[int], list[str]]  # rows -> the lines of one stacked section


def _stacked(state: State, term: Terminal, width: int, height: int) -> list[str]:
    out = [fit(term, line, width) for line in status_lines(state, term, compact=True)]
    summary = actor_summary(state, term, width - 7)
    labels = [term.bright_black("actors "), *["       "] * 2]
    out += [fit(term, label + line, width) for label, line in zip(labels, summary, strict=False)]
    out = out[:height]
    room = height - len(out)

    def log_band(rows: int) -> list[str]:
        return section(term, log_title(state), log_lines(state, term, rows), width, rows + 1)

    def chat_band(rows: int) -> list[str]:
        return section(term, "chat", chat_lines(state, term, width, rows), width, rows + 1)

    def llm_band(rows: int) -> list[str]:
        lines = llm_lines(state, term, width, rows)
        return section(term, llm_title(state), lines, width, rows + 1)

    def both_band(rows: int) -> list[str]:
        half = width // 2
        return _beside(
            section(term, "chat", chat_lines(state, term, half - 1, rows), half, rows + 1),
            section(
                term,
                llm_title(state),
                llm_lines(state, term, width - half - 1, rows),
                width - half,
                rows + 1,
            ),
        )

    bands: list[tuple[int, _Band]]
    if width >= _SIDE_BY_SIDE_MIN_WIDTH:
        bands = [(1, log_band), (1, both_band)]
    else:
        bands = [(2, log_band), (1, chat_band), (1, llm_band)]
    while bands and room < 2 * len(bands):
        bands.pop()
    if bands:
        content = room - len(bands)
        total = sum(weight for weight, _ in bands)
        sizes = [content * weight // total for weight, _ in bands]
        sizes[0] += content - sum(sizes)
        for (_, band), rows in zip(bands, sizes, strict=True):
            out += band(rows)
    return out + [" " * width] * (height - len(out))


# --------------------------------------------------------------------------- pieces


def fit(term: Terminal, text: str, width: int) -> str:
    """``text`` cut (with ``…``) or padded to exactly ``width`` cells; styles are closed."""
    if width <= 0:
        return ""
    length = term.length(text)
    if length > width:
        text = term.truncate(text, width - 1) + "…" if width > 1 else term.truncate(text, width)
        length = term.length(text)
    return text + " " * max(0, width - length)


def frame(term: Terminal, title: str, lines: Sequence[str], width: int, height: int) -> list[str]:
    """A box ``width`` x ``height`` with ``title`` in its top border and ``lines`` inside."""
    if height <= 0 or width <= 0:
        return []
    if width < 6 or height < 3:
        shown = [fit(term, line, width) for line in lines[:height]]
        return shown + [" " * width] * (height - len(shown))
    border = term.bright_black
    inner = width - 2
    label = fit(term, f" {title} ", min(inner - 1, term.length(title) + 2))
    top = border("┌─") + term.bold(label) + border("─" * (inner - 1 - term.length(label)) + "┐")
    rows = [border("│") + " " + fit(term, line, inner - 1) + border("│") for line in lines]
    rows = rows[: height - 2]
    rows += [border("│") + " " * inner + border("│")] * (height - 2 - len(rows))
    return [top, *rows, border("└" + "─" * inner + "┘")]


def section(term: Terminal, title: str, lines: Sequence[str], width: int, height: int) -> list[str]:
    """A title rule then ``lines``, ``height`` lines in all (the stacked layout's panels)."""
    if height <= 0 or width <= 0:
        return []
    rule = term.bright_black("── ") + term.bold(title) + " "
    rule = fit(term, rule + term.bright_black("─" * max(0, width - term.length(rule))), width)
    shown = [fit(term, line, width) for line in lines[: height - 1]]
    return [rule, *shown, *[" " * width] * (height - 1 - len(shown))]


def _beside(left: Sequence[str], right: Sequence[str]) -> list[str]:
    """Two columns of equal height side by side."""
    return [a + b for a, b in zip(left, right, strict=True)]
