"""What each panel says: pure functions from a state to styled lines.

Every function here takes the :class:`~tui.state.State`, a blessed
``Terminal`` used only as a source of formatting strings (it is never written
to), and the room it has; it returns lines that may still be too wide —
:mod:`tui.render` cuts and pads them. Nothing reads the clock or the socket.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from blessed import Terminal

from tui.state import (
    LEVELS,
    ActorRow,
    ChatLine,
    LogLine,
    State,
    as_float,
    as_int,
    as_str,
    visible_logs,
)

__all__ = [
    "actor_lines",
    "actor_summary",
    "chat_lines",
    "clock",
    "llm_lines",
    "llm_title",
    "log_lines",
    "log_title",
    "status_lines",
]

BAR_CELLS = 10
"""Cells of the hp and food bars (each cell is two points of twenty)."""

_LEVEL_TAGS = {"debug": "DBG", "info": "INF", "warn": "WRN", "error": "ERR"}
_BAD_STATES = ("hung", "failed")
_BUSY_STATES = ("starting", "restarting")


# --------------------------------------------------------------------------- status


def status_lines(state: State, term: Terminal, *, compact: bool) -> list[str]:
    """hp and food bars, position, dimension, time of day, threats, activity, paused."""
    snap = state.snapshot
    hp = _bar(term, as_float(snap.get("hp")), low=6, mid=12)
    food = _bar(term, as_float(snap.get("food")), low=6, mid=14)
    where = _position(snap.get("position"))
    dimension = as_str(snap.get("dimension"), "—")
    tod = _time_of_day(snap.get("timeOfDay"))
    deaths = as_int(snap.get("deaths")) or 0
    last_death = as_str(snap.get("lastDeath"))[:40]
    threats = _threats(term, snap.get("threats"))
    reflex = as_str(snap.get("activeReflex")) or "—"
    skill = as_str(snap.get("currentSkill")) or "—"
    paused = term.black_on_yellow(" PAUSED ") if state.paused else term.green("running")
    label = term.bright_black
    if compact:
        return [
            f"{label('hp')} {hp}  {label('food')} {food}",
            f"{label('pos')} {where} {dimension}  {label('time')} {tod}"
            f"  {label('deaths')} {deaths}",
            f"{label('threats')} {threats}",
            f"{label('reflex')} {reflex}  {label('skill')} {skill}  {paused}",
        ]
    return [
        f"{label('hp     ')} {hp}",
        f"{label('food   ')} {food}",
        f"{label('pos    ')} {where}  {dimension}",
        f"{label('time   ')} {tod}   {label('deaths')} {deaths}"
        + (f" {label('last')} {last_death}" if last_death else ""),
        f"{label('threats')} {threats}",
        f"{label('reflex ')} {reflex}   {label('skill')} {skill}",
        f"{label('loop   ')} {paused}   {_inventory(snap.get('inventory'))}",
    ]


def _bar(term: Terminal, value: float | None, *, low: float, mid: float) -> str:
    if value is None:
        return term.bright_black("░" * BAR_CELLS + "  —")
    points = max(0.0, min(20.0, value))
    filled = round(points / 20 * BAR_CELLS)
    colour = term.red if points <= low else term.yellow if points <= mid else term.green
    shown = f"{value:.0f}" if value == int(value) else f"{value:.1f}"
    return colour("█" * filled) + term.bright_black("░" * (BAR_CELLS - filled)) + f" {shown:>2}/20"


def _position(position: Any) -> str:
    if not isinstance(position, Mapping):
        return "—"
    coords = [as_float(position.get(axis)) for axis in ("x", "y", "z")]
    return " ".join("?" if c is None else f"{c:.1f}" for c in coords)


def clock(ticks: float) -> str:
    """Minecraft time of day (ticks, 0 = 06:00) as ``HH:MM`` and day/night."""
    ticks = ticks % 24000
    minutes = int((ticks / 1000 * 60 + 6 * 60) % (24 * 60))
    night = 12542 <= ticks < 23460  # when beds work
    return f"{minutes // 60:02d}:{minutes % 60:02d} {'night' if night else 'day'}"


def _time_of_day(value: Any) -> str:
    ticks = as_float(value)
    return "—" if ticks is None else clock(ticks)


def _threats(term: Terminal, threats: Any) -> str:
    if not isinstance(threats, list) or not threats:
        return term.green("none")
    rows = []
    for threat in threats:
        if isinstance(threat, Mapping):
            distance = as_float(threat.get("distance"))
            rows.append(
                (distance if distance is not None else 1e9, as_str(threat.get("name"), "?"))
            )
    rows.sort()
    parts = []
    for distance, name in rows:
        text = f"{name} {distance:.1f}m" if distance < 1e9 else name
        parts.append(term.red(text) if distance < 4 else term.yellow(text))
    return ", ".join(parts) or term.green("none")


def _inventory(inventory: Any) -> str:
    if not isinstance(inventory, Mapping):
        return ""
    items = inventory.get("items")
    count = len(items) if isinstance(items, Mapping | list) else 0
    empty = as_int(inventory.get("emptySlots"))
    return f"inv {count} kinds" + (f", {empty} free" if empty is not None else "")


# --------------------------------------------------------------------------- actors


def _actor_colour(term: Terminal, row: ActorRow) -> Any:
    if row.state == "running":
        return term.green
    if row.state in _BUSY_STATES:
        return term.yellow
    if row.state in _BAD_STATES:
        return term.bold_red
    return term.bright_black


def actor_lines(state: State, term: Terminal) -> list[str]:
    """The actors table: name, state, restarts, last failure reason."""
    if not state.actors:
        return [term.bright_black("no actors reported yet")]
    width = max(9, *(len(row.name) for row in state.actors))
    lines = [term.bright_black(f"{'actor':<{width}}  {'state':<10}  {'↻':>2}  last failure")]
    for row in state.actors:
        colour = _actor_colour(term, row)
        restarts = f"{row.restarts:>2}" if row.restarts else term.bright_black(" 0")
        lines.append(f"{row.name:<{width}}  {colour(f'{row.state:<10}')}  {restarts}  {row.reason}")
    return lines


def actor_summary(state: State, term: Terminal, width: int) -> list[str]:
    """The actors in a few lines: healthy ones by name, others with state and restarts."""
    if not state.actors:
        return [term.bright_black("no actors reported yet")]
    lines: list[str] = []
    current, used = "", 0
    for row in state.actors:
        plain = row.name if row.state == "running" else f"{row.name}:{row.state}"
        if row.restarts:
            plain += f"↻{row.restarts}"
        piece = _actor_colour(term, row)(plain)
        if used and used + 1 + len(plain) > width:
            lines.append(current)
            current, used = "", 0
        current += (" " if used else "") + piece
        used += (1 if used else 0) + len(plain)
    lines.append(current)
    failing = [row for row in state.actors if row.reason and row.state != "running"]
    lines.extend(term.red(f"{row.name}: {row.reason}") for row in failing)
    return lines


# --------------------------------------------------------------------------- log, chat, LLM


def log_title(state: State) -> str:
    """The log panel's title: filters and scroll position."""
    parts = ["log"]
    text = state.input if state.mode == "filter" else state.log_filter
    if text:
        parts.append(f"filter '{text}'")
    if state.log_level != LEVELS[0]:
        parts.append(f"≥{state.log_level}")
    if state.log_scroll:
        parts.append(f"↑{state.log_scroll}")
    return " · ".join(parts)


def log_lines(state: State, term: Terminal, rows: int) -> list[str]:
    """The last ``rows`` visible log lines above the scroll position."""
    lines = visible_logs(state)
    end = len(lines) - state.log_scroll
    return [_log_line(term, line) for line in lines[max(0, end - rows) : max(0, end)]]


def _log_line(term: Terminal, line: LogLine) -> str:
    stamp = _stamp(line.ts)
    tag = _LEVEL_TAGS.get(line.level, line.level[:3].upper())
    colour = {
        "debug": term.bright_black,
        "warn": term.yellow,
        "error": term.bold_red,
    }.get(line.level)
    source = term.cyan(line.source) if line.source else ""
    body = f"{tag} {source} {line.text}" if colour is None else colour(tag) + f" {source} "
    if colour is not None:
        body += colour(line.text)
    return term.bright_black(stamp) + " " + body


def _stamp(ts: float) -> str:
    """``HH:MM:SS`` in local time; ``--:--:--`` for no (or an impossible) time."""
    if ts <= 0:
        return "--:--:--"
    try:
        return time.strftime("%H:%M:%S", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "--:--:--"


def chat_lines(state: State, term: Terminal, width: int, rows: int) -> list[str]:
    """The newest chat messages, wrapped, that fit in ``rows``."""
    out: list[str] = []
    for line in reversed(state.chat):
        wrapped = [_chat_style(term, line, piece) for piece in _wrap(term, _chat_text(line), width)]
        out[:0] = wrapped
        if len(out) >= rows:
            break
    return out[-rows:] if rows > 0 else []


def _chat_text(line: ChatLine) -> str:
    if line.kind == "system":
        return f"* {line.text}"
    return f"<{line.sender or '?'}> {line.text}"


def _chat_style(term: Terminal, line: ChatLine, text: str) -> str:
    if line.kind == "system":
        return term.bright_black(text)
    if line.kind == "self":
        return term.green(text)
    return text


def llm_title(state: State) -> str:
    """The LLM panel's title: running or how the last call ended."""
    if state.llm_running:
        return "LLM · answering…"
    if state.llm_status:
        return f"LLM · {state.llm_status}"
    return "LLM"


def llm_lines(state: State, term: Terminal, width: int, rows: int) -> list[str]:
    """The tail of the LLM exchange, wrapped; the prompt bold, stderr yellow."""
    if not state.llm:
        return [term.bright_black("press a to ask the LLM")][:rows]
    logical: list[tuple[str, str]] = [("", "")]
    for chunk in state.llm:
        pieces = chunk.text.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                logical.append(("", ""))
            stream, text = logical[-1]
            logical[-1] = (stream or (chunk.stream if piece else ""), text + piece)
    if logical[-1] == ("", ""):
        logical.pop()
    out: list[str] = []
    for stream, text in reversed(logical):
        style = {"prompt": term.bold_cyan, "stderr": term.yellow}.get(stream)
        out[:0] = [style(p) if style else p for p in _wrap(term, text, width)]
        if len(out) >= rows:
            break
    return out[-rows:] if rows > 0 else []


def _wrap(term: Terminal, text: str, width: int) -> list[str]:
    if not text:
        return [""]
    return list(term.wrap(text, max(1, width))) or [""]
