"""Operator identity is the account, not the display text: names, bindings, the persona's ear."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.actors.perception import chat_event, players_event
from pepa.actors.persona import Persona
from pepa.policy.persona.commands import parse
from pepa.runtime import ChildSpec, Runtime, Supervisor, start_tree
from pepa.runtime.events import ChatReceived, ChatSent, OperatorOrder, PlayersListed
from pepa.state.identity import OperatorAccounts, account_uuid, fold, same_name, valid_name
from tests.chat_link import ChatLink
from tests.descriptors import no_free_descriptors
from tests.waiting import Recorder, eventually

ALICE = "3a1c9b1e-6f0e-3f7c-9d0b-2b1a5e8c7d11"
"""alice's account (offline-mode servers derive it from the exact name)."""
IMPOSTOR = "8f3e2d1c-0b9a-3877-a655-443322110099"
"""The account of someone else who holds a name that folds to ``alice``."""


# -- names --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sender",
    [
        "\uff41\uff4c\uff49\uff43\uff45",  # fullwidth: NFKC folds it, the raw name is refused
        "alice\u200b",  # zero-width space
        "alice ",
        " alice",
        "alice\n",
        "al\u0456ce",  # a Cyrillic i
        "alice\u0301",  # combining accent
        "",
        "a" * 17,
        "<alice>",
    ],
)
def test_a_sender_outside_the_name_pattern_is_never_an_operator(sender: str) -> None:
    assert not valid_name(sender)
    assert not same_name(sender, "alice")
    command = parse("pepa_bot", ("alice",), sender, "pepa_bot stop")
    assert command is None or not command.authorized
    assert not OperatorAccounts(["alice"]).judge(sender, ALICE, True).allowed


def test_names_compare_after_nfkc_and_case_folding_of_both_sides() -> None:
    assert same_name("Alice", "alice") and same_name("ALICE", "aLiCe")
    assert fold("\uff21lice") == "alice"  # NFKC: the key of a fullwidth name is plain
    assert not same_name("\uff21lice", "alice")  # … but such a raw name is no player name
    assert not same_name("alice", "alicea") and not same_name(None, "alice")
    command = parse("pepa_bot", ("Alice",), "alice", "pepa_bot come")
    assert command is not None and command.authorized


@settings(max_examples=300)
@given(st.text(max_size=20))
def test_only_a_plain_minecraft_name_can_match_an_operator(sender: str) -> None:
    accounts = OperatorAccounts(["alice", "Bob_2"])
    verdict = accounts.judge(sender, None, True)
    if verdict.allowed:
        assert sender in ("alice", "Bob_2")  # only the configured spelling, exactly


@pytest.mark.parametrize(
    ("value", "account"),
    [
        (ALICE, ALICE),
        (ALICE.upper(), ALICE),
        (ALICE.replace("-", ""), ALICE),
        ("00000000-0000-0000-0000-000000000000", None),
        ("0", None),
        ("", None),
        (None, None),
        (42, None),
        ("not-a-uuid-at-all-not-a-uuid-at-all", None),
    ],
)
def test_accounts_are_canonical_uuids_and_nil_is_none(value: object, account: str | None) -> None:
    assert account_uuid(value) == account


# -- bindings -------------------------------------------------------------------------------


def test_the_first_account_seen_is_bound_and_another_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "operators.json"
    accounts = OperatorAccounts(["alice"], path)
    accounts.seen("alice", ALICE)  # alice joins: her account is bound
    assert accounts.judge("alice", ALICE, True).allowed
    impostor = accounts.judge("alice", IMPOSTOR, True)  # the exact name, another account
    assert not impostor.allowed and "not the bound" in impostor.reason
    variant = accounts.judge("ALICE", IMPOSTOR, True)  # same name folded, another account
    assert not variant.allowed and "not the configured spelling alice" in variant.reason
    accounts.seen("Alice", IMPOSTOR)  # seeing the impostor on the list changes nothing
    accounts.seen("alice", IMPOSTOR)
    assert not accounts.judge("Alice", IMPOSTOR, True).allowed
    assert orjson.loads(path.read_bytes()) == {"version": 1, "accounts": {"alice": ALICE}}
    again = OperatorAccounts(["alice"], path)  # a restart keeps the binding
    assert not again.judge("alice", IMPOSTOR, True).allowed
    assert again.judge("alice", ALICE, True).allowed


def test_an_operator_off_the_player_list_is_not_obeyed(tmp_path: Path) -> None:
    accounts = OperatorAccounts(["alice"], tmp_path / "operators.json")
    verdict = accounts.judge("alice", ALICE, False)
    assert not verdict.allowed and "player list" in verdict.reason
    assert not (tmp_path / "operators.json").exists()  # nothing is bound from such a line


def test_a_first_command_binds_when_the_list_was_not_seen_yet(tmp_path: Path) -> None:
    accounts = OperatorAccounts(["alice"], tmp_path / "operators.json")
    assert accounts.judge("alice", ALICE, True).allowed
    assert not accounts.judge("alice", IMPOSTOR, True).allowed


def test_without_uuids_the_exact_name_decides_unless_a_binding_exists(tmp_path: Path) -> None:
    accounts = OperatorAccounts(["alice"], tmp_path / "operators.json")
    assert accounts.judge("alice", "00000000-0000-0000-0000-000000000000", True).allowed
    assert accounts.judge("alice", None, True).allowed
    assert not accounts.judge("Alice", None, True).allowed  # the exact spelling only
    assert not accounts.judge("mallory", None, True).allowed
    accounts.seen("alice", ALICE)
    assert not accounts.judge("alice", None, True).allowed  # bound: no account, no orders


def test_one_warning_per_impostor_account(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    accounts = OperatorAccounts(["alice"], tmp_path / "operators.json")
    accounts.seen("alice", ALICE)
    for _ in range(3):
        accounts.seen("alice", IMPOSTOR)
        accounts.judge("alice", IMPOSTOR, True)
        accounts.seen("ALICE", IMPOSTOR)
        accounts.judge("ALICE", IMPOSTOR, True)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 2 and all(IMPOSTOR in w for w in warnings)
    assert "bound account" in warnings[0] and "configure that exact spelling" in warnings[1]


def test_a_case_variant_that_joins_first_is_never_bound_and_the_operator_still_is(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """On an offline-mode world ``ALICE`` is another account: joining first binds nothing."""
    path = tmp_path / "operators.json"
    accounts = OperatorAccounts(["alice"], path)
    accounts.seen("ALICE", IMPOSTOR)  # on the player list before alice
    refused = accounts.judge("ALICE", IMPOSTOR, True)  # and the first to give an order
    assert not refused.allowed and "not the configured spelling alice" in refused.reason
    assert accounts.bound == {} and not path.exists()
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning.startswith(f"player ALICE (account {IMPOSTOR}) is not operator alice")
    assert "if ALICE is the operator's own account, configure that exact spelling" in warning
    accounts.seen("alice", ALICE)  # the real alice joins: her account is bound
    assert accounts.judge("alice", ALICE, True).allowed
    assert orjson.loads(path.read_bytes())["accounts"] == {"alice": ALICE}
    assert not accounts.judge("ALICE", IMPOSTOR, True).allowed


@pytest.mark.parametrize("configured", ["Alice", "ALICE", "alice", "aLiCe"])
def test_only_the_configured_spelling_binds_whatever_that_spelling_is(
    tmp_path: Path, configured: str
) -> None:
    accounts = OperatorAccounts([configured], tmp_path / "operators.json")
    for variant in {"alice", "Alice", "ALICE", "aLiCe"} - {configured}:
        assert not accounts.judge(variant, IMPOSTOR, True).allowed
        assert not accounts.judge(variant, None, True).allowed
    assert accounts.bound == {}
    assert accounts.judge(configured, ALICE, True).allowed
    assert accounts.bound == {"alice": ALICE}  # the file's key stays the folded name


def test_the_bound_account_under_another_case_of_its_name_is_still_obeyed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Online mode: an account may change its name's case; the account is what was bound."""
    accounts = OperatorAccounts(["alice"], tmp_path / "operators.json")
    accounts.seen("alice", ALICE)
    accounts.seen("Alice", ALICE)
    verdict = accounts.judge("Alice", ALICE, True)
    assert verdict.allowed and "bound as alice" in verdict.reason
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"[]",
        b'{"version": 1, "accounts": {"alice": 7}}',
        b'{"version": 1, "accounts": {"Alice": "' + ALICE.encode() + b'"}}',
        b'{"version": 1, "accounts": {"alice": "' + ALICE.upper().encode() + b'"}}',
        b'{"version": 2, "accounts": {}}',
        b'{"version": 1, "accounts": {"../x": "' + ALICE.encode() + b'"}}',
    ],
)
def test_a_bad_bindings_file_is_moved_aside_and_nothing_is_bound(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "operators.json"
    path.write_bytes(content)
    accounts = OperatorAccounts(["alice"], path)
    assert accounts.bound == {}
    assert not path.exists()
    assert [p.name.startswith("operators.json.bad-") for p in tmp_path.iterdir()] == [True]
    assert any("operators.json" in r.getMessage() for r in caplog.records)


def test_bindings_that_cannot_be_read_fail_closed_and_are_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: a read error (here a real EMFILE) moved operators.json aside like bad content,
    and the next player using the operator's name — any account — was bound and obeyed."""
    path = tmp_path / "operators.json"
    OperatorAccounts(["alice"], path).seen("alice", ALICE)
    raw = path.read_bytes()
    with no_free_descriptors():
        accounts = OperatorAccounts(["alice"], path)
        impostor = accounts.judge("alice", IMPOSTOR, True)
        accounts.seen("alice", IMPOSTOR)
        owner = accounts.judge("alice", ALICE, True)
        nameless = accounts.judge("alice", None, True)
    assert not impostor.allowed and "operators.json cannot be read" in impostor.reason
    assert not owner.allowed and not nameless.allowed  # no one is obeyed meanwhile
    assert path.read_bytes() == raw and sorted(p.name for p in tmp_path.iterdir()) == [
        "operators.json"
    ]  # left in place, nothing bound over it
    (warning,) = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warning == (
        "operators.json cannot be read (Too many open files): no operator is obeyed until it can be"
    )
    assert accounts.judge("alice", ALICE, True).allowed  # readable again: the binding holds
    assert not accounts.judge("alice", IMPOSTOR, True).allowed
    assert path.read_bytes() == raw


# -- from the JS event to the persona's decision -------------------------------------------------


def test_js_chat_and_player_list_events_become_typed_events() -> None:
    raw = {"type": "chat", "kind": "player", "from": "alice", "text": "hi",
           "senderUuid": ALICE, "onList": True}  # fmt: skip
    assert chat_event(raw) == ChatReceived(
        sender="alice", text="hi", kind="player", sender_uuid=ALICE, on_list=True
    )
    odd = chat_event({"type": "chat", "from": ["alice"], "text": "x", "onList": "yes"})
    assert (odd.sender, odd.on_list, odd.sender_uuid) == (None, False, None)
    listed = players_event(
        {"type": "players", "players": [{"name": "alice", "uuid": ALICE}, {"name": "bob"}, 7]}
    )
    assert listed == PlayersListed(players=(("alice", ALICE), ("bob", None)))


@pytest.fixture
def persona(runtime: Runtime, tmp_path: Path, recorder: Recorder) -> Iterator[Path]:
    bindings = tmp_path / "operators.json"
    kwargs: dict[str, Any] = {
        "link": ChatLink(),
        "operators": ("alice",),
        "operators_path": bindings,
    }
    root = ChildSpec(
        id="root",
        actor_class=Supervisor,
        kwargs={"children": [ChildSpec(id="persona", actor_class=Persona, kwargs=kwargs)]},
    )
    start_tree(root, runtime, lambda reason: None)
    recorder.wait_state("persona", "running")
    yield bindings


@pytest.mark.timeout(30)
def test_the_persona_obeys_the_bound_account_only(
    persona: Path, runtime: Runtime, recorder: Recorder
) -> None:
    bus = runtime.bus
    bus.publish(PlayersListed(players=(("alice", ALICE), ("ALICE", IMPOSTOR))))
    eventually(lambda: persona.exists(), 10, "alice's account bound")
    assert orjson.loads(persona.read_bytes())["accounts"] == {"alice": ALICE}

    def line(sender: str, account: str | None, on_list: bool = True) -> ChatReceived:
        return ChatReceived(
            sender=sender, text="pepa_bot come", kind="player",
            sender_uuid=account, on_list=on_list,
        )  # fmt: skip

    bus.publish(line("ALICE", IMPOSTOR))  # same name folded, another account
    recorder.wait_for(lambda e: isinstance(e, ChatSent) and "Sorry ALICE" in e.text)
    bus.publish(line("alice", ALICE, on_list=False))  # not on the list
    bus.publish(line("alice", ALICE))
    order: Any = recorder.wait_for(lambda e: isinstance(e, OperatorOrder))[0]
    assert order.operator == "alice"
    recorder.wait_for(lambda e: isinstance(e, ChatSent) and "On my way, alice" in e.text)
    orders = [e for e in recorder.events if isinstance(e, OperatorOrder)]
    assert orders == [OperatorOrder(verb="come", operator="alice")]
