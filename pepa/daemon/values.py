"""Each setting's value, checked: a bad one raises one :class:`~pepa.base.errors.ConfigError`
that names it and says what is wanted (the command line then exits 2).

:func:`pepa.daemon.config.resolve` picks each value from the flags, the environment, ``.env``
or the default and passes it through its checker here.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from pepa.base.errors import ConfigError
from pepa.base.urls import redact_url
from pepa.worldserver.profiles import PROFILES

__all__ = [
    "MAX_CHAT_PATTERN",
    "USERNAME",
    "chat_pattern_of",
    "db_url_of",
    "flag_of",
    "host_of",
    "operators_of",
    "password_of",
    "port_of",
    "profile_of",
    "seconds_of",
    "url_of",
    "whole_of",
    "wiki_url_of",
]

USERNAME = re.compile(r"[A-Za-z0-9_]{3,16}")
"""A Minecraft name, matched whole (``fullmatch``: a trailing newline is not a name)."""

_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")
"""One host name label: RFC 1123, plus ``_`` (Docker service names such as ``mc_server``)."""

_TRUE = {"1", "true", "yes", "on"}

_FALSE = {"0", "false", "no", "off", ""}


def profile_of(value: Any) -> str:
    """A name of :data:`pepa.worldserver.PROFILES` (any case); empty: ``vanilla``."""
    if value is None or value == "":
        return "vanilla"
    name = str(value).lower()
    if name not in PROFILES:
        raise ConfigError(f"sandbox profile {value!r} is not one of {', '.join(PROFILES)}")
    return name


def port_of(value: Any) -> int:
    if value is None or value == "":
        return 25565
    if isinstance(value, str) and not re.fullmatch(r"[0-9]{1,5}", value):
        raise ConfigError(f"port {value!r} is not a number")
    try:
        port = int(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"port {value!r} is not a number") from exc
    if not 1 <= port <= 65535:
        raise ConfigError(f"port {port} is out of range (1-65535)")
    return port


def operators_of(value: Any) -> tuple[str, ...]:
    """Comma-separated names; spaces around the commas are allowed, nothing else stray."""
    if not value:
        return ()
    names = [str(n) for n in value] if isinstance(value, list | tuple) else str(value).split(",")
    cleaned = tuple(dict.fromkeys(n.strip(" ") for n in names if n.strip(" ")))
    for name in cleaned:
        if not USERNAME.fullmatch(name):
            raise ConfigError(
                f"operator {name!r} is not a Minecraft name (3-16 letters, digits or _)"
            )
    return cleaned


def password_of(value: Any) -> str | None:
    """The AuthMe password: it goes into ``/login <password>``, so one word of printable text."""
    if not value:
        return None
    text = str(value)
    if any(char.isspace() or not char.isprintable() or char == "§" for char in text):
        raise ConfigError("MC_PASSWORD has a space, a line break, a § or a control character")
    return text


def host_of(value: Any) -> str | None:
    """A host name (RFC 1123 labels) or an IPv4/IPv6 address: it becomes a folder name."""
    if value is None or value == "":
        return None
    text = str(value)
    if len(text) > 253:
        raise ConfigError(f"host {text[:40]!r}… is longer than 253 characters")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
            raise ConfigError(f"host {text!r}: an IPv6 zone (%…) cannot be part of a folder name")
        return text
    labels = text.split(".")
    if ":" in text or not all(_LABEL.fullmatch(label) for label in labels):
        raise ConfigError(f"host {text!r} is not a host name or an IP address")
    if labels[-1].isdigit():
        raise ConfigError(f"host {text!r} is not a host name or an IP address (numeric last label)")
    return text


def url_of(value: Any) -> str | None:
    if not value:
        return None
    text = str(value).strip().rstrip("/")
    if not re.match(r"^https?://[^/\s]+", text):
        raise ConfigError(
            f"PEPA_OPENAI_URL {redact_url(str(value), keep_user=False)!r} is not an http(s) URL"
        )
    return text


def wiki_url_of(value: Any) -> str:
    if value is None:
        return "https://minecraft.wiki"
    text = str(value).strip().rstrip("/")
    if text and not re.match(r"^https?://[^/\s?#]+(/[^\s?#]*)?$", text):
        shown = redact_url(str(value), keep_user=False)
        raise ConfigError(f"PEPA_WIKI_URL {shown!r} is not an http(s) URL (empty: no lookups)")
    return text


def db_url_of(value: Any) -> str | None:
    if not value:
        return None
    text = str(value).strip()
    if not re.match(r"^(sqlite:///|postgres(ql)?://)\S+$", text):
        raise ConfigError(
            f"PEPA_DB_URL {redact_url(text)!r} is not sqlite:///path or postgresql://user@host/db"
        )
    return text


def seconds_of(
    value: Any, var: str, *, default: float, low: float, high: float, off: bool = False
) -> float:
    """A number of seconds in [low, high]; ``off``: 0 is allowed too (it turns a timer off)."""
    if value is None or value == "":
        return default
    try:
        seconds = float(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{var} {value!r} is not a number of seconds") from exc
    if not (low <= seconds <= high or (off and seconds == 0)):
        span = f"0 = off, {low:g}-{high:g} s" if off else f"{low:g}-{high:g} s"
        raise ConfigError(f"{var} {seconds:g} is out of range ({span})")
    return seconds


def whole_of(value: Any, var: str, *, default: int, low: int, high: int, unit: str) -> int:
    """A whole number in [low, high]."""
    if value is None or value == "":
        return default
    text = str(value)
    if not re.fullmatch(r"[0-9]{1,12}", text):  # no sign, space, newline or other digits
        raise ConfigError(f"{var} {value!r} is not a whole number of {unit}")
    number = int(text)
    if not low <= number <= high:
        raise ConfigError(f"{var} {number} is out of range ({low}-{high} {unit})")
    return number


def flag_of(value: Any, var: str = "PEPA_FAULT_INJECTION", *, default: bool = False) -> bool:
    if isinstance(value, bool):
        return value
    text = "" if value is None else str(value).strip().lower()
    if not text:
        return default
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"{var}={value!r} is not a yes/no value")


MAX_CHAT_PATTERN = 200
"""Characters of a --chat-pattern."""

_NAMED_GROUP = re.compile(r"\(\?P?<(?![=!])")


def chat_pattern_of(value: Any) -> str:
    """A --chat-pattern (PEPA_CHAT_PATTERN) checked, in JavaScript's syntax; "" for none.

    It must compile, name the groups ``name`` (the sender) and ``text`` (what they said),
    and stay under :data:`MAX_CHAT_PATTERN` characters. Python's ``(?P<name>`` is accepted and
    written as JavaScript's ``(?<name>``. The line is matched from its start (the JS side
    anchors it): a pattern cannot pick a name out of the middle of someone else's line.
    """
    if value is None or value == "":
        return ""
    shown = str(value)[:60]
    if not isinstance(value, str) or len(value) > MAX_CHAT_PATTERN or not value.isprintable():
        raise ConfigError(
            f"PEPA_CHAT_PATTERN {shown!r} is not a line of at most {MAX_CHAT_PATTERN} characters"
        )
    js = _NAMED_GROUP.sub("(?<", value)
    try:
        compiled = re.compile(_NAMED_GROUP.sub("(?P<", js))
    except re.error as exc:
        raise ConfigError(
            f"PEPA_CHAT_PATTERN {shown!r} is not a regular expression: {exc}"
        ) from None
    problem = _js_regex_problem(js)
    if problem:
        raise ConfigError(f"PEPA_CHAT_PATTERN {shown!r} is not a JavaScript regular expression: "
                          f"{problem}")  # fmt: skip
    if not {"name", "text"} <= set(compiled.groupindex):
        raise ConfigError(
            f"PEPA_CHAT_PATTERN {shown!r} must name the groups 'name' and 'text', "
            r"as in '\[\w+\] (?<name>\w+) » (?<text>.*)'"
        )
    return js


def _js_regex_problem(source: str) -> str:
    """Why Node's RegExp refuses ``source`` (the bridge compiles it: the two dialects differ,
    ``(?i)`` or ``[]`` mean other things or nothing there); "" when it compiles, or when no
    Node is at hand to ask (the bridge then refuses it with the same message)."""
    import subprocess

    from pepa.base.node import WorldError, node_binary

    try:
        node = node_binary()
        check = "try { new RegExp(process.argv[1], 'sy') } catch (e) { console.log(e.message) }"
        result = subprocess.run(
            [str(node), "-e", check, source], capture_output=True, text=True, timeout=20,
            env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError, WorldError):
        return ""
    return result.stdout.strip()[:120]
