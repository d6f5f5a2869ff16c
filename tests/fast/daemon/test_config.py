"""Configuration precedence and validation (pure; no files but .env text)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pepa.base.errors import ConfigError
from pepa.base.urls import redact_url
from pepa.daemon.config import Config, config_from_json, parse_dotenv, read_dotenv, resolve


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


VIP = r"\[\w+\] (?<name>\w+) » (?<text>.*)"


def test_a_chat_pattern_names_sender_and_text_and_is_kept_in_javascripts_syntax() -> None:
    assert resolve({"chat_pattern": VIP}, {}, {}).chat_pattern == VIP
    python_style = VIP.replace("(?<", "(?P<")
    assert resolve({}, {"PEPA_CHAT_PATTERN": python_style}, {}).chat_pattern == VIP
    behind = r"(?<=\] )(?<name>\w+): (?<text>.*)"  # a lookbehind is not a group
    assert resolve({"chat_pattern": behind}, {}, {}).chat_pattern == behind
    assert resolve({}, {}, {}).chat_pattern == ""


@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        (r"(?<name>\w+", "is not a regular expression"),
        (r"(?<who>\w+): (?<text>.*)", "must name the groups 'name' and 'text'"),
        (r"(?<name>\w+): .*", "must name the groups 'name' and 'text'"),
        ("x" * 201, "at most 200 characters"),
        # Python reads []x) as a class; JavaScript as an empty class and a ')' closing nothing
        (r"[]x)|(](?<name>\w+): (?<text>.*)", "is not a JavaScript regular expression"),
        (r"(?i)(?<name>\w+): (?<text>.*)", "is not a JavaScript regular expression"),
        ("(?<name>\\w+)\n(?<text>.*)", "at most 200 characters"),  # one line only
    ],
)
def test_a_broken_chat_pattern_is_refused_with_one_clear_line(pattern: str, says: str) -> None:
    with pytest.raises(ConfigError, match="PEPA_CHAT_PATTERN") as refused:
        resolve({"chat_pattern": pattern}, {}, {})
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_config_round_trips_through_json_for_the_worker() -> None:
    flags = {"host": "h", "operators": "a_1,b_2", "fault_injection": True, "chat_pattern": VIP}
    config = resolve(flags, {}, {})
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


def test_the_first_blow_is_on_unless_turned_off_and_reaches_the_worker() -> None:
    assert resolve({}, {}, {}).first_blow is True
    off = resolve({}, {"PEPA_FIRST_BLOW": "0"}, {})
    assert off.first_blow is False
    assert config_from_json(off.to_json()).first_blow is False
    with pytest.raises(ConfigError, match="PEPA_FIRST_BLOW='often' is not a yes/no value"):
        resolve({}, {"PEPA_FIRST_BLOW": "often"}, {})


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
    from pepa.cli.commands import _embedded_world
    from pepa.cli.parser import build_parser, load

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


def test_the_embedded_world_runs_a_version_it_can_and_refuses_others_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from pepa.cli.commands import _embedded_world
    from pepa.cli.parser import build_parser, load

    monkeypatch.chdir(tmp_path)  # no .env
    for name in ("PEPA_SANDBOX", "MC_VERSION", "MC_HOST"):
        monkeypatch.delenv(name, raising=False)
    parser = build_parser()
    flat = load(parser.parse_args(["world", "--no-sandbox", "--version", "1.20.4"]))
    world = _embedded_world(flat, None)
    assert (world.version, world.world_dir.name) == ("1.20.4", "world-1.20.4")
    assert load(parser.parse_args(["start", "--version", "1.16.5"])).version == "1.16.5"
    with pytest.raises(ConfigError, match=r"^the survival sandbox runs Minecraft 1\.16\.5 only"):
        resolve({"version": "1.20.4"}, {}, {})
    with pytest.raises(ConfigError, match=r"does not run Minecraft 1\.7\.10: one of 1\.12\.2, "):
        resolve({"version": "1.7.10", "sandbox": False}, {}, {})
    # a server of one's own plays whatever it plays: mineflayer says if it cannot
    assert resolve({"version": "1.7.10", "host": "mc.example.org"}, {}, {}).version == "1.7.10"


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


# -- names and hosts: nothing stray -------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "environ", "dotenv", "message"),
    [
        ({"username": "pepa_bot\n"}, {}, {}, "username 'pepa_bot\\\\n' is not a Minecraft name"),
        ({}, {"MC_USERNAME": "pepa bot"}, {}, "not a Minecraft name"),
        ({}, {}, {"MC_USERNAME": "pepa\x00bot"}, "not a Minecraft name"),
        ({}, {"MC_USERNAME": "\uff50\uff45\uff50\uff41"}, {}, "not a Minecraft name"),
        ({"operators": "alice\n"}, {}, {}, "operator 'alice\\\\n' is not a Minecraft name"),
        ({}, {"OPERATOR_USERNAMES": "alice,bob\r"}, {}, "operator 'bob\\\\r'"),
        ({}, {"OPERATOR_USERNAMES": "al ice"}, {}, "operator 'al ice'"),
        ({}, {"OPERATOR_USERNAMES": "alice\tbob"}, {}, "operator"),
        ({}, {}, {"OPERATOR_USERNAMES": "alice\u200b"}, "operator"),
        ({}, {}, {"OPERATOR_USERNAMES": "alice;bob"}, "operator"),
        ({"version": "1.16.5\n"}, {}, {}, "not a Minecraft version"),
        ({}, {"MC_PORT": "25565\n"}, {}, "not a number"),
        ({}, {"MC_PORT": "25_565"}, {}, "not a number"),
        ({}, {"MC_PASSWORD": "pw\n/op mallory"}, {}, "MC_PASSWORD has a space, a line break"),
        ({}, {"MC_PASSWORD": "two words"}, {}, "MC_PASSWORD"),
    ],
)
def test_stray_characters_in_names_are_a_config_error(
    flags: dict[str, str], environ: dict[str, str], dotenv: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        resolve(flags, environ, dotenv)
    assert "\n" not in str(caught.value)
    assert "/op mallory" not in str(caught.value)  # never the password


def test_a_quoted_dotenv_value_keeps_its_stray_tab_and_is_refused() -> None:
    with pytest.raises(ConfigError, match="operator 'bob\\\\t'"):
        resolve({}, {}, parse_dotenv('OPERATOR_USERNAMES="alice, bob\t"\n'))


@pytest.mark.parametrize(
    "host",
    ["../..", "../x", "/", "a/b", "..", ".", "a..b", "", "a b", "a\tb", "a\x00b", "host\n",
     "-lead.example", "trail-.example", "x" * 64 + ".example", "a." * 127 + "a",
     "under score.example", "_/x", "\uff41.example", "[::1]", "fe80::1%eth0", "1.2.3", "256.1.1.1",
     "example.com."],
)  # fmt: skip
def test_a_host_that_is_no_host_name_or_address_is_a_config_error(host: str) -> None:
    if host == "":
        assert resolve({"host": host}, {}, {}).host is None  # empty: the embedded world
        return
    with pytest.raises(ConfigError, match="host") as caught:
        resolve({"host": host}, {}, {})
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "host",
    ["localhost", "mc.example.org", "MC-1.Example.org", "127.0.0.1", "::1", "2001:db8::25",
     "x" * 63 + ".example", "10.0.0.255", "mc_server", "under_score.example"],
)  # fmt: skip
def test_host_names_and_addresses_make_a_folder_inside_the_state_root(host: str) -> None:
    config = resolve({"host": host, "port": "25566"}, {}, {})
    assert config.host == host
    assert config.server_dir.parent == Path("state")
    assert config.server_dir.name == f"{host}_25566"


def test_a_bad_host_on_the_command_line_exits_2_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("MC_", "PEPA_", "OPERATOR"))}
    done = subprocess.run(
        [sys.executable, "-m", "pepa", "status", "--host", "../x", "--state-dir", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "pepa: error: host '../x' is not a host name or an IP address"
    ]
    assert list(tmp_path.iterdir()) == []  # no folder made from it


def test_a_docker_service_name_with_an_underscore_is_a_host() -> None:
    config = resolve({}, {"MC_HOST": "mc_server", "MC_PORT": "25565"}, {})
    assert config.host == "mc_server" and config.server_dir.name == "mc_server_25565"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:hunter2@llm.example/v1", "https://***@llm.example/v1"),
        ("https://sk-hunter2@llm.example/v1", "https://***@llm.example/v1"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ],
)
def test_the_llm_and_wiki_urls_are_logged_without_credentials(url: str, shown: str) -> None:
    config = resolve({}, {"PEPA_OPENAI_URL": url, "PEPA_WIKI_URL": url}, {})
    assert config.openai_url == url.rstrip("/")  # the worker still gets the real URL
    values = config.redacted()
    assert values["openai_url"] == shown and values["wiki_url"] == shown
    assert "hunter2" not in str(values)


def test_a_bad_url_setting_is_refused_without_showing_its_credentials() -> None:
    for name in ("PEPA_OPENAI_URL", "PEPA_WIKI_URL"):
        with pytest.raises(ConfigError, match="not an http") as caught:
            resolve({}, {name: "ftp://me:hunter2@host/x"}, {})
        assert "hunter2" not in str(caught.value) and "ftp://***@host/x" in str(caught.value)


@pytest.mark.parametrize(
    ("url", "keep_user", "shown"),
    [
        ("postgresql://pepa:hunter2@db/fleet", True, "postgresql://pepa:***@db/fleet"),
        ("postgresql://pepa@db/fleet", True, "postgresql://pepa@db/fleet"),
        ("postgresql://pepa:hunter2@db/fleet", False, "postgresql://***@db/fleet"),
        ("https://a:b@c@host/x", False, "https://***@host/x"),
        ("https://tok@[::1/x", False, "https://***@[::1/x"),  # urlsplit cannot parse it
        ("https://host/x?a=b", False, "https://host/x?a=b"),
    ],
)
def test_redact_url_masks_credentials(url: str, keep_user: bool, shown: str) -> None:
    assert redact_url(url, keep_user=keep_user) == shown
