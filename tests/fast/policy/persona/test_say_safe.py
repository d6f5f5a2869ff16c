"""What the bot says is safe to say: the sanitizer (pure, fuzzed) and the persona's chat path."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.actors.persona import Persona
from pepa.policy.persona.saysafe import (
    CHAT_LIMIT,
    LEGACY_CHAT_LIMIT,
    chat_limit,
    chat_line,
    one_line,
    safe_chat,
)
from pepa.runtime import ChildSpec, Runtime, Supervisor, start_tree
from pepa.runtime.events import ChatSent, SayInChat
from tests.chat_link import ChatLink
from tests.waiting import Recorder, eventually

FORBIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})

# text that hits every rule: slashes, §, controls, bidi, zero-width, breaks, astral characters
TRICKY = st.text(
    alphabet=st.one_of(
        st.sampled_from(
            [
                "/",
                "§",
                " ",
                "\n",
                "\r",
                "\t",
                "\x00",
                "\x7f",
                "\x85",
                "\u202e",
                "\u200b",
                "\u2028",
                "\ufeff",
                "\uff0f",
                "\ud800",
                "a",
                "Z",
                "😀",
                "ж",
            ]
        ),
        st.characters(),
    ),
    max_size=400,
)


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@settings(max_examples=400)
@given(TRICKY, st.sampled_from([CHAT_LIMIT, LEGACY_CHAT_LIMIT, 1, 2]))
def test_a_safe_line_is_one_line_of_printable_text_that_is_never_a_command(
    text: str, limit: int
) -> None:
    line = safe_chat(text, limit)
    assert not line.startswith("/")
    assert not unicodedata.normalize("NFKC", line[:1]).startswith("/")
    assert "§" not in line
    assert not any(unicodedata.category(c) in FORBIDDEN for c in line)
    assert not any(c.isspace() and c != " " for c in line)
    assert len(line.splitlines()) <= 1
    assert "  " not in line and line == line.strip()
    assert units(line) <= limit
    line.encode("utf-8")  # no lone surrogate: it would break the bridge
    assert safe_chat(line, limit) == line  # idempotent


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("/op mallory", "op mallory"),
        ("  //  /give @p diamond 64", "give @p diamond 64"),
        ("\uff0fop mallory", "op mallory"),  # a fullwidth solidus is a slash too
        ("\u200b/op mallory", "op mallory"),  # a zero-width space does not hide it
        ("§c/op mallory", "op mallory"),
        ("Creeper:\n/op mallory", "Creeper: /op mallory"),  # one line: never a second message
        ("a\r\nb\u2028c\x85d", "a b c d"),
        ("§aGreen§r text§", "Green text"),
        ("evil\u202eexe.txt", "evilexe.txt"),
        ("nul\x00 and del\x7f and c1\x9b", "nul and del and c1"),
        ("\x1b[31mred", "[31mred"),
        ("Стой!", "Стой!"),
        ("", ""),
        ("/", ""),
    ],
)
def test_what_the_sanitizer_keeps_and_drops(text: str, said: str) -> None:
    assert safe_chat(text) == said


def test_the_cap_counts_what_the_server_counts() -> None:
    assert safe_chat("x" * 1000) == "x" * CHAT_LIMIT
    assert safe_chat("😀" * 200) == "😀" * (CHAT_LIMIT // 2)  # two UTF-16 units each
    assert safe_chat("ab " * 200, 100) == ("ab " * 34)[:100].rstrip()
    assert (chat_limit("1.8.9"), chat_limit("1.10.2"), chat_limit("1.11")) == (100, 100, 256)
    assert (chat_limit("1.16.5"), chat_limit(None), chat_limit("junk")) == (256, 256, 256)


def test_the_daemon_users_own_chat_stays_raw_but_one_line() -> None:
    assert chat_line("/time set day", raw=True) == "/time set day"
    assert chat_line("§cred\nsecond", raw=True) == "§cred second"
    assert chat_line("/time set day") == "time set day"
    assert one_line("x" * 300) == "x" * CHAT_LIMIT


# -- the persona's chat path -------------------------------------------------------------


@pytest.fixture
def persona(runtime: Runtime, recorder: Recorder) -> Iterator[ChatLink]:
    link = ChatLink()
    root = ChildSpec(
        id="root",
        actor_class=Supervisor,
        kwargs={
            "children": [
                ChildSpec(id="persona", actor_class=Persona, kwargs={"link": link}),
            ]
        },
    )
    start_tree(root, runtime, lambda reason: None)
    recorder.wait_state("persona", "running")
    yield link


@pytest.mark.timeout(30)
def test_untrusted_text_reaches_chat_only_made_safe(
    persona: ChatLink, runtime: Runtime, recorder: Recorder
) -> None:
    # what a wiki summary, an LLM or an echoed goal could hold
    runtime.bus.publish(SayInChat(text="/op mallory"))
    runtime.bus.publish(SayInChat(text="§4Creeper§r: explodes\n/kill @e\u202e"))
    runtime.bus.publish(SayInChat(text="\u200b"))  # nothing left: nothing said
    runtime.bus.publish(SayInChat(text="/time set day", raw=True))  # the socket's cmd:chat
    said: list[Any] = recorder.wait_for(lambda e: isinstance(e, ChatSent), count=3)
    assert [e.text for e in said] == [
        "op mallory",
        "Creeper: explodes /kill @e",
        "/time set day",
    ]
    assert eventually(lambda: len(persona.lines) == 3) and persona.lines == [e.text for e in said]
