"""Configuration precedence and validation (pure; no files but .env text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pepa.config import Config, config_from_json, parse_dotenv, read_dotenv, resolve
from pepa.errors import ConfigError


def test_defaults_play_in_the_embedded_world() -> None:
    config = resolve({}, {}, {})
    assert config == Config()
    assert config.embedded
    assert config.socket_path == Path("state/127.0.0.1_25565/bot.sock")


def test_flags_beat_environment_beat_dotenv() -> None:
    dotenv = {"MC_HOST": "dotenv.example", "MC_PORT": "1111", "MC_USERNAME": "from_dotenv"}
    environ = {"MC_HOST": "env.example", "MC_PORT": "2222"}
    config = resolve({"host": "flag.example"}, environ, dotenv)
    assert (config.host, config.port, config.username) == ("flag.example", 2222, "from_dotenv")
    assert config.server_dir == Path("state/flag.example_2222")


def test_operators_are_split_trimmed_and_deduplicated() -> None:
    config = resolve({}, {"OPERATOR_USERNAMES": " alice, bob ,alice,"}, {})
    assert config.operators == ("alice", "bob")


def test_password_never_appears_in_logs() -> None:
    config = resolve({}, {"MC_PASSWORD": "hunter2"}, {})
    assert "hunter2" not in repr(config)
    assert config.redacted()["password"] == "***"


def test_config_round_trips_through_json_for_the_worker() -> None:
    config = resolve({"host": "h", "operators": "a_1,b_2", "fault_injection": True}, {}, {})
    assert config_from_json(config.to_json()) == config


@pytest.mark.parametrize(
    ("flags", "environ", "message"),
    [
        ({"port": "0"}, {}, "out of range"),
        ({}, {"MC_PORT": "http"}, "not a number"),
        ({"username": "x"}, {}, "not a Minecraft name"),
        ({"version": "latest"}, {}, "not a Minecraft version"),
        ({}, {"PEPA_LLM": "gpt9"}, "is not one of"),
        ({}, {"PEPA_FAULT_INJECTION": "maybe"}, "yes/no"),
        ({"operators": "ok,not ok"}, {}, "operator"),
    ],
)
def test_bad_values_raise_one_clear_config_error(
    flags: dict[str, str], environ: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve(flags, environ, {})


def test_dotenv_syntax() -> None:
    text = (
        "# comment\nexport MC_HOST=play.example\n"
        'MC_PORT = "25566"\nMC_USERNAME=bot_1 # trailing\n\n'
    )
    assert parse_dotenv(text) == {
        "MC_HOST": "play.example",
        "MC_PORT": "25566",
        "MC_USERNAME": "bot_1",
    }


@pytest.mark.parametrize("line", ["just words", "=value", "KEY='open"])
def test_malformed_dotenv_line_names_its_line_number(line: str) -> None:
    with pytest.raises(ConfigError, match="line 2"):
        parse_dotenv(f"OK=1\n{line}\n")


def test_missing_dotenv_is_empty_and_unreadable_is_an_error(tmp_path: Path) -> None:
    assert read_dotenv(tmp_path / ".env") == {}
    (tmp_path / ".env").mkdir()
    with pytest.raises(ConfigError, match="cannot read"):
        read_dotenv(tmp_path / ".env")


# -- the LLM back ends (docs/llm.md) -------------------------------------------------------


def test_llm_settings_come_from_the_environment_and_dotenv() -> None:
    config = resolve(
        {},
        {"PEPA_OPENAI_URL": "http://127.0.0.1:8080/v1/", "PEPA_LLM_TIMEOUT": "30"},
        {"PEPA_OPENAI_MODEL": "qwen2.5:0.5b", "PEPA_PI_COMMAND": "pi --model small"},
    )
    assert config.openai_url == "http://127.0.0.1:8080/v1"
    assert config.openai_model == "qwen2.5:0.5b"
    assert config.pi_command == "pi --model small"
    assert config.llm_timeout == 30.0
    assert resolve({}, {}, {}).openai_url is None


def test_the_openai_key_never_appears_in_logs_and_reaches_the_worker() -> None:
    config = resolve({}, {"OPENAI_API_KEY": "sk-hunter2"}, {})
    assert "sk-hunter2" not in repr(config)
    assert config.redacted()["openai_key"] == "***"
    assert config_from_json(config.to_json()).openai_key == "sk-hunter2"


def test_auto_picks_pi_then_a_configured_openai_url_then_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert resolve({}, {}, {}).llm_backend == "offline"
    with_url = resolve({}, {"PEPA_OPENAI_URL": "http://127.0.0.1:8080/v1"}, {})
    assert with_url.llm_backend == "openai"
    (tmp_path / "pi").write_text("#!/bin/sh\n")
    (tmp_path / "pi").chmod(0o755)
    assert with_url.llm_backend == "pi"
    assert resolve({"llm": "offline"}, {}, {}).llm_backend == "offline"


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"PEPA_OPENAI_URL": "127.0.0.1:8080"}, "not an http"),
        ({"PEPA_LLM_TIMEOUT": "soon"}, "not a number of seconds"),
        ({"PEPA_LLM_TIMEOUT": "0"}, "out of range"),
    ],
)
def test_bad_llm_settings_raise_one_clear_config_error(
    environ: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve({}, environ, {})


def test_the_database_url_and_reflection_period_are_settings() -> None:
    config = resolve(
        {}, {"PEPA_DB_URL": "postgresql://bot:hunter2@db/fleet", "PEPA_REFLECT_EVERY": "60"}, {}
    )
    assert config.db_url == "postgresql://bot:hunter2@db/fleet"
    assert config.redacted()["db_url"] == "postgresql://bot:***@db/fleet"
    assert "hunter2" not in repr(config)
    assert config.reflect_every == 60.0
    assert resolve({}, {"PEPA_REFLECT_EVERY": "0"}, {}).reflect_every == 0.0
    assert resolve({}, {}, {}).db_url is None
    with pytest.raises(ConfigError, match="PEPA_DB_URL 'mysql://u:\\*\\*\\*@h/db'"):
        resolve({}, {"PEPA_DB_URL": "mysql://u:pw@h/db"}, {})
    with pytest.raises(ConfigError, match="PEPA_REFLECT_EVERY 5 is out of range"):
        resolve({}, {"PEPA_REFLECT_EVERY": "5"}, {})


def test_the_embedded_world_is_the_sandbox_unless_turned_off() -> None:
    assert resolve({}, {}, {}).sandbox is True
    assert resolve({}, {"PEPA_SANDBOX": "0"}, {}).sandbox is False
    assert resolve({}, {}, {"PEPA_SANDBOX": "no"}).sandbox is False
    assert resolve({"sandbox": True}, {"PEPA_SANDBOX": "off"}, {}).sandbox is True
    assert resolve({}, {"PEPA_SANDBOX": ""}, {}).sandbox is True
    with pytest.raises(ConfigError, match="PEPA_SANDBOX='maybe' is not a yes/no value"):
        resolve({}, {"PEPA_SANDBOX": "maybe"}, {})


def test_sandbox_flags_choose_the_world_and_its_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pepa.cli import _embedded_world, build_parser, load

    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.delenv("PEPA_SANDBOX", raising=False)
    parser = build_parser()
    sandbox = load(parser.parse_args(["start", "--seed", "7"]))
    flat = load(parser.parse_args(["world", "--no-sandbox"]))
    assert (sandbox.sandbox, flat.sandbox) == (True, False)
    world = _embedded_world(sandbox, 7)
    assert (world.sandbox, world.seed, world.world_dir.name) == (True, 7, "sandbox")
    world = _embedded_world(flat, None)
    assert (world.sandbox, world.seed, world.world_dir.name) == (False, 12345, "world")


def test_the_wiki_url_is_a_setting_and_empty_turns_lookups_off() -> None:
    assert resolve({}, {}, {}).wiki_url == "https://minecraft.wiki"
    assert resolve({}, {"PEPA_WIKI_URL": "http://127.0.0.1:8080/"}, {}).wiki_url == (
        "http://127.0.0.1:8080"
    )
    assert resolve({}, {}, {"PEPA_WIKI_URL": "https://wiki.example/mc"}).wiki_url == (
        "https://wiki.example/mc"
    )
    assert resolve({}, {"PEPA_WIKI_URL": ""}, {}).wiki_url == ""
    config = resolve({}, {"PEPA_WIKI_URL": ""}, {})
    assert config_from_json(config.to_json()) == config
    with pytest.raises(ConfigError, match=r"PEPA_WIKI_URL 'minecraft\.wiki' is not an http"):
        resolve({}, {"PEPA_WIKI_URL": "minecraft.wiki"}, {})
