"""The sandbox's profiles (docs/sandbox.md "Profiles"): the flags, through the ``pepa``
command line without a world."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.base.node import WorldError
from pepa.cli.commands import _embedded_world, main
from pepa.cli.parser import build_parser, load
from pepa.worldserver.process import EmbeddedWorld


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No PEPA_SANDBOX_PROFILE and no .env around: only the flags count."""
    monkeypatch.delenv("PEPA_SANDBOX_PROFILE", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "argv", [["world", "--profile", "nightmare"], ["start", "--sandbox-profile", "nightmare"]]
)
def test_an_unknown_profile_is_one_error_line_and_exit_2(
    argv: list[str], clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = clean_env / "state"
    assert main([*argv, "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err
    assert err == "pepa: error: sandbox profile 'nightmare' is not one of vanilla, gentle, hard\n"
    assert not state.exists()  # nothing started


def test_the_profile_flags_and_variable_reach_the_embedded_world(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = build_parser()
    start = load(parser.parse_args(["start", "--sandbox-profile", "hard"]))
    world = load(parser.parse_args(["world", "--profile", "HARD"]))
    assert start.sandbox_profile == world.sandbox_profile == "hard"
    assert _embedded_world(start, None).profile == "hard"
    assert load(parser.parse_args(["world"])).sandbox_profile == "vanilla"  # the default
    monkeypatch.setenv("PEPA_SANDBOX_PROFILE", "hard")
    assert load(parser.parse_args(["start"])).sandbox_profile == "hard"
    assert load(parser.parse_args(["start", "--sandbox-profile", "gentle"])).sandbox_profile == (
        "gentle"
    )
    with pytest.raises(WorldError, match="nightmare"):
        EmbeddedWorld(clean_env / "w", profile="nightmare")
