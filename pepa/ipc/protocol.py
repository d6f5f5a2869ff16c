"""The IPC wire protocol: newline-delimited JSON, pure encode/decode on bytes.

Every line is one UTF-8 JSON object with a ``type``. The daemon sends events
(built by the functions below as plain dicts) and receives commands (decoded
into frozen dataclasses). Nothing here touches a socket, a thread or the clock,
so the whole contract is tested on bytes.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any, ClassVar

import orjson

from pepa.base.errors import LineTooLong, ProtocolError

logger = logging.getLogger(__name__)

MAX_LINE_BYTES = 256 * 1024
"""The longest line (without its newline) either side accepts."""

_DUMPS_OPTIONS = orjson.OPT_NON_STR_KEYS
_MAX_DEPTH = 100  # nesting kept by the fallback encoder; deeper values become strings
_ECHO_CHARS = 60  # how much of a bad value an error message quotes back


# --------------------------------------------------------------------------- encoding


def encode(event: Mapping[str, Any]) -> bytes:
    """Serialise one event as a JSON line (with its trailing newline).

    Dataclasses, paths, sets and other mappings become JSON; anything else
    orjson cannot represent becomes its ``str()``. Never raises: a value that
    still cannot be encoded (huge ints, lone surrogates, cycles) is rewritten by
    a slower sanitising pass.
    """
    try:
        return orjson.dumps(event, default=_default, option=_DUMPS_OPTIONS) + b"\n"
    except (orjson.JSONEncodeError, TypeError, ValueError, RecursionError):
        pass
    try:
        return orjson.dumps(_sanitize(event, 0), option=_DUMPS_OPTIONS) + b"\n"
    except (orjson.JSONEncodeError, TypeError, ValueError, RecursionError) as exc:
        fallback = error("ipc", f"unencodable event: {exc}")
        return orjson.dumps(fallback) + b"\n"


def _default(obj: Any) -> Any:
    """orjson's hook for types it does not know natively."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, set | frozenset):
        try:
            return sorted(obj)
        except TypeError:
            return list(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, bytes | bytearray | memoryview):
        return bytes(obj).decode("utf-8", "replace")
    if isinstance(obj, Sequence):
        return list(obj)
    return _safe_str(obj)


def _safe_str(obj: Any) -> str:
    try:
        text = str(obj)
    except Exception:
        return f"<unprintable {type(obj).__name__}>"
    return text.encode("utf-8", "replace").decode("utf-8")


def _sanitize(obj: Any, depth: int) -> Any:
    """Rewrite ``obj`` into values orjson always accepts (the slow path of encode)."""
    if depth > _MAX_DEPTH:
        return _safe_str(obj)[:200]
    if obj is None or isinstance(obj, bool | float):
        return obj
    if isinstance(obj, str):
        return obj.encode("utf-8", "replace").decode("utf-8")
    if isinstance(obj, int):
        return obj if -(2**63) <= obj < 2**64 else str(obj)
    if isinstance(obj, Mapping):
        return {_safe_str(k): _sanitize(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_sanitize(item, depth + 1) for item in obj]
    converted = _default(obj)
    if isinstance(converted, str):
        return converted
    return _sanitize(converted, depth + 1)


# --------------------------------------------------------------------------- events


def hello(snapshot: Any, recent_logs: Sequence[Any]) -> dict[str, Any]:
    """The first event a client gets: the current snapshot and the recent log lines."""
    return {"type": "hello", "snapshot": snapshot, "recentLogs": list(recent_logs)}


def status(snapshot: Any) -> dict[str, Any]:
    """A full snapshot (a mapping or a dataclass), its fields next to ``type``."""
    fields: Mapping[str, Any] = snapshot
    if dataclasses.is_dataclass(snapshot) and not isinstance(snapshot, type):
        fields = _default(snapshot)
    event: dict[str, Any] = {"type": "status"}
    event.update(fields)
    event["type"] = "status"
    return event


def log(ts: Any, level: str, source: str, text: str, details: Any = None) -> dict[str, Any]:
    """One log line."""
    return {
        "type": "log",
        "ts": ts,
        "level": level,
        "source": source,
        "text": text,
        "details": details,
    }


def chat(sender: str, text: str, kind: str) -> dict[str, Any]:
    """A chat message seen in game; ``kind`` is ``player`` or ``system``."""
    return {"type": "chat", "from": sender, "text": text, "kind": kind}


def death(reason: str, position: Any, cause: dict[str, Any] | None = None) -> dict[str, Any]:
    """The bot died: ``reason`` in a few words, ``cause`` as :meth:`DeathCause.as_dict`."""
    return {"type": "death", "reason": reason, "position": position, "cause": cause or {}}


def error(source: str, text: str) -> dict[str, Any]:
    """Something went wrong; ``source`` names the part (``ipc`` for a bad command)."""
    return {"type": "error", "source": source, "text": text}


def ask_chunk(stream: str, text: str) -> dict[str, Any]:
    """Output of a running ``pi`` call; ``stream`` is ``stdout`` or ``stderr``."""
    return {"type": "ask-pi-chunk", "stream": stream, "text": text}


def ask_done(code: int | None, duration_ms: float) -> dict[str, Any]:
    """A ``pi`` call ended with exit ``code`` after ``duration_ms``."""
    return {"type": "ask-pi-done", "code": code, "durationMs": duration_ms}


def actor(name: str, state: str, restarts: int, reason: str | None) -> dict[str, Any]:
    """A supervised actor changed state (started, restarting, stopped, ...)."""
    return {"type": "actor", "name": name, "state": state, "restarts": restarts, "reason": reason}


# --------------------------------------------------------------------------- commands


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Pause:
    """Stop the reflex loop from ticking."""

    TYPE: ClassVar[str] = "cmd:pause"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Resume:
    """Let the reflex loop tick again."""

    TYPE: ClassVar[str] = "cmd:resume"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Stop:
    """Shut the bot down gracefully."""

    TYPE: ClassVar[str] = "cmd:stop"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Chat:
    """Say something in Minecraft chat (rate-limited by the daemon)."""

    TYPE: ClassVar[str] = "cmd:chat"
    text: str
    """The message, never empty."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class AskPi:
    """Run ``pi -p <prompt>`` and stream its output back."""

    TYPE: ClassVar[str] = "cmd:ask-pi"
    prompt: str
    """The prompt, never empty."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """Send a ``status`` event now."""

    TYPE: ClassVar[str] = "cmd:snapshot"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ProposalDecision:
    """Approve or reject a pending self-improvement proposal."""

    TYPE: ClassVar[str] = "cmd:proposal"
    id: str
    """The proposal's id (its file name), never empty."""
    decision: str
    """``approve`` or ``reject``."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Fault:
    """Inject a fault into an actor (only accepted with fault injection on)."""

    TYPE: ClassVar[str] = "cmd:fault"
    actor: str
    """The stable name of the target actor, never empty."""
    kind: str
    """``crash``, ``hang`` or ``poison``."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Goal:
    """Set the bot's long-term goal: ``goal.md`` is rewritten and a fresh plan derived."""

    TYPE: ClassVar[str] = "cmd:goal"
    text: str
    """The goal in plain words, never empty."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ReloadFailed:
    """``pepa start --reload``: the changed code does not import; the old worker keeps running.

    Sent by the process supervisor, which connects as a client. The worker
    accepts it only with the token it was given in its environment, and then
    broadcasts ``error {source: "reload", text: error}`` to every client.
    """

    TYPE: ClassVar[str] = "cmd:reload-failed"
    error: str
    """One line naming the file and the error, never empty."""
    token: str
    """The per-run token the process supervisor shared with its worker, never empty."""


Command = (
    Pause | Resume | Stop | Chat | AskPi | Snapshot | ProposalDecision | Fault | Goal | ReloadFailed
)
"""Any command a client can send."""

_COMMANDS: dict[str, type[Command]] = {
    cls.TYPE: cls
    for cls in (
        Pause,
        Resume,
        Stop,
        Chat,
        AskPi,
        Snapshot,
        ProposalDecision,
        Fault,
        Goal,
        ReloadFailed,
    )
}
COMMAND_TYPES = tuple(sorted(_COMMANDS))
DECISIONS = ("approve", "reject")
FAULT_KINDS = ("crash", "hang", "poison")
_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("cmd:proposal", "decision"): DECISIONS,
    ("cmd:fault", "kind"): FAULT_KINDS,
}


def encode_command(cmd: Command) -> bytes:
    """Serialise a command as a JSON line, for clients."""
    body: dict[str, Any] = {"type": cmd.TYPE}
    for field in dataclasses.fields(cmd):
        body[field.name] = getattr(cmd, field.name)
    return encode(body)


def decode_command(line: bytes, *, fault_injection: bool) -> Command:
    """Parse one line (without its newline) into a command.

    Unknown extra fields are ignored. Raises :class:`ProtocolError` with a
    short message fit to send back to the client for anything else.
    """
    try:
        text = bytes(line).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            f"line is not valid UTF-8 (byte 0x{line[exc.start]:02x} at offset {exc.start})"
        ) from None
    try:
        obj = orjson.loads(text)
    except (orjson.JSONDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"line is not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a command must be a JSON object, got {_json_type(obj)}")
    if "type" not in obj:
        raise ProtocolError('command has no "type" field')
    type_name = obj["type"]
    if not isinstance(type_name, str):
        raise ProtocolError(f'"type" must be a string, got {_json_type(type_name)}')
    cls = _COMMANDS.get(type_name)
    if cls is None:
        raise ProtocolError(
            f"unknown command type {_echo(type_name)}; known types: {', '.join(COMMAND_TYPES)}"
        )
    if cls is Fault and not fault_injection:
        raise ProtocolError("fault injection is off; start the daemon with --fault-injection")
    values = {f.name: _field(obj, type_name, f.name) for f in dataclasses.fields(cls)}
    return cls(**values)


def _field(obj: dict[str, Any], type_name: str, name: str) -> str:
    if name not in obj:
        raise ProtocolError(f'{type_name} needs a "{name}" field')
    value = obj[name]
    if not isinstance(value, str):
        raise ProtocolError(f'{type_name}: "{name}" must be a string, got {_json_type(value)}')
    choices = _CHOICES.get((type_name, name))
    if choices is not None:
        if value not in choices:
            raise ProtocolError(
                f'{type_name}: "{name}" must be one of {", ".join(choices)}, got {_echo(value)}'
            )
    elif not value.strip():
        raise ProtocolError(f'{type_name}: "{name}" must not be empty')
    return value


_JSON_TYPES = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
}


def _json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _echo(value: str) -> str:
    """Quote a client-supplied string back, shortened."""
    if len(value) > _ECHO_CHARS:
        value = value[:_ECHO_CHARS] + "…"
    return orjson.dumps(value).decode("utf-8")


# --------------------------------------------------------------------------- framing


class LineSplitter:
    """Cut a byte stream into lines.

    ``feed`` returns the complete lines (without ``\\n``, a trailing ``\\r``
    stripped, empty lines skipped) and keeps the unfinished tail. A line longer
    than ``max_line_bytes`` raises :class:`LineTooLong` as soon as it is seen,
    even before its newline arrives; the stream is then unusable (the caller
    closes it), and lines completed in the same ``feed`` call are discarded.
    """

    __slots__ = ("_buf", "_failed", "max_line_bytes")

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._failed = False

    @property
    def pending(self) -> int:
        """Bytes of the unfinished line held back."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data`` and return the lines it completes."""
        if self._failed:
            raise LineTooLong(f"line longer than {self.max_line_bytes} bytes")
        buf = self._buf
        buf += data
        if b"\n" not in data:
            self._check_tail()
            return []
        *complete, tail = bytes(buf).split(b"\n")
        self._buf = bytearray(tail)
        lines = []
        for line in complete:
            if line.endswith(b"\r"):
                line = line[:-1]
            if len(line) > self.max_line_bytes:
                self._fail()
            if line:
                lines.append(line)
        self._check_tail()
        return lines

    def finish(self) -> list[bytes]:
        """End of stream: return the unfinished last line, if any, as a line."""
        tail = bytes(self._buf)
        self._buf = bytearray()
        if tail.endswith(b"\r"):
            tail = tail[:-1]
        return [tail] if tail and not self._failed else []

    def _check_tail(self) -> None:
        size = len(self._buf)
        if size > self.max_line_bytes and not (
            size == self.max_line_bytes + 1 and self._buf.endswith(b"\r")
        ):
            self._fail()

    def _fail(self) -> None:
        self._failed = True
        self._buf = bytearray()
        raise LineTooLong(f"line longer than {self.max_line_bytes} bytes; closing the connection")
