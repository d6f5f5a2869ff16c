"""A fleet on Ray: no secret in a group's actor argument; each node reads them from a private
file or its own environment; the supervisor refuses a cluster without token authentication.

The cluster itself is in ``tests/integration/fleet/test_fleet_ray.py``; these tests cover the
pure parts with no Ray at all: the payload, the secrets file, the token settings.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from pepa.base.errors import ConfigError
from pepa.daemon.config import Config
from pepa.daemon.restarts import EXIT_CONFIG
from pepa.fleet.onray import GroupHost
from pepa.fleet.rayauth import check_token_mode
from pepa.fleet.raysecrets import (
    SECRETS_FILE,
    fill_secrets,
    group_payload,
    read_secrets,
    write_secrets,
)

PASSWORD = "pw-marker-5f1c0a"
KEY = "sk-marker-9d2e77"
DB_PASSWORD = "db-marker-41b8c3"
OPENAI_URL = "https://llm-user:url-marker-c0ffee@llm.example/v1"
MARKERS = [PASSWORD, KEY, DB_PASSWORD, "url-marker-c0ffee"]
RUN = "0123456789abcdef0123456789abcdef"
NOBODY = 65534


def configs(tmp_path: Path) -> list[Config]:
    base = Config(
        host="mc.example.org",
        state_dir=tmp_path / "state",
        fleet=True,
        password=PASSWORD,
        openai_key=KEY,
        openai_url=OPENAI_URL,
        db_url=f"postgresql://pepa_bot_a:{DB_PASSWORD}@127.0.0.1:5432/pepa",
    )
    return [replace(base, username="bot_a"), replace(base, username="bot_b", openai_key=None)]


def payload(tmp_path: Path, bots: list[Config]) -> dict[str, object]:
    path = bots[0].server_root / SECRETS_FILE
    return orjson.loads(orjson.dumps(group_payload(bots, run=RUN, secrets_file=path, group=0)))


def test_a_groups_payload_carries_no_secret_only_their_names(tmp_path: Path) -> None:
    bots = configs(tmp_path)
    raw = orjson.dumps(group_payload(bots, run=RUN, secrets_file=tmp_path / "s", group=3))
    for marker in MARKERS:
        assert marker.encode() not in raw
    data = orjson.loads(raw)
    assert data["group"] == 3 and data["run"] == RUN
    assert data["secrets"] == {
        "bot_a": ["db_url", "openai_key", "openai_url", "password"],
        "bot_b": ["db_url", "openai_url", "password"],
    }
    assert all(bot["password"] is None and bot["db_url"] is None for bot in data["bots"])
    assert data["bots"][0]["wiki_url"] == "https://minecraft.wiki"  # no credentials: kept


def test_a_node_on_the_supervisors_machine_reads_the_secrets_file_of_its_run(
    tmp_path: Path,
) -> None:
    bots = configs(tmp_path)
    path = bots[0].server_root / SECRETS_FILE
    assert write_secrets(path, RUN, bots)
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    assert fill_secrets(payload(tmp_path, bots), environ={}) == bots


def test_a_node_without_the_file_takes_the_secrets_from_its_own_environment(
    tmp_path: Path,
) -> None:
    bots = configs(tmp_path)
    environ = {
        "MC_PASSWORD": "node-pw",
        "OPENAI_API_KEY": "node-key",
        "PEPA_DB_URL": "postgresql://node@db.example/pepa",
        "PEPA_OPENAI_URL": "https://node:pw@llm.example/v1",
    }
    filled = fill_secrets(payload(tmp_path, bots), environ)
    assert [c.password for c in filled] == ["node-pw", "node-pw"]
    assert [c.openai_key for c in filled] == ["node-key", None]  # bot_b had none
    assert filled[1].db_url == "postgresql://node@db.example/pepa"


def test_a_secrets_file_of_another_run_is_passed_over(tmp_path: Path) -> None:
    bots = configs(tmp_path)
    write_secrets(bots[0].server_root / SECRETS_FILE, "another-run", bots)
    environ = {"MC_PASSWORD": "node-pw", "OPENAI_API_KEY": "k", "PEPA_DB_URL": "sqlite:///x.db",
               "PEPA_OPENAI_URL": "http://127.0.0.1:11434/v1"}  # fmt: skip
    assert fill_secrets(payload(tmp_path, bots), environ)[0].password == "node-pw"


def test_a_secret_found_nowhere_refuses_the_group_with_one_line(tmp_path: Path) -> None:
    bots = [replace(c, openai_key=None, openai_url=None, db_url=None) for c in configs(tmp_path)]
    with pytest.raises(ConfigError) as caught:
        fill_secrets(payload(tmp_path, bots), environ={})
    assert str(caught.value) == (
        f"bot_a needs MC_PASSWORD: there is no secrets file {bots[0].server_root / SECRETS_FILE}"
        " on this node and no MC_PASSWORD in its environment (docs/fleet.md, 'Secrets on the"
        " nodes')"
    )


def test_the_supervisor_writes_no_file_without_secrets_and_removes_a_stale_one(
    tmp_path: Path,
) -> None:
    bots = [replace(c, password=None, openai_key=None, openai_url=None, db_url=None)
            for c in configs(tmp_path)]  # fmt: skip
    path = tmp_path / SECRETS_FILE
    path.write_bytes(b"{}")
    assert not write_secrets(path, RUN, bots)
    assert not path.exists()


def _link(path: Path, real: Path) -> None:
    path.symlink_to(real)


def _mode_0644(path: Path, real: Path) -> None:
    os.replace(real, path)
    path.chmod(0o644)


def _nobodys(path: Path, real: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    os.replace(real, path)
    os.chown(path, NOBODY, -1)


@pytest.mark.parametrize(
    ("plant", "said"),
    [
        (_link, "is a symbolic link, not a file; refused"),
        (_mode_0644, "has mode 0644; a file holding a secret must be 0600; refused"),
        (_nobodys, f"is owned by uid {NOBODY}, not by this user"),
    ],
    ids=["symlink", "mode-0644", "other-owner"],
)
def test_a_secrets_file_not_safely_this_users_is_refused_with_one_line(
    tmp_path: Path, plant: object, said: str
) -> None:
    bots = configs(tmp_path)
    path = bots[0].server_root / SECRETS_FILE
    path.parent.mkdir(parents=True)
    real = tmp_path / "real-secrets.json"
    write_secrets(real, RUN, bots)  # a valid file: only where or how it lies is wrong
    plant(path, real)  # type: ignore[operator]
    with pytest.raises(ConfigError) as caught:
        fill_secrets(payload(tmp_path, bots), environ={"MC_PASSWORD": "never-used"})
    line = str(caught.value)
    assert line.startswith(f"secrets file {path}: ") and said in line, line
    assert "\n" not in line
    with pytest.raises(ConfigError):
        read_secrets(path, RUN)


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({}, "joins only a Ray cluster with token authentication: set RAY_AUTH_MODE=token here"),
        ({"RAY_AUTH_MODE": "disabled"}, "set RAY_AUTH_MODE=token (it is 'disabled') here"),
        ({"RAY_AUTH_MODE": "token", "HOME": "/nonexistent"}, "but no Ray token here"),
    ],
    ids=["unset", "disabled", "no-token"],
)
def test_the_supervisor_refuses_to_join_without_ray_token_mode(
    environ: dict[str, str], said: str
) -> None:
    pytest.importorskip("ray.exceptions", reason="Ray: pip install 'pepa[fleet]'")
    with pytest.raises(ConfigError, match=re.escape(said)):
        check_token_mode(environ)


def test_a_token_in_the_environment_or_the_default_file_is_enough(tmp_path: Path) -> None:
    pytest.importorskip("ray.exceptions", reason="Ray: pip install 'pepa[fleet]'")
    check_token_mode({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "t" * 32})
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("t" * 32)
    check_token_mode({"RAY_AUTH_MODE": "TOKEN", "HOME": str(tmp_path)})


def test_a_group_refused_its_secrets_ends_as_a_refused_configuration_with_no_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    environ = {"PATH": "/usr/bin", "MC_PASSWORD": "node-pw", "RAY_AUTH_TOKEN": "t" * 64}
    monkeypatch.setattr(os, "environ", environ)  # GroupHost scrubs its process's environment
    bots = configs(tmp_path)
    path = bots[0].server_root / SECRETS_FILE
    write_secrets(path, RUN, bots)
    path.chmod(0o644)
    host = GroupHost(orjson.dumps(payload(tmp_path, bots)))
    assert host.ended == EXIT_CONFIG and host.worker is None
    assert host.reason.startswith(f"secrets file {path}: has mode 0644"), host.reason
    assert host.stop(1.0) == EXIT_CONFIG
    assert environ == {"PATH": "/usr/bin"}  # scrubbed all the same: no secret, no Ray token
