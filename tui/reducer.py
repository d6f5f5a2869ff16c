"""The reducer: (state, input) -> (new state, commands to send). Pure.

:func:`reduce` is the only entry point. It never touches a socket, the clock
or the terminal; the commands it returns are :mod:`pepa.ipc.protocol`
dataclasses that the app hands to the connection. Keys mean different things
per :attr:`State.mode <tui.state.State.mode>`:

- ``normal``: the hotkeys (``p s r c a y q ?``, ``/`` and ``l`` for the log,
  arrows and page keys to scroll it);
- ``chat`` / ``ask`` / ``filter``: a line editor (Enter submits, an empty
  submit or Esc cancels, Backspace, Ctrl-U clears);
- ``confirm-stop``: ``y`` sends ``cmd:stop``, anything else cancels;
- ``proposal``: ``y`` approves, ``x`` rejects, ``n`` / Esc closes;
- ``help``: any key closes.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from pepa.ipc.protocol import (
    AskPi,
    Chat,
    Command,
    Pause,
    ProposalDecision,
    Resume,
    Snapshot,
    Stop,
)
from tui.state import (
    LEVELS,
    MAX_CHAT,
    MAX_INPUT,
    MAX_LLM_CHARS,
    MAX_LOGS,
    ActorRow,
    ChatLine,
    CommandFailed,
    Connected,
    Disconnected,
    Input,
    Key,
    LlmChunk,
    LogLine,
    Mode,
    State,
    as_float,
    as_int,
    as_str,
    as_text,
    shows,
    visible_logs,
)

__all__ = ["PAGE", "Reduction", "reduce"]

logger = logging.getLogger(__name__)

Reduction = tuple[State, tuple[Command, ...]]
"""A new state and the commands to send, in order."""

PAGE = 10
"""Lines a page key scrolls the log by."""

_NOTHING: tuple[Command, ...] = ()
_NOT_CONNECTED = "not connected to the daemon; try again once it is back"


def reduce(state: State, event: Input) -> Reduction:
    """Apply one input to ``state``."""
    if isinstance(event, Key):
        return _on_key(state, event)
    if isinstance(event, Connected):
        return _on_connected(state, event), _NOTHING
    if isinstance(event, Disconnected):
        return _on_disconnected(state, event), _NOTHING
    if isinstance(event, CommandFailed):
        return _flash(state, f"{event.command} not sent: {event.reason}"), _NOTHING
    if isinstance(event, LogLine):
        return _append_log(state, event), _NOTHING
    return _on_daemon_event(state, event), _NOTHING


# --------------------------------------------------------------------------- connection


def _on_connected(state: State, event: Connected) -> State:
    again = state.connections > 0
    text = f"{'reconnected' if again else 'connected'} to {event.path}"
    state = _append_log(state, LogLine(ts=event.ts, level="info", source="tui", text=text))
    return dataclasses.replace(
        state,
        link="connected",
        socket=event.path,
        link_reason="",
        retry_in=None,
        connections=state.connections + 1,
        flash=text if again else state.flash,
    )


def _on_disconnected(state: State, event: Disconnected) -> State:
    if state.connected:
        text = f"connection lost, reconnecting: {event.reason}"
        state = _append_log(state, LogLine(ts=event.ts, level="warn", source="tui", text=text))
        state = _flash(state, text)
        if state.llm_running:
            state = dataclasses.replace(state, llm_running=False, llm_status="interrupted")
    return dataclasses.replace(
        state,
        link="reconnecting" if state.connections else "connecting",
        link_reason=event.reason,
        retry_in=event.retry_in,
    )


# --------------------------------------------------------------------------- daemon events


def _on_daemon_event(state: State, event: Mapping[str, Any]) -> State:
    kind = event.get("type")
    if kind == "hello":
        snapshot = event.get("snapshot")
        state = _with_snapshot(state, snapshot if isinstance(snapshot, Mapping) else {})
        recent = event.get("recentLogs")
        for item in recent if isinstance(recent, list) else ():
            if isinstance(item, Mapping):
                state = _on_log(state, item, skip_seen=True)
        return state
    if kind == "status":
        return _with_snapshot(state, {k: v for k, v in event.items() if k != "type"})
    if kind == "log":
        return _on_log(state, event, skip_seen=False)
    if kind == "chat":
        line = ChatLine(
            sender=as_str(event.get("from")),
            text=as_str(event.get("text")),
            kind=as_str(event.get("kind"), "player"),
        )
        return dataclasses.replace(state, chat=(*state.chat, line)[-MAX_CHAT:])
    if kind == "death":
        text = f"the bot died: {as_str(event.get('reason'), 'unknown cause')}"
        cause = event.get("cause")
        told = as_str(cause.get("text")) if isinstance(cause, dict) else ""
        if told:
            text += f" ({told})"
        where = _where(event.get("position"))
        if where:
            text += f" at {where}"
        state = _append_log(state, LogLine(ts=0.0, level="error", source="death", text=text))
        return _flash(state, text)
    if kind == "error":
        source = as_str(event.get("source"), "daemon")
        text = as_str(event.get("text"))
        state = _append_log(state, LogLine(ts=0.0, level="error", source=source, text=text))
        return _flash(state, f"error from {source}: {text}")
    if kind == "ask-pi-chunk":
        chunk = LlmChunk(
            stream=as_str(event.get("stream"), "stdout"), text=as_text(event.get("text"))
        )
        return dataclasses.replace(state, llm=_trim_llm((*state.llm, chunk)), llm_running=True)
    if kind == "ask-pi-done":
        code = as_int(event.get("code"))
        millis = as_float(event.get("durationMs")) or 0.0
        status = f"exit {'?' if code is None else code} in {millis / 1000:.1f}s"
        return dataclasses.replace(state, llm_running=False, llm_status=status)
    if kind == "actor":
        return _on_actor(state, event)
    logger.debug("ignoring event of type %r", kind)
    return state


def _with_snapshot(state: State, snapshot: Mapping[str, Any]) -> State:
    actors = state.actors
    rows = snapshot.get("actors")
    if isinstance(rows, list):
        actors = tuple(_actor_row(row) for row in rows if isinstance(row, Mapping))
    return dataclasses.replace(state, snapshot=dict(snapshot), actors=actors)


def _actor_row(row: Mapping[str, Any], previous: ActorRow | None = None) -> ActorRow:
    restarts = as_int(row.get("restarts"))
    return ActorRow(
        name=as_str(row.get("name"), "?"),
        state=as_str(row.get("state"), "?"),
        restarts=restarts if restarts is not None else (previous.restarts if previous else 0),
        reason=as_str(row.get("reason")),
        supervisor=as_str(row.get("supervisor"), previous.supervisor if previous else ""),
    )


def _on_actor(state: State, event: Mapping[str, Any]) -> State:
    name = as_str(event.get("name"), "?")
    rows = list(state.actors)
    for index, row in enumerate(rows):
        if row.name == name:
            rows[index] = _actor_row(event, row)
            break
    else:
        rows.append(_actor_row(event))
    return dataclasses.replace(state, actors=tuple(rows))


def _on_log(state: State, event: Mapping[str, Any], *, skip_seen: bool) -> State:
    ts = as_float(event.get("ts")) or 0.0
    if skip_seen and ts and ts <= state.last_daemon_log:
        return state
    level = as_str(event.get("level"), "info").lower()
    line = LogLine(
        ts=ts,
        level="warn" if level == "warning" else level,
        source=as_str(event.get("source")),
        text=as_str(event.get("text")),
    )
    state = _append_log(state, line)
    return dataclasses.replace(state, last_daemon_log=max(state.last_daemon_log, ts))


def _append_log(state: State, line: LogLine) -> State:
    logs = (*state.logs, line)[-MAX_LOGS:]
    scroll = state.log_scroll
    if scroll and shows(state, line):  # keep a scrolled-up view still as lines arrive
        scroll += 1
    new = dataclasses.replace(state, logs=logs)
    return dataclasses.replace(new, log_scroll=_clamp_scroll(new, scroll))


def _trim_llm(chunks: tuple[LlmChunk, ...]) -> tuple[LlmChunk, ...]:
    total = 0
    kept: list[LlmChunk] = []
    for chunk in reversed(chunks):
        if total >= MAX_LLM_CHARS:
            break
        room = MAX_LLM_CHARS - total
        if len(chunk.text) > room:
            chunk = dataclasses.replace(chunk, text=chunk.text[-room:])
        kept.append(chunk)
        total += len(chunk.text)
    return tuple(reversed(kept))


def _where(position: Any) -> str:
    if not isinstance(position, Mapping):
        return ""
    coords = [as_float(position.get(axis)) for axis in ("x", "y", "z")]
    if any(c is None for c in coords):
        return ""
    return " ".join(f"{c:.0f}" for c in coords if c is not None)


# --------------------------------------------------------------------------- keys


def _on_key(state: State, key: Key) -> Reduction:
    if key.name == "RESIZE_EVENT":
        return state, _NOTHING
    if state.mode in ("chat", "ask", "filter"):
        return _on_input_key(state, key)
    if state.mode == "confirm-stop":
        if key.char in ("y", "Y"):
            if not state.connected:
                return _normal(state, f"stop not sent: {_NOT_CONNECTED}"), _NOTHING
            return _normal(state, "stop sent: the bot is shutting down"), (Stop(),)
        return _normal(state, "stop cancelled"), _NOTHING
    if state.mode == "proposal":
        return _on_proposal_key(state, key)
    if state.mode in ("help", "learning"):
        return _normal(state, state.flash), _NOTHING
    return _on_hotkey(state, key)


def _on_hotkey(state: State, key: Key) -> Reduction:
    char = key.char
    if char == "q":
        return dataclasses.replace(state, quit=True), _NOTHING
    if char == "?":
        return dataclasses.replace(state, mode="help"), _NOTHING
    if char == "e":
        return dataclasses.replace(state, mode="learning"), _NOTHING
    if char == "p":
        if not state.connected:
            return _flash(state, f"pause not sent: {_NOT_CONNECTED}"), _NOTHING
        if state.paused:
            return _flash(state, "resume sent"), (Resume(),)
        return _flash(state, "pause sent"), (Pause(),)
    if char == "s":
        return dataclasses.replace(state, mode="confirm-stop", flash=""), _NOTHING
    if char == "r":
        if not state.connected:
            return _flash(state, f"snapshot not requested: {_NOT_CONNECTED}"), _NOTHING
        return _flash(state, "snapshot requested"), (Snapshot(),)
    mode = _INPUT_MODES.get(char)
    if mode is not None:
        start = state.log_filter if mode == "filter" else ""
        return dataclasses.replace(state, mode=mode, input=start, flash=""), _NOTHING
    if char == "y":
        ids = state.proposals
        if not ids:
            return _flash(state, "no pending proposals"), _NOTHING
        return dataclasses.replace(state, mode="proposal", proposal=ids[-1], flash=""), _NOTHING
    if char == "l":
        level = LEVELS[(LEVELS.index(state.log_level) + 1) % len(LEVELS)]
        new = dataclasses.replace(state, log_level=level)
        new = dataclasses.replace(new, log_scroll=_clamp_scroll(new, new.log_scroll))
        return _flash(new, f"log shows {level} and above"), _NOTHING
    scroll = _SCROLL_KEYS.get(key.name or "") or _SCROLL_CHARS.get(char)
    if scroll is not None:
        wanted = len(state.logs) if scroll == "top" else 0 if scroll == "bottom" else None
        target = wanted if wanted is not None else state.log_scroll + int(scroll)
        return dataclasses.replace(state, log_scroll=_clamp_scroll(state, target)), _NOTHING
    return state, _NOTHING


_INPUT_MODES: dict[str, Mode] = {"c": "chat", "a": "ask", "/": "filter"}
_SCROLL_KEYS: dict[str, int | str] = {
    "KEY_UP": 1,
    "KEY_DOWN": -1,
    "KEY_PGUP": PAGE,
    "KEY_PGDOWN": -PAGE,
    "KEY_HOME": "top",
    "KEY_END": "bottom",
}
_SCROLL_CHARS: dict[str, int | str] = {"k": 1, "j": -1, "g": "top", "G": "bottom"}


def _clamp_scroll(state: State, scroll: int) -> int:
    return max(0, min(scroll, len(visible_logs(state)) - 1))


def _on_input_key(state: State, key: Key) -> Reduction:
    if key.name == "KEY_ESCAPE":
        return _normal(state, f"{_MODE_NAMES[state.mode]} cancelled"), _NOTHING
    if key.name == "KEY_ENTER" or key.char in ("\r", "\n"):
        return _submit(state)
    if key.name in ("KEY_BACKSPACE", "KEY_DELETE") or key.char in ("\x08", "\x7f"):
        return dataclasses.replace(state, input=state.input[:-1]), _NOTHING
    if key.char == "\x15":  # Ctrl-U
        return dataclasses.replace(state, input=""), _NOTHING
    if key.char and key.char.isprintable() and key.name is None:
        text = (state.input + key.char)[:MAX_INPUT]
        return dataclasses.replace(state, input=text), _NOTHING
    return state, _NOTHING


_MODE_NAMES = {"chat": "chat", "ask": "question", "filter": "filter"}


def _submit(state: State) -> Reduction:
    text = state.input.strip()
    if state.mode == "filter":
        new = dataclasses.replace(state, log_filter=text, log_scroll=0)
        return _normal(new, f"log filter: {text}" if text else "log filter cleared"), _NOTHING
    if not text:
        return _normal(state, f"{_MODE_NAMES[state.mode]} cancelled"), _NOTHING
    if not state.connected:
        return _flash(state, f"not sent: {_NOT_CONNECTED} (Esc cancels)"), _NOTHING
    if state.mode == "chat":
        return _normal(state, f"said: {text}"), (Chat(text=text),)
    prompt = (LlmChunk(stream="prompt", text=f"> {text}\n"),)
    new = dataclasses.replace(state, llm=prompt, llm_running=True, llm_status="")
    return _normal(new, "question sent to the LLM"), (AskPi(prompt=text),)


def _on_proposal_key(state: State, key: Key) -> Reduction:
    proposal = state.proposal or ""
    if key.char in ("y", "x"):
        if proposal not in state.proposals:
            return _normal(state, f"{proposal} is no longer pending"), _NOTHING
        if not state.connected:
            return _flash(state, f"decision not sent: {_NOT_CONNECTED}"), _NOTHING
        decision = "approve" if key.char == "y" else "reject"
        verb = "approved" if decision == "approve" else "rejected"
        command = ProposalDecision(id=proposal, decision=decision)
        return _normal(state, f"{verb} {proposal}"), (command,)
    if key.char == "n" or key.name == "KEY_ESCAPE" or key.char == "q":
        return _normal(state, ""), _NOTHING
    return state, _NOTHING


# --------------------------------------------------------------------------- helpers


def _normal(state: State, flash: str) -> State:
    return dataclasses.replace(state, mode="normal", input="", proposal=None, flash=flash)


def _flash(state: State, text: str) -> State:
    return dataclasses.replace(state, flash=as_str(text))
