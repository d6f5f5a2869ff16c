"""The IPC wire protocol, tested on bytes: no sockets, no threads."""

from __future__ import annotations

import dataclasses
import enum
import itertools
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.base.errors import LineTooLong, ProtocolError
from pepa.ipc import protocol
from pepa.ipc.protocol import (
    COMMAND_TYPES,
    MAX_LINE_BYTES,
    AskPi,
    Chat,
    Fault,
    LineSplitter,
    Pause,
    ProposalDecision,
    Resume,
    Snapshot,
    Stop,
    decode_command,
    encode,
    encode_command,
)


def decode(obj: object, *, fault_injection: bool = False) -> protocol.Command:
    return decode_command(orjson.dumps(obj), fault_injection=fault_injection)


def decode_error(obj: object, *, fault_injection: bool = False) -> str:
    with pytest.raises(ProtocolError) as info:
        decode(obj, fault_injection=fault_injection)
    return str(info.value)


# --------------------------------------------------------------------------- encode


def test_encode_writes_one_json_object_and_a_newline() -> None:
    data = encode({"type": "status", "hp": 20})
    assert data.endswith(b"\n")
    assert data.count(b"\n") == 1
    assert orjson.loads(data) == {"type": "status", "hp": 20}


def test_encode_turns_paths_sets_and_dataclasses_into_json() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Where:
        path: Path
        tags: frozenset[str]

    data = encode({"type": "x", "where": Where(path=Path("/a/b"), tags=frozenset({"b", "a"}))})
    assert orjson.loads(data)["where"] == {"path": "/a/b", "tags": ["a", "b"]}


def test_encode_accepts_non_string_keys_and_enums() -> None:
    class Level(enum.Enum):
        INFO = "info"

    event: dict[object, object] = {"type": "x", 1: Level.INFO, None: 2}
    data = encode(event)  # type: ignore[arg-type]
    assert orjson.loads(data) == {"type": "x", "1": "info", "null": 2}


def test_encode_falls_back_to_str_for_unknown_objects() -> None:
    class Odd:
        def __str__(self) -> str:
            return "odd!"

    assert orjson.loads(encode({"type": "x", "v": Odd()}))["v"] == "odd!"


def test_encode_never_raises_on_values_orjson_rejects() -> None:
    class Unprintable:
        def __str__(self) -> str:
            raise RuntimeError("no")

    cyclic: list[object] = []
    cyclic.append(cyclic)
    event: dict[Any, Any] = {
        "type": "x",
        "big": 2**80,
        "surrogate": "a\ud800b",
        (1, 2): "tuple key",
        "cycle": cyclic,
        "bad": Unprintable(),
    }
    decoded = orjson.loads(encode(event))
    assert decoded["big"] == str(2**80)
    assert decoded["surrogate"] == "a?b"
    assert decoded["(1, 2)"] == "tuple key"
    assert decoded["bad"] == "<unprintable Unprintable>"
    assert decoded["type"] == "x"


def test_event_builders_use_the_wire_names() -> None:
    assert protocol.hello({"hp": 20}, ({"text": "a"},)) == {
        "type": "hello",
        "snapshot": {"hp": 20},
        "recentLogs": [{"text": "a"}],
    }
    assert protocol.status({"hp": 20, "type": "oops"}) == {"type": "status", "hp": 20}
    assert protocol.log(1.5, "info", "reflex", "hi") == {
        "type": "log",
        "ts": 1.5,
        "level": "info",
        "source": "reflex",
        "text": "hi",
        "details": None,
    }
    assert protocol.chat("alex", "hi", "player") == {
        "type": "chat",
        "from": "alex",
        "text": "hi",
        "kind": "player",
    }
    assert protocol.death("zombie", {"x": 1}) == {
        "type": "death",
        "reason": "zombie",
        "position": {"x": 1},
        "cause": {},
    }
    assert protocol.error("ipc", "bad") == {"type": "error", "source": "ipc", "text": "bad"}
    assert protocol.ask_chunk("stdout", "x") == {
        "type": "ask-pi-chunk",
        "stream": "stdout",
        "text": "x",
    }
    assert protocol.ask_done(0, 12.5) == {"type": "ask-pi-done", "code": 0, "durationMs": 12.5}
    assert protocol.actor("reflex", "restarting", 2, "crash") == {
        "type": "actor",
        "name": "reflex",
        "state": "restarting",
        "restarts": 2,
        "reason": "crash",
    }


def test_status_accepts_a_dataclass_snapshot() -> None:
    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class Snap:
        hp: int
        paused: bool

    assert protocol.status(Snap(hp=3, paused=True)) == {"type": "status", "hp": 3, "paused": True}


# --------------------------------------------------------------------------- commands

ALL_COMMANDS = [
    Pause(),
    Resume(),
    Stop(),
    Chat(text="hello there"),
    AskPi(prompt="what next?"),
    Snapshot(),
    ProposalDecision(id="2024-01-01-flee.md", decision="approve"),
    ProposalDecision(id="x", decision="reject"),
    Fault(actor="reflex", kind="crash"),
    Fault(actor="reflex", kind="hang"),
    Fault(actor="reflex", kind="poison"),
]


@pytest.mark.parametrize("cmd", ALL_COMMANDS, ids=repr)
def test_every_command_round_trips_through_encode_command(cmd: protocol.Command) -> None:
    line = encode_command(cmd)
    assert line.endswith(b"\n")
    assert decode_command(line[:-1], fault_injection=True) == cmd


def test_command_type_names_are_the_wire_names() -> None:
    assert COMMAND_TYPES == (
        "cmd:ask-pi",
        "cmd:chat",
        "cmd:fault",
        "cmd:goal",
        "cmd:pause",
        "cmd:proposal",
        "cmd:reload-failed",
        "cmd:resume",
        "cmd:snapshot",
        "cmd:stop",
    )
    assert orjson.loads(encode_command(ProposalDecision(id="p", decision="reject"))) == {
        "type": "cmd:proposal",
        "id": "p",
        "decision": "reject",
    }


def test_commands_are_frozen() -> None:
    cmd = Chat(text="a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cmd.text = "b"  # type: ignore[misc]


def test_unknown_extra_fields_are_ignored() -> None:
    assert decode({"type": "cmd:chat", "text": "hi", "extra": [1, 2]}) == Chat(text="hi")
    assert decode({"type": "cmd:pause", "text": 3}) == Pause()


def test_a_trailing_carriage_return_or_spaces_do_not_matter() -> None:
    assert decode_command(b' {"type": "cmd:stop"} ', fault_injection=False) == Stop()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"\xff\xfe{}", "not valid UTF-8"),
        (b"{nope", "not valid JSON"),
        (b"", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object, got an array"),
        (b'"cmd:stop"', "must be a JSON object, got a string"),
        (b"{}", 'no "type" field'),
        (b'{"type": 3}', '"type" must be a string, got a number'),
        (b'{"type": null}', '"type" must be a string, got null'),
    ],
)
def test_malformed_lines_raise_a_clear_protocol_error(line: bytes, message: str) -> None:
    with pytest.raises(ProtocolError, match=message):
        decode_command(line, fault_injection=False)


def test_an_unknown_type_lists_the_known_ones() -> None:
    message = decode_error({"type": "cmd:dance"})
    assert message.startswith('unknown command type "cmd:dance"; known types: cmd:ask-pi, ')
    assert "cmd:snapshot" in message


def test_an_unknown_type_is_quoted_back_shortened() -> None:
    message = decode_error({"type": "x" * 10_000})
    assert len(message) < 400


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"type": "cmd:chat"}, 'cmd:chat needs a "text" field'),
        ({"type": "cmd:chat", "text": 5}, 'cmd:chat: "text" must be a string, got a number'),
        ({"type": "cmd:chat", "text": ""}, 'cmd:chat: "text" must not be empty'),
        ({"type": "cmd:chat", "text": "  "}, 'cmd:chat: "text" must not be empty'),
        ({"type": "cmd:ask-pi"}, 'cmd:ask-pi needs a "prompt" field'),
        ({"type": "cmd:ask-pi", "prompt": ""}, '"prompt" must not be empty'),
        ({"type": "cmd:ask-pi", "prompt": ["a"]}, '"prompt" must be a string, got an array'),
        ({"type": "cmd:proposal", "decision": "approve"}, 'cmd:proposal needs a "id" field'),
        ({"type": "cmd:proposal", "id": "p"}, 'cmd:proposal needs a "decision" field'),
        ({"type": "cmd:proposal", "id": "", "decision": "approve"}, '"id" must not be empty'),
        ({"type": "cmd:proposal", "id": 7, "decision": "approve"}, '"id" must be a string'),
        (
            {"type": "cmd:proposal", "id": "p", "decision": "maybe"},
            '"decision" must be one of approve, reject, got "maybe"',
        ),
        ({"type": "cmd:proposal", "id": "p", "decision": True}, "got a boolean"),
    ],
)
def test_missing_or_wrong_fields_are_named(obj: dict[str, object], message: str) -> None:
    assert message in decode_error(obj)


def test_fault_is_refused_while_fault_injection_is_off() -> None:
    message = decode_error({"type": "cmd:fault", "actor": "reflex", "kind": "crash"})
    assert message == "fault injection is off; start the daemon with --fault-injection"


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"type": "cmd:fault", "kind": "crash"}, 'cmd:fault needs a "actor" field'),
        ({"type": "cmd:fault", "actor": "", "kind": "crash"}, '"actor" must not be empty'),
        ({"type": "cmd:fault", "actor": "a"}, 'cmd:fault needs a "kind" field'),
        (
            {"type": "cmd:fault", "actor": "a", "kind": "explode"},
            '"kind" must be one of crash, hang, poison, got "explode"',
        ),
    ],
)
def test_fault_fields_are_checked_when_fault_injection_is_on(
    obj: dict[str, object], message: str
) -> None:
    assert message in decode_error(obj, fault_injection=True)


@settings(max_examples=300)
@given(st.binary(max_size=512))
def test_arbitrary_bytes_only_ever_raise_protocol_error(line: bytes) -> None:
    try:
        decode_command(line, fault_injection=True)
    except ProtocolError:
        pass


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=5,
)


@settings(max_examples=300)
@given(
    st.sampled_from([*COMMAND_TYPES, "cmd:other"]),
    st.dictionaries(
        st.sampled_from(["text", "prompt", "id", "decision", "actor", "kind", "x"]),
        _json | st.sampled_from(["approve", "reject", "crash", "hang", "poison"]),
        max_size=4,
    ),
    st.booleans(),
)
def test_arbitrary_json_commands_decode_or_raise_protocol_error(
    type_name: str, fields: dict[str, object], fault_injection: bool
) -> None:
    line = orjson.dumps({**fields, "type": type_name})
    try:
        cmd = decode_command(line, fault_injection=fault_injection)
    except ProtocolError as exc:
        assert str(exc)
    else:
        assert type_name == cmd.TYPE
        assert decode_command(encode_command(cmd).rstrip(b"\n"), fault_injection=True) == cmd


# --------------------------------------------------------------------------- LineSplitter


def test_splitter_returns_complete_lines_and_keeps_the_tail() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert splitter.pending == 4
    assert splitter.feed(b":2}\n") == [b'{"b":2}']
    assert splitter.pending == 0


def test_splitter_strips_carriage_returns_and_skips_empty_lines() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"a\r\n\n\r\n\nb\n") == [b"a", b"b"]


def test_splitter_handles_a_line_split_at_every_byte() -> None:
    splitter = LineSplitter()
    out = []
    for byte in b"one\r\ntwo\n":
        out += splitter.feed(bytes([byte]))
    assert out == [b"one", b"two"]


def test_splitter_accepts_a_line_of_exactly_the_limit() -> None:
    splitter = LineSplitter(8)
    assert splitter.feed(b"x" * 8) == []
    assert splitter.feed(b"\r") == []
    assert splitter.feed(b"\n") == [b"x" * 8]
    assert splitter.feed(b"y" * 8 + b"\n") == [b"y" * 8]


def test_splitter_raises_as_soon_as_a_pending_line_is_too_long() -> None:
    splitter = LineSplitter(8)
    splitter.feed(b"x" * 8)
    with pytest.raises(LineTooLong):
        splitter.feed(b"x")
    with pytest.raises(LineTooLong):
        splitter.feed(b"\n")  # the stream stays unusable


def test_splitter_raises_for_a_complete_line_that_is_too_long() -> None:
    with pytest.raises(LineTooLong):
        LineSplitter(8).feed(b"ok\n" + b"x" * 9 + b"\nok\n")


def test_splitter_default_limit_is_256_kib() -> None:
    assert MAX_LINE_BYTES == 256 * 1024
    splitter = LineSplitter()
    assert splitter.feed(b"x" * MAX_LINE_BYTES + b"\n") == [b"x" * MAX_LINE_BYTES]
    with pytest.raises(LineTooLong):
        splitter.feed(b"x" * (MAX_LINE_BYTES + 1))


def test_splitter_finish_returns_the_unterminated_last_line() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b"a\nb\r") == [b"a"]
    assert splitter.finish() == [b"b"]
    assert splitter.finish() == []


@given(st.binary(max_size=2000), st.lists(st.integers(min_value=0, max_value=2000)))
def test_splitter_never_loses_bytes(data: bytes, cuts: list[int]) -> None:
    splitter = LineSplitter(len(data) + 1)
    bounds = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    out: list[bytes] = []
    for start, end in itertools.pairwise(bounds):
        out += splitter.feed(data[start:end])
    out += splitter.finish()
    expected = [line.removesuffix(b"\r") for line in data.split(b"\n")]
    assert out == [line for line in expected if line]


# --------------------------------------------------------------------------- cmd:reload-failed


def test_reload_failed_round_trips_and_keeps_its_wire_names() -> None:
    cmd = protocol.ReloadFailed(error="skills/nav.py, line 3: SyntaxError: x", token="t0k")
    line = encode_command(cmd)
    assert orjson.loads(line) == {
        "type": "cmd:reload-failed",
        "error": "skills/nav.py, line 3: SyntaxError: x",
        "token": "t0k",
    }
    assert decode_command(line[:-1], fault_injection=False) == cmd


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"error": "e"}, 'cmd:reload-failed needs a "token" field'),
        ({"token": "t"}, 'cmd:reload-failed needs a "error" field'),
        ({"error": "e", "token": ""}, '"token" must not be empty'),
        ({"error": " ", "token": "t"}, '"error" must not be empty'),
        ({"error": "e", "token": 7}, '"token" must be a string, got a number'),
    ],
)
def test_reload_failed_without_a_token_or_an_error_is_refused(
    fields: dict[str, object], message: str
) -> None:
    assert message in decode_error({"type": "cmd:reload-failed", **fields})
