"""Process hardening without a daemon: child environments without secrets, flag-only signal
handlers, private state directories, the configuration read from a pipe only."""

from __future__ import annotations

import os
import secrets
import signal
import stat
import sys
import time
import types
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.base.childenv import SECRET_ENV, is_secret, scrub_environ, scrubbed
from pepa.base.dirs import PRIVATE, StateDirError, judge, secure_dir, secure_state
from pepa.base.signals import SignalInbox
from pepa.daemon import config as config_module
from pepa.daemon import handover
from pepa.daemon.config import Config

NOBODY = 65534

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_every_secret_setting_of_the_config_is_a_secret_variable() -> None:
    hidden = {f.name for f in fields(Config) if not f.repr}  # repr=False marks a secret
    assert hidden == {"password", "openai_key", "db_url"}
    assert {config_module._ENV[name] for name in hidden} <= SECRET_ENV


def test_scrubbed_drops_secrets_and_urls_with_credentials_and_keeps_the_rest() -> None:
    env = {
        "PATH": "/usr/bin",
        "HOME": "/home/me",
        "MC_PASSWORD": "hunter2",
        "OPENAI_API_KEY": "sk-1",
        "PEPA_DB_URL": "postgresql://u:p@h/db",
        "PEPA_WORKER_CONFIG": "{}",
        "PEPA_OPENAI_URL": "https://user:pw@llm.example/v1",
        "PEPA_WIKI_URL": "https://minecraft.wiki",
        "MC_HOST": "example.org",
    }
    assert scrubbed(env, EXTRA="1") == {
        "PATH": "/usr/bin",
        "HOME": "/home/me",
        "PEPA_WIKI_URL": "https://minecraft.wiki",
        "MC_HOST": "example.org",
        "EXTRA": "1",
    }
    assert is_secret("PEPA_OPENAI_URL", "https://token@llm.example/v1")
    assert not is_secret("PEPA_OPENAI_URL", "http://127.0.0.1:11434/v1")


def test_node_s_debug_switches_reach_a_child_only_through_pepa_s_own_flag() -> None:
    shell = {"PATH": "/usr/bin", "DEBUG": "minecraft-protocol", "NODE_DEBUG": "net"}
    assert scrubbed(shell) == {"PATH": "/usr/bin"}
    asked = {**shell, "PEPA_NODE_DEBUG": "prismarine-auth"}
    assert scrubbed(asked)["DEBUG"] == "prismarine-auth"
    assert "NODE_DEBUG" not in scrubbed(asked)


def test_scrub_environ_removes_the_secrets_from_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MC_PASSWORD", "hunter2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-1")
    assert scrub_environ() == ["MC_PASSWORD", "OPENAI_API_KEY"]
    assert "MC_PASSWORD" not in os.environ and "OPENAI_API_KEY" not in os.environ


@pytest.mark.parametrize("size", [0, 1500, 200_000])
def test_handover_carries_the_whole_payload_through_a_pipe(size: int) -> None:
    payload = secrets.token_bytes(size)
    fd = handover.send(payload)
    assert handover.receive(fd) == payload
    with pytest.raises(OSError):
        os.fstat(fd)  # closed by receive


def test_handover_refuses_an_oversized_payload() -> None:
    with pytest.raises(handover.HandoverError, match="at most"):
        handover.send(b"x" * (handover.MAX_PAYLOAD + 1))


def test_a_signal_is_only_recorded_and_taken_by_the_loop() -> None:
    with SignalInbox((signal.SIGUSR2,)) as inbox:
        os.kill(os.getpid(), signal.SIGUSR2)
        os.kill(os.getpid(), signal.SIGUSR2)
        assert inbox.pending()
        assert set(inbox.take()) == {signal.SIGUSR2}
        assert inbox.take() == []
        started = time.monotonic()
        assert inbox.wait(0.05) == []  # nothing: the timeout
        assert time.monotonic() - started >= 0.04
    assert signal.getsignal(signal.SIGUSR2) == signal.SIG_DFL


def test_the_handler_calls_nothing_but_a_deque_append_and_a_pipe_write() -> None:
    """What the handler runs, traced call by call: no lock, no log, no Event, no raise.

    A handler that took a lock (``Event.set``, a log line, ``Popen.send_signal``)
    would show up here as a call to ``acquire``, ``set``, ``info``…
    """
    handler = SignalInbox._on_signal.__code__
    inside: list[bool] = []
    ran: list[str] = []

    def profile(frame: types.FrameType, event: str, arg: object) -> None:
        if frame.f_code is handler and event in ("call", "return"):
            inside.append(event == "call")
            return
        if inside and inside[-1] and event in ("call", "c_call"):
            name = frame.f_code.co_name if event == "call" else getattr(arg, "__name__", "?")
            ran.append(name)

    with SignalInbox((signal.SIGUSR2,)) as inbox:
        sys.setprofile(profile)
        try:
            os.kill(os.getpid(), signal.SIGUSR2)  # the handler runs before kill returns
        finally:
            sys.setprofile(None)
        assert inbox.take() == [signal.SIGUSR2]
    assert inside == [True, False]  # it ran once, and returned (did not raise)
    assert ran == ["append", "_poke", "write"]


def test_wait_returns_at_once_when_a_signal_is_already_pending() -> None:
    with SignalInbox((signal.SIGUSR2,)) as inbox:
        os.kill(os.getpid(), signal.SIGUSR2)
        started = time.monotonic()
        assert inbox.wait(30) == [signal.SIGUSR2]
        assert time.monotonic() - started < 5


def test_the_dashboard_turns_sigterm_into_a_flag_not_an_exception() -> None:
    from tui import app

    with app._stop_signals() as stop:
        assert stop is not None
        os.kill(os.getpid(), signal.SIGTERM)  # used to raise KeyboardInterrupt right here
        os.kill(os.getpid(), signal.SIGINT)
        assert sorted(stop.take()) == [signal.SIGINT, signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


@settings(max_examples=60)
@given(
    kind=st.sampled_from([stat.S_IFDIR, stat.S_IFLNK, stat.S_IFREG]),
    perm=st.integers(0, 0o7777),
    uid=st.sampled_from([0, 1000, NOBODY]),
    euid=st.sampled_from([0, 1000]),
)
def test_judge_refuses_links_files_and_strangers_and_tightens_the_rest(
    kind: int, perm: int, uid: int, euid: int
) -> None:
    verdict = judge(kind | perm, uid, euid)
    if kind == stat.S_IFLNK:
        assert "symbolic link" in verdict.refuse
    elif kind == stat.S_IFREG:
        assert "not a directory" in verdict.refuse
    elif uid != euid:
        assert f"owned by uid {uid}" in verdict.refuse
    else:
        assert verdict.refuse == ""
        assert verdict.tighten == (perm != 0o700)


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
def test_new_state_directories_are_0700_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        notes = secure_state(tmp_path / "state", tmp_path / "state" / "127.0.0.1_25565")
    finally:
        os.umask(old)
    assert notes == []
    assert mode(tmp_path / "state") == PRIVATE
    assert mode(tmp_path / "state" / "127.0.0.1_25565") == PRIVATE


def test_an_existing_open_directory_of_ours_is_tightened_and_said_once(tmp_path: Path) -> None:
    root, server = tmp_path / "state", tmp_path / "state" / "h_1"
    server.mkdir(parents=True)
    root.chmod(0o755)
    server.chmod(0o777)
    notes = secure_state(root, server)
    assert notes == [
        f"{root} was mode 0755; it is 0700 now (private to you)",
        f"{server} was mode 0777; it is 0700 now (private to you)",
    ]
    assert mode(root) == mode(server) == PRIVATE
    assert secure_state(root, server) == []  # once


def test_a_state_root_that_is_a_symlink_to_a_directory_of_ours_is_used(tmp_path: Path) -> None:
    real = tmp_path / "usb" / "pepa-state"  # state -> /mnt/usb/pepa-state on a Raspberry Pi
    real.mkdir(parents=True, mode=0o755)
    real.chmod(0o755)
    (tmp_path / "state").symlink_to(real)
    notes = secure_state(tmp_path / "state", tmp_path / "state" / "h_1")
    assert notes == [f"{tmp_path / 'state'} was mode 0755; it is 0700 now (private to you)"]
    assert mode(real) == mode(real / "h_1") == PRIVATE  # the target, not the link
    assert (tmp_path / "state").is_symlink()
    assert secure_state(tmp_path / "state", tmp_path / "state" / "h_1") == []


def test_a_symlinked_server_directory_inside_the_root_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o755)
    real.chmod(0o755)
    (tmp_path / "state").mkdir(mode=0o700)
    (tmp_path / "state" / "h_1").symlink_to(real)
    with pytest.raises(StateDirError, match="symbolic link; pepa follows none inside"):
        secure_state(tmp_path / "state", tmp_path / "state" / "h_1")
    assert mode(real) == 0o755  # untouched


def test_a_state_root_linked_to_nothing_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    (tmp_path / "mnt").mkdir()
    (tmp_path / "state").symlink_to(tmp_path / "mnt" / "usb")  # the stick is not mounted
    with pytest.raises(StateDirError, match="which does not exist"):
        secure_state(tmp_path / "state", tmp_path / "state" / "h_1")
    assert list((tmp_path / "mnt").iterdir()) == []


@as_root
def test_a_state_root_linked_to_a_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "theirs"
    real.mkdir(mode=0o755)
    real.chmod(0o755)
    os.chown(real, NOBODY, NOBODY)
    (tmp_path / "state").symlink_to(real)
    with pytest.raises(StateDirError, match=f"owned by uid {NOBODY}, not by this user"):
        secure_state(tmp_path / "state", tmp_path / "state" / "h_1")
    assert mode(real) == 0o755
    assert not (real / "h_1").exists()


def test_a_file_in_place_of_the_state_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("")
    with pytest.raises(StateDirError, match="not a directory"):
        secure_dir(tmp_path / "state")


@as_root
def test_a_state_directory_owned_by_another_user_is_refused_untouched(tmp_path: Path) -> None:
    root = tmp_path / "state"
    root.mkdir(mode=0o755)
    os.chown(root, NOBODY, NOBODY)
    with pytest.raises(StateDirError, match=f"owned by uid {NOBODY}, not by this user"):
        secure_state(root, root / "h_1")
    assert mode(root) == 0o755
    assert not (root / "h_1").exists()
