"""The screen's frame: header, message and key lines, and the help and proposal views.

Pure functions from a :class:`~tui.state.State` to styled lines, like
:mod:`tui.panels`; :mod:`tui.render` cuts and pads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from blessed import Terminal

from tui.state import State, as_float, as_int, as_str

__all__ = ["duration", "header_line", "help_lines", "key_line", "message_line", "proposal_lines"]


# --------------------------------------------------------------------------- header and footer


def header_line(state: State, term: Terminal) -> str:
    """The top line: connection, badges (paused, proposals), bot, server, uptime."""
    parts = [term.bold("pepa")]
    if state.connected:
        link = term.green("● connected")
        if state.connections > 1:
            link += term.bright_black(f" (reconnects {state.connections - 1})")
    else:
        word = "reconnecting" if state.link == "reconnecting" else "connecting"
        link = term.yellow(f"◌ {word}…")
        if state.retry_in is not None:
            link += term.bright_black(f" retry in {state.retry_in:.1f}s")
    parts.append(link)
    if state.paused:
        parts.append(term.black_on_yellow(" PAUSED "))
    if state.pending_proposals:
        parts.append(term.black_on_magenta(f" [proposals {state.pending_proposals}, press y] "))
    if state.approved_proposals:
        approved = len(state.approved_proposals)
        parts.append(term.bright_black(f"[{approved} approved: pepa propose apply]"))
    snap = state.snapshot
    if snap:
        who = as_str(snap.get("username"), "?")
        server = as_str(snap.get("server"))
        parts.append(term.bold_cyan(who) + (f" @ {server}" if server else ""))
        if snap.get("connected") is False:
            parts.append(term.yellow("(not in the world)"))
        uptime = as_float(snap.get("uptime"))
        if uptime is not None:
            parts.append(term.bright_black(f"up {duration(uptime)}"))
    if not state.connected and state.socket:
        parts.append(term.bright_black(state.socket))
    return "  ".join(parts)


_KEYS_WIDE = (
    ("p", "pause"),
    ("s", "stop"),
    ("r", "snapshot"),
    ("c", "chat"),
    ("a", "ask LLM"),
    ("y", "proposal"),
    ("/", "filter"),
    ("l", "level"),
    ("e", "learning"),
    ("↑↓", "scroll"),
    ("?", "help"),
    ("q", "quit"),
)
_KEYS_NARROW = (
    ("p", "pause"),
    ("s", "stop"),
    ("r", "snap"),
    ("c", "chat"),
    ("a", "ask"),
    ("y", "prop"),
    ("?", "help"),
    ("q", "quit"),
)
_MODE_KEYS = {
    "chat": (("Enter", "say it"), ("Esc", "cancel"), ("^U", "clear")),
    "ask": (("Enter", "ask"), ("Esc", "cancel"), ("^U", "clear")),
    "filter": (("Enter", "apply (empty clears)"), ("Esc", "cancel"), ("^U", "clear")),
    "confirm-stop": (("y", "stop the bot"), ("any other key", "cancel")),
    "proposal": (("y", "approve"), ("x", "reject"), ("n/Esc", "close")),
    "help": (("any key", "close"),),
    "learning": (("any key", "close"),),
}


def key_line(state: State, term: Terminal, width: int) -> str:
    """The bottom line: what the keys do in the current mode."""
    keys: Sequence[tuple[str, str]] | None = _MODE_KEYS.get(state.mode)
    if keys is None:
        resume = state.paused
        back = [("Esc", "fleet")] if state.fleet else []  # r gives way to it (status comes)
        wide = back + [
            (k, "resume" if k == "p" and resume else label)
            for k, label in _KEYS_WIDE
            if not back or k != "r"
        ]
        if _plain_length(wide, " ", "  ") <= width:
            return "  ".join(term.bold(k) + " " + label for k, label in wide)
        keys = back + [
            (k, "resume" if k == "p" and resume else label)
            for k, label in _KEYS_NARROW
            if not back or k != "r"
        ]
        return " ".join(term.bold(k) + ":" + label for k, label in keys)
    return "  ".join(term.bold(k) + " " + label for k, label in keys)


def _plain_length(keys: Sequence[tuple[str, str]], inner: str, outer: str) -> int:
    return sum(len(k) + len(inner) + len(label) for k, label in keys) + len(outer) * (len(keys) - 1)


_PROMPTS = {"chat": "say> ", "ask": "ask the LLM> ", "filter": "filter the log> "}


def message_line(state: State, term: Terminal, width: int) -> str:
    """The line above the keys: the text being typed, a confirmation, or the last message."""
    prompt = _PROMPTS.get(state.mode)
    if prompt is not None:
        room = max(1, width - len(prompt) - 1)
        shown = state.input[-room:]
        return term.bold(prompt) + shown + term.reverse(" ")
    if state.mode == "confirm-stop":
        return term.white_on_red(" Stop the bot? The daemon exits. ") + " y = stop, other = cancel"
    if state.flash:
        return term.bright_black(state.flash)
    if not state.connected and state.link_reason:
        return term.yellow(state.link_reason)
    return ""


def duration(seconds: float) -> str:
    """Seconds as ``1m05s`` or ``2h03m``."""
    seconds = max(0, int(seconds))
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


# --------------------------------------------------------------------------- views


def help_lines(term: Terminal, *, fleet: bool = False) -> list[str]:
    """The help view (``fleet``: opened from the fleet view, which Esc and ``f`` go back to)."""
    rows = [
        *([("Esc f", "back to the fleet's list (the bot keeps running)")] if fleet else []),
        ("p", "pause / resume the reflex loop (the Minecraft connection stays)"),
        ("s", "stop the bot (asks y/n first): the daemon exits"),
        ("r", "ask for a status snapshot now"),
        ("c", "chat mode: type a line, Enter says it in Minecraft"),
        ("a", "ask-LLM mode: type a prompt, Enter streams the answer below"),
        ("y", "open the latest pending proposal (then y approves, x rejects, n closes)"),
        ("/", "filter the log by text (Enter applies, empty Enter clears)"),
        ("l", "cycle the log's minimum level: debug, info, warn, error"),
        ("e", "what the bot has learned: deaths by cause, lessons in force and lately"),
        ("↑ ↓ PgUp PgDn", "scroll the log (also k j); Home / End (g G) jump"),
        ("?", "this help"),
        ("q", "quit the dashboard only: the bot keeps running"),
    ]
    lines = [term.bold("Hotkeys"), ""]
    lines.extend(f"{term.bold(f'{key:>13}')}  {text}" for key, text in rows)
    lines.extend(["", "In an input mode Enter submits, an empty Enter or Esc cancels."])
    return lines


def learning_lines(state: State, term: Terminal) -> list[str]:
    """The learning view: deaths by cause, near-misses, lessons in force by what they are about,
    the block and mob types kept off, the last deaths and near-misses, lessons lately."""
    raw = state.snapshot.get("learning")
    learned: dict[str, Any] = raw if isinstance(raw, dict) else {}
    causes = learned.get("deathsByCause")
    by_cause = (
        ", ".join(f"{as_int(n) or 0} {as_str(kind)}" for kind, n in causes.items())
        if isinstance(causes, dict) else ""
    )  # fmt: skip
    deaths = as_int(learned.get("deaths")) or 0
    subjects = learned.get("lessonsBySubject")
    by_subject = (
        ", ".join(f"{as_int(n) or 0} {as_str(what)}" for what, n in subjects.items())
        if isinstance(subjects, dict) else ""
    )  # fmt: skip
    lines = [
        term.bold("What the bot has learned"), "",
        f"deaths            {deaths}" + (f": {by_cause}" if by_cause else ""),
        f"near-misses       {as_int(learned.get('nearMisses')) or 0}"
        "  (a large loss of health survived)",
        f"lessons in force  {as_int(learned.get('lessonsInForce')) or 0}"
        "  (confident enough to change a decision)",
        f"  about           {by_subject or 'nothing yet'}",
        "", term.bold("Block and mob types kept off"),
    ]  # fmt: skip
    lines += _listed(term, learned.get("hazards"), "none")
    lines += ["", term.bold("Last deaths")]
    lines += _listed(term, learned.get("recentDeaths"), "none yet")
    lines += ["", term.bold("Last near-misses")]
    lines += _listed(term, learned.get("recentNearMisses"), "none yet")
    lines += ["", term.bold("Lessons learned or graded in the last hour")]
    lines += _listed(term, learned.get("recentLessons"), "none")
    return lines


def _listed(term: Terminal, items: Any, empty: str) -> list[str]:
    texts = [as_str(item) for item in items] if isinstance(items, list) else []
    return [f"  {text}" for text in texts] or [term.bright_black(f"  {empty}")]


def proposal_lines(state: State, term: Terminal) -> list[str]:
    """The proposal view: the id, its place in the queue, the keys."""
    proposal = state.proposal or ""
    ids = state.proposals
    lines = [term.bold("Self-improvement proposal"), "", f"id       {term.bold_magenta(proposal)}"]
    if proposal in ids:
        lines.append(f"queue    {ids.index(proposal) + 1} of {len(ids)} pending (the latest shown)")
    else:
        lines.append(term.yellow("no longer pending (decided elsewhere?)"))
    lines.extend(
        [
            "file     proposals/" + proposal + " in the bot's state directory",
            "",
            f"{term.bold('y')} approve (moves it to proposals/approved/)   "
            f"{term.bold('x')} reject   {term.bold('n')} / {term.bold('Esc')} close",
        ]
    )
    return lines
