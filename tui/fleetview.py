"""The fleet view's layout: ``render_fleet(state, width, height, term) -> list[str]``. Pure.

While a bot's dashboard is open it is the single-bot screen of
:func:`tui.render.render`. Otherwise: a header line (server, bots,
answering, worker processes, restarts), the table of bots (one line each, as
``pepa status`` prints them; the selected one marked ``▸`` and in reverse
video, scrolled to stay in sight), a message line and a key line. Exactly
``height`` lines of exactly ``width`` cells, as :mod:`tui.render` promises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from blessed import Terminal

from tui.fleet import BotRow, FleetState
from tui.render import fit, render
from tui.state import as_float, as_int, as_str

__all__ = ["fleet_header", "fleet_keys", "fleet_message", "render_fleet", "row_values"]

_COLUMNS = (
    f"  {'bot':<17}{'grp':>3}  {'state':<11}{'hp/food':>8}  {'deaths':>6}  {'lessons':>7}  doing"
)


def render_fleet(state: FleetState, width: int, height: int, term: Terminal) -> list[str]:
    """The whole screen for ``state`` as ``height`` lines of ``width`` cells."""
    if state.bot is not None:
        return render(state.bot, width, height, term)
    if width <= 0 or height <= 0:
        return []
    header = fit(term, fleet_header(state, term), width)
    message = fit(term, fleet_message(state, term), width)
    keys = fit(term, fleet_keys(term, width), width)
    if height < 4:
        return [header, message, keys][3 - height :] if height > 1 else [keys]
    body = _table(state, term, width, height - 3)
    return [header, *body, message, keys]


def fleet_header(state: FleetState, term: Terminal) -> str:
    """The top line: the server, the bots, how many answer, processes and restarts."""
    parts = [term.bold("pepa fleet")]
    if state.server:
        parts.append(term.bold_cyan(state.server))
    if state.gone:
        parts.append(term.yellow("◌ the fleet ended"))
    elif not state.polls:
        parts.append(term.yellow("◌ asking the bots…"))
    if state.polls:
        answering = state.answering
        count = len(state.bots)
        said = f"{answering} answering"
        parts.append(f"{count} bots")
        parts.append(term.green(said) if answering == count else term.yellow(said))
        processes = f"{state.groups} worker process" + ("" if state.groups == 1 else "es")
        parts.append(processes)
        restarts = f"{state.restarts} restart" + ("" if state.restarts == 1 else "s")
        parts.append(term.yellow(restarts) if state.restarts else term.bright_black(restarts))
    return "  ".join(parts)


def fleet_message(state: FleetState, term: Terminal) -> str:
    """The line above the keys: the last message, or why no fleet answers."""
    if state.flash:
        return term.bright_black(state.flash)
    if state.gone:
        return term.yellow(f"{state.gone}; looking again every second…")
    if not state.polls:
        return term.bright_black(f"asking every bot's socket under {state.root}")
    return ""


_KEYS_WIDE = (("↑↓", "select"), ("Enter", "open its dashboard"), ("q", "quit"))
_KEYS_NARROW = (("↑↓", "select"), ("Enter", "open"), ("q", "quit"))


def fleet_keys(term: Terminal, width: int) -> str:
    """The bottom line: what the keys do in the list."""
    wide = "  ".join(f"{k} {label}" for k, label in _KEYS_WIDE)
    keys = _KEYS_WIDE if len(wide) <= width else _KEYS_NARROW
    return "  ".join(term.bold(k) + " " + label for k, label in keys)


def row_values(row: BotRow) -> tuple[str, str, str, str, str]:
    """``state``, ``hp/food``, ``deaths``, ``lessons`` and ``doing`` of a row, as text."""
    s = row.snapshot
    if s is None:
        return "down", "-", "-", "-", as_str(row.down) or "no answer"
    said = s.get("learning")
    learning: Mapping[str, Any] = said if isinstance(said, Mapping) else {}
    state = "connected" if s.get("connected") else "connecting"
    hp = f"{_num(s.get('hp'))}/{_num(s.get('food'))}"
    deaths = str(as_int(s.get("deaths")) or 0)
    lessons = str(as_int(learning.get("lessonsInForce")) or 0)
    doing = as_str(s.get("activeReflex") or s.get("currentSkill")) or "idle"
    if s.get("paused") is True:
        doing += " (paused)"
    return state, hp, deaths, lessons, doing


_STATE_STYLES = {"connected": "green", "connecting": "yellow", "down": "red"}


def _table(state: FleetState, term: Terminal, width: int, height: int) -> list[str]:
    out = [fit(term, term.bright_black(_COLUMNS), width)]
    rows = height - 1
    if not state.bots:
        text = "no bots yet" if not state.polls else "the roster names no bots"
        out.append(fit(term, term.bright_black(f"  {text}"), width))
    elif rows > 0:
        first = max(0, min(state.selected - rows + 1, len(state.bots) - rows))
        for index, row in enumerate(state.bots[first : first + rows], start=first):
            out.append(_row(term, row, width, selected=index == state.selected))
    out = out[:height]
    return out + [" " * width] * (height - len(out))


def _row(term: Terminal, row: BotRow, width: int, *, selected: bool) -> str:
    name = as_str(row.name)
    word, hp, deaths, lessons, doing = row_values(row)
    mark = "▸ " if selected else "  "
    head = f"{mark}{name:<17}{row.group:>3}  "
    tail = f"{hp:>8}  {deaths:>6}  {lessons:>7}  {doing}"
    if selected:  # plain text in reverse video: inner colours would end the reverse
        return term.reverse(fit(term, f"{head}{word:<11}{tail}", width))
    style = getattr(term, _STATE_STYLES.get(word, "white"))
    return fit(term, head + style(f"{word:<11}") + tail, width)


def _num(value: Any) -> str:
    number = as_float(value)
    return "-" if number is None else f"{number:.0f}"
