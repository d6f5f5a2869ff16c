"""The AuthMe state machine (pure apart from its flag file)."""

from __future__ import annotations

from pathlib import Path

from pepa.world.authme import MAX_TRIES, RETRY_AFTER, AuthMe


def test_no_password_no_commands(tmp_path: Path) -> None:
    assert AuthMe(None, tmp_path / "flag").start(0.0) is None


def test_first_join_registers_and_the_flag_waits_for_the_servers_word(tmp_path: Path) -> None:
    auth = AuthMe("pw", tmp_path / "flag")
    assert auth.start(0.0) == "/register pw pw"
    assert not (tmp_path / "flag").exists()
    assert auth.on_chat("Successfully registered!", 0.5) is None
    assert (tmp_path / "flag").exists() and auth.state == "done"


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
