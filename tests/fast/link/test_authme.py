"""The AuthMe state machine (pure apart from its flag file) and what reaches it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.link.authme import MAX_TRIES, RETRY_AFTER, AuthMe, server_line


def test_no_password_no_commands(tmp_path: Path) -> None:
    assert AuthMe(None, tmp_path / "flag").start(0.0) is None


def test_first_join_registers_and_the_flag_waits_for_the_servers_word(tmp_path: Path) -> None:
    auth = AuthMe("pw", tmp_path / "flag")
    assert auth.start(0.0) == "/register pw pw"
    assert not (tmp_path / "flag").exists()
    assert auth.on_chat("Successfully registered!", 0.5) is None
    assert (tmp_path / "flag").exists() and auth.state == "done"


def test_the_flag_replaces_a_planted_link_and_never_writes_through_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    state = tmp_path / "state"
    state.mkdir()
    flag = state / "joined-before.flag"
    auth = AuthMe("pw", flag)
    assert auth.start(0.0) == "/register pw pw"
    flag.symlink_to(victim)  # planted while the bot registers
    auth.on_chat("Successfully registered!", 0.5)
    assert auth.state == "done"
    assert victim.read_text() == "precious\n"  # before: the timestamp went into the victim
    assert not flag.is_symlink() and flag.read_text().startswith("20")
    assert flag.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in state.iterdir()) == ["joined-before.flag"]  # no temp left


def test_later_joins_log_in(tmp_path: Path) -> None:
    (tmp_path / "flag").write_text("x")
    auth = AuthMe("pw", tmp_path / "flag")
    assert auth.start(0.0) == "/login pw"
    auth.on_chat("Successful login!", 0.2)
    assert auth.state == "done"


def test_already_registered_switches_to_login(tmp_path: Path) -> None:
    auth = AuthMe("pw", tmp_path / "flag")
    auth.start(0.0)
    assert auth.on_chat("You already have registered this username!", 0.1) == "/login pw"
    assert (tmp_path / "flag").exists()


def test_an_unanswered_command_is_resent_a_few_times(tmp_path: Path) -> None:
    auth = AuthMe("pw", tmp_path / "flag")
    auth.start(0.0)
    assert auth.on_tick(RETRY_AFTER / 2) is None
    sent = [auth.on_tick(RETRY_AFTER * n + 0.01) for n in range(1, MAX_TRIES + 2)]
    assert sent.count("/register pw pw") == MAX_TRIES - 1
    assert auth.state == "failed"


def test_a_wrong_password_stops_trying(tmp_path: Path) -> None:
    (tmp_path / "flag").write_text("x")
    auth = AuthMe("pw", tmp_path / "flag")
    auth.start(0.0)
    auth.on_chat("Wrong password!", 0.1)
    assert auth.state == "failed"
    assert auth.on_tick(100.0) is None


# -- only the server's own lines reach AuthMe (what pepa/link/minecraft.py routes) -----------


def server(text: str) -> dict[str, object]:
    """A server message as bot_helper.js reports it."""
    return {"type": "chat", "kind": "system", "from": None, "text": text, "onList": False}


def player(name: str, text: str) -> dict[str, object]:
    """A player's chat line as bot_helper.js reports it."""
    return {"type": "chat", "kind": "player", "from": name, "text": text, "onList": True}


LISTED = ("pepa_bot", "mallory")


def test_server_messages_reach_authme() -> None:
    assert server_line(server("Successfully registered!"), LISTED, "pepa_bot") == (
        "Successfully registered!"
    )
    welcome = {**server("Welcome pepa_bot, please log in"), "kind": "game_info"}
    assert server_line(welcome, LISTED, "pepa_bot") is not None  # the bot's own name is fine


@pytest.mark.parametrize(
    "event",
    [
        player("mallory", "Successfully registered!"),  # a player typed it
        player("mallory", "Wrong password!"),
        {**player("mallory", "Successful login!"), "from": None},  # a player's line, name unknown
        server("* mallory Wrong password!"),  # /me: a server line a player shaped
        server("[mallory] Successfully registered!"),
        server("mallory joined the game"),
        {"type": "players", "players": []},
        {"type": "chat", "kind": "system", "from": None, "text": None},
    ],
)
def test_lines_a_player_typed_or_shaped_never_reach_authme(event: dict[str, object]) -> None:
    assert server_line(event, LISTED, "pepa_bot") is None


def test_a_line_naming_a_listed_player_is_that_players_doing() -> None:
    # a player named 'registered' joins while the bot registers: not the server's answer
    joined = server("registered joined the game")
    assert server_line(joined, (*LISTED, "registered"), "pepa_bot") is None
    assert server_line(server("registered joined the game"), LISTED, "pepa_bot") is not None


@pytest.mark.parametrize("typed", ["Successfully registered!", "You already have registered"])
def test_a_player_saying_the_servers_words_does_not_register_the_bot(
    tmp_path: Path, typed: str
) -> None:
    auth = AuthMe("pw", tmp_path / "flag")
    auth.start(0.0)
    for event in (player("mallory", typed), server(f"* mallory {typed}")):
        line = server_line(event, LISTED, "pepa_bot")
        if line is not None:
            auth.on_chat(line, 0.1)
    assert auth.state == "registering" and not (tmp_path / "flag").exists()
    line = server_line(server("Successfully registered!"), LISTED, "pepa_bot")
    assert line is not None and auth.on_chat(line, 0.2) is None
    assert auth.state == "done" and (tmp_path / "flag").exists()


def test_a_player_saying_wrong_password_does_not_stop_the_login(tmp_path: Path) -> None:
    (tmp_path / "flag").write_text("x")
    auth = AuthMe("pw", tmp_path / "flag")
    auth.start(0.0)
    for event in (player("mallory", "Wrong password!"), server("* mallory Wrong password!")):
        line = server_line(event, LISTED, "pepa_bot")
        if line is not None:
            auth.on_chat(line, 0.1)
    assert auth.state == "logging-in"
    assert auth.on_tick(RETRY_AFTER + 0.2) == "/login pw"  # still trying
